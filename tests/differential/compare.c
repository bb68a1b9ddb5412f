/* The comparison: the first op whose return value (or, for a load, value read) differs
 * between the model and the host, and the context era.c judges it by: the address
 * space before it as 2.6.11 has it, and for a load, the op that wrote what it read.
 *
 * Only the first disagreement counts: after it the two address spaces may differ, and
 * every later difference could be an echo of it.
 */
#include "diff.h"

#include <string.h>

#define PROT_READ_  1
#define PROT_WRITE_ 2
#define PROT_EXEC_  4

unsigned long diff_uaddr(const unsigned long *map_addr, const struct uref *u)
{
	unsigned long base = u->map == PROG_NULL_MAP ? 0 : map_addr[u->map];

	return base + u->page * DIFF_PAGE + u->word * 4u + (u->misaligned ? 2u : 0u);
}

unsigned long diff_len(const struct program *p, int op)
{
	return op_has_pages(p->ops[op].kind) ? (p->ops[op].x + 1ul) * DIFF_PAGE : 0;
}

uint32_t shadow_page(const struct shadow *s, unsigned long addr)
{
	if (addr < DIFF_BASE || addr >= DIFF_BASE + DIFF_WINDOW)
		return 0;
	return s->pg[(addr - DIFF_BASE) / DIFF_PAGE];
}

bool shadow_any(const struct shadow *s, unsigned long start, unsigned long len, uint32_t mask,
		uint32_t want)
{
	for (unsigned long a = start & ~(DIFF_PAGE - 1); a < start + len; a += DIFF_PAGE)
		if ((shadow_page(s, a) & mask) == want)
			return true;
	return false;
}

static uint32_t *page_of(struct shadow *s, unsigned long addr)
{
	static uint32_t outside;

	outside = 0;
	if (addr < DIFF_BASE || addr >= DIFF_BASE + DIFF_WINDOW)
		return &outside;
	return &s->pg[(addr - DIFF_BASE) / DIFF_PAGE];
}

long diff_key_then(const struct kernel_config *k, const struct shadow *s, unsigned long addr,
		   bool write)
{
	uint32_t pg = shadow_page(s, addr);

	if (addr % 4)
		return -EINVAL_;
	if (!(pg & SH_MAPPED))
		return -EFAULT_;      /* find_extend_vma(); get_user_pages() finds no VMA either */
	if (!k->futex->key_from_page) /* the key from the VMA: VM_READ, no page touched */
		return (pg & PROT_READ_) ? 0 : -EACCES_;
	if (write) /* get_user_pages_fast(write 1): VM_WRITE, and a page the fault can give */
		return (pg & (PROT_WRITE_ | SH_PAST_EOF)) == PROT_WRITE_ ? 0 : -EFAULT_;
	/* the lockless walk takes a mapped page whose PTE is present and user (not PROT_NONE)
	 * without asking the VMA; every page the model maps has a ->mapping */
	if ((pg & SH_PRESENT) && (pg & SH_PROT))
		return 0;
	/* get_user_pages(write 0): VM_READ, and a page filemap_fault() finds */
	if (!(pg & PROT_READ_) || (pg & SH_PAST_EOF))
		return -EFAULT_;
	/* follow_page()'s FOLL_ANON gives an anonymous page never faulted in as the ZERO_PAGE
	 * (use_zero_page(): not VM_LOCKED, not VM_SHARED), whose ->mapping is NULL */
	if (!(pg & (SH_SHARED | SH_FILE | SH_LOCKED)))
		return DIFF_KEY_LOOP;
	return 0;
}

/* Can a read fault map a page in state pg on kernel k (do_page_fault())? */
static bool user_reads(const struct kernel_config *k, uint32_t pg)
{
	return (pg & SH_MAPPED) && !(pg & SH_PAST_EOF) &&
	       (pg & (PROT_READ_ | PROT_EXEC_ | (k->mm->read_fault_write_only ? PROT_WRITE_ : 0)));
}

