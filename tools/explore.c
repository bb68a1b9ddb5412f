/* snafu explore: bounded exhaustive schedule search for one program (docs/explore.md).
 *
 * Iterative context bounding (Musuvathi and Qadeer, PLDI 2007): the sequential run, then
 * every schedule with one preemption, then two, up to K. A schedule is a list of
 * preemptions in the order they fire; one with k + 1 is made from one with k (its
 * parent) by a preemption at a scheduling point after the parent's last one, so each is
 * made once. The points and what could run at each come from running the parent: a hook
 * at every scheduling point (sim_point_hook) notes the task, its op.point, which
 * other tasks could run and whether a timer was pending, so every schedule made fires
 * in full. Only points the case language can name are used (op 1.., point 1..32).
 *
 * The reduction: at the last level (k = K) the children of one parent that preempt the
 * same task T to the same target at consecutive points x and x' of T, where T's step
 * from x to x' runs without blocking and touches nothing that the steps run between the
 * switch at x' and T's return touch, give equivalent runs (the same steps, independent
 * ones reordered): same verdict, same final state. The later one is run, the earlier
 * one is counted as pruned. What a step touches is read from the trace, with
 * conservative rules (footprint() below); docs/explore.md says why that is sound, and
 * --check-pruning runs the pruned schedules anyway and compares. Nothing is pruned
 * below the last level, where a pruned schedule's own extensions would be lost.
 *
 * Sharding: every process runs the levels below K (it needs their runs to make the
 * next level) but counts only the schedules whose number in their level is I-1 modulo
 * N; at level K it takes the chains (the candidates the reduction compares) whose
 * number is I-1 modulo N. N processes together run and count what one would.
 */
#include "explore.h"

#include "../prog/exec.h"
#include "casefile.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_K (SIM_MAX_PREEMPTS - 1) /* what the text form holds */

const char *const explore_value_opts[] = {
    "--kernel", "--preemptions", "--oracles", "--shard", "--max-schedules", "-o", NULL};

const char explore_help[] =
    "  explore [OPTIONS] CASE  run the case's program (its own preemptions ignored) under\n"
    "                          every schedule with at most K preemptions, fewest first;\n"
    "                          stop at the first finding: its report, then the case with\n"
    "                          its schedule (-o); exit 1 with a finding, 0 without\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"
    "      --all-kernels       every listed kernel, one line each (no report, no -o)\n"
    "      --preemptions=K     the bound, 0..15 (default 2)\n"
    "      --oracles=LIST      what counts as a finding (default: deadlock, lost-wakeup,\n"
    "                          result; lockdep only when LIST names it: its prediction\n"
    "                          needs no schedule)\n"
    "      --shard=I/N         the I-th of N processes that split the search\n"
    "      --max-schedules=M   run at most M schedules\n"
    "      --no-reduction      run every schedule (no partial-order reduction)\n"
    "      --check-pruning     run the pruned schedules too and check that each gives\n"
    "                          the run of the schedule kept for it (exit 1 if not)\n"
    "      -o OUT.case         write the finding, minimized, with expect lines\n";

#ifdef SNAFU_NATIVE
int cmd_explore(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "snafu explore: expected the simulator's build (snafu): snafu-native runs "
			"real threads, which follow no schedule\n");
	return 2;
}

int explore_evaluate(int argc, char **argv)
{
	return cmd_explore(argc, argv);
}

bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles,
		    int K, long long max_schedules,
		    bool (*accept)(void *ctx, const struct run_result *r), void *ctx,
		    struct program *found, long long *runs)
{
	(void)p, (void)k, (void)oracles, (void)K, (void)max_schedules, (void)accept, (void)ctx;
	(void)found;
	*runs = 0;
	return false; /* real threads follow no schedule */
}

void explore_bound(const struct program *p, const struct kernel_config *k, unsigned oracles,
		   long long max_schedules, struct explore_bound *out)
{
	(void)p, (void)k, (void)oracles, (void)max_schedules;
	*out = (struct explore_bound){.cut = true}; /* real threads follow no schedule */
	snprintf(out->verdict, sizeof(out->verdict), "ok");
}
#else
/* ---- what the hook sees at every scheduling point ---- */

struct point_rec {
	uint32_t ev; /* trace events recorded so far, this point's EV_POINT included */
	uint16_t op, point;
	uint8_t task;
	uint8_t runnable; /* bit U-1: task U (not this one) could run here */
	bool timer;       /* a timer was pending: `to timer` fires here */
	bool spinner;     /* another task could run and has yet to retry a spinlock */
};

static struct {
	struct point_rec *v;
	size_t n, cap;
} pts;

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return v;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	v = realloc(v, c * size);
	if (!v) {
		fprintf(stderr, "snafu explore: out of memory\n");
		exit(2);
	}
	*cap = c;
	return v;
}

static void on_point(const struct sim_task *t)
{
	int n, dropped;

	pts.v = grow(pts.v, &pts.cap, pts.n + 1, sizeof(*pts.v));
	struct point_rec *r = &pts.v[pts.n++];
	sim_trace_events(&n, &dropped);
	*r = (struct point_rec){.ev = (uint32_t)(n + dropped),
				.op = t->op,
				.point = t->op_points,
				.task = (uint8_t)t->id};
	for (int i = 1; i <= sim_ntasks(); i++) {
		const struct sim_task *u = sim_task(i);
		if (u == t)
			continue;
		if (u->state == SIM_RUNNABLE) {
			r->runnable |= (uint8_t)(1u << (i - 1));
			r->spinner |= u->spinning_on != NULL;
		}
		r->timer |= u->state == SIM_BLOCKED && u->timer_at != SIM_NO_DEADLINE;
	}
}

