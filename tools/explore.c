/* snafu explore: systematic schedule search for one program (docs/explore.md).
 *
 * Stateless model checking with dynamic partial-order reduction. A run is cut into
 * transitions at its choice points (the points a preemption can name: op 1.., point
 * 1..32); at each, the current task runs on or another (or the timer) runs instead, and
 * the choices made are the case language's preemptions. The runs form a tree of choice
 * points; each new run replays a path of it and then lets the scheduler go its own way.
 * What each transition touches (its footprint) is read from the trace and from the
 * model's sim_touch() marks, with conservative rules (footprint() below). Every trace
 * (--preemptions=all): after each run, the latest race of each segment (two conflicting
 * segments of different tasks, the first not already before the second's task) queues
 * the reverse order at the node before the first (Flanagan and Godefroid, POPL 2005);
 * sleep sets keep a trace from being run twice. Under a bound K: every choice within it
 * is queued (iterative context bounding, Musuvathi and Qadeer, PLDI 2007) less the
 * labels asleep, and a label sleeps only where the order explored for it cost fewer
 * preemptions (reversing races alone loses traces to the bound: Coons, Musuvathi and
 * McKinley, OOPSLA 2013, and docs/explore.md); a run stops at a state it met before
 * (prefix_keys(): the trace of its prefix names it) with the same current task and no
 * fewer preemptions, and a choice just after a quiet step (quiet_step()) is made at the
 * point before it instead. The queues are run fewest preemptions first, so a finding has
 * the fewest any finding in the explored runs has.
 * --no-reduction queues every choice within the bound; --check-reduction compares.
 *
 * Sharding (--no-reduction only): every process runs what the next level needs, but
 * counts and judges only the schedules whose number in their level is I-1 modulo N.
 */
#include "explore.h"

#include "../prog/exec.h"
#include "../ref/spinlock.h"
#include "casefile.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_K (SIM_MAX_PREEMPTS - 1) /* what the text form holds */

const char *const explore_value_opts[] = {
    "--kernel", "--preemptions", "--oracles", "--shard", "--max-schedules",
    "--random", "--seed",        "-o",        NULL};

const char explore_help[] =
    "  explore [OPTIONS] CASE  run the case's program (its own preemptions ignored) under\n"
    "                          every schedule with at most K preemptions, one per trace\n"
    "                          (partial-order reduction), fewest preemptions first; stop\n"
    "                          at the first finding: its report, then the case with its\n"
    "                          schedule (-o); exit 1 with a finding, 0 without, 130 when\n"
    "                          interrupted (SIGINT, SIGTERM: the line says how far)\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"
    "      --all-kernels       every listed kernel, one line each (no report, no -o)\n"
    "      --preemptions=K     the bound, 0..15 (default 2); all: every trace (what a\n"
    "                          case can write: at most 15)\n"
    "      --oracles=LIST      what counts as a finding (default: deadlock, lost-wakeup,\n"
    "                          result; lockdep only when LIST names it: its prediction\n"
    "                          needs no schedule)\n"
    "      --max-schedules=M   run at most M schedules\n"
    "      --no-reduction      run every schedule (no partial-order reduction)\n"
    "      --shard=I/N         with --no-reduction: the I-th of N processes that split it\n"
    "      --check-reduction   search with and without the reduction at every bound 0..K,\n"
    "                          on the kernel (or --all-kernels), and compare the outcomes\n"
    "                          (verdicts and end states); exit 1 if they differ\n"
    "      --random=N          with --check-reduction and no CASE: N random programs\n"
    "                          (2-3 tasks, 1-4 ops each), from --seed=S (default 1)\n"
    "      --quiet             no progress lines (every 3 s on stderr otherwise)\n"
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

bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, bool (*accept)(void *ctx, const struct run_result *r),
		    void *ctx, struct program *found, long long *runs)
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
static const char *plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* ---- what the hook sees at every scheduling point ---- */

/* Labels: what a choice point may run next. 0 is `to timer` (SIM_TO_TIMER), U >= 1 task U;
 * the current task's own label is "run on". */
#define NLABELS  (SIM_MAX_TASKS + 1)
#define L_BIT(l) ((uint16_t)(1u << (l)))

struct hook_rec {
	uint32_t ev; /* trace events recorded so far, this point's EV_POINT included */
	uint32_t touched[NLABELS]; /* sim_touched since the previous point, by task */
	uint16_t op, point;
	uint8_t task;
	bool node;         /* a choice: a point a preemption can name */
	uint16_t enabled;  /* labels that could run here (the current task's included) */
	uint8_t decision;  /* the label taken (nodes only) */
	uint8_t run_moved; /* bit U-1: task U blocked, woke or ended since the previous point */
	bool clock_moved;  /* a timer was armed, disarmed or fired since then */
	const char *spin[NLABELS]; /* nodes: the spinlock each task waits to retry, or NULL */
	uint32_t points[NLABELS];  /* nodes: each task's scheduling points passed */
};

static struct {
	struct hook_rec *v;
	size_t n, cap;
	/* the tasks as the previous point saw them */
	uint32_t moves[NLABELS];
	uint8_t state[NLABELS];
	uint64_t timer_at[NLABELS];
	/* what the hook is to do: the decisions of the nodes of the path, then run on */
	const uint8_t *path;
	uint32_t npath, nodes;
	bool diverged; /* a node of the path was not where the path said */
} hk;

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

/* A point the case language can name (op 1.., point 1..32). */
static bool nameable(uint16_t op, uint16_t point)
{
	return op >= 1 && point >= 1 && point <= PREEMPT_MAX_POINT;
}

/* Who blocked, woke or ended, and whether a timer moved, since the last look. */
static void note_moves(struct hook_rec *r)
{
	memcpy(r->touched, sim_touched, sizeof(r->touched));
	memset(sim_touched, 0, sizeof(sim_touched));
	for (int i = 1; i <= sim_ntasks(); i++) {
		const struct sim_task *u = sim_task(i);
		if (sim_moves[i] != hk.moves[i] || u->state != hk.state[i])
			r->run_moved |= (uint8_t)(1u << (i - 1));
		if (u->timer_at != hk.timer_at[i])
			r->clock_moved = true;
		hk.moves[i] = sim_moves[i];
		hk.state[i] = (uint8_t)u->state;
		hk.timer_at[i] = u->timer_at;
	}
}

static int on_point(const struct sim_task *t)
{
	int n, dropped;

	hk.v = grow(hk.v, &hk.cap, hk.n + 1, sizeof(*hk.v));
	struct hook_rec *r = &hk.v[hk.n++];
	sim_trace_events(&n, &dropped);
	*r = (struct hook_rec){.ev = (uint32_t)(n + dropped),
			       .op = t->op,
			       .point = t->op_points,
			       .task = (uint8_t)t->id,
			       .node = nameable(t->op, t->op_points)};
	note_moves(r);
	if (!r->node)
		return SIM_HOOK_CONTINUE;
	r->enabled = L_BIT(t->id);
	for (int i = 1; i <= sim_ntasks(); i++) {
		const struct sim_task *u = sim_task(i);
		if (u != t && u->state == SIM_RUNNABLE)
			r->enabled |= L_BIT(i);
		if (u->state == SIM_BLOCKED && u->timer_at != SIM_NO_DEADLINE)
			r->enabled |= L_BIT(0);
		if (u->spinning_on)
			r->spin[i] = container_of(u->spinning_on, spinlock_t, raw)->name;
		r->points[i] = u->points;
	}
	uint8_t d = (uint8_t)t->id; /* past the path: run on */
	if (hk.nodes < hk.npath) {
		d = hk.path[hk.nodes];
		if (!(r->enabled & L_BIT(d))) {
			hk.diverged = true;
			d = (uint8_t)t->id;
		}
	}
	hk.nodes++;
	r->decision = d;
	return d == t->id ? SIM_HOOK_CONTINUE : d;
}

/* ---- footprints: what a run's steps touch, from its trace ---- */

/* 128 resources, a bit each, hashed where there are many (a collision only adds a
 * dependency): each task's own state, its run state (blocked or not), its futex_wait
 * record in the oracles' books; lock names; pages; mapping addresses; the VMA list; the
 * oracles' wake-call log; queue_me()'s counts; the clock and timers. */
enum {
	RB_TASK = 0,
	RB_RUN = 8,
	RB_REC = 16,
	RB_LOCK = 24, /* 24 */
	RB_PAGE = 48, /* 64 */
	RB_MAP = 112, /* 8 */
	RB_VMAS = 120,
	RB_WAKES,
	RB_QUEUES,
	RB_CLOCK,
	RB_N = 128
};
typedef struct {
	uint64_t w[2];
} rset;

/* A step's footprint: what it reads, writes, and updates in ways that commute with each
 * other (st: a read of a page, which sets its accessed bit; a reader's pass through an
 * rwsem that neither queues nor wakes anyone; the MMU's raw page_table_lock). */
struct fp {
	rset rd, wr, st;
};

static void rs_bit(rset *s, int b)
{
	s->w[b >> 6] |= (uint64_t)1 << (b & 63);
}

static void rs_range(rset *s, int from, int n)
{
	for (int b = from; b < from + n; b++)
		rs_bit(s, b);
}

