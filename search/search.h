/* The schedule search's state and insides, shared by its files: footprint.c (what a step
 * touches), run.c (one run, cut into transitions), explore.c (the tree of choice points
 * and the search). Outside search/, only snafu explore's command (tools/explore.c), which
 * drives a search itself (--check-reduction, the progress lines), includes it; everything
 * else calls search/explore.h. */
#ifndef SNAFU_SEARCH_H
#define SNAFU_SEARCH_H

#include "../prog/exec.h"
#include "explore.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_K (SIM_MAX_PREEMPTS - 1) /* what the text form holds */

/* Labels: what a choice point may run next. 0 is `to timer` (SIM_TO_TIMER), U >= 1 task U;
 * the current task's own label is "run on". */
#define NLABELS  (SIM_MAX_TASKS + 1)
#define L_BIT(l) ((uint16_t)(1u << (l)))

/* ---- footprints (footprint.c) ---- */

/* 128 resources, a bit each, hashed where there are many (a collision only adds a
 * dependency): each task's own state, its run state (blocked or not), its futex_wait
 * record in the oracles' books; lock names; pages; mapping addresses; the VMA list; the
 * oracles' wake-call log; queue_me()'s counts; the clock and timers; which page tables
 * exist; which pages the page caches hold. */
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
	RB_PTBL,   /* which page tables exist (mm->pt_blocks) */
	RB_PCACHE, /* which pages the inodes' page caches hold (inode->pages[]) */
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

static inline void rs_bit(rset *s, int b)
{
	s->w[b >> 6] |= (uint64_t)1 << (b & 63);
}

static inline void rs_range(rset *s, int from, int n)
{
	for (int b = from; b < from + n; b++)
		rs_bit(s, b);
}

/* The page resources of a bucket mask (sim_page_bucket()); ALL_PAGES: every page. */
#define ALL_PAGES (~(uint64_t)0)
static inline void rs_pages(rset *s, uint64_t buckets)
{
	_Static_assert(RB_PAGE == 48, "page buckets span the first word's top 16 bits");
	s->w[0] |= buckets << 48;
	s->w[1] |= buckets >> 16;
}

static inline bool rs_meet(rset a, rset b)
{
	return (a.w[0] & b.w[0]) | (a.w[1] & b.w[1]);
}

static inline void rs_or(rset *a, rset b)
{
	a->w[0] |= b.w[0];
	a->w[1] |= b.w[1];
}

static inline rset rs_ones(void)
{
	return (rset){{~(uint64_t)0, ~(uint64_t)0}};
}

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
	bool timeout;   /* a futex_wait with a timeout: it reads the clock */
	uint64_t pages; /* the page buckets its op can touch (SIM_TOUCH_RANGE), else all */
	int ptl;        /* page_table_lock acquisitions not yet given back */
	enum sem_state sem;
	int sem_depth;
	bool sem_write;
	/* its last user access (pages lo..hi): a fault handled, the access runs again
	 * with no event of its own (SIM_TOUCH_RETRY), maybe after a spin on the
	 * page_table_lock: pending until its next point; where it changed memory
	 * (SIM_TOUCH_STORED), it wrote them */
	unsigned long acc_lo, acc_hi;
	bool acc_pending;
};

static inline void fp_or(struct fp *a, const struct fp *b)
{
	rs_or(&a->rd, b->rd);
	rs_or(&a->wr, b->wr);
	rs_or(&a->st, b->st);
}

/* the locks whose names the rules know */
#define MMAP_SEM  "&mm->mmap_sem"
#define WAIT_LOCK "&sem->wait_lock"
#define PT_LOCK   "&mm->page_table_lock"

bool fp_conflict(const struct fp *a, const struct fp *b);
bool fp_spin_wait(const struct sim_trace_ev *e);
bool fp_spin_acquire(const struct sim_trace_ev *e);
int fp_next_res(const struct fp *f, int r);
uint64_t fp_str_hash(const char *s);
int fp_lock_bit(const char *name);
void fp_user_access(struct fp *f, unsigned long lo, unsigned long hi, bool write);
void fp_reader_passes(const struct sim_trace_ev *ev, int n, bool *comm);
void fp_of_event(const struct program *p, struct tctx *c, const struct sim_trace_ev *e, bool comm,
		 uint32_t marks, struct fp *f);
