/* snafu explore: what a run's steps touch, read from its trace and the model's sim_touch()
 * marks (docs/explore.md, "The footprint"). */
#include "search.h"

#include "../ref/spinlock.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SNAFU_NATIVE

/* ---- footprints: what a run's steps touch, from its trace ---- */

bool fp_conflict(const struct fp *a, const struct fp *b)
{
	rset brw = b->rd, arw = a->rd;
	rs_or(&brw, b->wr);
	rs_or(&brw, b->st);
	rs_or(&arw, a->st);
	return rs_meet(a->wr, brw) || rs_meet(b->wr, arw) || rs_meet(a->st, b->rd) ||
	       rs_meet(b->st, a->rd);
}

/* The first resource at or after r that footprint f touches, or RB_N. */
int fp_next_res(const struct fp *f, int r)
{
	while (r < RB_N) {
		int w = r >> 6;
		uint64_t m = (f->rd.w[w] | f->wr.w[w] | f->st.w[w]) & (~(uint64_t)0 << (r & 63));
		if (m)
			return (w << 6) + __builtin_ctzll(m);
		r = (w + 1) << 6;
	}
	return RB_N;
}

uint64_t fp_str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static int r_task(int id)
{
	return RB_TASK + ((id - 1) & 7);
}

int fp_lock_bit(const char *name)
{
	return RB_LOCK + (int)(fp_str_hash(name) % 24);
}

/* Called for every event of every run the search makes, so not strcmp(): the trace's
 * names are string literals, which the linker merges, and strcmp() under the fuzzer is
 * also libFuzzer's hook for comparisons (5 % of the joint search's time). */
static bool is(const char *s, const char *what)
{
	if (s == what)
		return true;
	while (s && *s && *s == *what)
		s++, what++;
	return s && *s == *what;
}

/* A spinner's failed try: it sleeps until the unlock (ref/spinlock.c). A stutter: it
 * changes no state, and the spinner tries again as if it had not run (must_fail() in
 * explore.c). */
bool fp_spin_wait(const struct sim_trace_ev *e)
{
	return e->kind == EV_SLEEP && is(e->fn, "spin_lock");
}

/* A spinlock taken (ref/spinlock.c traces every acquisition so; an rwsem's own EV_LOCK
 * names its call). */
bool fp_spin_acquire(const struct sim_trace_ev *e)
{
	return e->kind == EV_LOCK && is(e->fn, "spin_lock");
}

/* The pages of a user access. */
void fp_user_access(struct fp *f, unsigned long lo, unsigned long hi, bool write)
{
	rs_pages(write ? &f->wr : &f->st, sim_page_buckets(lo, hi));
	rs_bit(&f->st, fp_lock_bit(PT_LOCK));
	rs_bit(&f->rd, RB_VMAS);
}

/* Task T's INST-th op instance: its op in p, or -1. */
static int op_of_instance(const struct program *p, int task, int inst)
{
	int n = 0;

	for (int i = 0; i < p->nops; i++) {
		if (p->ops[i].task != task)
			continue;
		n += op_instances(p, i);
		if (inst <= n)
			return i;
	}
	return -1;
}

static void enter_op(const struct program *p, struct tctx *c, int task, int inst)
{
	int i = op_of_instance(p, task, inst);

	c->op = inst;
	c->kind = -1;
	c->map_a = c->map_b = c->map_mmap = -1;
	c->timeout = false;
	c->pages = ALL_PAGES;
	if (i < 0)
		return;
	const struct op *o = &p->ops[i];
	c->kind = o->kind;
	if (op_uses_a(o->kind) && o->a.map != PROG_NULL_MAP)
		c->map_a = o->a.map;
	if (op_uses_b(o->kind) && o->b.map != PROG_NULL_MAP)
		c->map_b = o->b.map;
	if (o->kind == OP_MMAP)
		c->map_mmap = mmap_index_of(p, i);
	c->timeout = o->kind == OP_FUTEX_WAIT && o->y;
}