/* ---- footprints: what a run's steps touch, from its trace ---- */

/* One bit per resource, hashed where there are many (a collision only adds a
 * dependency): tasks 0-7, lock names 8-23, pages 24-39, mapping addresses 40-47. */
typedef uint64_t res_t;
#define R_TASK(id)  ((res_t)1 << (((id)-1) & 7))
#define R_LOCKS     8
#define R_PAGES     24
#define R_MAPS      40
#define R_VMAS      ((res_t)1 << 48)           /* the VMA list, mm counters, shmem objects */
#define R_FUTEX     ((res_t)1 << 49)           /* hash buckets, futex_q, the futex oracles' books */
#define R_CLOCK     ((res_t)1 << 50)           /* the virtual clock and every task's timer */
#define R_ALL_PAGES ((res_t)0xffff << R_PAGES) /* PTEs, pages, page cache, page pool */
#define R_ALL       (~(res_t)0)

struct fp {
	res_t rd, wr;
};
static const struct fp FP_ALL = {R_ALL, R_ALL};

static bool conflict(struct fp a, struct fp b)
{
	return (a.wr & (b.rd | b.wr)) || (b.wr & a.rd);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static res_t r_lock(const char *name)
{
	return (res_t)1 << (R_LOCKS + str_hash(name) % 16);
}

static res_t r_page(unsigned long addr)
{
	uint64_t pg = addr >> 12;

	return (res_t)1 << (R_PAGES + (pg * 0x9e3779b97f4a7c15ULL >> 60));
}

static res_t r_map(int map)
{
	return (res_t)1 << (R_MAPS + map % 8);
}

static bool is(const char *s, const char *what)
{
	return s && !strcmp(s, what);
}

#define MMAP_SEM  "&mm->mmap_sem"
#define WAIT_LOCK "&sem->wait_lock"
#define PT_LOCK   "&mm->page_table_lock"

/* Where a task is with mmap_sem, from its events: the rwsem's EV_LOCK comes before it
 * queues, so a task is only said to hold it once its wait_lock section (and its sleep,
 * if it queued) is over; until then it touches the rwsem (its lock names), not the VMAs. */
enum sem_state {
	SEM_NONE,
	SEM_ASKED,    /* EV_LOCK down_read/down_write seen */
	SEM_SPIN,     /* its spin_lock(&sem->wait_lock) point */
	SEM_LOCKED,   /* wait_lock taken */
	SEM_UNLOCKED, /* wait_lock given back */
	SEM_DECIDE,   /* the spin_unlock point: next comes its sleep, or it holds it */
	SEM_WAIT,     /* queued */
	SEM_HELD,
};

struct tctx {
	int op; /* the op the task is in (sim's count), and what it is */
	int kind, map_a, map_b, map_mmap;
	int ptl; /* page_table_lock acquisitions not yet given back */
	enum sem_state sem;
	int sem_depth;
	bool sem_write;
};

static struct {
	struct fp *v;
	size_t n, cap;
	bool complete; /* the whole trace is there (nothing dropped) */
} evfp;

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

/* What event E does, in the context C of its task (which it updates). The rules, each
 * an over-approximation (docs/explore.md, "The footprint"): */
static struct fp footprint(const struct program *p, struct tctx *c, const struct sim_trace_ev *e)
{
	struct fp f = {0, 0};
	int t = e->task;

	if (t < 1 || t > SIM_MAX_TASKS)
		return FP_ALL;
	f.wr |= R_TASK(t); /* its own state, signals, held locks, futex_q */
	if (e->op != c->op && e->op > 0) {
		enter_op(p, c, t, e->op);
		/* the op's addresses are read from where the mappings landed */
		if (c->map_a >= 0)
			f.rd |= r_map(c->map_a);
		if (c->map_b >= 0)
			f.rd |= r_map(c->map_b);
	}
	if (e->op > 0) {
		switch (c->kind) {
		case OP_FUTEX_WAIT:
		case OP_FUTEX_WAKE:
		case OP_FUTEX_REQUEUE:
		case OP_FUTEX_CMP_REQUEUE:
			/* lockless reads of futex_q and nqueued, and the oracles, which peek at
			 * the word through the VMAs, PTEs and page cache */
			f.wr |= R_FUTEX | R_CLOCK;
			f.rd |= R_VMAS | R_ALL_PAGES;
			break;
		case OP_SLEEP:
			f.wr |= R_CLOCK;
			break;
		case OP_KILL:
			break; /* its events name the task */
		case OP_RECLAIM:
			f.rd |= R_VMAS; /* VM_LOCKED, without mmap_sem */
			f.wr |= R_ALL_PAGES;
			break;
		default:
			f.rd |= R_VMAS | R_ALL_PAGES;
		}
	}
	bool held = c->sem == SEM_HELD, ptl = c->ptl > 0;
	sem_step(c, e);
	if (e->kind == EV_LOCK && is(e->obj, PT_LOCK))
		c->ptl++;
	if (e->kind == EV_UNLOCK && is(e->obj, PT_LOCK) && c->ptl > 0)
		c->ptl--;
	if (held || c->sem == SEM_HELD) {
		f.rd |= R_VMAS;
		if (c->sem_write || (held && c->sem == SEM_NONE))
			f.wr |= R_VMAS | R_ALL_PAGES;
	}
	if (ptl || c->ptl > 0)
		f.wr |= R_ALL_PAGES;
	switch (e->kind) {
	case EV_POINT:
	case EV_SYSCALL:
	case EV_PREEMPT:
		break;
	case EV_SYSRET:
		if (c->map_mmap >= 0) /* exec.c stores where the mapping landed */
			f.wr |= r_map(c->map_mmap);
		break;
	case EV_LOCK:
	case EV_UNLOCK:
	case EV_TRYFAIL:
	case EV_SLEEP:
		/* an rwsem's own events are lockdep's annotations and its held-lock stack
		 * (the task's); its count and queue are touched under its wait_lock */
		if (e->obj && !is(e->obj, MMAP_SEM))
			f.wr |= r_lock(e->obj);
		break;
	case EV_WAKE: /* wake_up_process(): its state, and its timer gone */
		f.wr |= R_TASK(e->arg) | R_CLOCK;
		break;
	case EV_SIGNAL:
		if (is(e->fn, "send_sig"))
			f.wr |= R_TASK(e->arg);
		break;
	case EV_UACCESS:
	case EV_USER: {
		/* the MMU: the PTE and the page, under the raw page_table_lock */
		unsigned long a = (unsigned long)e->arg,
			      n = e->kind == EV_UACCESS && e->arg2 > 0 ? (unsigned long)e->arg2 : 4;
		if (n > 16 * 4096)
			f.wr |= R_ALL_PAGES;
		for (unsigned long pg = a >> 12; pg <= (a + n - 1) >> 12 && n <= 16 * 4096; pg++)
			f.wr |= r_page(pg << 12);
		f.wr |= r_lock(PT_LOCK);
		f.rd |= R_VMAS;
		break;
	}
	case EV_FAULT:
		f.wr |= R_ALL_PAGES | r_lock(PT_LOCK);
		f.rd |= R_VMAS;
		break;
	case EV_TIMER:
		f.wr |= R_CLOCK;
		break;
	default: /* free text, or a kind this file does not know: everything */
		return FP_ALL;
	}
	return f;
}

/* The footprint of every event of the run just made (evfp.v[i] for event i). */
static void footprints(const struct program *p)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	struct tctx ctx[SIM_MAX_TASKS + 1];

	for (int t = 0; t <= SIM_MAX_TASKS; t++) /* before its first op: none */
		ctx[t] = (struct tctx){.kind = -1, .map_a = -1, .map_b = -1, .map_mmap = -1};
	evfp.v = grow(evfp.v, &evfp.cap, (size_t)n + 1, sizeof(*evfp.v));
	evfp.n = (size_t)n;
	evfp.complete = dropped == 0;
	for (int i = 0; i < n; i++) {
		int t = ev[i].task;
		evfp.v[i] = t >= 1 && t <= SIM_MAX_TASKS ? footprint(p, &ctx[t], &ev[i]) : FP_ALL;
	}
}