/* Does the model's kernel k take futex op o's keys (at a and b)? */
static bool futex_keys(const struct kernel_config *k, const struct shadow *s, const struct op *o,
		       unsigned long a, unsigned long b)
{
	if (op_arg_get(o, &op_arg_private))
		return !(a % 4) && (!op_uses_b(o->kind) || !(b % 4));
	return !diff_key_then(k, s, a, false) &&
	       (!op_uses_b(o->kind) || !diff_key_then(k, s, b, diff_key2_write(k, o)));
}

/* An access faulted the pages of [lo, lo + n) in (n 0: none) */
static void mark_present(struct shadow *s, unsigned long lo, unsigned long n)
{
	for (unsigned long x = lo & ~(DIFF_PAGE - 1); n && x < lo + n; x += DIFF_PAGE)
		if (*page_of(s, x) & SH_MAPPED)
			*page_of(s, x) |= SH_PRESENT;
}

/* mprotect and mlock as 2.6.11 does them: VMA by VMA from start, up to the first hole
 * (sys_mprotect(), do_mlock()); nothing if start is in a hole. */
static void up_to_hole(struct shadow *s, unsigned long start, unsigned long len, uint32_t clear,
		       uint32_t set)
{
	for (unsigned long a = start; a < start + len; a += DIFF_PAGE) {
		uint32_t *pg = page_of(s, a);
		if (!(*pg & SH_MAPPED))
			return;
		*pg = (uint32_t)((*pg & ~clear) | set);
	}
}

/* A write into [lo, lo + n) made each private page of a file there the task's own copy
 * (a write fault's COW): the user's or the kernel's (copy_to_user: where the VMA is
 * writable), or a forced one (any). */
static void cow_written(struct shadow *s, unsigned long lo, unsigned long n, bool forced)
{
	for (unsigned long x = lo & ~(DIFF_PAGE - 1); n && x < lo + n; x += DIFF_PAGE) {
		uint32_t *pg = page_of(s, x);
		if ((*pg & (SH_MAPPED | SH_SHARED | SH_FILE)) == (SH_MAPPED | SH_FILE) &&
		    (forced || (*pg & PROT_WRITE_)))
			*pg = (uint32_t)((*pg | SH_COW) & ~SH_TODAY_COW);
	}
}

/* An answer that says the futex word was read: -EAGAIN (it differed), -ETIMEDOUT (it
 * matched and the wait timed out), or a count (futex_cmp_requeue matched). */
static bool value_answer(long ret)
{
	return ret == -EAGAIN_ || ret == -ETIMEDOUT_ || ret >= 0;
}