static void sem_step(struct tctx *c, const struct sim_trace_ev *e)
{
	bool sem = is(e->obj, MMAP_SEM), wl = is(e->obj, WAIT_LOCK);

	if (e->kind == EV_LOCK && sem) {
		bool trylock = e->fn && strstr(e->fn, "trylock");
		c->sem_depth++;
		c->sem_write |= e->fn && strstr(e->fn, "write");
		if (c->sem == SEM_NONE)
			c->sem = trylock ? SEM_HELD : SEM_ASKED; /* a trylock traces success */
		else
			c->sem = SEM_HELD; /* again while holding it (or unsure): held */
		return;
	}
	if (e->kind == EV_UNLOCK && sem) {
		if (--c->sem_depth <= 0) {
			c->sem_depth = 0;
			c->sem = SEM_NONE;
			c->sem_write = false;
		}
		return;
	}
	switch (c->sem) {
	case SEM_NONE:
	case SEM_HELD:
		return;
	case SEM_ASKED:
		c->sem = e->kind == EV_POINT && is(e->fn, "spin_lock") ? SEM_SPIN : SEM_HELD;
		return;
	case SEM_SPIN:
		if (e->kind == EV_SLEEP && wl)
			return; /* spins for wait_lock */
		c->sem = e->kind == EV_LOCK && wl ? SEM_LOCKED : SEM_HELD;
		return;
	case SEM_LOCKED:
		c->sem = e->kind == EV_UNLOCK && wl ? SEM_UNLOCKED : SEM_HELD;
		return;
	case SEM_UNLOCKED:
		c->sem = e->kind == EV_POINT && is(e->fn, "spin_unlock") ? SEM_DECIDE : SEM_HELD;
		return;
	case SEM_DECIDE:
		c->sem = e->kind == EV_SLEEP && sem ? SEM_WAIT : SEM_HELD;
		return;
	case SEM_WAIT:
		if (!(e->kind == EV_POINT && is(e->fn, "schedule")))
			c->sem = SEM_HELD; /* woken with the lock granted */
		return;
	}
}

/* The rwsem passes that commute with each other (lib/rwsem-spinlock.c, 2.6.11, as
 * ref/rwsem.c models it): a reader let in at once (down_read, down_read_trylock) and a
 * reader leaving without waking anyone (up_read) only count sem->activity up or down
 * under wait_lock, and each other's conditions (activity >= 0 with nobody queued, or
 * activity left above 0 or nobody queued) hold in either order. Marks both events of
 * such a wait_lock section in comm[]. Anything else under wait_lock (a writer, a
 * queueing, a wake-up, a failed trylock) is a write of it. */
void fp_reader_passes(const struct sim_trace_ev *ev, int n, bool *comm)
{
	memset(comm, 0, sizeof(*comm) * (size_t)n);
	for (int i = 0; i < n; i++) {
		if (ev[i].kind != EV_LOCK || !is(ev[i].obj, WAIT_LOCK))
			continue;
		int t = ev[i].task, before = -1, u = -1, after = -1;
		bool woke = false;
		for (int j = i - 1; j >= 0 && before < 0; j--) /* the rwsem call it is in */
			if (ev[j].task == t && is(ev[j].obj, MMAP_SEM) &&
			    (ev[j].kind == EV_LOCK || ev[j].kind == EV_UNLOCK))
				before = j;
		for (int j = i + 1; j < n && u < 0; j++) {
			if (ev[j].task != t)
				continue;
			if (ev[j].kind == EV_WAKE)
				woke = true;
			if (ev[j].kind == EV_UNLOCK && is(ev[j].obj, WAIT_LOCK))
				u = j;
		}
		for (int j = u + 1; u >= 0 && j < n && after < 0; j++) /* what came of it */
			if (ev[j].task == t && ev[j].kind != EV_POINT && ev[j].kind != EV_PREEMPT)
				after =
				    j; /* (a preemption may come between: not what came of it) */
		if (u < 0 || woke)
			continue;
		const struct sim_trace_ev *b = before >= 0 ? &ev[before] : NULL,
					  *a = after >= 0 ? &ev[after] : NULL;
		bool reader_in =
		    b && b->kind == EV_LOCK && is(b->fn, "down_read") &&
		    !(a && a->kind == EV_SLEEP && is(a->obj, MMAP_SEM)); /* not queued */
		bool trylock_in = a && a->kind == EV_LOCK && is(a->fn, "down_read_trylock") &&
				  (!b || b->kind == EV_UNLOCK || is(b->fn, "down_read_trylock") ||
				   is(b->fn, "down_read"));
		bool reader_out = b && b->kind == EV_UNLOCK && is(b->fn, "up_read");
		if (reader_in || trylock_in || reader_out)
			comm[i] = comm[u] = true;
	}
}