static bool rs_meet(rset a, rset b)
{
	return (a.w[0] & b.w[0]) | (a.w[1] & b.w[1]);
}

static void rs_or(rset *a, rset b)
{
	a->w[0] |= b.w[0];
	a->w[1] |= b.w[1];
}

static rset rs_ones(void)
{
	return (rset){{~(uint64_t)0, ~(uint64_t)0}};
}

static bool conflict(const struct fp *a, const struct fp *b)
{
	rset brw = b->rd, arw = a->rd;
	rs_or(&brw, b->wr);
	rs_or(&brw, b->st);
	rs_or(&arw, a->st);
	return rs_meet(a->wr, brw) || rs_meet(b->wr, arw) || rs_meet(a->st, b->rd) ||
	       rs_meet(b->st, a->rd);
}

/* The first resource at or after r that footprint f touches, or RB_N. */
static int next_res(const struct fp *f, int r)
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

static uint64_t str_hash(const char *s)
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

static int r_lock(const char *name)
{
	return RB_LOCK + (int)(str_hash(name) % 24);
}

static int r_page(unsigned long addr)
{
	uint64_t pg = addr >> 12;

	return RB_PAGE + (int)(pg * 0x9e3779b97f4a7c15ULL >> 58);
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
	bool timeout; /* a futex_wait with a timeout: it reads the clock */
	int ptl;      /* page_table_lock acquisitions not yet given back */
	enum sem_state sem;
	int sem_depth;
	bool sem_write;
	/* its last user access (pages lo..hi): a fault handled, the access runs again
	 * with no event of its own (SIM_TOUCH_RETRY), maybe after a spin on the
	 * page_table_lock: pending until its next point */
	unsigned long acc_lo, acc_hi;
	bool acc_write, acc_pending;
};

/* The pages of a user access. */
static void user_access(struct fp *f, unsigned long lo, unsigned long hi, bool write)
{
	rset *pages = write ? &f->wr : &f->st;

	if (hi - lo > 16)
		rs_range(pages, RB_PAGE, 64);
	else
		for (unsigned long pg = lo; pg <= hi; pg++)
			rs_bit(pages, r_page(pg << 12));
	rs_bit(&f->st, r_lock(PT_LOCK));
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
static void reader_passes(const struct sim_trace_ev *ev, int n, bool *comm)
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

/* What event E does, in the context C of its task (which it updates). The rules, each
 * an over-approximation (docs/explore.md, "The footprint"); COMM: a reader's pass
 * through wait_lock (reader_passes()). */
static void footprint(const struct program *p, struct tctx *c, const struct sim_trace_ev *e,
		      bool comm, struct fp *f)
{
	int t = e->task;

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
			rs_range(&f->wr, RB_PAGE, 64);
			break;
		case OP_MMAP: /* under mmap_sem for write: the rules below */
		case OP_LOAD:
		case OP_STORE: /* user accesses and faults: their events */
			break;
		default: /* page-table walks the trace does not show (mincore, ...) */
			rs_bit(&f->rd, RB_VMAS);
			rs_range(&f->rd, RB_PAGE, 64);
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
			rs_range(&f->wr, RB_PAGE, 64);
		}
	}
	if (ptl || c->ptl > 0)
		rs_range(&f->wr, RB_PAGE, 64);
	if (c->acc_pending) { /* the retried access may be in here */
		user_access(f, c->acc_lo, c->acc_hi, c->acc_write);
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
		/* an rwsem's own events are lockdep's annotations and its held-lock stack
		 * (the task's); its count and queue are touched under its wait_lock */
		if (e->obj && !is(e->obj, MMAP_SEM))
			rs_bit(comm ? &f->st : &f->wr, r_lock(e->obj));
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
		/* the MMU: the PTE and the page, under the raw page_table_lock; a read only
		 * sets the accessed bit, which commutes with other reads */
		unsigned long a = (unsigned long)e->arg,
			      n = e->kind == EV_UACCESS && e->arg2 > 0 ? (unsigned long)e->arg2 : 4;
		c->acc_write = is(e->fn, "put_user") || is(e->fn, "copy_to_user") ||
			       is(e->fn, "clear_user") || is(e->fn, "store");
		c->acc_lo = a >> 12;
		c->acc_hi = (a + n - 1) >> 12;
		c->acc_pending = false;
		user_access(f, c->acc_lo, c->acc_hi, c->acc_write);
		break;
	}
	case EV_FAULT:
		rs_range(&f->wr, RB_PAGE, 64);
		rs_bit(&f->wr, r_lock(PT_LOCK));
		rs_bit(&f->rd, RB_VMAS);
		break;
	case EV_TIMER:
		rs_bit(&f->wr, RB_CLOCK);
		rs_bit(&f->wr, RB_RUN + ((t - 1) & 7));
		rs_bit(&f->wr, r_task(t));
		break;
	default: /* free text (kswapd's), or a kind this file does not know: everything */
		f->rd = f->wr = rs_ones();
	}
}