void fp_touched(uint32_t m, struct fp *f);
/* the ops that write the VMA list or where a mapping lands (fp_future_init()) */
struct fp_future {
	struct fp_writer {
		uint8_t task;
		int end; /* the task's op instances up to and with this op */
		rset w;
	} op[PROG_MAX_OPS];
	int n;
};
void fp_future_init(const struct program *p, struct fp_future *f);
rset fp_future_writes(const struct fp_future *f, const struct tctx *ctx, int t);

/* ---- one run (run.c) ---- */

struct search; /* below */

/* What the hook saw at one scheduling point. */
struct hook_rec {
	uint32_t ev; /* trace events recorded so far, this point's EV_POINT included */
	uint32_t touched[NLABELS]; /* sim_touched since the previous point, by task */
	uint64_t pages[NLABELS];   /* sim_touched_pages, the same */
	uint16_t op, point;
	uint8_t task;
	bool node;         /* a choice: a point a preemption can name */
	uint16_t enabled;  /* labels that could run here (the current task's included) */
	uint8_t decision;  /* the label taken (nodes only) */
	uint8_t run_moved; /* bit U-1: task U blocked, woke or ended since the previous point */
	bool clock_moved;  /* a timer was armed, disarmed or fired since then */
	uint32_t points[NLABELS]; /* nodes: each task's scheduling points passed */
};

/* A transition: what runs from one choice to the next (the first, from the start to the
 * first choice). Its label was chosen at the node before it; when its task blocks or ends
 * the scheduler's own pick runs on within it (the lowest-numbered runnable task), so it
 * may hold steps of several tasks: one segment each, in the order they ran. Races are
 * between segments (a task's steps), each with its own footprint; sleep sets compare
 * whole transitions. */
struct trans {
	struct fp fp; /* its segments' */
	uint8_t label;
	bool quiet; /* quiet_step() */
};

/* Run s->p along PATH (the decisions of its first DEPTH choice points), then the
 * scheduler's own way, into *Q (its schedule the case language's preemptions); returns
 * the number of transitions the run was cut into. */
size_t run_path(struct search *s, const uint8_t *path, size_t depth, struct program *q);
/* The last run's K-th choice point (0: the first), and its K-th transition; whether its
 * whole trace was seen (nothing dropped). */
const struct hook_rec *run_choice(size_t k);
const struct trans *run_transition(size_t k);
bool run_complete(void);
/* The states the last run's prefixes reach: KEY[k] names the state at choice point k by
 * its trace; smix() mixes one more value into a key. */
void prefix_keys(size_t nn, uint64_t *key);
uint64_t smix(uint64_t h, uint64_t v);

/* ---- the search (explore.c) ---- */

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
	bool full;     /* the tree reached MAX_NODES: the search stops, as at --max-schedules */
	bool timers;   /* asked for every trace, searched to EXPLORE_BOUND_FALLBACK:
			  explore_run_search() */
	int level;     /* the preemptions of the schedules being run */
	bool sampling; /* the work in a random order (explore_sample(), sample_work()) */
	uint64_t rng;  /* its stream */
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
	/* --preemptions=all beyond DFS_FROM preemptions: one stack, run depth first, so
	 * that finished subtrees can go (compact()) */
	struct work *stack;
	size_t sn, scap;
	size_t gc_at; /* compact() when the tree has this many nodes */
	bool dfs_all; /* every level on the stack (the tree grew large: depth_first_all()) */
	/* the states met (prefix_keys()), with the fewest preemptions each was met with:
	 * open addressing, 0 free */
	struct seen {
		uint64_t key;
		uint8_t cost;
		uint16_t sleep; /* the labels asleep there */
	} * seen;
	size_t nseen, seen_cap;
};

extern struct program explore_found; /* the finding's schedule */
/* --check-reduction: what each run ended in */
extern void (*explore_on_outcome)(struct search *s, const struct program *q);
extern volatile sig_atomic_t explore_stop; /* SIGINT or SIGTERM came */
void explore_on_signal(int sig);
void *explore_grow(void *v, size_t *cap, size_t need, size_t size);
void explore_run_search(struct search *s);

static inline const char *plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

#endif