/* The ops that write the VMA list or a mapping's address, for fp_future_writes(): an op
 * that takes mmap_sem for write (sys_mmap2, sys_munmap, sys_mprotect, sys_mlock,
 * sys_madvise in 2.6.11) writes the list; an mmap, where its mapping landed. Nothing else
 * writes them (fp_of_event()). Made once per run. */
void fp_future_init(const struct program *p, struct fp_future *f)
{
	int end[NLABELS] = {0}; /* each task's op instances so far */

	f->n = 0;
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		int u = o->task;
		if (u < 1 || u > SIM_MAX_TASKS)
			continue;
		end[u] += op_instances(p, i);
		rset w = {{0, 0}};
		switch (o->kind) {
		case OP_MMAP:
			rs_bit(&w, RB_MAP + mmap_index_of(p, i) % 8);
			/* fall through */
		case OP_MUNMAP:
		case OP_MPROTECT:
		case OP_MLOCK:
		case OP_MADVISE:
			rs_bit(&w, RB_VMAS);
			rs_bit(&w, fp_lock_bit(WAIT_LOCK)); /* its passes through the rwsem */
			f->op[f->n++] =
			    (struct fp_writer){.task = (uint8_t)u, .end = end[u], .w = w};
			break;
		default:
			break;
		}
	}
}

/* What the tasks other than T may still write of the VMA list and the mappings'
 * addresses (RB_VMAS, RB_MAP), from the ops each has not finished (CTX: where each is;
 * its current op counts). */
rset fp_future_writes(const struct fp_future *f, const struct tctx *ctx, int t)
{
	rset w = {{0, 0}};

	for (int i = 0; i < f->n; i++)
		if (f->op[i].task != t && f->op[i].end >= ctx[f->op[i].task].op)
			rs_or(&w, f->op[i].w);
	return w;
}

/* What event E does, in the context C of its task (which it updates). The rules, each
 * an over-approximation (docs/explore.md, "The footprint"); COMM: a reader's pass
 * through wait_lock (fp_reader_passes()); MARKS: the sim_touch() marks of its task's
 * stretch. A page_table_lock section that wrote no PTE (no SIM_TOUCH_PTE: it read the
 * page tables and took page references), or only made its page young (SIM_TOUCH_YOUNG),
 * is an update that commutes with other such sections and with the MMU's walks. */