/* What the sim_touch() marks of one step say it touched. */
static void touched(uint32_t m, struct fp *f)
{
	if (m & SIM_TOUCH_WAKES)
		rs_bit(&f->wr, RB_WAKES);
	if (m & SIM_TOUCH_QUEUES)
		rs_bit(&f->wr, RB_QUEUES);
	if (m & SIM_TOUCH_QUEUES_RD)
		rs_bit(&f->rd, RB_QUEUES);
	if (m & SIM_TOUCH_PAGES_RD) {
		rs_range(&f->rd, RB_PAGE, 64);
		rs_bit(&f->rd, RB_VMAS);
	}
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

/* ---- a run cut into transitions ---- */

/* A transition: what runs from one choice to the next (the first, from the start to the
 * first choice). Its label was chosen at the node before it; when its task blocks or ends
 * the scheduler's own pick runs on within it (the lowest-numbered runnable task), so it
 * may hold steps of several tasks: one segment each, in the order they ran. Races are
 * between segments (a task's steps), each with its own footprint; sleep sets compare
 * whole transitions. */
struct seg {
	struct fp fp;
	uint32_t trans; /* the transition it is part of */
	uint8_t task;
	uint32_t vc[NLABELS]; /* vector clock: happens-before among segments */
};

struct trans {
	struct fp fp; /* its segments' */
	uint8_t label;
	bool quiet; /* quiet_step() */
};

static struct {
	struct trans *v;
	size_t n, cap;
	struct seg *seg;
	size_t nseg, seg_cap;
	bool *comm;
	size_t comm_cap;
	bool complete; /* the whole trace is there (nothing dropped) */
} tr;

static size_t *nodes_of; /* the k-th node's hook is hk.v[nodes_of[k - 1]] */
static size_t nodes_cap;

static void fp_or(struct fp *a, const struct fp *b)
{
	rs_or(&a->rd, b->rd);
	rs_or(&a->wr, b->wr);
	rs_or(&a->st, b->st);
}

/* Task t's segment in transition k, made if it is not there yet. */
static struct seg *seg_of(size_t k, int t)
{
	for (size_t i = tr.nseg; i-- > 0 && tr.seg[i].trans == k;)
		if (tr.seg[i].task == t)
			return &tr.seg[i];
	tr.seg = grow(tr.seg, &tr.seg_cap, tr.nseg + 1, sizeof(*tr.seg));
	struct seg *g = &tr.seg[tr.nseg++];
	memset(g, 0, sizeof(*g));
	g->trans = (uint32_t)k;
	g->task = (uint8_t)t;
	return g;
}

/* What one stretch between two points (R: the point's record, or one made at the end of
 * the run) adds to the segments of the tasks that ran in it (RAN) and of CUR, the task
 * that was running when it began: each task's sim_touch() marks to its own (those made
 * outside any task to CUR's), a timer armed or fired to all of them; a task that
 * blocked, woke or ended to its own segment if it ran, else to CUR's (an unlock wakes
 * its spinners with no event); and if CUR blocked or ended, the scheduler's pick, which
 * read who could run, to CUR's. */
static void stretch(size_t k, const struct hook_rec *r, uint16_t ran, int cur, struct tctx *ctx)
{
	struct fp f = {0};

	ran |= L_BIT(cur);
	for (int t = 1; t <= SIM_MAX_TASKS; t++) {
		uint32_t m = r->touched[t] | (t == cur ? r->touched[0] : 0);
		if (!m && !(ran & L_BIT(t)))
			continue;
		struct seg *g = seg_of(k, t);
		touched(m, &g->fp);
		if (m & SIM_TOUCH_RETRY) { /* its access again */
			user_access(&g->fp, ctx[t].acc_lo, ctx[t].acc_hi, ctx[t].acc_write);
			ctx[t].acc_pending = true;
		}
	}
	if (r->clock_moved)
		rs_bit(&f.wr, RB_CLOCK);
	for (int t = 1; t <= SIM_MAX_TASKS; t++)
		if (ran & L_BIT(t))
			fp_or(&seg_of(k, t)->fp, &f);
	for (int u = 1; u <= SIM_MAX_TASKS; u++)
		if (r->run_moved >> (u - 1) & 1)
			rs_bit(&seg_of(k, ran & L_BIT(u) ? u : cur)->fp.wr, RB_RUN + u - 1);
	if (r->run_moved >> (cur - 1) & 1)
		rs_range(&seg_of(k, cur)->fp.rd, RB_RUN, 8);
}

static bool fp_empty(const struct fp *f)
{
	return !(f->rd.w[0] | f->rd.w[1] | f->wr.w[0] | f->wr.w[1] | f->st.w[0] | f->st.w[1]);
}

/* Whether a step of one task touches nothing another task can see before that task runs
 * again: nothing at all, or only the VMA list read while it holds mmap_sem throughout
 * (a writer of the list holds it for write). A switch to another task just after such
 * a step is the switch just before it, with the step run later as part of the task's
 * next one, at the same cost: no choice is needed after it. */
static bool quiet_step(const struct fp *f, bool held)
{
	struct fp vmas = {0};

	rs_bit(&vmas.rd, RB_VMAS);
	return fp_empty(f) || (held && f->rd.w[0] == vmas.rd.w[0] && f->rd.w[1] == vmas.rd.w[1] &&
			       !(f->wr.w[0] | f->wr.w[1] | f->st.w[0] | f->st.w[1]));
}

/* Cut the run just made into transitions and segments: tr.v[0] before the first node,
 * tr.v[k] after the k-th. Returns the number of nodes. */
static size_t transitions(const struct program *p)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	struct tctx ctx[NLABELS];
	size_t nn = 0;

	tr.complete = dropped == 0;
	tr.comm = grow(tr.comm, &tr.comm_cap, (size_t)n + 1, sizeof(*tr.comm));
	reader_passes(ev, n, tr.comm);
	for (size_t h = 0; h < hk.n; h++)
		if (hk.v[h].node) {
			nodes_of = grow(nodes_of, &nodes_cap, nn + 1, sizeof(*nodes_of));
			nodes_of[nn++] = h;
		}
	tr.v = grow(tr.v, &tr.cap, nn + 1, sizeof(*tr.v));
	tr.n = nn + 1;
	tr.nseg = 0;
	for (int t = 0; t < NLABELS; t++) /* before its first op: none */
		ctx[t] = (struct tctx){.kind = -1, .map_a = -1, .map_b = -1, .map_mmap = -1};
	int e = 0;
	size_t h = 0;
	for (size_t k = 0; k <= nn; k++) {
		size_t from = k ? nodes_of[k - 1] : 0; /* the hook that opens it (k > 0) */
		size_t to = k < nn ? nodes_of[k] : hk.n;
		int label = k ? hk.v[from].decision : 1;
		tr.v[k].label = (uint8_t)label;
		if (label) /* the chosen task's segment first, even if it leaves no event */
			seg_of(k, label);
		/* a spinner that runs here retries its lock, with no event when it fails */
		if (k && label && hk.v[from].spin[label])
			rs_bit(&seg_of(k, label)->fp.wr, r_lock(hk.v[from].spin[label]));
		/* stretches: up to each hook after the opening one, then the end of the run */
		int cur = k ? (label ? label : hk.v[from].task) : 1;
		bool held = label && ctx[label].sem == SEM_HELD;
		for (h = k ? from + 1 : 0; h <= to; h++) {
			struct hook_rec end_rec = {0};
			const struct hook_rec *r = h < hk.n ? &hk.v[h] : &end_rec;
			if (h == hk.n)
				note_moves(&end_rec);
			uint32_t upto = h < hk.n ? r->ev : (uint32_t)(n + dropped);
			uint16_t ran = 0;
			for (; e + dropped < (int)upto && e < n; e++) {
				const struct sim_trace_ev *v = &ev[e];
				int t = v->task;
				if (t < 1 || t > SIM_MAX_TASKS) {
					struct seg *g = seg_of(k, cur);
					g->fp.rd = g->fp.wr = rs_ones();
					continue;
				}
				if (v->kind == EV_PREEMPT)
					continue;
				ran |= L_BIT(t);
				struct seg *g = seg_of(k, t);
				if (k && t != label && hk.v[from].spin[t]) /* a spinner picked */
					rs_bit(&g->fp.wr, r_lock(hk.v[from].spin[t]));
				footprint(p, &ctx[t], v, tr.comm[e], &g->fp);
			}
			stretch(k, r, ran, cur, ctx);
			if (h < hk.n)
				cur = hk.v[h].task;
		}
		memset(&tr.v[k].fp, 0, sizeof(tr.v[k].fp));
		bool alone = true;
		for (size_t i = tr.nseg; i-- > 0 && tr.seg[i].trans == k;) {
			if (!tr.complete)
				tr.seg[i].fp.rd = tr.seg[i].fp.wr = rs_ones();
			fp_or(&tr.v[k].fp, &tr.seg[i].fp);
			alone &= tr.seg[i].task == label;
		}
		held &= label && ctx[label].sem == SEM_HELD;
		tr.v[k].quiet = k && alone && quiet_step(&tr.v[k].fp, held);
	}
	return nn;
}

/* ---- states: a run's prefix up to a node, named by its trace ---- */

