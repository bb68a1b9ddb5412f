/* The table of known differences between the model (2.6.11) and the host kernel.
 *
 * Each entry is a predicate on the first disagreement of a program (its op, the two
 * answers, the address space before it as 2.6.11 has it, and for a load the op that
 * wrote what it read), with its sources: the 2.6.11 file and function, and where today's
 * kernel (or, for a known model defect, the model) does otherwise. docs/differential.md
 * says the same in words. The first entry that matches wins; a disagreement that matches
 * none is a DEFECT.
 *
 * Known model defects come first where they change what the address space looks like
 * (an era predicate reads the 2.6.11 view, which the defect makes the model leave), and
 * are no era differences: the 2.6.11 source disagrees with the model there.
 */
#include "diff.h"

#include <string.h>

#define PROT_R     1
#define PROT_W     2
#define PROT_X     4
#define MPOL_NODE_ 1
#define MPOL_ADDR_ 2

static const struct op *op_of(const struct divergence *d)
{
	return &d->p->ops[d->op];
}

static long mret(const struct divergence *d)
{
	return d->m->ret[d->op];
}

static long hret(const struct divergence *d)
{
	return d->h->ret[d->op];
}

/* --- futex keys: the model kernel's get_futex_key() against today's -------------------- */

/* Today: get_user_pages_fast(FOLL_WRITE), else read-only, refused for an anonymous
 * page (or the ZERO_PAGE). The read-only try needs VM_READ, but its lockless walk
 * takes a page whose PTE is there and user-readable without looking at the VMA: so an
 * exec-only shared page works once something touched it, and gives -EFAULT before.
 * `either` picks which (this file has no record of PTEs). */
static long key_today(const struct shadow *s, unsigned long addr, bool either, bool write)
{
	uint32_t pg = shadow_page(s, addr);

	if (addr % 4)
		return -EINVAL_;
	if (!(pg & SH_MAPPED))
		return -EFAULT_;
	if (write) /* FUTEX_WRITE (FUTEX_WAKE_OP's second word): no read-only try */
		return (pg & (PROT_W | SH_PAST_EOF)) == PROT_W ? 0 : -EFAULT_;
	/* a page-cache page: a shared mapping's, or a private one's the task has not written */
	bool cache = (pg & SH_SHARED) || (pg & (SH_FILE | SH_COW)) == SH_FILE;
	if ((pg & PROT_W) || ((pg & PROT_R) && cache))
		return 0;
	if (cache && (pg & SH_PROT) == PROT_X)
		return either ? 0 : -EFAULT_;
	return -EFAULT_;
}

/* The page whose key the model's kernel and today's answer differently, when that
 * explains both answers; 0 if none. The keys are taken in order (A, then B for a
 * requeue), the first error is the answer. A private key is (mm, address) on both. */
static unsigned long futex_key_page(const struct divergence *d)
{
	const struct op *o = op_of(d);
	unsigned long addr[2] = {d->a, d->b};
	int n = 1 + op_uses_b(o->kind);

	if (d->kind != DIV_RET || !diff_is_futex(o->kind) || op_arg_get(o, &op_arg_private))
		return 0;
	for (int either = 0; either < 4; either++) { /* bit k: how page k answers today */
		unsigned long page = 0;
		long then = 0, now = 0;
		for (int k = 0; k < n; k++) {
			long t = diff_key_then(d->kernel, &d->before, addr[k],
					       k && diff_key2_write(d->kernel, o));
			long w = key_today(&d->before, addr[k], either >> k & 1,
					   k && o->kind == OP_FUTEX_WAKE_OP);
			if (!page && t != w && !then && !now)
				page = addr[k];
			then = then ? then : t;
			now = now ? now : w;
		}
		if (page && (!then || mret(d) == then) && (!now || hret(d) == now))
			return page;
	}
	return 0;
}

/* The table names each twice, with the sources of keys from the VMA (2.6.11 to 2.6.22)
 * and of keys from the page (2.6.28 on). */
static bool futex_no_read(const struct divergence *d, const struct host_info *hi)
{
	unsigned long page = futex_key_page(d);

	(void)hi;
	return page && !(shadow_page(&d->before, page) & PROT_R);
}