/* What op i (one run of it, at a and b) did to the address space, given its return. */
static void shadow_op(struct shadow *s, const struct program *p, const struct kernel_config *k,
		      const struct op *o, long ret, unsigned long a, unsigned long b,
		      unsigned long len)
{
	int fd = o->y >> 4 & 3; /* an mmap's file: the fd-th the program declares */
	const struct file_spec *f = fd ? &p->files[fd - 1] : NULL;

	switch (o->kind) {
	case OP_MMAP:
		if (ret > 0)
			for (unsigned long x = (unsigned long)ret; x < (unsigned long)ret + len;
			     x += DIFF_PAGE)
				*page_of(s, x) =
				    (uint32_t)(SH_MAPPED | (o->y & 7) |
					       ((o->y & 8) ? SH_SHARED : 0) | (f ? SH_FILE : 0) |
					       (f && f->readonly ? SH_FILE_RO : 0) |
					       (f && x >= (unsigned long)ret + f->pages * DIFF_PAGE
						    ? SH_PAST_EOF
						    : 0));
		break;
	case OP_MUNMAP:
		if (ret == 0)
			for (unsigned long x = a; x < a + len; x += DIFF_PAGE)
				*page_of(s, x) = 0;
		break;
	case OP_MPROTECT:
		/* today's mprotect_fixup(): a private VM_LOCKED VMA becoming writable is
		 * populated for writing ("trigger COW to avoid major fault on access") */
		if (ret == 0 && (o->y & PROT_WRITE_))
			for (unsigned long x = a; x < a + len; x += DIFF_PAGE)
				if ((*page_of(s, x) &
				     (SH_LOCKED | SH_SHARED | PROT_WRITE_ | SH_COW)) == SH_LOCKED) {
					cow_written(s, x, 1, true);
					*page_of(s, x) |=
					    *page_of(s, x) & SH_COW ? SH_TODAY_COW : 0;
				}
		if (ret == 0)
			up_to_hole(s, a, len, SH_PROT | SH_MPROT_H, o->y & 7);
		else if (ret == -ENOMEM_ && !(a & (DIFF_PAGE - 1))) /* a hole */
			up_to_hole(s, a, len, SH_PROT, (uint32_t)((o->y & 7) | SH_MPROT_H));
		else if (ret == -EACCES_) /* the VMAs before the refused one changed */
			for (unsigned long x = a; x < a + len; x += DIFF_PAGE) {
				uint32_t *pg = page_of(s, x);
				if (!(*pg & SH_MAPPED) ||
				    ((*pg & (SH_SHARED | SH_FILE_RO)) == (SH_SHARED | SH_FILE_RO) &&
				     (o->y & PROT_WRITE_)))
					break;
				*pg = (uint32_t)((*pg & ~SH_PROT) | (o->y & 7));
			}
		break;
	case OP_MLOCK: /* -ENOMEM: a hole; today's mlock faults nothing in then */
		up_to_hole(s, a & ~(DIFF_PAGE - 1), len + (a & (DIFF_PAGE - 1)),
			   ret == 0 ? SH_MLOCK_H : 0,
			   (uint32_t)(SH_LOCKED | (ret == -ENOMEM_ ? SH_MLOCK_H : 0)));
		/* both fault the pages in for writing where the mapping is private and writable
		 * (make_pages_present(): write = VM_WRITE; populate_vma_page_range(): FOLL_WRITE)
		 */
		if (ret == 0)
			cow_written(s, a, len, false);
		/* the model's mlock_fixup() faults in each VMA it locks, up to a hole */
		if (ret == 0 || ret == -ENOMEM_)
			up_to_hole(s, a & ~(DIFF_PAGE - 1), len + (a & (DIFF_PAGE - 1)), 0,
				   SH_PRESENT);
		break;
	case OP_FUTEX_WAIT: /* today's get_futex_key() takes the page: faults it in */
	case OP_FUTEX_WAKE:
	case OP_FUTEX_REQUEUE:
	case OP_FUTEX_CMP_REQUEUE:
	case OP_FUTEX_WAKE_OP:
		/* a private key (2.6.22's and today's) is (mm, address): no page taken; the
		 * word's reads fault it in alike on both sides */
		for (int key = 0; key < 1 + op_uses_b(o->kind) && !op_arg_get(o, &op_arg_private);
		     key++) {
			unsigned long x = key ? b : a;
			uint32_t *pg = page_of(s, x);
			bool w = key && diff_key2_write(k, o);
			/* a key from the page (2.6.28 on) faults it in too, once the key before
			 * it was taken */
			if (k->futex->key_from_page && !(key && diff_key_then(k, s, a, false)) &&
			    !diff_key_then(k, s, x, w))
				*pg |= SH_PRESENT;
			if ((*pg & (SH_MAPPED | SH_SHARED)) == (SH_MAPPED | SH_SHARED))
				*pg |= SH_FUTEX_IN;
			/* and with FOLL_WRITE, breaks COW of a private writable file page, once the
			 * keys before it were taken (a misaligned address is -EINVAL first, a
			 * hole -EFAULT): on the model's kernel too where it takes that key for
			 * writing */
			if ((a % 4) || (key && (b % 4)) ||
			    (key && !(shadow_page(s, a) & SH_MAPPED)))
				break;
			if ((*pg & (SH_MAPPED | SH_SHARED | SH_FILE | PROT_WRITE_ | SH_COW)) ==
			    (SH_MAPPED | SH_FILE | PROT_WRITE_))
				*pg |= w ? SH_COW : SH_COW | SH_TODAY_COW;
		}
		/* the operation wrote B through a write fault on both kernels */
		if (o->kind == OP_FUTEX_WAKE_OP && diff_wake_op_wrote(k, o, ret) > 0)
			cow_written(s, b, 4, false);
		/* the model's, once it has the keys: the operation wrote B, or faulted and its
		 * fault path's get_user() read it (an operation refused, -ENOSYS, touches
		 * nothing); the word's read (get_user()) faulted A in. (Per run: ret is only
		 * the last's.) */
		if (!futex_keys(k, s, o, a, b))
			break;
		if (o->kind == OP_FUTEX_WAKE_OP &&
		    (diff_wake_op_wrote(k, o, ret) > 0 ||
		     (ret != -ENOSYS_ && user_reads(k, shadow_page(s, b)))))
			mark_present(s, b, 4);
		if ((o->kind == OP_FUTEX_WAIT || o->kind == OP_FUTEX_CMP_REQUEUE) &&
		    user_reads(k, shadow_page(s, a)))
			mark_present(s, a, 4);
		break;
	case OP_STORE: /* a private page of a file: the task's own copy from now on */
		/* (each-page: ret is the last page's; a page of the file it could write was) */
		if (ret == 0 || (o->each_page &&
				 (*page_of(s, a) & (PROT_WRITE_ | SH_PAST_EOF)) == PROT_WRITE_)) {
			cow_written(s, a, 4, false);
			mark_present(s, a, 4);
		}
		break;
	case OP_POKEDATA:
		if (ret == 0) {
			cow_written(s, a, 4, true);
			mark_present(s, a, 4);
		}
		break;
	case OP_PEEKDATA: /* get_user_pages(force): an anonymous page not there is FOLL_ANON's
			     ZERO_PAGE, never mapped */
		if (ret == 0 && (*page_of(s, a) & (SH_SHARED | SH_FILE)))
			mark_present(s, a, 4);
		break;
	case OP_GET_MEMPOLICY: /* the policy at A, the node mask at A+8 */
		if (ret == 0) {
			cow_written(s, a, 4, false);
			cow_written(s, a + 8, o->x ? 8 : 0, false);
			mark_present(s, a, 4);
			mark_present(s, a + 8, o->x ? 8 : 0);
		}
		break;
	case OP_MADVISE: /* MADV_DONTNEED: the copy goes, the file's page comes back (-ENOMEM:
			    both kernels skip a hole, zap every VMA and say so at the end) */
		/* -EINVAL with a start in a page: a VM_LOCKED VMA, whose zap refuses; the VMAs
		 * before it are zapped already (madvise_dontneed(), VMA by VMA) */
		if (ret == 0 || ret == -ENOMEM_ || (ret == -EINVAL_ && !(a % DIFF_PAGE)))
			for (unsigned long x = a; x < a + len && !(*page_of(s, x) & SH_LOCKED);
			     x += DIFF_PAGE)
				*page_of(s, x) &= (uint32_t) ~(SH_COW | SH_TODAY_COW | SH_PRESENT);
		break;
	case OP_LOAD: { /* today reads a write-only page: faults it in */
		uint32_t *pg = page_of(s, a);
		if ((*pg & (SH_MAPPED | SH_SHARED | SH_PROT)) == (SH_MAPPED | SH_SHARED | 2))
			*pg |= SH_LOAD_IN;
		if (ret == 0 || (o->each_page && user_reads(k, *pg)))
			mark_present(s, a, 4);
		break;
	}
	case OP_MINCORE: /* anonymous memory or a hole: the kernels write different bytes */
		/* a vector in a file's page: what the file holds differs from here on */
		if ((ret == 0 || ret == -ENOMEM_) &&
		    shadow_any(s, b, len / DIFF_PAGE, SH_MAPPED | SH_FILE, SH_MAPPED | SH_FILE))
			s->file_vec = true;
		/* -ENOMEM: a hole; today writes the vector for what comes before it, so unless
		 * the range starts in one */
		if (ret == 0 || (ret == -ENOMEM_ && (shadow_page(s, a) & SH_MAPPED)))
			cow_written(s, b, len / DIFF_PAGE, false);
		if (ret == 0) /* (the model's -ENOMEM may have written some of it: not marked) */
			mark_present(s, b, len / DIFF_PAGE);
		if (ret != -EINVAL_ && (shadow_any(s, a, len, SH_MAPPED | SH_SHARED, SH_MAPPED) ||
					shadow_any(s, a, len, SH_MAPPED, 0)))
			for (unsigned long x = b; x < b + len / DIFF_PAGE; x++) {
				uint32_t *pg = page_of(s, x);
				if ((*pg & (SH_MAPPED | SH_SHARED)) == (SH_MAPPED | SH_SHARED))
					*pg |= SH_VEC_IN;
			}
		break;
	}
}