static uint64_t smix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* KEY[j], for each node j < NN of the run just cut: a hash of the trace of the run up to
 * that node (its Mazurkiewicz trace under the footprints' dependence). Each segment is
 * named by its task, where the task then is (its scheduling points passed), its task's
 * previous segment and the segments it depends on directly: the last write of each
 * resource it touches, and the last reads and commuting updates since (as races() sees
 * them). Two runs whose prefixes reorder only independent segments get the same names,
 * so the same key; and as the model is deterministic, the same state. A segment that
 * touched nothing and moved nowhere is left out (a pick that ran nothing). */
static void prefix_keys(size_t nn, uint64_t *key)
{
	static uint32_t lastw[RB_N], lastr[RB_N][NLABELS], lasts[RB_N][NLABELS];
	static uint64_t *hseg;
	static uint32_t *stamp;
	static size_t hcap, scap;
	uint64_t chain[NLABELS] = {0};
	uint32_t at[NLABELS] = {0};
	size_t x = 0;

	memset(lastw, 0xff, sizeof(lastw));
	memset(lastr, 0xff, sizeof(lastr));
	memset(lasts, 0xff, sizeof(lasts));
	hseg = grow(hseg, &hcap, tr.nseg + 1, sizeof(*hseg));
	stamp = grow(stamp, &scap, tr.nseg + 1, sizeof(*stamp));
	memset(stamp, 0, (tr.nseg + 1) * sizeof(*stamp));
	for (size_t j = 0; j < nn; j++) {
		const struct hook_rec *h = &hk.v[nodes_of[j]];
		for (; x < tr.nseg && tr.seg[x].trans == j; x++) {
			const struct seg *g = &tr.seg[x];
			int t = g->task;
			if (fp_empty(&g->fp) && h->points[t] == at[t])
				continue;
			uint64_t deps = 0;
			for (int r = next_res(&g->fp, 0); r < RB_N; r = next_res(&g->fp, r + 1)) {
				uint64_t bit = (uint64_t)1 << (r & 63);
				bool rd = g->fp.rd.w[r >> 6] & bit, wr = g->fp.wr.w[r >> 6] & bit,
				     st = g->fp.st.w[r >> 6] & bit;
				uint32_t cand[2 * NLABELS + 1];
				int nc = 0;
				cand[nc++] = lastw[r];
				for (int l = 0; l < NLABELS; l++) {
					if (wr || st)
						cand[nc++] = lastr[r][l];
					if (wr || rd)
						cand[nc++] = lasts[r][l];
				}
				for (int c = 0; c < nc; c++) {
					uint32_t i = cand[c];
					if (i == UINT32_MAX || stamp[i] == x + 1)
						continue;
					stamp[i] = (uint32_t)x + 1;
					deps += smix(hseg[i], 0x5eed); /* a set: any order */
				}
			}
			hseg[x] = chain[t] =
			    smix(smix(smix(chain[t], (uint64_t)t), h->points[t]), deps);
			at[t] = h->points[t];
			for (int r = next_res(&g->fp, 0); r < RB_N; r = next_res(&g->fp, r + 1)) {
				uint64_t bit = (uint64_t)1 << (r & 63);
				if (g->fp.wr.w[r >> 6] & bit) {
					lastw[r] = (uint32_t)x;
					for (int l = 0; l < NLABELS; l++)
						lastr[r][l] = lasts[r][l] = UINT32_MAX;
				} else {
					if (g->fp.rd.w[r >> 6] & bit)
						lastr[r][t] = (uint32_t)x;
					if (g->fp.st.w[r >> 6] & bit)
						lasts[r][t] = (uint32_t)x;
				}
			}
		}
		uint64_t k = 0;
		for (int t = 1; t <= SIM_MAX_TASKS; t++)
			k = smix(smix(k, chain[t]), h->points[t]);
		key[j] = k;
	}
}

/* ---- the search: a tree of choice points ---- */

#define NO_NODE   UINT32_MAX
/* The tree's size limit, about 600 MB with its footprints and queues: a long program
 * (Olof's testcase, 20,000 choice points a run) fills it in a few hundred runs. */
#define MAX_NODES 4000000

struct dnode {
	uint32_t parent;         /* NO_NODE: the first choice of every run */
	uint32_t fp_in;          /* fps[]: the transition that led here from the parent */
	uint32_t sleep_at;       /* sleepers[]: the sleeping labels', in label order */
	uint32_t child[NLABELS]; /* by label; 0: none yet (node 0 is never a child) */
	uint16_t enabled;        /* labels that could run here */
	uint16_t done;           /* labels run or queued from here */
	uint16_t sleep;          /* labels asleep here: explored from an ancestor */
	uint16_t op, point;
	uint8_t task, via,
	    pre;    /* the current task; the label from the parent; preemptions so far */
	bool quiet; /* reached by a quiet step of its task (quiet_step()): no choice here */
};

/* A label asleep at a node: its transition, explored from an ancestor n before the
 * transitions since, all independent of it; and what that explored order (the label at
 * n, then those transitions) cost in preemptions, and the label it ended with. */
struct sleeper {
	struct fp fp;
	uint8_t cost, last;
};

struct work {
	uint32_t node;
	uint8_t label;
};

struct search {
	const struct program *p;
	const struct kernel_config *k;
	unsigned oracles;
	int K;                   /* the bound; MAX_K for --preemptions=all */
	bool unbounded;          /* --preemptions=all */
	unsigned shard, nshards; /* --no-reduction only */
	long long max;
	long long max_steps, steps; /* a budget in scheduling points too (explore_bound()) */
	bool reduce;
	bool collect; /* --check-reduction: run on past findings, gather outcomes */
	bool quiet;   /* no progress lines */
	bool (*accept)(void *ctx, const struct run_result *r); /* NULL: any finding */
	void *ctx;
	long long explored; /* schedules run (counted: this shard's) */
	long long traces;   /* of them, runs that were not cut short by a sleep set */
	long long blocked;  /* runs that a sleep set ended early: a redundant trace */
	bool bound_hit;     /* a trace needed more preemptions than the bound */
	bool found, budget_hit, interrupted;
	bool full;   /* the tree reached MAX_NODES: the search stops, as at --max-schedules */
	bool timers; /* asked for every trace, searched to EXPLORE_BOUND_FALLBACK: search() */
	int level;   /* the preemptions of the schedules being run */
	char verdict[160];
	struct run_result r;
	/* the tree */
	struct dnode *nodes;
	size_t nnodes, nodes_cap;
	struct fp *fps;
	size_t nfps, fps_cap;
	struct sleeper *sleepers;
	size_t nsleepers, sleepers_cap;
	struct work *queue[MAX_K + 1];
	size_t qn[MAX_K + 1], qcap[MAX_K + 1], qhead[MAX_K + 1];
	/* the states met (prefix_keys()), with the fewest preemptions each was met with:
	 * open addressing, 0 free */
	struct seen {
		uint64_t key;
		uint8_t cost;
		uint16_t sleep; /* the labels asleep there */
	} * seen;
	size_t nseen, seen_cap;
};

static struct program found_prog;

static uint32_t new_fp(struct search *s, const struct fp *f)
{
	s->fps = grow(s->fps, &s->fps_cap, s->nfps + 1, sizeof(*s->fps));
	s->fps[s->nfps] = *f;
	return (uint32_t)s->nfps++;
}

/* Whether the state KEY was met before with at most COST preemptions and no label
 * asleep that is awake now (SLEEP: those asleep now), so that every schedule from here
 * was explored from there; if not, it is met now. */
static bool seen_before(struct search *s, uint64_t key, uint8_t cost, uint16_t sleep)
{
	key += !key;
	if (2 * (s->nseen + 1) > s->seen_cap) {
		size_t cap = s->seen_cap ? 2 * s->seen_cap : 1 << 16;
		struct seen *old = s->seen, *v = calloc(cap, sizeof(*v));
		if (!v) {
			fprintf(stderr, "snafu explore: out of memory\n");
			exit(2);
		}
		for (size_t i = 0; i < s->seen_cap; i++)
			if (old[i].key) {
				size_t h = old[i].key & (cap - 1);
				while (v[h].key)
					h = (h + 1) & (cap - 1);
				v[h] = old[i];
			}
		free(old);
		s->seen = v;
		s->seen_cap = cap;
	}
	size_t h = key & (s->seen_cap - 1);
	while (s->seen[h].key && s->seen[h].key != key)
		h = (h + 1) & (s->seen_cap - 1);
	struct seen *e = &s->seen[h];
	if (e->key && e->cost <= cost && !(e->sleep & ~sleep))
		return true;
	if (!e->key)
		s->nseen++;
	else if (e->cost < cost)
		return false;
	*e = (struct seen){.key = key, .cost = cost, .sleep = sleep};
	return false;
}

/* Whether label l is asleep at node n for the search's bound: its traces were explored
 * from an ancestor. Under a bound that holds only when the order explored there costs
 * fewer preemptions than l here, by one for the switch that may follow (bounded
 * partial-order reduction: the bound makes otherwise independent steps dependent).
 * Without a bound, it holds while no trace needed more than a case can hold. */
static bool asleep(const struct search *s, const struct dnode *d, int l)
{
	if (!(d->sleep & L_BIT(l)))
		return false;
	if (s->unbounded)
		return true;
	const struct sleeper *z = &s->sleepers[d->sleep_at];
	for (int m = 0; m < l; m++)
		z += (d->sleep >> m) & 1;
	return z->cost + 1 <= d->pre + (l != d->task);
}

/* Queue label l at node n, unless it is run, queued or asleep there; false if the
 * bound forbids it. */
static bool backtrack(struct search *s, uint32_t n, int l)
{
	while (s->nodes[n].quiet) /* the choice just before the quiet steps instead */
		n = s->nodes[n].parent;
	struct dnode *d = &s->nodes[n];

	if (!(d->enabled & L_BIT(l)) || d->done & L_BIT(l) || asleep(s, d, l))
		return true;
	int cost = d->pre + (l != d->task);
	if (cost > s->K) {
		s->bound_hit = true;
		return false;
	}
	d->done |= L_BIT(l);
	s->queue[cost] = grow(s->queue[cost], &s->qcap[cost], s->qn[cost] + 1, sizeof(struct work));
	s->queue[cost][s->qn[cost]++] = (struct work){.node = n, .label = (uint8_t)l};
	return true;
}

/* Reverse the race between segment i and a later one of task t: queue t at the node
 * before i's transition (or, if t could not run there, every label that could: i may
 * have woken it), and at the node where i's task was switched to, which costs no more
 * preemptions (Coons, Musuvathi and McKinley, OOPSLA 2013). */
static void reverse(struct search *s, const uint32_t *node_at, size_t i, int t)
{
	size_t ti = tr.seg[i].trans, b = ti;
	uint32_t at[2] = {node_at[ti - 1], NO_NODE};

	while (b > 1 && tr.v[b - 1].label == tr.v[ti].label &&
	       s->nodes[node_at[b - 1]].task == tr.v[ti].label)
		b--;
	if (b != ti)
		at[1] = node_at[b - 1];
	for (int a = 0; a < 2; a++) {
		if (at[a] == NO_NODE)
			continue;
		const struct dnode *d = &s->nodes[at[a]];
		uint16_t want = L_BIT(t) & d->enabled;
		if (!want)
			want = d->enabled;
		for (int l = 0; l < NLABELS; l++)
			if (want & L_BIT(l))
				backtrack(s, at[a], l);
	}
}

/* Race analysis of the run just made, transitions 0..last (Flanagan and Godefroid,
 * POPL 2005, with vector clocks over segments): for each segment k, the latest earlier
 * one i of another task that conflicts with it and does not happen before k's task's
 * previous segment is a race; at the node before i's transition, k's task is queued (if
 * it could run there, else every label that could: i may have woken it). As bounded
 * partial-order reduction asks (Coons, Musuvathi and McKinley, OOPSLA 2013), the same
 * goes to the node where i's task was switched to, which costs no more preemptions. */
static void races(struct search *s, const uint32_t *node_at, size_t last)
{
	static uint32_t clock[NLABELS], lastw[RB_N], lastr[RB_N][NLABELS], lasts[RB_N][NLABELS];
	static uint32_t prev_of[NLABELS];

	memset(clock, 0, sizeof(clock));
	memset(lastw, 0xff, sizeof(lastw));
	memset(lastr, 0xff, sizeof(lastr));
	memset(lasts, 0xff, sizeof(lasts));
	memset(prev_of, 0xff, sizeof(prev_of));
	for (size_t k = 0; k < tr.nseg && tr.seg[k].trans <= last; k++) {
		struct seg *x = &tr.seg[k];
		int t = x->task;
		uint32_t po[NLABELS] = {0}, vc[NLABELS];
		if (prev_of[t] != UINT32_MAX)
			memcpy(po, tr.seg[prev_of[t]].vc, sizeof(po));
		memcpy(vc, po, sizeof(vc));
		uint32_t race = UINT32_MAX;
		for (int r = next_res(&x->fp, 0); r < RB_N; r = next_res(&x->fp, r + 1)) {
			uint64_t bit = (uint64_t)1 << (r & 63);
			bool rd = x->fp.rd.w[r >> 6] & bit, wr = x->fp.wr.w[r >> 6] & bit,
			     st = x->fp.st.w[r >> 6] & bit;
			uint32_t cand[2 * NLABELS + 1];
			int nc = 0;
			cand[nc++] = lastw[r];
			for (int l = 0; l < NLABELS; l++) {
				if (wr || st)
					cand[nc++] = lastr[r][l];
				if (wr || rd)
					cand[nc++] = lasts[r][l];
			}
			for (int c = 0; c < nc; c++) {
				uint32_t i = cand[c];
				if (i == UINT32_MAX)
					continue;
				const struct seg *y = &tr.seg[i];
				for (int m = 0; m < NLABELS; m++)
					if (y->vc[m] > vc[m])
						vc[m] = y->vc[m];
				if (y->task == t || y->trans == 0)
					continue; /* in program order; the start has no choice */
				if (y->vc[y->task] <= po[y->task])
					continue; /* already before k's task */
				if (race == UINT32_MAX || i > race)
					race = i;
			}
		}
		vc[t] = ++clock[t];
		memcpy(x->vc, vc, sizeof(vc));
		for (int r = next_res(&x->fp, 0); r < RB_N; r = next_res(&x->fp, r + 1)) {
			uint64_t bit = (uint64_t)1 << (r & 63);
			if (x->fp.wr.w[r >> 6] & bit) {
				lastw[r] = (uint32_t)k;
				for (int l = 0; l < NLABELS; l++)
					lastr[r][l] = lasts[r][l] = UINT32_MAX;
			} else {
				if (x->fp.rd.w[r >> 6] & bit)
					lastr[r][t] = (uint32_t)k;
				if (x->fp.st.w[r >> 6] & bit)
					lasts[r][t] = (uint32_t)k;
			}
		}
		prev_of[t] = (uint32_t)k;
		if (race != UINT32_MAX)
			reverse(s, node_at, race, t);
	}
}

/* A work item's run: the path's decisions, then the scheduler's own way. Adds the new
 * choice points to the tree and what the reduction asks (or, without it, every other
 * choice within the bound) to the queues. */
static void explore_run(struct search *s, struct work w, struct program *q)
{
	static uint8_t *path;
	static uint32_t *pnodes, *node_at;
	static size_t path_cap, pn_cap, na_cap;
	size_t depth = 0;

	/* the path from the first node to w.node, then w.label */
	for (uint32_t n = w.node; n != NO_NODE; n = s->nodes[n].parent)
		depth++;
	path = grow(path, &path_cap, depth + 1, 1);
	pnodes = grow(pnodes, &pn_cap, depth + 1, sizeof(*pnodes));
	size_t i = depth;
	for (uint32_t n = w.node; n != NO_NODE; n = s->nodes[n].parent) {
		i--;
		pnodes[i] = n;
		path[i] = i + 1 < depth ? s->nodes[pnodes[i + 1]].via : w.label;
	}

	struct run_opts o = {.trace = true, .oracles = s->oracles};
	hk.n = 0;
	hk.path = path;
	hk.npath = (uint32_t)depth;
	hk.nodes = 0;
	hk.diverged = false;
	memset(hk.moves, 0, sizeof(hk.moves));
	memset(hk.state, 0, sizeof(hk.state));
	for (int t = 0; t < NLABELS; t++)
		hk.timer_at[t] = SIM_NO_DEADLINE;
	sim_point_hook = on_point;
	*q = *s->p;
	q->npreempts = 0;
	prog_run(q, s->k, &o, &s->r);
	sim_point_hook = NULL;
	if (hk.diverged || hk.nodes < depth) {
		fprintf(stderr, "snafu explore: internal error: a run left its path on %s\n",
			s->k->name);
		exit(2);
	}
	size_t nn = transitions(s->p);
	static uint64_t *key;
	static size_t key_cap;
	bool cache = s->reduce && !s->unbounded, keyed = cache && tr.complete;
	if (keyed) {
		key = grow(key, &key_cap, nn + 1, sizeof(*key));
		prefix_keys(nn, key);
	}
	for (size_t k = 0; k < depth; k++) { /* runs are deterministic: the same points */
		const struct hook_rec *r = &hk.v[nodes_of[k]];
		const struct dnode *d = &s->nodes[pnodes[k]];
		if (r->task != d->task || r->op != d->op || r->point != d->point) {
			fprintf(
			    stderr,
			    "snafu explore: internal error: choice %zu of a run was at %d.%u.%u, "
			    "not at %d.%u.%u as before, on %s\n",
			    k + 1, r->task, r->op, r->point, d->task, d->op, d->point, s->k->name);
			exit(2);
		}
	}
	/* the schedule as the case language writes it: the switches made */
	q->npreempts = 0;
	for (size_t k = 0; k < nn && k < depth; k++) {
		const struct hook_rec *r = &hk.v[nodes_of[k]];
		if (r->decision != r->task && q->npreempts < MAX_K)
			q->preempts[q->npreempts++] = (struct sim_preempt){
			    .task = r->task, .op = r->op, .point = r->point, .to = r->decision};
	}

	/* the nodes: the path's, then new ones */
	node_at = grow(node_at, &na_cap, nn + 1, sizeof(*node_at));
	for (size_t k = 0; k < depth; k++)
		node_at[k] = pnodes[k];
	size_t last = nn; /* the last transition analysed */
	for (size_t k = depth; k < nn; k++) {
		const struct hook_rec *r = &hk.v[nodes_of[k]];
		uint32_t parent = k ? node_at[k - 1] : NO_NODE;
		uint8_t via = k ? hk.v[nodes_of[k - 1]].decision : 0;
		if (s->nnodes >= MAX_NODES) { /* memory: the search ends after this run */
			s->full = s->budget_hit = true;
			last = k;
			break;
		}
		s->nodes = grow(s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof(*s->nodes));
		uint32_t id = (uint32_t)s->nnodes++;
		struct dnode *d = &s->nodes[id];
		memset(d, 0, sizeof(*d));
		d->parent = parent;
		d->via = via;
		d->task = r->task;
		d->op = r->op;
		d->point = r->point;
		d->enabled = r->enabled;
		d->done = L_BIT(r->decision);
		d->fp_in = new_fp(s, &tr.v[k].fp);
		if (parent != NO_NODE) {
			const struct dnode *pd = &s->nodes[parent];
			d->pre = (uint8_t)(pd->pre + (via != pd->task));
			d->quiet = cache && via == pd->task && d->task == via && tr.v[k].quiet;
			s->nodes[parent].child[via] = id;
		}
		node_at[k] = id;
		if (s->reduce && parent != NO_NODE) {
			/* the sleep set: the parent's, and at the run's own choice its explored
			 * siblings, less what conflicts with the transition just made */
			struct sleeper sl[NLABELS];
			uint16_t sleep = 0;
			const struct dnode *pd = &s->nodes[parent];
			uint32_t at = pd->sleep_at;
			for (int l = 0; l < NLABELS; l++) {
				if (!(pd->sleep & L_BIT(l)))
					continue;
				sl[l] = s->sleepers[at++];
				sl[l].cost = (uint8_t)(sl[l].cost + (via != sl[l].last));
				sl[l].last = via;
				sleep |= L_BIT(l);
			}
			if (k == depth)
				for (int l = 0; l < NLABELS; l++)
					if (l != via && pd->child[l] && !(sleep & L_BIT(l)) &&
					    !s->nodes[pd->child[l]].quiet) {
						sl[l].fp = s->fps[s->nodes[pd->child[l]].fp_in];
						sl[l].cost = (uint8_t)(pd->pre + (l != pd->task) +
								       (via != l));
						sl[l].last = via;
						sleep |= L_BIT(l);
					}
			d->sleep_at = (uint32_t)s->nsleepers;
			for (int l = 0; l < NLABELS; l++) {
				if (!(sleep & L_BIT(l)) || l == via ||
				    conflict(&sl[l].fp, &tr.v[k].fp))
					continue;
				d->sleep |= L_BIT(l);
				s->sleepers = grow(s->sleepers, &s->sleepers_cap, s->nsleepers + 1,
						   sizeof(*s->sleepers));
				s->sleepers[s->nsleepers++] = sl[l];
			}
			d = &s->nodes[id];
		}
		if (keyed) {
			uint16_t zz = 0;
			for (int l = 0; l < NLABELS; l++)
				if (d->enabled & L_BIT(l) && asleep(s, d, l))
					zz |= L_BIT(l);
			if (seen_before(s, s->unbounded ? key[k] : smix(key[k], r->task), d->pre,
					zz)) {
				last = k; /* the rest: from a state met before */
				s->blocked++;
				break;
			}
		}
		if (s->reduce && parent != NO_NODE) {
			if (asleep(s, d, r->decision)) {
				/* the rest of this run is a trace explored already: run another
				 * label from here instead */
				d->done &= (uint16_t)~L_BIT(r->decision);
				for (int l = 0; l < NLABELS; l++)
					if (d->enabled & L_BIT(l) && !asleep(s, d, l))
						if (backtrack(s, id, l))
							break;
				last = k;
				s->blocked++;
				break;
			}
		}
		/* under a bound (and without the reduction), every other choice, less the
		 * sleepers: reversing races alone can leave a trace only to orders that need
		 * more preemptions than the bound allows (docs/explore.md, "Under a bound") */
		if (!s->reduce || !s->unbounded)
			for (int l = 0; l < NLABELS; l++)
				if (l != r->decision)
					backtrack(s, id, l);
	}
	if (last == nn)
		s->traces++;
	if (s->reduce && s->unbounded)
		races(s, node_at, last);
}

/* ---- progress, and a stop on SIGINT or SIGTERM ---- */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Count one run as this shard's; false (and nothing counted) at --max-schedules. */
static bool budget(struct search *s)
{
	if ((s->max && s->explored >= s->max) || (s->max_steps && s->steps >= s->max_steps) ||
	    s->full) {
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
	if (!s->found) {
		s->found = true;
		found_prog = *q;
		snprintf(s->verdict, sizeof(s->verdict), "%s", s->r.verdict);
	}
	return !s->collect;
}

/* --check-reduction: what each run ended in (outcomes[], a sorted set). */
static void (*on_outcome)(struct search *s, const struct program *q);

static void release(struct search *s)
{
	s->nnodes = s->nfps = s->nsleepers = 0;
	if (s->seen)
		memset(s->seen, 0, s->seen_cap * sizeof(*s->seen));
	s->nseen = 0;
	for (int k = 0; k <= MAX_K; k++)
		s->qn[k] = s->qhead[k] = 0;
}

/* Whether p can arm a timer: a sleep, or a futex_wait with a timeout. */
static bool arms_timers(const struct program *p)
{
	for (int i = 0; i < p->nops; i++)
		if (p->ops[i].kind == OP_SLEEP || (p->ops[i].kind == OP_FUTEX_WAIT && p->ops[i].y))
			return true;
	return false;
}

static void search_all(struct search *s);

/* The whole search on s->k; s->found, s->budget_hit or s->interrupted say how it ended.
 * The unbounded reduction does not cover timers: a timer fired early makes its task
 * runnable where no race between tasks says so (docs/explore.md, "Timers"), and
 * --check-reduction found traces it lost. A program that can arm one gets the search
 * within EXPLORE_BOUND_FALLBACK preemptions instead (s->timers: the line says so). */
static void search(struct search *s)
{
	bool unbounded = s->unbounded;
	int K = s->K;

	s->timers = unbounded && s->reduce && arms_timers(s->p);
	if (s->timers) {
		s->unbounded = false;
		s->K = EXPLORE_BOUND_FALLBACK;
	}
	search_all(s);
	s->unbounded = unbounded;
	s->K = K;
}

static void search_all(struct search *s)
{
	static struct program q;
	double start = now_s(), next = start + 3;

	s->explored = s->traces = s->blocked = s->steps = 0;
	s->found = s->budget_hit = s->bound_hit = s->interrupted = s->full = false;
	s->level = 0;
	release(s);
	/* the first run: the scheduler's own way, no choice made (shard 1's to count) */
	if (s->shard == 0 && !budget(s))
		return;
	explore_run(s, (struct work){.node = NO_NODE}, &q);
	s->steps += (long long)s->r.steps;
	if (on_outcome)
		on_outcome(s, &q);
	if (finding(s, &q))
		return;
	for (;;) { /* the lowest level with work: a race may queue below the current one */
		int k = 0;
		while (k <= s->K && s->qhead[k] == s->qn[k])
			k++;
		if (k > s->K)
			return;
		s->level = k;
		struct work w = s->queue[k][s->qhead[k]];
		/* shards (--no-reduction): levels below K whole, each counts its own */
		bool mine = s->nshards == 1 || s->qhead[k] % s->nshards == s->shard;
		s->qhead[k]++;
		if (!mine && k == s->K)
			continue;
		if (stop_signal) {
			s->interrupted = true;
			return;
		}
		if (mine && !budget(s))
			return;
		explore_run(s, w, &q);
		s->steps += (long long)s->r.steps;
		if (on_outcome)
			on_outcome(s, &q);
		if ((mine || k < s->K) && finding(s, &q)) /* below K: every shard alike */
			return;
		if (!s->quiet && now_s() >= next) {
			next = now_s() + 3;
			fprintf(
			    stderr,
			    "explore: %s: %lld schedules, %lld traces, at %d %s, %zu queued, %.0f "
			    "s\n",
			    s->k->name, s->explored, s->traces, k,
			    plural(k, "preemption", "preemptions"), s->qn[k] - s->qhead[k],
			    now_s() - start);
		}
	}
}

/* ---- the command ---- */

/* The line that says how the search on s->k ended. */
static void say(FILE *f, const struct search *s, const char *name, const char *shard)
{
	char bound[64];
	int K = s->timers ? EXPLORE_BOUND_FALLBACK : s->K;
	bool unbounded = s->unbounded && !s->timers;

	if (unbounded)
		snprintf(bound, sizeof(bound), "any number of preemptions");
	else
		snprintf(bound, sizeof(bound), "at most %d %s", K,
			 plural(K, "preemption", "preemptions"));
	fprintf(f, "explore: %s [%s]: ", name, s->k->name);
	if (s->timers)
		fprintf(f,
			"(it arms timers, which the unbounded reduction does not cover: "
			"every schedule within %d preemptions instead) ",
			K);
	if (s->found) {
		fprintf(f, "found %s with %d %s after %lld %s (%lld %s)", s->verdict,
			found_prog.npreempts,
			plural(found_prog.npreempts, "preemption", "preemptions"), s->explored,
			plural(s->explored, "schedule", "schedules"), s->traces,
			plural(s->traces, "trace", "traces"));
		for (int i = 0; i < found_prog.npreempts; i++) {
			char buf[80];
			fprintf(f, "%s%s", i ? ", " : ": ",
				prog_preempt_str(&found_prog.preempts[i], buf, sizeof(buf)));
		}
	} else if (s->interrupted) {
		fprintf(f,
			"interrupted after %lld %s (%lld %s), at %d %s: no finding so far, not "
			"every schedule with %s run",
			s->explored, plural(s->explored, "schedule", "schedules"), s->traces,
			plural(s->traces, "trace", "traces"), s->level,
			plural(s->level, "preemption", "preemptions"), bound);
	} else if (s->budget_hit) {
		fprintf(f,
			"no finding in %lld %s (%s), %lld %s: not every schedule with %s was run",
			s->explored, plural(s->explored, "schedule", "schedules"),
			s->full ? "the tree of choice points is full" : "--max-schedules",
			s->traces, plural(s->traces, "trace", "traces"), bound);
	} else if (!s->reduce) {
		fprintf(f, "no finding within %d %s: %lld %s (no reduction)", K,
			plural(K, "preemption", "preemptions"), s->explored,
			plural(s->explored, "schedule", "schedules"));
	} else if (unbounded && !s->bound_hit) {
		fprintf(f, "no finding in %lld %s (unbounded): %lld %s", s->traces,
			plural(s->traces, "trace", "traces"), s->explored,
			plural(s->explored, "schedule", "schedules"));
	} else if (unbounded) {
		fprintf(f,
			"no finding in %lld %s with at most %d preemptions (what a case holds; "
			"some traces need more): %lld %s",
			s->traces, plural(s->traces, "trace", "traces"), MAX_K, s->explored,
			plural(s->explored, "schedule", "schedules"));
	} else {
		fprintf(f, "no finding within %d %s: %lld %s, %lld %s%s", K,
			plural(K, "preemption", "preemptions"), s->traces,
			plural(s->traces, "trace", "traces"), s->explored,
			plural(s->explored, "schedule", "schedules"),
			s->bound_hit ? "" : " (no trace needs more: unbounded)");
	}
	fprintf(f, "%s\n", shard);
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

/* ---- --check-reduction: the reduction loses nothing ---- */

/* What a run ended in, as equivalent runs share it: each task's own events in order,
 * every op's return value and what each load read, and the verdict: the trace digest
 * of the end state, whatever the order of independent steps. */
static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static uint64_t end_state(const struct program *q, const struct run_result *r)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	uint64_t task[NLABELS] = {0}, h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < n; i++) {
		const struct sim_trace_ev *e = &ev[i];
		if (e->kind == EV_PREEMPT || e->task > SIM_MAX_TASKS)
			continue;
		uint64_t t =
		    mix(task[e->task], (uint64_t)e->kind << 32 | (uint64_t)e->op << 16 | e->point);
		t = mix(mix(t, str_hash(e->fn)), str_hash(e->obj));
		task[e->task] = mix(mix(t, (uint64_t)e->arg), (uint64_t)e->arg2);
	}
	for (int t = 0; t < NLABELS; t++)
		h = mix(h, task[t]);
	for (int i = 0; i < q->nops; i++) /* an op that did not return keeps an old value */
		h = mix(mix(mix(h, r->ran[i] ? (uint64_t)r->ret[i] : 0), r->loaded[i]), r->ran[i]);
	return mix(h, str_hash(r->verdict));
}

static struct {
	uint64_t *v;
	size_t n, cap;
	bool want; /* only runs that are traces (a run a sleep set cut short is not) */
	long long blocked_seen;
} outcomes;

static void note_outcome(struct search *s, const struct program *q)
{
	if (outcomes.want && s->blocked != outcomes.blocked_seen) {
		outcomes.blocked_seen = s->blocked;
		return;
	}
	outcomes.v = grow(outcomes.v, &outcomes.cap, outcomes.n + 1, sizeof(*outcomes.v));
	outcomes.v[outcomes.n++] = end_state(q, &s->r);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The distinct outcomes of one whole search (no stop at a finding), sorted, in *out. */
static size_t outcome_set(struct search *s, bool reduce, uint64_t **out)
{
	s->reduce = reduce;
	s->collect = true;
	outcomes.n = 0;
	outcomes.want = reduce;
	outcomes.blocked_seen = 0;
	on_outcome = note_outcome;
	search(s);
	on_outcome = NULL;
	s->collect = false;
	qsort(outcomes.v, outcomes.n, sizeof(*outcomes.v), by_u64);
	size_t m = 0;
	for (size_t i = 0; i < outcomes.n; i++)
		if (!m || outcomes.v[i] != outcomes.v[m - 1])
			outcomes.v[m++] = outcomes.v[i];
	*out = malloc(m * sizeof(**out) + 1);
	if (!*out)
		abort();
	memcpy(*out, outcomes.v, m * sizeof(**out));
	return m;
}

/* After a difference: the schedules (without the reduction) of the outcomes missing
 * with it, the first of each, at most three. */
static struct {
	uint64_t *v;
	size_t n;
	int shown;
	FILE *f;
} lost;

static void show_lost(struct search *s, const struct program *q)
{
	uint64_t h = end_state(q, &s->r);

	for (size_t i = 0; i < lost.n && lost.shown < 3; i++) {
		if (lost.v[i] != h)
			continue;
		lost.v[i] = lost.v[--lost.n]; /* the first of this outcome only */
		lost.shown++;
		fprintf(lost.f, "explore:   missing with the reduction: %s, the outcome of",
			s->r.verdict);
		for (int j = 0; j < q->npreempts; j++) {
			char buf[80];
			fprintf(lost.f, "%s%s", j ? ", " : " ",
				prog_preempt_str(&q->preempts[j], buf, sizeof(buf)));
		}
		fprintf(lost.f, "%s\n", q->npreempts ? "" : " the sequential run");
		return;
	}
}

/* Every outcome without the reduction is one with it, and no other: how many differ. */
static long long check_one(struct search *s, FILE *f, const char *name)
{
	uint64_t *with, *without;
	size_t nw = outcome_set(s, true, &with);
	long long traces = s->traces, runs = s->explored;
	bool cut = s->budget_hit, all = s->unbounded, more = s->bound_hit && !s->timers,
	     timers = s->timers;
	/* every trace: against every schedule within EXPLORE_BOUND_FALLBACK, which it covers */
	if (all) {
		s->unbounded = false;
		s->K = EXPLORE_BOUND_FALLBACK;
	}
	size_t no = outcome_set(s, false, &without);
	long long full = s->explored;
	long long missing = 0, extra = 0;
	size_t i = 0, j = 0;
	cut |= s->budget_hit;
	while (i < nw || j < no) {
		if (j == no || (i < nw && with[i] < without[j]))
			extra++, i++;
		else if (i == nw || without[j] < with[i])
			missing++, j++;
		else
			i++, j++;
	}
	if (missing && !cut) { /* say which: run the search without the reduction again */
		lost.v = malloc((size_t)missing * sizeof(*lost.v) + 1);
		if (!lost.v)
			abort();
		lost.n = 0;
		for (i = 0, j = 0; j < no;) {
			if (i < nw && with[i] < without[j])
				i++;
			else if (i < nw && with[i] == without[j])
				i++, j++;
			else
				lost.v[lost.n++] = without[j++];
		}
		lost.shown = 0;
		lost.f = f;
		s->reduce = false;
		s->collect = true;
		on_outcome = show_lost;
		search(s);
		on_outcome = NULL;
		s->collect = false;
		free(lost.v);
	}
	free(with);
	free(without);
	if (all) {
		s->unbounded = true;
		s->K = MAX_K;
		fprintf(
		    f,
		    "explore: %s [%s]: --check-reduction, every trace%s: %zu %s in %lld %s (%lld "
		    "%s%s), %zu within %d preemptions without the reduction (%lld %s): %lld "
		    "missing%s\n",
		    name, s->k->name,
		    timers ? " (it arms timers: searched within the same bound instead)" : "", nw,
		    plural((long long)nw, "outcome", "outcomes"), traces,
		    plural(traces, "trace", "traces"), runs, plural(runs, "schedule", "schedules"),
		    more ? ", some traces need more than 15 preemptions" : "", no,
		    EXPLORE_BOUND_FALLBACK, full, plural(full, "schedule", "schedules"), missing,
		    cut ? " (cut by --max-schedules: not compared)" : "");
		s->reduce = true;
		return cut ? 0 : missing;
	}
	fprintf(f,
		"explore: %s [%s]: --check-reduction at %d %s: %zu %s with the reduction (%lld "
		"%s, %lld %s), %zu without (%lld %s): %lld missing, %lld extra%s\n",
		name, s->k->name, s->K, plural(s->K, "preemption", "preemptions"), nw,
		plural((long long)nw, "outcome", "outcomes"), traces,
		plural(traces, "trace", "traces"), runs, plural(runs, "schedule", "schedules"), no,
		full, plural(full, "schedule", "schedules"), missing, extra,
		cut ? " (cut by --max-schedules: not compared)" : "");
	s->reduce = true;
	return cut ? 0 : missing + extra;
}

/* A small random program (the reduction check): 2-3 tasks, 1-4 ops each, every kind of
 * op, on one or two small mappings that task 1 makes first (most of the time). */
static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rnd_state >> 33) % n;
}