void fp_of_event(const struct program *p, struct tctx *c, const struct sim_trace_ev *e, bool comm,
		 uint32_t marks, struct fp *f)
{
	int t = e->task;
	bool pt_read = (marks & SIM_TOUCH_YOUNG) || !(marks & SIM_TOUCH_PTE);

	/* its own state is its own (program order); what others touch of it comes as
	 * SIM_TOUCH_TASK marks from both sides, and from the events below */
	if (e->op != c->op && e->op > 0) {
		enter_op(p, c, t, e->op);
		/* the op's addresses are read from where the mappings landed */
		if (c->map_a >= 0)
			rs_bit(&f->rd, RB_MAP + c->map_a % 8);
		if (c->map_b >= 0)
			rs_bit(&f->rd, RB_MAP + c->map_b % 8);
	}
	if (e->op > 0) {
		switch (c->kind) {
		case OP_FUTEX_WAIT:
		case OP_FUTEX_WAKE:
		case OP_FUTEX_REQUEUE:
		case OP_FUTEX_CMP_REQUEUE:
			/* the futex code's lockless accesses and the oracles' books come as
			 * sim_touch() marks; the word as its user accesses; the rest is under
			 * the bucket locks and mmap_sem */
			if (c->timeout)
				rs_bit(&f->wr, RB_CLOCK);
			break;
		case OP_SLEEP:
			rs_bit(&f->wr, RB_CLOCK);
			break;
		case OP_KILL:
			break; /* its events name the task */
		case OP_RECLAIM:
			rs_bit(&f->rd, RB_VMAS); /* VM_LOCKED, without mmap_sem */
			rs_pages(&f->wr, ALL_PAGES);
			break;
		case OP_POKEDATA:
			/* access_process_vm() writes the page get_user_pages() found, which
			 * may be mapped anywhere (the ZERO_PAGE) and is no event */
			if (e->kind == EV_SYSCALL || (e->kind == EV_POINT && e->point <= 1))
				break;
			rs_bit(&f->rd, RB_VMAS);
			rs_pages(&f->wr, ALL_PAGES);
			break;
		case OP_MMAP: /* under mmap_sem for write: the rules below */
		case OP_LOAD:
		case OP_STORE: /* user accesses and faults: their events */
			break;
		default: /* page-table walks the trace does not show (mincore, ...), from the
			  * op's first point on: before it, sys_enter() only traces */
			if (e->kind == EV_SYSCALL || (e->kind == EV_POINT && e->point <= 1))
				break;
			rs_bit(&f->rd, RB_VMAS);
			rs_pages(&f->rd, c->pages);
		}
	}
	bool held = c->sem == SEM_HELD, ptl = c->ptl > 0, was_write = c->sem_write;
	sem_step(c, e);
	if (e->kind == EV_LOCK && is(e->obj, PT_LOCK))
		c->ptl++;
	if (e->kind == EV_UNLOCK && is(e->obj, PT_LOCK) && c->ptl > 0)
		c->ptl--;
	if (held || c->sem == SEM_HELD) {
		rs_bit(&f->rd, RB_VMAS);
		if (c->sem_write || (held && c->sem == SEM_NONE && was_write)) {
			rs_bit(&f->wr, RB_VMAS);
			rs_pages(&f->wr, c->pages);
		}
	}
	if (ptl || c->ptl > 0)
		rs_pages(pt_read ? &f->st : &f->wr, c->pages);
	if (c->acc_pending) { /* the retried access may be in here */
		fp_user_access(f, c->acc_lo, c->acc_hi, false);
		c->acc_pending = e->kind != EV_POINT;
	}
	switch (e->kind) {
	case EV_POINT:
	case EV_SYSCALL:
	case EV_PREEMPT:
		break;
	case EV_SYSRET:
		if (c->map_mmap >= 0) /* exec.c stores where the mapping landed */
			rs_bit(&f->wr, RB_MAP + c->map_mmap % 8);
		break;
	case EV_LOCK:
	case EV_UNLOCK:
	case EV_TRYFAIL:
	case EV_SLEEP:
		if (fp_spin_wait(e))
			break; /* touches nothing */
		/* an rwsem's own events are lockdep's annotations and its held-lock stack
		 * (the task's); its count and queue are touched under its wait_lock */
		if (e->obj && !is(e->obj, MMAP_SEM)) {
			bool st = comm || (pt_read && e->kind != EV_SLEEP && is(e->obj, PT_LOCK));
			rs_bit(st ? &f->st : &f->wr, fp_lock_bit(e->obj));
		}
		if (e->kind == EV_SLEEP) {
			rs_bit(&f->wr, RB_RUN + ((t - 1) & 7));
			rs_bit(&f->wr, r_task(t));
		}
		break;
	case EV_WAKE: /* wake_up_process(): its state, and its timer gone */
		rs_bit(&f->wr, r_task((int)e->arg));
		rs_bit(&f->wr, RB_RUN + (((int)e->arg - 1) & 7));
		rs_bit(&f->wr, RB_CLOCK);
		break;
	case EV_SIGNAL:
		rs_bit(&f->wr, r_task(t)); /* delivered: its pending signal */
		if (is(e->fn, "send_sig")) {
			rs_bit(&f->wr, r_task((int)e->arg));
			rs_bit(&f->wr, RB_RUN + (((int)e->arg - 1) & 7));
		}
		break;
	case EV_UACCESS:
	case EV_USER: {
		/* the MMU: the PTE and the page, under the raw page_table_lock; the walk
		 * only sets the accessed bit, which commutes with other walks; a store
		 * that changes memory says so (SIM_TOUCH_STORED: stretch() in explore.c) */
		unsigned long a = (unsigned long)e->arg,
			      n = e->kind == EV_UACCESS && e->arg2 > 0 ? (unsigned long)e->arg2 : 4;
		c->acc_lo = a >> 12;
		c->acc_hi = (a + n - 1) >> 12;
		c->acc_pending = false;
		fp_user_access(f, c->acc_lo, c->acc_hi, false);
		break;
	}
	case EV_FAULT:
		rs_bit(&f->rd, RB_VMAS);
		break;
	case EV_TIMER:
		rs_bit(&f->wr, RB_CLOCK);
		rs_bit(&f->wr, RB_RUN + ((t - 1) & 7));
		rs_bit(&f->wr, r_task(t));
		break;
	case EV_NOTE:
		/* kswapd names its pass (shrink_list(), try_to_unmap_one()): what the pass
		 * touches is the reclaim op's rule above, and its locks' events */
		if (c->kind == OP_RECLAIM && is(e->fn, "kswapd"))
			break;
		/* fall through */
	default: /* other free text, or a kind this file does not know: everything */
		f->rd = f->wr = rs_ones();
	}
}