/* Replay ops [0, upto) into s; map_addr gets where each mapping is by then. */
static void shadow_replay(const struct program *p, const struct kernel_config *k,
			  const struct run_result *m, int upto, struct shadow *s,
			  unsigned long *map_addr)
{
	memset(s, 0, sizeof(*s));
	memset(map_addr, 0, sizeof(map_addr[0]) * PROG_MAX_MAPS);
	for (int i = 0; i < upto; i++) {
		const struct op *o = &p->ops[i];
		unsigned long a = diff_uaddr(map_addr, &o->a), b = diff_uaddr(map_addr, &o->b);
		unsigned long len = diff_len(p, i);
		for (int n = 0; n < op_instances(p, i); n++)
			shadow_op(s, p, k, o, m->ret[i], a + (unsigned long)n * DIFF_PAGE, b, len);
		if (o->kind == OP_MMAP && m->ret[i] > 0)
			map_addr[mmap_index_of(p, i)] = (unsigned long)m->ret[i];
	}
}

static bool overlaps(unsigned long lo1, unsigned long n1, unsigned long lo2, unsigned long n2)
{
	return n1 && n2 && lo1 < lo2 + n2 && lo2 < lo1 + n1;
}

static int wake_op_arg(const struct op *o, const char *name)
{
	return op_arg_get(o, op_arg_named(OP_FUTEX_WAKE_OP, name, strlen(name)));
}