/* ---- the search ---- */

struct node {
	uint32_t parent; /* in the level below */
	struct sim_preempt pre;
};

struct level {
	struct node *v;
	size_t n, cap;
};

/* A child of the parent at level K - 1, made from its run. */
struct cand {
	struct sim_preempt pre;
	uint32_t pt;    /* the parent's point it preempts at */
	int next, prev; /* the same task and target at the task's next (previous) point */
	struct fp atom; /* the task's step from this point to its next, in the parent's run */
};

static struct {
	struct cand *v;
	size_t n, cap;
} cands;

struct search {
	const struct program *p;
	const struct kernel_config *k;
	unsigned oracles;
	int K;
	unsigned shard, nshards; /* this process: shard 0..nshards-1 */
	long long max;
	bool reduce, check;
	bool (*accept)(void *ctx, const struct run_result *r); /* NULL: any finding */
	void *ctx;
	long long explored, pruned, checked, differ;
	unsigned long long chains; /* level-K chains numbered so far (sharding) */
	bool found, budget_hit;
	char verdict[160];
	struct level lv[MAX_K + 1];
	struct run_result r;
};

static struct program found_prog;

static void build(const struct search *s, int k, size_t idx, struct program *q)
{
	*q = *s->p;
	q->npreempts = k;
	for (int j = k; j > 0; j--) {
		const struct node *nd = &s->lv[j].v[idx];
		q->preempts[j - 1] = nd->pre;
		idx = nd->parent;
	}
}

static void run(const struct search *s, const struct program *q, struct run_result *r)
{
	struct run_opts o = {.trace = true, .oracles = s->oracles};

	pts.n = 0;
	sim_point_hook = on_point;
	prog_run(q, s->k, &o, r);
	sim_point_hook = NULL;
	if (r->unfired) { /* every schedule made fires in full: runs are deterministic */
		char buf[80];
		fprintf(stderr, "snafu explore: internal error: %s did not fire on %s\n",
			prog_preempt_str(&q->preempts[q->npreempts - 1], buf, sizeof(buf)),
			s->k->name);
		exit(2);
	}
}

/* Count one run as this shard's; false (and nothing counted) at --max-schedules. */
static bool budget(struct search *s)
{
	if (s->max && s->explored >= s->max) {
		s->budget_hit = true;
		return false;
	}
	s->explored++;
	return true;
}

/* Whether the run just made (of q) is a finding; if so, the search ends with it. */
static bool finding(struct search *s, const struct program *q)
{
	if (s->r.result == SIM_OK || (s->accept && !s->accept(s->ctx, &s->r)))
		return false;
	s->found = true;
	found_prog = *q;
	snprintf(s->verdict, sizeof(s->verdict), "%s", s->r.verdict);
	return true;
}

/* The first point after q's last preemption (which fired in the run just made). */
static size_t first_point(const struct program *q)
{
	if (!q->npreempts)
		return 0;
	const struct sim_preempt *l = &q->preempts[q->npreempts - 1];
	for (size_t i = 0; i < pts.n; i++)
		if (pts.v[i].task == l->task && pts.v[i].op == l->op && pts.v[i].point == l->point)
			return i + 1;
	return pts.n;
}