static bool futex_ro_private(const struct divergence *d, const struct host_info *hi)
{
	unsigned long page = futex_key_page(d);

	(void)hi;
	return page && (shadow_page(&d->before, page) & (PROT_R | PROT_W | SH_SHARED)) == PROT_R;
}

/* 2.6.28's key of an anonymous page never faulted in: FOLL_ANON's ZERO_PAGE, which has
 * no ->mapping, and get_futex_key() goes `again` for ever; the keys before it taken. With
 * each-page, in some run of the op (d->a is the last's). */
static bool futex_zero_page_loop(const struct divergence *d, const struct host_info *hi)
{
	const struct op *o = op_of(d);
	int runs = op_instances(d->p, d->op);

	(void)hi;
	if (!diff_is_futex(o->kind) || op_arg_get(o, &op_arg_private) ||
	    strncmp(d->m->verdict, "livelock", 8))
		return false;
	for (int run = 0; run < runs; run++) {
		unsigned long addr[2] = {d->a - (unsigned long)(runs - 1 - run) * DIFF_PAGE, d->b};
		for (int k = 0; k < 1 + op_uses_b(o->kind); k++) {
			long t = diff_key_then(d->kernel, &d->before, addr[k],
					       k && diff_key2_write(d->kernel, o));
			if (t == DIFF_KEY_LOOP)
				return true;
			if (t)
				break;
		}
	}
	return false;
}

/* 2.6.30's futex_wake_op() on a private futex whose second word faults: its label
 * retry_private comes after double_lock_hb(), so after the fault it goes back with the
 * buckets unlocked, wakes without their locks and unlocks them again */
static bool wake_op_private_unlocked(const struct divergence *d, const struct host_info *hi)
{
	const struct op *o = op_of(d);

	(void)hi;
	return o->kind == OP_FUTEX_WAKE_OP && op_arg_get(o, &op_arg_private) &&
	       !strcmp(d->m->verdict, "spinlock-wrong-owner");
}

/* --- mincore: the call, and the vector a later load reads --------------------------- */

/* The mincore op whose answer or vector differs: the op itself, or the load's writer. */
static bool mincore_range(const struct divergence *d, const struct shadow **s, unsigned long *start,
			  unsigned long *len)
{
	if (d->kind == DIV_RET && op_of(d)->kind == OP_MINCORE) {
		*s = &d->before, *start = d->a, *len = d->len;
		return true;
	}
	if (d->value && d->writer >= 0 && d->p->ops[d->writer].kind == OP_MINCORE) {
		*s = &d->at_writer, *start = d->wa, *len = d->wlen;
		return true;
	}
	return false;
}

/* A mincore whose answer (or vector) differs, over pages in state `flag`. */
static bool mincore_over(const struct divergence *d, uint32_t mask, uint32_t want)
{
	const struct shadow *s;
	unsigned long start, len;

	return mincore_range(d, &s, &start, &len) && !(start % DIFF_PAGE) &&
	       shadow_any(s, start, len, mask, want);
}

/* A mincore that says a shared page is in core on one side only, because of `flag`. */
static bool mincore_sees(const struct divergence *d, uint32_t flag)
{
	uint32_t f = SH_MAPPED | SH_SHARED | flag;

	return d->value && mincore_over(d, f, f);
}

/* --- user faults, mlock -------------------------------------------------------------- */

static bool load_write_only(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	if (d->kernel->mm->read_fault_write_only)
		return false; /* 2.6.19 on, as today */
	if (mincore_sees(d, SH_LOAD_IN))
		return true; /* the page today's read faulted in, as a later mincore tells */
	return d->kind == DIV_RET && op_of(d)->kind == OP_LOAD && mret(d) == -EFAULT_ &&
	       hret(d) == 0 &&
	       (shadow_page(&d->before, d->a) & (SH_MAPPED | SH_PROT)) == (SH_MAPPED | PROT_W);
}