static void random_program(struct program *p)
{
	memset(p, 0, sizeof(*p));
	p->ntasks = 2 + (int)rnd(2);
	int nmaps = 0;
	for (int t = 1; t <= p->ntasks; t++) {
		int nops = 1 + (int)rnd(4);
		for (int i = 0; i < nops; i++) {
			struct op *o = &p->ops[p->nops++];
			o->task = (uint8_t)t;
			o->kind = (uint8_t)(t == 1 && i == 0 && rnd(4) ? OP_MMAP : rnd(OP_NKINDS));
			if (o->kind == OP_MMAP && nmaps >= 2)
				o->kind = OP_STORE;
			int m = nmaps ? (int)rnd((unsigned)nmaps) : -1;
			o->a = (struct uref){.map = m < 0 || !rnd(8) ? PROG_NULL_MAP : (uint8_t)m,
					     .page = (uint8_t)rnd(2),
					     .word = (uint8_t)rnd(2)};
			o->b = (struct uref){.map = m < 0 ? PROG_NULL_MAP : (uint8_t)m,
					     .page = (uint8_t)rnd(2),
					     .word = (uint8_t)(2 + rnd(2))};
			switch (o->kind) {
			case OP_MMAP:
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)(3 | (rnd(2) ? 8 : 0));
				nmaps++;
				break;
			case OP_MUNMAP:
			case OP_MADVISE:
			case OP_MINCORE:
			case OP_MLOCK:
				o->x = (uint8_t)rnd(2);
				break;
			case OP_MPROTECT:
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)rnd(4);
				break;
			case OP_STORE:
			case OP_FUTEX_WAKE:
				o->x = (uint8_t)rnd(3);
				break;
			case OP_FUTEX_WAIT:
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)(rnd(3) ? 0 : 1 + rnd(3));
				break;
			case OP_FUTEX_REQUEUE:
			case OP_FUTEX_CMP_REQUEUE:
				o->x = (uint8_t)(rnd(2) | rnd(2) << 4);
				o->y = (uint8_t)rnd(2);
				break;
			case OP_GET_MEMPOLICY:
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)rnd(4);
				break;
			case OP_KILL:
				o->x = (uint8_t)rnd((unsigned)p->ntasks);
				break;
			case OP_SLEEP:
				o->x = (uint8_t)(1 + rnd(3));
				break;
			default:
				break;
			}
		}
	}
	prog_canonicalize(p);
}