/* A point the case language can name (op 1.., point 1..32). */
static bool nameable(const struct point_rec *r)
{
	return r->op >= 1 && r->point >= 1 && r->point <= PREEMPT_MAX_POINT;
}

/* The children of the run just made (of q), in the order they fire: by point, then
 * tasks by number, then the timer. With LINKS, each linked to the child at its task's
 * next point with the same target when the reduction may compare the two. */
static void children(const struct program *q, bool links)
{
	static int *first, *next_same;
	static size_t first_cap, next_cap;
	size_t start = first_point(q);

	cands.n = 0;
	first = grow(first, &first_cap, pts.n + 1, sizeof(*first));
	for (size_t i = start; i <= pts.n; i++) {
		first[i] = (int)cands.n;
		if (i == pts.n || !nameable(&pts.v[i]))
			continue;
		for (int u = 1; u <= SIM_MAX_TASKS + 1; u++) {
			bool can =
			    u <= SIM_MAX_TASKS ? pts.v[i].runnable >> (u - 1) & 1 : pts.v[i].timer;
			if (!can)
				continue;
			cands.v = grow(cands.v, &cands.cap, cands.n + 1, sizeof(*cands.v));
			cands.v[cands.n++] = (struct cand){
			    .pre = {.task = pts.v[i].task,
				    .op = pts.v[i].op,
				    .point = pts.v[i].point,
				    .to = (uint8_t)(u <= SIM_MAX_TASKS ? u : SIM_TO_TIMER)},
			    .pt = (uint32_t)i,
			    .next = -1,
			    .prev = -1};
		}
	}
	if (!links)
		return;
	footprints(q);
	if (!evfp.complete)
		return;
	int n, dropped, after[SIM_MAX_TASKS + 1];
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	next_same = grow(next_same, &next_cap, pts.n + 1, sizeof(*next_same));
	for (int t = 0; t <= SIM_MAX_TASKS; t++)
		after[t] = -1;
	for (size_t i = pts.n; i-- > 0;) {
		next_same[i] = after[pts.v[i].task];
		after[pts.v[i].task] = (int)i;
	}
	for (size_t ci = 0; ci < cands.n; ci++) {
		struct cand *c = &cands.v[ci];
		const struct point_rec *x = &pts.v[c->pt];
		int j = next_same[c->pt];
		/* a woken spinner that has yet to retry could take the lock in one order and
		 * find it taken in the other, with no event of its own to say so */
		if (j < 0 || !nameable(&pts.v[j]) || x->spinner || pts.v[j].ev <= x->ev)
			continue;
		/* the step from x to the next point: the task alone, no sleep, no timer */
		struct fp atom = {0, 0};
		bool alone = true;
		for (uint32_t e = x->ev; e < pts.v[j].ev && alone; e++) {
			alone = ev[e].task == x->task && ev[e].kind != EV_TIMER &&
				ev[e].kind != EV_PREEMPT;
			atom.rd |= evfp.v[e].rd;
			atom.wr |= evfp.v[e].wr;
		}
		if (!alone)
			continue;
		for (int cj = first[j]; cj < first[j + 1]; cj++)
			if (cands.v[cj].pre.to == c->pre.to) {
				c->next = cj;
				c->atom = atom;
				cands.v[cj].prev = (int)ci;
			}
	}
}

/* The events of the run just made from its switch at AT until AT's task runs again:
 * what ran in its place. */
static struct fp segment(const struct sim_preempt *at)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	struct fp f = {0, 0};

	if (!evfp.complete)
		return FP_ALL;
	for (size_t i = 0; i < pts.n; i++) {
		const struct point_rec *r = &pts.v[i];
		if (r->task != at->task || r->op != at->op || r->point != at->point)
			continue;
		for (uint32_t j = r->ev; j < (uint32_t)n; j++) {
			if (ev[j].kind == EV_PREEMPT)
				continue;
			if (ev[j].task == at->task)
				return f;
			f.rd |= evfp.v[j].rd;
			f.wr |= evfp.v[j].wr;
		}
		break;
	}
	return FP_ALL; /* the task never ran again */
}

/* --check-pruning: what equivalent runs share: each task's own events in order, what
 * each op returned and read, and the verdict. */
struct summary {
	uint64_t task[SIM_MAX_TASKS + 1];
	uint64_t ops;
	char verdict[160];
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static void summarize(const struct program *q, const struct run_result *r, struct summary *sm)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);

	memset(sm, 0, sizeof(*sm));
	for (int i = 0; i < n; i++) {
		const struct sim_trace_ev *e = &ev[i];
		if (e->kind == EV_PREEMPT || e->task > SIM_MAX_TASKS)
			continue;
		uint64_t h = mix(sm->task[e->task],
				 (uint64_t)e->kind << 32 | (uint64_t)e->op << 16 | e->point);
		h = mix(mix(h, str_hash(e->fn)), str_hash(e->obj));
		sm->task[e->task] = mix(mix(h, (uint64_t)e->arg), (uint64_t)e->arg2);
	}
	for (int i = 0; i < q->nops; i++)
		sm->ops = mix(mix(mix(sm->ops, (uint64_t)r->ret[i]), r->loaded[i]), r->ran[i]);
	snprintf(sm->verdict, sizeof(sm->verdict), "%s", r->verdict);
}

/* One chain of the parent's children, from its last member back (cands[last]). False
 * when the search is over (a finding, or --max-schedules). */