static bool mlock_no_access(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return d->kind == DIV_RET && op_of(d)->kind == OP_MLOCK && mret(d) == -EFAULT_ &&
	       (hret(d) == 0 || hret(d) == -ENOMEM_) &&
	       shadow_any(&d->before, d->a & ~(DIFF_PAGE - 1), d->len + (d->a & (DIFF_PAGE - 1)),
			  SH_MAPPED | PROT_R | PROT_W, SH_MAPPED);
}

static bool mincore_hole(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	if (d->kernel->mm->mincore_copy_unlocked)
		return false; /* 2.6.20 on: -ENOMEM at the hole, as today */
	if (mincore_sees(d, SH_VEC_IN))
		return true; /* a page an earlier mincore's vector faulted in on one side */
	return mincore_over(d, SH_MAPPED, 0) &&
	       (d->value || (mret(d) == -EFAULT_ && hret(d) == -ENOMEM_));
}

static bool mincore_anon(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return mincore_over(d, SH_MAPPED | SH_SHARED, SH_MAPPED) &&
	       (d->value || (mret(d) == -ENOMEM_ && hret(d) != -ENOMEM_));
}

static bool futex_faults_in(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return mincore_sees(d, SH_FUTEX_IN);
}

static bool mlock_hole_populate(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return mincore_sees(d, SH_MLOCK_H);
}

static bool mlock_relock(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return d->kind == DIV_RET && op_of(d)->kind == OP_MLOCK && mret(d) == 0 &&
	       hret(d) == -ENOMEM_ &&
	       shadow_any(&d->before, d->a & ~(DIFF_PAGE - 1), d->len + (d->a & (DIFF_PAGE - 1)),
			  SH_MAPPED | SH_LOCKED | PROT_R | PROT_W, SH_MAPPED | SH_LOCKED);
}

/* lookup_node() on a page of a VMA without VM_READ that something has mapped already */
static bool mempolicy_node_no_read(const struct divergence *d, const struct host_info *hi)
{
	const struct op *o = op_of(d);

	(void)hi;
	return d->kind == DIV_RET && o->kind == OP_GET_MEMPOLICY &&
	       (o->y & (MPOL_NODE_ | MPOL_ADDR_)) == (MPOL_NODE_ | MPOL_ADDR_) &&
	       mret(d) == -EFAULT_ && hret(d) == 0 &&
	       (shadow_page(&d->before, d->b) & (SH_MAPPED | PROT_R)) == SH_MAPPED;
}

/* --- the host's configuration and the model's documented simplifications ------------- */

/* --- the debugger's forced writes and the files --------------------------------------- */

static bool poke_shared_no_write(const struct divergence *d, const struct host_info *hi)
{
	uint32_t pg = shadow_page(&d->before, d->a);

	(void)hi;
	return op_of(d)->kind == OP_POKEDATA && mret(d) == 0 && hret(d) == -EIO_ &&
	       (pg & (SH_MAPPED | SH_SHARED | PROT_W)) == (SH_MAPPED | SH_SHARED);
}

static bool mlock_past_eof(const struct divergence *d, const struct host_info *hi)
{
	unsigned long a = d->a & ~(DIFF_PAGE - 1);

	(void)hi;
	return op_of(d)->kind == OP_MLOCK && hret(d) == -ENOMEM_ &&
	       (mret(d) == -1 || mret(d) == -EFAULT_) &&
	       shadow_any(&d->before, a, d->len + (d->a - a), SH_MAPPED | SH_PAST_EOF,
			  SH_MAPPED | SH_PAST_EOF);
}

/* a mincore whose vector lies in the range it asks about wrote a later read's bytes */
static bool mincore_unmerged(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return d->value && d->writer >= 0 && d->p->ops[d->writer].kind == OP_MINCORE &&
	       d->wb < d->wa + d->wlen && d->wa < d->wb + d->wlen / DIFF_PAGE;
}

static bool today_cow_frozen(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return d->value && (shadow_page(&d->before, d->at) & SH_TODAY_COW);
}

static bool futex_past_eof(const struct divergence *d, const struct host_info *hi)
{
	const struct op *o = op_of(d);

	(void)hi;
	return diff_is_futex(o->kind) && hret(d) == -EFAULT_ &&
	       ((shadow_page(&d->before, d->a) & SH_PAST_EOF) ||
		(op_uses_b(o->kind) && (shadow_page(&d->before, d->b) & SH_PAST_EOF)));
}