/* --check-reduction over N random programs: every kernel asked, bounds 0..K. */
static int check_random(struct search *s, const struct kernel_config *one, long long n,
			unsigned long long seed)
{
	static struct program p;
	long long checks = 0, cut = 0, differ = 0;
	int K = s->K;

	rnd_state = seed;
	s->p = &p;
	for (long long i = 0; i < n && !stop_signal; i++) {
		random_program(&p);
		char name[64];
		snprintf(name, sizeof(name), "random program %lld (seed %llu)", i + 1, seed);
		for_each_kernel (kc) {
			if (one && kc != one)
				continue;
			s->k = kc;
			for (s->K = s->unbounded ? K : 0; s->K <= K; s->K++) {
				FILE *mem = tmpfile();
				long long d = check_one(s, mem ? mem : stderr, name);
				checks++;
				cut += s->budget_hit;
				if (d && mem) {
					differ++;
					rewind(mem);
					for (int ch; (ch = fgetc(mem)) != EOF;)
						fputc(ch, stdout);
					prog_print(&p, stdout);
				}
				if (mem)
					fclose(mem);
			}
			s->K = K;
		}
	}
	char bounds[64];
	if (s->unbounded)
		snprintf(bounds, sizeof(bounds), "every trace against %d preemptions",
			 EXPLORE_BOUND_FALLBACK);
	else
		snprintf(bounds, sizeof(bounds), "bounds 0..%d", K);
	printf("explore: --check-reduction: %lld random %s (seed %llu), %s: %lld %s, %lld cut "
	       "by --max-schedules, %lld with a difference\n",
	       n, plural(n, "program", "programs"), seed, bounds, checks,
	       plural(checks, "check", "checks"), cut, differ);
	return differ ? 1 : 0;
}