static bool chain(struct search *s, const struct program *parent, int last)
{
	static struct program q;
	static struct summary kept, mine;
	struct fp seg = FP_ALL; /* what ran in T's place in the run kept for the chain */
	bool kept_one = false;

	for (int i = last; i >= 0; i = cands.v[i].prev) {
		const struct cand *c = &cands.v[i];
		q = *parent;
		q.preempts[q.npreempts++] = c->pre;
		if (kept_one && !conflict(c->atom, seg)) {
			/* its run is the kept one's with T's step moved before what ran in its
			 * place: the same steps, independent ones reordered */
			s->pruned++;
			if (!s->check)
				continue;
			run(s, &q, &s->r);
			s->checked++;
			summarize(&q, &s->r, &mine);
			if (memcmp(&mine, &kept, sizeof(mine))) {
				char a[80], b[80];
				s->differ++;
				fprintf(stderr,
					"snafu explore: --check-pruning: %s (%s) differs from the "
					"schedule kept for it, with %s instead (%s) [%s]\n",
					prog_preempt_str(&c->pre, a, sizeof(a)), s->r.verdict,
					prog_preempt_str(&cands.v[c->next].pre, b, sizeof(b)),
					kept.verdict, s->k->name);
			}
			continue;
		}
		if (!budget(s))
			return false;
		run(s, &q, &s->r);
		if (finding(s, &q))
			return false;
		kept_one = c->prev >= 0;
		if (kept_one) {
			footprints(&q);
			seg = segment(&c->pre);
			if (s->check)
				summarize(&q, &s->r, &kept);
		}
	}
	return true;
}

/* Level K: the children of parent IDX at level K - 1 (run again for its trace). */
static bool last_level(struct search *s, size_t idx)
{
	static struct program parent;

	build(s, s->K - 1, idx, &parent);
	run(s, &parent, &s->r);
	children(&parent, s->reduce);
	for (size_t ci = 0; ci < cands.n; ci++) {
		if (cands.v[ci].prev >= 0)
			continue; /* not the first of its chain */
		if (s->chains++ % s->nshards != s->shard)
			continue;
		int last = (int)ci;
		while (cands.v[last].next >= 0)
			last = cands.v[last].next;
		if (!chain(s, &parent, last))
			return false;
	}
	return true;
}

static void add_node(struct level *l, size_t parent, struct sim_preempt pre)
{
	l->v = grow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct node){.parent = (uint32_t)parent, .pre = pre};
}

/* The whole search on s->k; s->found or s->budget_hit say how it ended. */
static void search(struct search *s)
{
	static struct program q;

	s->explored = s->pruned = s->checked = s->differ = 0;
	s->chains = 0;
	s->found = s->budget_hit = false;
	for (int k = 0; k <= s->K; k++)
		s->lv[k].n = 0;
	add_node(&s->lv[0], 0, (struct sim_preempt){0});
	/* the levels below K, whole in every shard: each counts its own */
	for (int k = 0; k < s->K || (k == 0 && s->K == 0); k++) {
		for (size_t i = 0; i < s->lv[k].n; i++) {
			bool mine = i % s->nshards == s->shard;
			if (mine && !budget(s))
				return;
			build(s, k, i, &q);
			run(s, &q, &s->r);
			if (finding(s, &q))
				return;
			if (k + 1 >= s->K)
				continue;
			children(&q, false);
			for (size_t c = 0; c < cands.n; c++)
				add_node(&s->lv[k + 1], i, cands.v[c].pre);
		}
	}
	for (size_t i = 0; s->K > 0 && i < s->lv[s->K - 1].n; i++)
		if (!last_level(s, i))
			return;
}

/* ---- the command ---- */

static const char *plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The line that says how the search on s->k ended. */
static void say(FILE *f, const struct search *s, const char *name, const char *shard)
{
	if (s->found) {
		fprintf(f, "explore: %s [%s]: found %s with %d %s after %lld %s (%lld pruned)",
			name, s->k->name, s->verdict, found_prog.npreempts,
			plural(found_prog.npreempts, "preemption", "preemptions"), s->explored,
			plural(s->explored, "schedule", "schedules"), s->pruned);
		for (int i = 0; i < found_prog.npreempts; i++) {
			char buf[80];
			fprintf(f, "%s%s", i ? ", " : ": ",
				prog_preempt_str(&found_prog.preempts[i], buf, sizeof(buf)));
		}
	} else if (s->budget_hit) {
		fprintf(f,
			"explore: %s [%s]: no finding in %lld schedules (--max-schedules), %lld "
			"pruned: not every schedule with at most %d %s was run",
			name, s->k->name, s->explored, s->pruned, s->K,
			plural(s->K, "preemption", "preemptions"));
	} else {
		fprintf(f,
			"explore: %s [%s]: no finding within %d %s: %lld %s explored, %lld pruned",
			name, s->k->name, s->K, plural(s->K, "preemption", "preemptions"),
			s->explored, plural(s->explored, "schedule", "schedules"), s->pruned);
	}
	fprintf(f, "%s\n", shard);
	if (s->check)
		fprintf(f,
			"explore: %s [%s]: --check-pruning: %lld pruned %s run, %lld %s from the "
			"schedule kept for %s\n",
			name, s->k->name, s->checked, plural(s->checked, "schedule", "schedules"),
			s->differ, plural(s->differ, "differs", "differ"),
			plural(s->checked, "it", "them"));
}

static long long num_opt(const char *a, size_t skip, long long lo, long long hi, const char *what,
			 int argn)
{
	char *end;

	errno = 0;
	long long v = strtoll(a + skip, &end, 10);
	if (*end || end == a + skip || errno || v < lo || v > hi || a[skip] == '-')
		die_usage(what, a, argn);
	return v;
}