/* mincore over a file mapping wrote the vector a later read disagrees on; or its vector
 * went into a page of a file, which a read of a file page may see through another
 * mapping */
static bool file_cached(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return d->value && ((d->writer >= 0 && d->p->ops[d->writer].kind == OP_MINCORE &&
			     shadow_any(&d->at_writer, d->wa & ~(DIFF_PAGE - 1), d->wlen,
					SH_MAPPED | SH_FILE, SH_MAPPED | SH_FILE)) ||
			    (d->before.file_vec && (shadow_page(&d->before, d->at) & SH_FILE)));
}

/* --- FUTEX_WAKE_OP (2.6.14 on) --------------------------------------------------------- */

static bool is_wake_op(const struct divergence *d)
{
	return d->kind == DIV_RET && op_of(d)->kind == OP_FUTEX_WAKE_OP;
}

/* B's VMA is there and writable, within the file */
static bool wake_op_b_writable(const struct divergence *d)
{
	uint32_t pg = shadow_page(&d->before, d->b);

	return !(d->b % 4) && (pg & (SH_MAPPED | PROT_W | SH_PAST_EOF)) == (SH_MAPPED | PROT_W);
}

static bool wake_op_key_write(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return is_wake_op(d) && mret(d) == -ENOSYS_ && hret(d) == -EFAULT_ &&
	       (shadow_page(&d->before, d->b) & SH_MAPPED) && !wake_op_b_writable(d);
}

static bool wake_op_second_fault(const struct divergence *d, const struct host_info *hi)
{
	(void)hi;
	return is_wake_op(d) && mret(d) == -EFAULT_ &&
	       diff_wake_op_wrote(NULL, op_of(d), hret(d)) > 0 && wake_op_b_writable(d);
}

static bool wake_op_enosys_fault(const struct divergence *d, const struct host_info *hi)
{
	const struct op *w = d->writer >= 0 ? &d->p->ops[d->writer] : NULL;

	(void)hi;
	if (d->value && w && w->kind == OP_FUTEX_WAKE_OP) /* what it did twice, or not */
		return d->m->ret[d->writer] == -EFAULT_;
	return is_wake_op(d) && mret(d) == -EFAULT_ && hret(d) == -ENOSYS_;
}

static bool futex_private_flag(const struct divergence *d, const struct host_info *hi)
{
	const struct op *o = op_of(d);

	(void)hi;
	return diff_is_futex(o->kind) && mret(d) == -ENOSYS_ &&
	       !kernel_private_futexes(d->kernel) && prog_futex_cmd(o, 0);
}

static bool mem_no_force(const struct divergence *d, const struct host_info *hi)
{
	int k = op_of(d)->kind;

	return !hi->mem_force && (k == OP_PEEKDATA || k == OP_POKEDATA) && hret(d) == -EIO_;
}

static bool no_numa(const struct divergence *d, const struct host_info *hi)
{
	return !hi->numa && d->kind == DIV_RET && op_of(d)->kind == OP_GET_MEMPOLICY &&
	       hret(d) == -ENOSYS_;
}

static bool task_policy(const struct divergence *d, const struct host_info *hi)
{
	return hi->task_policy && op_of(d)->kind == OP_GET_MEMPOLICY;
}

static bool mlock_limit(const struct divergence *d, const struct host_info *hi)
{
	long h = hret(d);

	return !hi->unlimited_ml && d->kind == DIV_RET && op_of(d)->kind == OP_MLOCK &&
	       (h == -ENOMEM_ || h == -EPERM_ || h == -EAGAIN_);
}