int cmd_explore(int argc, char **argv)
{
	const struct kernel_config *k = NULL;
	const char *out = NULL, *in = NULL;
	bool all_kernels = false, check = false;
	int kernel_argn = 0, shard_argn = 0;
	long long random = 0;
	unsigned long long seed = 1;
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
		else if (!strcmp(a, "--preemptions=all")) {
			s.K = MAX_K;
			s.unbounded = true;
		} else if (!strncmp(a, "--preemptions=", 14)) {
			s.K = (int)num_opt(a, 14, 0, MAX_K,
					   "--preemptions=K with K in 0..15 or all", i + 1);
			s.unbounded = false;
		} else if (!strncmp(a, "--oracles=", 10))
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
			shard_argn = i + 1;
		} else if (!strcmp(a, "--no-reduction"))
			s.reduce = false;
		else if (!strcmp(a, "--check-reduction"))
			check = true;
		else if (!strncmp(a, "--random=", 9))
			random = num_opt(a, 9, 1, 1000000000, "--random=N with N in 1..1000000000",
					 i + 1);
		else if (!strncmp(a, "--seed=", 7))
			seed = (unsigned long long)num_opt(
			    a, 7, 0, 1000000000000LL, "--seed=S with S in 0..1000000000000", i + 1);
		else if (!strcmp(a, "--quiet"))
			s.quiet = true;
		else if (!strcmp(a, "-o") && i + 1 < argc)
			out = argv[++i];
		else
			cli_operand(
			    &in, a, i + 1,
			    "--kernel=NAME, --all-kernels, --preemptions=K|all, --oracles=LIST, "
			    "--shard=I/N, --max-schedules=M, --no-reduction, --check-reduction, "
			    "--random=N, --seed=S, --quiet, -o OUT or a CASE",
			    "one CASE");
	}
	if (all_kernels && kernel_argn)
		die_usage("--kernel=NAME or --all-kernels, not both", argv[kernel_argn - 1],
			  kernel_argn);
	if (s.nshards > 1 && (s.reduce || s.unbounded))
		die_usage("--shard=I/N with --no-reduction and a bound (the reduction's runs "
			  "depend on each other)",
			  argv[shard_argn - 1], shard_argn);
	if (all_kernels && out) {
		fprintf(stderr,
			"snafu explore: expected no -o with --all-kernels (one line each)\n");
		return 2;
	}
	if (random && (!check || in)) {
		fprintf(stderr, "snafu explore: expected --random=N with --check-reduction and no "
				"CASE\n");
		return 2;
	}
	if (check && (out || s.nshards > 1 || !s.reduce)) {
		fprintf(stderr, "snafu explore: expected --check-reduction without -o, --shard, "
				"--no-reduction\n");
		return 2;
	}
	if (!in && !random) {
		fprintf(stderr, "snafu explore: expected a CASE\n");
		return 2;
	}
	if (out && !case_out_ok(out))
		return 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* the reduction reads steps' resources; lockdep's graph ties every lock together */
	if (s.oracles & ORACLE_LOCKDEP) {
		if (check) {
			fprintf(stderr, "snafu explore: expected --check-reduction without lockdep "
					"in --oracles (the reduction is off with it)\n");
			return 2;
		}
		s.reduce = false;
	}
	if (random) {
		s.quiet = true;
		int st = check_random(&s, k, random, seed);
		return stop_signal ? 130 : st;
	}
	static struct program p;
	load_case(in, &p);
	p.npreempts = 0; /* its own schedule is not the question */
	s.p = &p;
	const char *name = case_name(in);
	char shard[64] = "";
	if (s.nshards > 1)
		snprintf(shard, sizeof(shard), " (shard %u/%u)", s.shard + 1, s.nshards);

	if (check || all_kernels) {
		int status = 0;
		for_each_kernel (kc) {
			if (!all_kernels && kc != (k ? k : kernel_by_name(SNAFU_DEFAULT_KERNEL)))
				continue;
			s.k = kc;
			if (check && s.unbounded)
				status |= check_one(&s, stdout, name) != 0;
			else if (check) {
				int K = s.K;
				for (s.K = 0; s.K <= K && !stop_signal; s.K++)
					status |= check_one(&s, stdout, name) != 0;
				s.K = K;
			} else {
				search(&s);
				say(stdout, &s, name, shard);
				status |= s.found;
			}
			fflush(stdout);
			if (stop_signal)
				return 130;
		}
		return status;
	}
	s.k = k ? k : kernel_by_name(SNAFU_DEFAULT_KERNEL);
	search(&s);
	/* the messages go to stdout, unless the case does (-o -) */
	FILE *msg = out && !strcmp(out, "-") ? stderr : stdout;
	if (!s.found) {
		say(msg, &s, name, shard);
		return s.interrupted ? 130 : 0;
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

/* A search of p on k for another command: the tree's memory is kept between calls. */
static struct search *other_search(const struct program *p, const struct kernel_config *k,
				   unsigned oracles, long long max_schedules)
{
	static struct search s;
	static struct program q;

	q = *p;
	q.npreempts = 0;
	s.p = &q;
	s.k = k;
	s.oracles = oracles;
	s.nshards = 1;
	s.shard = 0;
	s.reduce = !(oracles & ORACLE_LOCKDEP);
#ifdef SNAFU_EXPLORE_NO_REDUCTION
	/* built into the fuzzer, whose model has no sim_touch() marks (fuzz/joint.c): the
	 * footprints would miss what they mark, so every schedule within the bound runs */
	s.reduce = false;
#endif
	s.max = max_schedules;
	s.quiet = true;
	s.accept = NULL;
	s.ctx = NULL;
	return &s;
}

bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, bool (*accept)(void *ctx, const struct run_result *r),
		    void *ctx, struct program *found, long long *runs)
{
	struct search *s = other_search(p, k, oracles, max_schedules);

	s->unbounded = K < 0 || K > MAX_K;
	s->K = s->unbounded ? MAX_K : K;
	s->accept = accept;
	s->ctx = ctx;
	search(s);
	*runs = s->explored;
	if (s->found)
		*found = found_prog;
	return s->found;
}