int cmd_explore(int argc, char **argv)
{
	const struct kernel_config *k = NULL;
	const char *out = NULL, *in = NULL;
	bool all_kernels = false;
	int kernel_argn = 0;
	static struct search s;

	s.K = EXPLORE_DEFAULT_PREEMPTIONS;
	s.nshards = 1;
	s.reduce = true;
	/* lockdep's prediction needs no schedule: by default it is left out, else the
	 * sequential run would "find" it and end the search */
	s.oracles = ORACLE_DEADLOCK | ORACLE_LOST_WAKEUP | ORACLE_RESULT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9)) {
			k = kernel_arg(a + 9);
			kernel_argn = i + 1;
		} else if (!strcmp(a, "--all-kernels"))
			all_kernels = true;
		else if (!strncmp(a, "--preemptions=", 14))
			s.K =
			    (int)num_opt(a, 14, 0, MAX_K, "--preemptions=K with K in 0..15", i + 1);
		else if (!strncmp(a, "--oracles=", 10))
			s.oracles = oracles_arg(a, a + 10, i + 1);
		else if (!strncmp(a, "--max-schedules=", 16))
			s.max = num_opt(a, 16, 1, 1000000000000LL,
					"--max-schedules=M with M in 1..1000000000000", i + 1);
		else if (!strncmp(a, "--shard=", 8)) {
			unsigned si, sn;
			char c;
			if (sscanf(a + 8, "%u/%u%c", &si, &sn, &c) != 2 || a[8] == '-' || sn < 1 ||
			    sn > 1000000 || si < 1 || si > sn || strchr(a + 8, '+') ||
			    strchr(a + 8, ' '))
				die_usage("--shard=I/N with 1 <= I <= N <= 1000000", a, i + 1);
			s.shard = si - 1;
			s.nshards = sn;
		} else if (!strcmp(a, "--no-reduction"))
			s.reduce = false;
		else if (!strcmp(a, "--check-pruning"))
			s.check = true;
		else if (!strcmp(a, "-o") && i + 1 < argc)
			out = argv[++i];
		else
			cli_operand(
			    &in, a, i + 1,
			    "--kernel=NAME, --all-kernels, --preemptions=K, --oracles=LIST, "
			    "--shard=I/N, --max-schedules=M, --no-reduction, --check-pruning, "
			    "-o OUT or a CASE",
			    "one CASE");
	}
	if (all_kernels && kernel_argn)
		die_usage("--kernel=NAME or --all-kernels, not both", argv[kernel_argn - 1],
			  kernel_argn);
	if (all_kernels && out) {
		fprintf(stderr,
			"snafu explore: expected no -o with --all-kernels (one line each)\n");
		return 2;
	}
	if (!in) {
		fprintf(stderr, "snafu explore: expected a CASE\n");
		return 2;
	}
	if (out && !case_out_ok(out))
		return 2;
	static struct program p;
	load_case(in, &p);
	p.npreempts = 0; /* its own schedule is not the question */
	s.p = &p;
	/* the reduction reads steps' resources; lockdep's graph ties every lock together */
	if (s.oracles & ORACLE_LOCKDEP)
		s.reduce = false;
	const char *name = case_name(in);
	char shard[64] = "";
	if (s.nshards > 1)
		snprintf(shard, sizeof(shard), " (shard %u/%u)", s.shard + 1, s.nshards);

	if (all_kernels) {
		int status = 0;
		for_each_kernel (kc) {
			s.k = kc;
			search(&s);
			say(stdout, &s, name, shard);
			fflush(stdout);
			status |= s.found || s.differ;
		}
		return status;
	}
	s.k = k ? k : kernel_by_name(SNAFU_DEFAULT_KERNEL);
	search(&s);
	/* the messages go to stdout, unless the case does (-o -) */
	FILE *msg = out && !strcmp(out, "-") ? stderr : stdout;
	if (!s.found) {
		say(msg, &s, name, shard);
		return s.differ ? 1 : 0;
	}
	/* the report, as snafu replay prints it */
	struct run_opts traced = {.trace = true, .oracles = s.oracles};
	prog_run(&found_prog, s.k, &traced, &s.r);
	prog_report(msg, s.k);
	say(msg, &s, name, shard);
	fflush(msg);
	if (!out)
		return 1;
	char note[256];
	snprintf(note, sizeof(note), "found by snafu explore with %d %s after %lld schedules\n",
		 found_prog.npreempts, plural(found_prog.npreempts, "preemption", "preemptions"),
		 s.explored);
	char verdict[sizeof(s.verdict)];
	snprintf(verdict, sizeof(verdict), "%s", s.verdict);
	int st = case_write_minimized_note(&found_prog, s.k, verdict, s.oracles, name,
					   "snafu explore", note, out);
	if (st)
		return st;
	if (strcmp(out, "-"))
		fprintf(msg, "explore: minimized case: %s\n", out);
	return 1;
}

/* ---- for other commands ---- */

bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles,
		    int K, long long max_schedules,
		    bool (*accept)(void *ctx, const struct run_result *r), void *ctx,
		    struct program *found, long long *runs)
{
	static struct search s;
	static struct program q;

	q = *p;
	q.npreempts = 0;
	memset(&s, 0, sizeof(s));
	s.p = &q;
	s.k = k;
	s.oracles = oracles;
	s.nshards = 1;
	s.reduce = !(oracles & ORACLE_LOCKDEP);
	s.max = max_schedules;
	s.K = K < 0 || K > MAX_K ? MAX_K : K;
	s.accept = accept;
	s.ctx = ctx;
	search(&s);
	*runs = s.explored;
	if (s.found)
		*found = found_prog;
	return s.found;
}