/* clang-format off */
const struct era_entry era_table[] = {
{"no-numa", ENTRY_CONFIG,
 "get_mempolicy is -ENOSYS: the host kernel has no CONFIG_NUMA (the model is a NUMA kernel)",
 "kernel/sys_ni.c: cond_syscall(sys_get_mempolicy) without CONFIG_NUMA, as today",
 "kernel/sys_ni.c: COND_SYSCALL(get_mempolicy)", no_numa, false, NULL, false},
{"task-policy", ENTRY_CONFIG,
 "get_mempolicy: this process runs with a NUMA policy of its own (numactl), not the default",
 "mm/mempolicy.c, sys_get_mempolicy(): current->mempolicy",
 "mm/mempolicy.c, do_get_mempolicy(): current->mempolicy", task_policy, false, NULL, false},
{"mem-no-force", ENTRY_CONFIG,
 "peekdata/pokedata: this host's /proc/PID/mem does not write with force (or is not "
 "there), so the forced accesses ptrace makes cannot be compared",
 "kernel/ptrace.c, access_process_vm(): get_user_pages(..., force = 1)",
 "fs/proc/base.c, proc_mem_foll_force(): proc_mem.force_override= or "
 "CONFIG_PROC_MEM_{ALWAYS_FORCE,FORCE_PTRACE,NO_FORCE}", mem_no_force, false, NULL, false},
{"mlock-limit", ENTRY_CONFIG,
 "mlock refused by RLIMIT_MEMLOCK without CAP_IPC_LOCK: the model has no limit (docs/model.md)",
 "mm/mlock.c, sys_mlock(): can_do_mlock(), locked <= lock_limit || capable(CAP_IPC_LOCK)",
 "mm/mlock.c, do_mlock(): the same check", mlock_limit, false, NULL, false},
{"futex-page-no-read", ENTRY_ERA,
 "a shared futex on a VMA without VM_READ: from 2.6.28 keyed if its page is mapped "
 "already (the lockless walk asks no VMA), else -EFAULT; today keyed if writable, or "
 "a shared page mapped already, else -EFAULT",
 "kernel/futex.c, get_futex_key(): get_user_pages_fast(address, 1, 0, &page), whose "
 "fallback get_user_pages() needs VM_READ (mm/memory.c); a mapped page it takes unasked",
 "kernel/futex/core.c, get_futex_key(): get_user_pages_fast(FOLL_WRITE), then read-only, "
 "refused for an anonymous page", futex_no_read, true, "2.6.28 2.6.30", false},
{"futex-page-ro-private", ENTRY_ERA,
 "a shared futex on a private mapping without PROT_WRITE: keyed from its page from "
 "2.6.28 on (the anonymous page's mm and address, the file page's inode); -EFAULT today",
 "kernel/futex.c, get_futex_key(): get_user_pages_fast(address, 1, 0, &page), then "
 "PageAnon(page) or page->mapping->host",
 "kernel/futex/core.c, get_futex_key(): \"A RO anonymous page will never change\": -EFAULT",
 futex_ro_private, true, "2.6.28 2.6.30", false},
{"futex-no-read", ENTRY_ERA,
 "futex on a VMA without VM_READ: -EACCES in 2.6.11; today -EFAULT, or it works if writable",
 "kernel/futex.c, get_futex_key(): (vma->vm_flags & (VM_IO|VM_READ)) != VM_READ gives -EACCES",
 "kernel/futex/core.c, get_futex_key(): no VMA check; get_user_pages_fast(FOLL_WRITE), "
 "then read-only (whose lockless walk takes a present exec-only PTE)", futex_no_read, true, NULL, false},
{"futex-ro-private", ENTRY_ERA,
 "futex on a private mapping without PROT_WRITE: keyed in 2.6.11; -EFAULT today",
 "kernel/futex.c, get_futex_key(): VM_READ suffices; private keys are (mm, address)",
 "kernel/futex/core.c, get_futex_key(): \"A RO anonymous page will never change\": -EFAULT "
 "(the ZERO_PAGE has no mapping: -EFAULT too)", futex_ro_private, true, NULL, false},
{"load-write-only", ENTRY_ERA,
 "a user read of a not-present page of a write-only VMA: SIGSEGV in 2.6.11, allowed today",
 "arch/i386/mm/fault.c, do_page_fault(): read, not present needs VM_READ | VM_EXEC",
 "arch/x86/mm/fault.c, access_error(): vma_is_accessible() (VM_READ|VM_WRITE|VM_EXEC)",
 load_write_only, true, NULL, false},
{"mlock-no-access", ENTRY_ERA,
 "mlock over a VMA with neither PROT_READ nor PROT_WRITE: -EFAULT in 2.6.11; today 0 "
 "(exec-only) or -ENOMEM (PROT_NONE, or a hole after it)",
 "mm/mlock.c, mlock_fixup() -> mm/memory.c, make_pages_present() -> get_user_pages(): "
 "no VM_READ gives -EFAULT, per VMA, before the next VMA or hole",
 "mm/mlock.c, apply_vma_lock_flags() sets VM_LOCKED everywhere first (a hole: -ENOMEM); "
 "mm/gup.c, populate_vma_page_range(): FOLL_FORCE unless PROT_NONE; "
 "__mlock_posix_error_return(): -EFAULT becomes -ENOMEM", mlock_no_access, false, NULL, false},
{"mincore-hole", ENTRY_ERA,
 "mincore over a hole: 2.6.11 skips it, fills the vector for the VMAs after it (at an "
 "index that does not count the hole) and says -ENOMEM at the end; today stops at the hole",
 "mm/mincore.c, sys_mincore(): unmapped_error, index += (vm_end - start) >> PAGE_SHIFT",
 "mm/mincore.c, do_mincore(): vma_lookup() fails: -ENOMEM at once", mincore_hole, true, NULL, false},
{"mincore-anon", ENTRY_ERA,
 "mincore over anonymous (private) memory: -ENOMEM in 2.6.11; answered today",
 "mm/mincore.c, mincore_vma(): !vma->vm_file gives -ENOMEM",
 "mm/mincore.c, do_mincore() -> mincore_pte_range(): a present PTE is in core", mincore_anon, true, NULL, false},
{"futex-faults-in", ENTRY_ERA,
 "a futex op on a shared page faults it in today, so a later mincore says it is in core; "
 "2.6.11 keys a shared mapping by its VMA and never touches the page (2.6.28 on: nor a "
 "page it refuses for want of VM_READ)",
 "kernel/futex.c, get_futex_key(): key->shared.pgoff from the VMA (linear mapping)",
 "kernel/futex/core.c, get_futex_key(): get_user_pages_fast() faults the page in",
 futex_faults_in, true, NULL, false},
{"mlock-hole-populate", ENTRY_ERA,
 "mlock over a hole: 2.6.11 faults in the pages of the VMAs before the hole, today's mlock "
 "returns -ENOMEM before faulting anything in (a later mincore tells)",
 "mm/mlock.c, do_mlock() -> mlock_fixup() -> make_pages_present(), VMA by VMA",
 "mm/mlock.c, do_mlock(): apply_vma_lock_flags() fails at the hole, __mm_populate() is "
 "never reached", mlock_hole_populate, true, NULL, false},
{"mlock-relock", ENTRY_ERA,
 "mlock again over VMAs it locked before, one of them with neither PROT_READ nor "
 "PROT_WRITE: 0 in 2.6.11, which faults nothing in where the flags do not change; -ENOMEM today",
 "mm/mlock.c, mlock_fixup(): newflags == vma->vm_flags: goto out, no make_pages_present()",
 "mm/mlock.c, do_mlock(): __mm_populate() over the whole range; PROT_NONE gives -EFAULT, "
 "which __mlock_posix_error_return() makes -ENOMEM", mlock_relock, false, NULL, false},
{"file-cached", ENTRY_CONFIG,
 "mincore over a file mapping: the host's pages of the test's files are in its page "
 "cache from the start (the test wrote them), the model's come in on their first fault",
 "ref/filemap.c: the page cache starts empty and is the disk (docs/model.md, \"Files\")",
 "tests/differential/host.c, files_reset(): pwrite() of the files' bytes before every program",
 file_cached, true, NULL, false},
{"mincore-unmerged", ENTRY_CONFIG,
 "mincore whose vector lies in the range it asks about, over VMAs an mprotect split and "
 "put back: the model keeps them apart (vma_merge is not modelled, docs/model.md), so a "
 "later VMA's pages are asked after the vector's copy for an earlier one faulted them in",
 "mm/mprotect.c, mprotect_fixup(): vma_merge() (2.6.11 and today); the model: ref/mmap.c",
 "mm/mincore.c, mincore_vma() (2.6.11), do_mincore() (today): each VMA's piece, then its copy",
 mincore_unmerged, true, NULL, false},
{"futex-cow-private-file", ENTRY_ERA,
 "a read of a private file page that today's kernel made the task's own copy (a futex "
 "key taken for writing, an mprotect of a locked VMA to writable) while 2.6.11 still "
 "maps the file's page: the file's later changes show in 2.6.11 only",
 "kernel/futex.c, get_futex_key(): no page touched; mm/mprotect.c, mprotect_fixup(): "
 "no populate",
 "kernel/futex/core.c, get_futex_key(): get_user_pages_fast(FOLL_WRITE) breaks COW; "
 "mm/mprotect.c, mprotect_fixup(): populate_vma_page_range() for a locked private VMA",
 today_cow_frozen, true, NULL, false},
{"futex-past-eof", ENTRY_ERA,
 "a futex op on a file mapping's page past the end of the file: keyed from the VMA in "
 "2.6.11, which never touches the page; -EFAULT today (the page cannot be faulted in)",
 "kernel/futex.c, get_futex_key(): the key from vma->vm_file and the offset",
 "kernel/futex/core.c, get_futex_key(): get_user_pages_fast() gets SIGBUS: -EFAULT",
 futex_past_eof, true, NULL, false},
{"poke-shared-no-write", ENTRY_ERA,
 "a forced write (PTRACE_POKEDATA, /proc/PID/mem) into a shared mapping without "
 "PROT_WRITE: written in 2.6.11 (VM_MAYWRITE is enough, the page is the shared one); "
 "-EIO today",
 "mm/memory.c, get_user_pages(): flags &= force ? (VM_MAYREAD | VM_MAYWRITE) : ...",
 "mm/gup.c, check_vma_flags(): FOLL_FORCE without VM_WRITE needs is_cow_mapping() "
 "(\"We used to let the write,force case do COW in a VM_MAYWRITE VM_SHARED !VM_WRITE vma\")",
 poke_shared_no_write, false, NULL, false},
{"mlock-past-eof", ENTRY_ERA,
 "mlock over a file mapping's pages past the end of the file: -EFAULT (nothing faulted "
 "in) or -1, that is -EPERM (some pages were), in 2.6.11; -ENOMEM today",
 "mm/memory.c, make_pages_present(): get_user_pages() stops at the SIGBUS page; "
 "\"return ret == len ? 0 : -1;\", which mlock_fixup() returns as it is",
 "mm/mlock.c, __mlock_posix_error_return(): -EFAULT becomes -ENOMEM", mlock_past_eof, false, NULL, false},
{"wake-op-key-write", ENTRY_ERA,
 "futex_wake_op with an encoding it refuses and a second word it cannot write: "
 "-ENOSYS then, the key taken for reading; -EFAULT today, the key taken for writing",
 "kernel/futex.c, futex_wake_op(): get_futex_key() (VM_READ suffices), then "
 "futex_atomic_op_inuser(), whose switch refuses the operation before any write",
 "kernel/futex/waitwake.c, futex_wake_op(): get_futex_key(uaddr2, ..., FUTEX_WRITE) "
 "first (get_user_pages_fast() with FOLL_WRITE)", wake_op_key_write, true,
 "2.6.14 2.6.17 2.6.18 2.6.22 2.6.28", false},
{"wake-op-enosys-fault", ENTRY_ERA,
 "futex_wake_op with an operation or comparison the kernel refuses: -EFAULT in 2.6.14 "
 "(a refused comparison after the operation was done twice); -ENOSYS today",
 "kernel/futex.c, futex_wake_op(): every op_ret < 0 is a fault: get_user(), retry, "
 "then `attempt >= 2` gives -EFAULT",
 "kernel/futex/waitwake.c, futex_wake_op(): op_ret != -EFAULT is returned as it is "
 "(2.6.17 on)", wake_op_enosys_fault, true, "2.6.14", false},
{"wake-op-second-fault", ENTRY_ERA,
 "futex_wake_op on a writable word whose page is not yet mapped writable (never "
 "touched, the ZERO_PAGE after a read, a private file page): -EFAULT, nothing done "
 "(a bug of 2.6.14 to 2.6.17, fixed in 2.6.18); today the operation",
 "kernel/futex.c, futex_wake_op(): the fault after get_user()'s read fault-in goes to "
 "`if (attempt++)`, whose `attempt >= 2` test always holds: -EFAULT",
 "kernel/futex/waitwake.c, futex_wake_op(): fault_in_user_writeable() and retry "
 "(2.6.18: futex_handle_fault(), `attempt > 2`)", wake_op_second_fault, false,
 "2.6.14 2.6.17", false},
{"futex-private-flag", ENTRY_ERA,
 "a futex op with FUTEX_PRIVATE_FLAG: -ENOSYS before 2.6.22; today a process-private "
 "futex, keyed by (mm, address)",
 "kernel/futex.c, do_futex(): switch (op) has no case for a command with bit 7 set",
 "kernel/futex/syscalls.c, do_futex(): cmd = op & FUTEX_CMD_MASK, FLAGS_SHARED unless "
 "FUTEX_PRIVATE_FLAG", futex_private_flag, true, NULL, false},
{"futex-zero-page-loop", ENTRY_ERA,
 "a shared futex on an anonymous private page never faulted in: 2.6.28 to 2.6.32 loop "
 "in get_futex_key() for ever (the run's livelock); today the key, or -EFAULT read-only",
 "kernel/futex.c, get_futex_key(): `if (!page->mapping) { ... goto again; }` on the "
 "ZERO_PAGE that mm/memory.c, follow_page() gives for FOLL_ANON (fixed in 2.6.33, "
 "7485d0d3758e: the key taken for writing)",
 "kernel/futex/core.c, get_futex_key(): get_user_pages_fast(FOLL_WRITE) faults a page in; "
 "read-only, the ZERO_PAGE's missing mapping is -EFAULT",
 futex_zero_page_loop, false, "2.6.28 2.6.30", true},
{"wake-op-private-unlocked", ENTRY_ERA,
 "a private FUTEX_WAKE_OP whose second word faults: 2.6.30 goes back to retry_private "
 "with its buckets unlocked and unlocks them again (the run's spinlock-wrong-owner); "
 "today the operation",
 "kernel/futex.c, futex_wake_op(): `retry_private:` after double_lock_hb(), "
 "`if (!fshared) goto retry_private;` after double_unlock_hb() and get_user()",
 "kernel/futex/waitwake.c, futex_wake_op(): `retry_private:` before double_lock_hb() "
 "(so from 2.6.32 at the latest; 2.6.31.3's file still has the bug)",
 wake_op_private_unlocked, false, "2.6.30", true},
{"mempolicy-node-no-read", ENTRY_ERA,
 "get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR) on a mapped page of a VMA without VM_READ: "
 "-EFAULT in 2.6.11; today the node",
 "mm/mempolicy.c, lookup_node() -> mm/memory.c, get_user_pages(): no VM_READ gives -EFAULT",
 "mm/mempolicy.c, lookup_node() -> get_user_pages_fast(): the lockless walk takes the present "
 "PTE without looking at the VMA", mempolicy_node_no_read, false, NULL, false},
};
/* clang-format on */
const int era_count = sizeof(era_table) / sizeof(era_table[0]);

const char *entry_kind_name(enum entry_kind k)
{
	return k == ENTRY_ERA ? "ERA" : k == ENTRY_CONFIG ? "CONFIG" : "KNOWN";
}

/* Is the kernel named in the list of names (space-separated)? */
static bool named(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *at = list; (at = strstr(at, name)); at += n)
		if ((at == list || at[-1] == ' ') && (at[n] == ' ' || !at[n]))
			return true;
	return false;
}

int era_classify(const struct divergence *d, const struct host_info *hi)
{
	if (d->kind == DIV_NONE || d->kind == DIV_NO_PLACE)
		return -1;
	for (int e = 0; e < era_count; e++)
		if ((!era_table[e].kernels || named(era_table[e].kernels, d->kernel->name)) &&
		    era_table[e].finding == (d->kind == DIV_FINDING) && era_table[e].match(d, hi))
			return e;
	return -1;
}