int diff_wake_op_wrote(const struct kernel_config *k, const struct op *o, long ret)
{
	int op = wake_op_arg(o, "op"), cmp = wake_op_arg(o, "cmp");

	/* futex_atomic_op_inuser(): -ENOSYS for an operation it has no name for comes
	 * before the write, for a comparison after it (FUTEX_OP_XOR 4, FUTEX_OP_CMP_GE 5);
	 * 2.6.14 takes that -ENOSYS for a fault and ends in -EFAULT, having done the
	 * operation twice where the word's PTE was writable, else not at all: maybe */
	if (k && !strcmp(k->name, "2.6.14") && ret == -EFAULT_ && op <= 4 && cmp > 5)
		return -1;
	return ret >= 0 || (ret == -ENOSYS_ && op <= 4 && cmp > 5);
}

/* A futex_wake_op that surely did an operation that reads the old value (all but
 * FUTEX_OP_SET 0): what it wrote differs where the word differed before it */
static bool wake_op_reads(const struct kernel_config *k, const struct op *o, long ret)
{
	return o->kind == OP_FUTEX_WAKE_OP && wake_op_arg(o, "op") != 0 &&
	       diff_wake_op_wrote(k, o, ret) > 0;
}

/* Does op o (one run, at a and b; len bytes) write any of [x, x+n)? s is the address
 * space before it. -EINVAL comes before any write. */
static bool writes(const struct shadow *s, const struct kernel_config *k, const struct op *o,
		   long ret, unsigned long a, unsigned long b, unsigned long len, unsigned long x,
		   unsigned long n)
{
	if (ret == -EINVAL_)
		return false;
	switch (o->kind) {
	case OP_STORE:
	case OP_POKEDATA:
		return ret == 0 && overlaps(a, 4, x, n);
	case OP_GET_MEMPOLICY: /* the policy at A, the node mask at A+8 (8 bytes in 2.6.11);
				  -EFAULT mostly comes before both (no VMA at addr) */
		return ret == 0 &&
		       ((a && overlaps(a, 4, x, n)) || (o->x && overlaps(a + 8, 8, x, n)));
	case OP_MINCORE: /* one byte a page, at the vector B */
		return overlaps(b, len / DIFF_PAGE, x, n);
	case OP_FUTEX_WAKE_OP:
		return diff_wake_op_wrote(k, o, ret) != 0 && overlaps(b, 4, x, n);
	case OP_MMAP:
		return ret > 0 && overlaps((unsigned long)ret, (o->x + 1ul) * DIFF_PAGE, x, n);
	case OP_MUNMAP:
		return ret == 0 && overlaps(a, len, x, n);
	case OP_MADVISE: /* a private page reads zero again; a shared one keeps its data */
		return overlaps(a, len, x, n) && !(shadow_page(s, x) & SH_SHARED);
	}
	return false;
}