void explore_bound(const struct program *p, const struct kernel_config *k, unsigned oracles,
		   long long max_schedules, struct explore_bound *out)
{
	static struct search s;
	static struct program q;

	q = *p;
	q.npreempts = 0;
	memset(&s, 0, sizeof(s));
	s.p = &q;
	s.k = k;
	s.oracles = oracles;
	s.nshards = 1;
	s.reduce = !(oracles & ORACLE_LOCKDEP);
	s.max = max_schedules;
	s.K = EXPLORE_BOUND_FALLBACK;
	search(&s);
	*out = (struct explore_bound){.found = s.found,
				      .unbounded = false,
				      .cut = s.budget_hit,
				      .K = s.K,
				      .npreempts = s.found ? found_prog.npreempts : 0,
				      .traces = s.explored,
				      .schedules = s.explored};
	snprintf(out->verdict, sizeof(out->verdict), "%s", s.found ? s.verdict : "ok");
}

/* ---- snafu evaluate --explore: every saved program on every listed kernel ---- */

/* What one search of one program on one kernel gave (a worker's record). */
struct eval_res {
	int prog, kern;
	bool found, cut;
	int npreempts;
	struct sim_preempt pre[MAX_K + 1]; /* the finding's schedule */
	long long explored, pruned;
	char verdict[160];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The saved cases: the .case files of SNAFU_SOURCE_DIR/repro/cases, sorted by name. */
static int saved_cases(char ***out)
{
#ifdef SNAFU_SOURCE_DIR
	const char *dir = SNAFU_SOURCE_DIR "/repro/cases";
#else
	const char *dir = "repro/cases";
#endif
	DIR *d = opendir(dir);
	char **v = NULL, cwd[4096];
	int n = 0;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	if (!d) {
		fprintf(stderr, "snafu evaluate --explore: %s: %s (give the cases)\n", dir,
			strerror(errno));
		exit(2);
	}
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".case"))
			continue;
		v = realloc(v, (size_t)(n + 1) * sizeof(*v));
		char *path = malloc(strlen(dir) + len + 2);
		if (!v || !path)
			abort();
		sprintf(path, "%s/%s", dir, e->d_name);
		size_t c = strlen(cwd);
		if (c > 1 && !strncmp(path, cwd, c) && path[c] == '/') /* repro/cases/X.case */
			memmove(path, path + c + 1, strlen(path + c + 1) + 1);
		v[n++] = path;
	}
	closedir(d);
	qsort(v, (size_t)n, sizeof(*v), by_name);
	*out = v;
	return n;
}

/* A case's file name without its directory and ".case". */
static const char *short_name(const char *path)
{
	static char buf[8][128];
	static int next;
	const char *slash = strrchr(path, '/');
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s", slash ? slash + 1 : path);
	size_t n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".case"))
		b[n - 5] = 0;
	return b;
}

/* The table: per kernel, how many programs held within K, were cut or gave a finding,
 * the schedules behind it, and the findings. */
static void eval_table(const struct eval_res *res, int nres, char **cases, int ncases,
		       const struct kernel_config **ks, int nk, int K, long long max, bool md)
{
	if (md)
		printf("\n| kernel | programs | no finding within %d | cut at %lld schedules | "
		       "with a finding | schedules | pruned | findings |\n|---|--:|--:|--:|--:|"
		       "--:|--:|---|\n",
		       K, max);
	else
		printf("\n%-18s %8s %8s %6s %8s %10s %8s  %s\n", "kernel", "programs", "held",
		       "cut", "findings", "schedules", "pruned", "what (program: signature)");
	for (int ki = 0; ki < nk; ki++) {
		int held = 0, cut = 0, found = 0;
		long long explored = 0, pruned = 0;
		char what[4096] = "";
		size_t w = 0;
		for (int i = 0; i < nres; i++) {
			const struct eval_res *r = &res[i];
			if (r->kern != ki)
				continue;
			explored += r->explored;
			pruned += r->pruned;
			found += r->found;
			cut += !r->found && r->cut;
			held += !r->found && !r->cut;
		}
		/* the findings by signature, each with its programs: "SIG (a, b); SIG2 (c)" */
		for (int i = 0; i < nres && w < sizeof(what); i++) {
			const struct eval_res *r = &res[i], *e;
			if (r->kern != ki || !r->found)
				continue;
			for (e = res; e < r; e++)
				if (e->kern == ki && e->found && !strcmp(e->verdict, r->verdict))
					break;
			if (e < r)
				continue; /* listed with the first program that gave it */
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s (", w ? "; " : "",
					      r->verdict);
			for (e = r; e < res + nres && w < sizeof(what); e++)
				if (e->kern == ki && e->found && !strcmp(e->verdict, r->verdict))
					w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s",
							      e == r ? "" : ", ",
							      short_name(cases[e->prog]));
			if (w < sizeof(what))
				w += (size_t)snprintf(what + w, sizeof(what) - w, ")");
		}
		if (md)
			printf("| `%s` | %d | %d | %d | %d | %lld | %lld | %s |\n", ks[ki]->name,
			       ncases, held, cut, found, explored, pruned, w ? what : "-");
		else
			printf("%-18s %8d %8d %6d %8d %10lld %8lld  %s\n", ks[ki]->name, ncases,
			       held, cut, found, explored, pruned, w ? what : "-");
	}
}