void explore_bound(const struct program *p, const struct kernel_config *k, unsigned oracles,
		   long long max_schedules, struct explore_bound *out)
{
	struct search *s = other_search(p, k, oracles, max_schedules / 4 + 1);
	long long before = 0;

	/* every trace, on a quarter of the budget; then the bound, on the rest */
	s->max_steps = s->max * EXPLORE_BOUND_STEPS;
	s->unbounded = true;
	s->K = MAX_K;
	search(s);
	if (s->budget_hit) { /* too many traces: to EXPLORE_BOUND_FALLBACK preemptions */
		before = s->explored;
		s->max = max_schedules - before > 0 ? max_schedules - before : 1;
		s->max_steps = s->max * EXPLORE_BOUND_STEPS;
		s->unbounded = false;
		s->K = EXPLORE_BOUND_FALLBACK;
		search(s);
	}
	*out = (struct explore_bound){.found = s->found,
				      .unbounded = s->unbounded && !s->timers && !s->bound_hit,
				      .cut = s->budget_hit,
				      .K = s->timers ? EXPLORE_BOUND_FALLBACK : s->K,
				      .npreempts = s->found ? found_prog.npreempts : 0,
				      .traces = s->traces,
				      .schedules = before + s->explored};
	snprintf(out->verdict, sizeof(out->verdict), "%s", s->found ? s->verdict : "ok");
}

/* ---- snafu evaluate --explore: every saved program on every listed kernel ---- */

/* What one search of one program on one kernel gave (a worker's record). */
struct eval_res {
	int prog, kern;
	bool found, cut;
	int npreempts;
	struct sim_preempt pre[MAX_K + 1]; /* the finding's schedule */
	long long explored, traces;
	bool bound_hit, full;
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
		       "with a finding | schedules | traces | findings |\n|---|--:|--:|--:|--:|"
		       "--:|--:|---|\n",
		       K, max);
	else
		printf("\n%-18s %8s %8s %6s %8s %10s %8s  %s\n", "kernel", "programs", "held",
		       "cut", "findings", "schedules", "traces", "what (program: signature)");
	for (int ki = 0; ki < nk; ki++) {
		int held = 0, cut = 0, found = 0;
		long long explored = 0, traces = 0;
		char what[4096] = "";
		size_t w = 0;
		for (int i = 0; i < nres; i++) {
			const struct eval_res *r = &res[i];
			if (r->kern != ki)
				continue;
			explored += r->explored;
			traces += r->traces;
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
			       ncases, held, cut, found, explored, traces, w ? what : "-");
		else
			printf("%-18s %8d %8d %6d %8d %10lld %8lld  %s\n", ks[ki]->name, ncases,
			       held, cut, found, explored, traces, w ? what : "-");
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
	s.quiet = true; /* many searches at once: the lines say it all */
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
			r.traces = s.traces;
			r.bound_hit = s.bound_hit;
			r.full = s.full;
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
		t.traces = r->traces;
		t.bound_hit = r->bound_hit;
		t.full = r->full;
		t.reduce = s.reduce;
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