/* What the sim_touch() marks of one step say it touched. */
void fp_touched(uint32_t m, struct fp *f)
{
	if (m & SIM_TOUCH_WAKES)
		rs_bit(&f->wr, RB_WAKES);
	if (m & SIM_TOUCH_QUEUES)
		rs_bit(&f->wr, RB_QUEUES);
	if (m & SIM_TOUCH_QUEUES_RD)
		rs_bit(&f->rd, RB_QUEUES);
	if (m & SIM_TOUCH_PAGES_RD) {
		rs_pages(&f->rd, ALL_PAGES);
		rs_bit(&f->rd, RB_VMAS);
	}
	if (m & SIM_TOUCH_PTBL)
		rs_bit(&f->wr, RB_PTBL);
	if (m & SIM_TOUCH_PTBL_RD)
		rs_bit(&f->rd, RB_PTBL);
	if (m & SIM_TOUCH_PCACHE) /* whichever fault adds the page, each gets it */
		rs_bit(&f->st, RB_PCACHE);
	if (m & SIM_TOUCH_PCACHE_RD)
		rs_bit(&f->rd, RB_PCACHE);
	if (m & SIM_TOUCH_RECS_RD)
		rs_range(&f->rd, RB_REC, 8);
	if (m & SIM_TOUCH_TASKS_RD)
		rs_range(&f->rd, RB_TASK, 8);
	for (int i = 0; i < 8; i++) {
		if (m & SIM_TOUCH_REC(i + 1))
			rs_bit(&f->wr, RB_REC + i);
		if (m & SIM_TOUCH_TASK(i + 1))
			rs_bit(&f->wr, RB_TASK + i);
	}
}
#endif