int explore_evaluate(int argc, char **argv)
{
	static struct search s;
	const struct kernel_config *one = NULL;
	const struct kernel_config *ks[64];
	char **cases = NULL;
	int ncases = 0, nk = 0;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool md = false;

	s.K = EXPLORE_DEFAULT_PREEMPTIONS;
	s.nshards = 1;
	s.reduce = true;
	s.max = EXPLORE_EVALUATE_MAX_SCHEDULES;
	s.oracles = ORACLE_DEADLOCK | ORACLE_LOST_WAKEUP | ORACLE_RESULT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--explore"))
			continue;
		if (!strncmp(a, "--explore=", 10))
			s.K = (int)num_opt(a, 10, 0, MAX_K, "--explore=K with K in 0..15", i + 1);
		else if (!strncmp(a, "--kernel=", 9))
			one = kernel_arg(a + 9);
		else if (!strncmp(a, "--oracles=", 10))
			s.oracles = oracles_arg(a, a + 10, i + 1);
		else if (!strncmp(a, "--max-schedules=", 16))
			s.max = num_opt(a, 16, 1, 1000000000000LL,
					"--max-schedules=M with M in 1..1000000000000", i + 1);
		else if (!strncmp(a, "--jobs=", 7))
			jobs = (long)num_opt(a, 7, 1, 1024, "--jobs=J with J in 1..1024", i + 1);
		else if (!strcmp(a, "--markdown"))
			md = true;
		else if (a[0] == '-')
			die_usage(
			    "--explore[=K], --kernel=NAME, --oracles=LIST, --max-schedules=M, "
			    "--jobs=J, --markdown or a CASE",
			    a, i + 1);
		else {
			cases = realloc(cases, (size_t)(ncases + 1) * sizeof(*cases));
			if (!cases)
				abort();
			cases[ncases++] = argv[i];
		}
	}
	bool own_cases = !ncases;
	if (own_cases)
		ncases = saved_cases(&cases);
	if (s.oracles & ORACLE_LOCKDEP)
		s.reduce = false;
	if (one)
		ks[nk++] = one;
	else
		for_each_kernel (k)
			ks[nk++] = k;
	/* every case parses before any search starts (exit 2 on the first that does not) */
	static struct program *progs;
	progs = calloc((size_t)ncases, sizeof(*progs));
	if (!progs)
		abort();
	for (int c = 0; c < ncases; c++) {
		load_case(cases[c], &progs[c]);
		progs[c].npreempts = 0;
	}
	int npairs = ncases * nk;
	if (jobs > npairs)
		jobs = npairs;
	if (jobs < 1)
		jobs = 1;
	printf("explore: %d %s x %d %s, at most %d %s, at most %lld %s each, %ld %s\n", ncases,
	       plural(ncases, "program", "programs"), nk, plural(nk, "kernel", "kernels"), s.K,
	       plural(s.K, "preemption", "preemptions"), s.max,
	       plural(s.max, "schedule", "schedules"), jobs, plural(jobs, "process", "processes"));
	fflush(stdout);

	/* the workers: worker j takes the pairs j, j + J, ... and writes its records to a
	 * file of its own; the lines and the table come from them, in order */
	FILE *rec[1024];
	pid_t pid[1024];
	for (long j = 0; j < jobs; j++) {
		rec[j] = tmpfile();
		if (!rec[j]) {
			fprintf(stderr, "snafu evaluate --explore: tmpfile: %s\n", strerror(errno));
			return 2;
		}
		pid[j] = fork();
		if (pid[j] < 0) {
			fprintf(stderr, "snafu evaluate --explore: fork: %s\n", strerror(errno));
			return 2;
		}
		if (pid[j])
			continue;
		for (int i = (int)j; i < npairs; i += (int)jobs) {
			struct eval_res r = {.prog = i / nk, .kern = i % nk};
			s.p = &progs[r.prog];
			s.k = ks[r.kern];
			search(&s);
			r.found = s.found;
			r.cut = s.budget_hit;
			r.npreempts = s.found ? found_prog.npreempts : 0;
			memcpy(r.pre, found_prog.preempts, sizeof(r.pre[0]) * (size_t)r.npreempts);
			r.explored = s.explored;
			r.pruned = s.pruned;
			snprintf(r.verdict, sizeof(r.verdict), "%s", s.found ? s.verdict : "ok");
			fwrite(&r, sizeof(r), 1, rec[j]);
		}
		fflush(rec[j]);
		_exit(0);
	}
	int failed = 0;
	for (long j = 0; j < jobs; j++) {
		int st;
		if (waitpid(pid[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "snafu evaluate --explore: worker %ld failed (status %d)\n",
				j + 1, st);
			failed = 1;
		}
	}
	struct eval_res *res = calloc((size_t)npairs, sizeof(*res));
	if (!res)
		abort();
	int nres = 0;
	for (long j = 0; j < jobs; j++) {
		rewind(rec[j]);
		struct eval_res r;
		while (fread(&r, sizeof(r), 1, rec[j]) == 1 && nres < npairs)
			res[r.prog * nk + r.kern] = r, nres++;
		fclose(rec[j]);
	}
	for (int i = 0; i < npairs; i++) {
		struct search t = {.K = s.K, .max = s.max, .nshards = 1};
		const struct eval_res *r = &res[i];
		t.k = ks[r->kern];
		t.found = r->found;
		t.budget_hit = r->cut;
		t.explored = r->explored;
		t.pruned = r->pruned;
		snprintf(t.verdict, sizeof(t.verdict), "%s", r->verdict);
		found_prog.npreempts = r->npreempts;
		memcpy(found_prog.preempts, r->pre, sizeof(r->pre[0]) * (size_t)r->npreempts);
		say(stdout, &t, case_name(cases[r->prog]), "");
	}
	eval_table(res, npairs, cases, ncases, ks, nk, s.K, s.max, md);
	free(res);
	free(progs);
	if (own_cases)
		for (int c = 0; c < ncases; c++)
			free(cases[c]);
	free(cases);
	return failed || nres != npairs ? 1 : 0;
}
#endif