/* The last op before `op` that wrote some of the n bytes at x, or -1; past a
 * futex_wake_op that changed what an earlier op wrote there, the earlier one. */
static int find_writer(const struct program *p, const struct kernel_config *k,
		       const struct run_result *m, int op, unsigned long x, unsigned long n,
		       unsigned long *wa, unsigned long *wb)
{
	static struct shadow s;
	unsigned long map_addr[PROG_MAX_MAPS] = {0};
	int w = -1;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < op; i++) {
		const struct op *o = &p->ops[i];
		unsigned long a = diff_uaddr(map_addr, &o->a), b = diff_uaddr(map_addr, &o->b);
		unsigned long len = diff_len(p, i);
		for (int j = 0; j < op_instances(p, i); j++) {
			unsigned long aj = a + (unsigned long)j * DIFF_PAGE;
			if (writes(&s, k, o, m->ret[i], aj, b, len, x, n) &&
			    (w < 0 || !wake_op_reads(k, o, m->ret[i]))) {
				w = i;
				*wa = aj;
				*wb = b;
			}
			shadow_op(&s, p, k, o, m->ret[i], aj, b, len);
		}
		if (o->kind == OP_MMAP && m->ret[i] > 0)
			map_addr[mmap_index_of(p, i)] = (unsigned long)m->ret[i];
	}
	return w;
}

void diff_compare(const struct program *p, const struct kernel_config *k,
		  const struct run_result *m, const struct host_result *h, int from,
		  struct divergence *d)
{
	unsigned long map_addr[PROG_MAX_MAPS];
	int i;

	d->kind = DIV_NONE;
	d->kernel = k;
	d->p = p;
	d->m = m;
	d->h = h;
	d->op = -1;
	d->value = false;
	d->writer = -1;
	for (i = from; i < p->nops && d->kind == DIV_NONE; i++) {
		const struct op *o = &p->ops[i];
		if (o->task != 1 || o->kind == OP_RECLAIM)
			continue;
		if (!m->ran[i])
			d->kind = DIV_FINDING;
		else if (o->kind == OP_MMAP && m->ret[i] <= 0 && m->ret[i] != h->ret[i])
			d->kind = h->ret[i] > 0 ? DIV_RET : DIV_NO_PLACE;
		else if (m->ret[i] != h->ret[i])
			d->kind = DIV_RET;
		else if ((o->kind == OP_LOAD || o->kind == OP_PEEKDATA) &&
			 m->loaded[i] != h->loaded[i])
			d->kind = DIV_VALUE;
	}
	if (d->kind == DIV_NONE)
		return;
	d->op = i - 1;
	shadow_replay(p, k, m, d->op, &d->before, map_addr);
	const struct op *o = &p->ops[d->op];
	d->a = diff_uaddr(map_addr, &o->a) + (op_instances(p, d->op) - 1ul) * DIFF_PAGE;
	d->b = diff_uaddr(map_addr, &o->b);
	d->len = diff_len(p, d->op);
	d->value =
	    d->kind == DIV_VALUE ||
	    (d->kind == DIV_RET && (o->kind == OP_FUTEX_WAIT || o->kind == OP_FUTEX_CMP_REQUEUE) &&
	     value_answer(m->ret[d->op]) && value_answer(h->ret[d->op]));
	if (!d->value)
		return;
	/* a load: the first byte that differs (bytes may come from several writers) */
	unsigned long x = d->a, n = 4;
	if (d->kind == DIV_VALUE) {
		uint32_t diff = m->loaded[d->op] ^ h->loaded[d->op];
		for (n = 1; !(diff & 0xff); diff >>= 8)
			x++;
	}
	d->at = x;
	d->writer = find_writer(p, k, m, d->op, x, n, &d->wa, &d->wb);
	if (d->writer >= 0) {
		shadow_replay(p, k, m, d->writer, &d->at_writer, map_addr);
		d->wlen = diff_len(p, d->writer);
	}
}
