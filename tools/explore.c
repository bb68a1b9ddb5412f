/* snafu explore: systematic schedule search for one program (docs/explore.md).
 *
 * A search of the states a program reaches, each named by the trace that led to it. A run
 * is cut into transitions at its choice points (the points a preemption can name: op
 * 1.., point 1..32); at each, the current task runs on or another (or the timer) runs
 * instead, and the choices made are the case language's preemptions. The runs form a
 * tree of choice points; each new run replays a path of it and then lets the scheduler
 * go its own way. What each transition touches (its footprint) is read from the trace
 * and from the model's sim_touch() marks, with conservative rules (explore_fp.c). At each
 * new choice point every other choice within the bound is queued (iterative context
 * bounding, Musuvathi and Qadeer, PLDI 2007; --preemptions=all: the 15 a case holds),
 * less the labels asleep (sleep sets; under a bound a label sleeps only where the order
 * explored for it cost fewer preemptions: Coons, Musuvathi and McKinley, OOPSLA 2013). A
 * run stops at a state it met before (prefix_keys(): the trace of its prefix names it)
 * with the same current task, no fewer preemptions and no label awake that slept there;
 * a choice just after a quiet step (quiet_step()) is made at the point before it. Race
 * reversal (Flanagan and Godefroid, POPL 2005) lost outcomes here, with a bound and
 * without (docs/explore.md, "The reduction"). The queues are run fewest preemptions
 * first, so a finding has the fewest any finding in the explored runs has; without a
 * bound, past EXPLORE_BOUND_FALLBACK preemptions, depth first, the finished subtrees
 * dropped as it goes (compact()).
 * --no-reduction queues every choice within the bound; --check-reduction compares.
 *
 * Sharding (--no-reduction only): every process runs what the next level needs, but
 * counts and judges only the schedules whose number in their level is I-1 modulo N.
 */
#include "explore_int.h"

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

const char *const explore_value_opts[] = {
    "--kernel", "--preemptions", "--oracles", "--shard", "--max-schedules",
    "--random", "--seed",        "--sample",  "-o",      NULL};

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
    "      --sample=S          the schedules in a random order from stream S, as the\n"
    "                          fuzzer's joint search runs them: a level with work, then a\n"
    "                          schedule of it, at random (not fewest preemptions first);\n"
    "                          with --max-schedules, a sample of every level it reaches\n"
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

bool explore_sample(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, uint64_t seed, struct program *found, long long *runs)
{
	(void)seed;
	return explore_search(p, k, oracles, K, max_schedules, NULL, NULL, found, runs);
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
	bool reduce;   /* the search's: must_fail() */
} hk;

void *explore_grow(void *v, size_t *cap, size_t need, size_t size)
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
	memcpy(r->pages, sim_touched_pages, sizeof(r->pages));
	memset(sim_touched_pages, 0, sizeof(sim_touched_pages));
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

/* Whether task U, not running, would only try a spinlock that is held, and fail: it is
 * at its spin_lock point, or a spinner woken by an unlock whose lock was taken again.
 * Running it would only make it a spinner (it sleeps until the unlock, which makes it
 * runnable at the same try) and let the scheduler pick as if it had not been chosen:
 * the same states, at no fewer preemptions, so with the reduction it is no choice. */
static bool must_fail(const struct sim_task *u)
{
	const struct sim_spin *next = u->trying ? u->trying : u->spinning_on;

	return next && next->locked;
}

static int on_point(const struct sim_task *t)
{
	int n, dropped;

	hk.v = explore_grow(hk.v, &hk.cap, hk.n + 1, sizeof(*hk.v));
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
		if (u != t && u->state == SIM_RUNNABLE && !(hk.reduce && must_fail(u)))
			r->enabled |= L_BIT(i);
		if (u->state == SIM_BLOCKED && u->timer_at != SIM_NO_DEADLINE)
			r->enabled |= L_BIT(0);
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
	tr.seg = explore_grow(tr.seg, &tr.seg_cap, tr.nseg + 1, sizeof(*tr.seg));
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
		fp_touched(m, &g->fp);
		if (m & SIM_TOUCH_STORED) /* its access changed memory: one begins at a point */
			fp_user_access(&g->fp, ctx[t].acc_lo, ctx[t].acc_hi, true);
		if (m & SIM_TOUCH_RETRY) { /* its access again */
			fp_user_access(&g->fp, ctx[t].acc_lo, ctx[t].acc_hi, false);
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

/* Whether a step of one task is quiet: it writes nothing, and reads only what no other
 * task will write again (FUTURE: what they may, fp_future_writes()): a mapping's address
 * once no other task has its mmap to come, the VMA list once none has an op to come that
 * takes mmap_sem for write, or while the task holds mmap_sem throughout. A switch to
 * another task just after such a step is the switch just before it, with the step run
 * later as part of the task's next one, at the same cost: no choice is needed after it,
 * whether the task ran on into the step or was switched to. */
static bool quiet_step(const struct fp *f, bool held, rset future)
{
	rset stable = {{0, 0}};

	rs_range(&stable, RB_MAP, 8);
	rs_bit(&stable, RB_VMAS);
	stable.w[0] &= ~future.w[0];
	stable.w[1] &= ~future.w[1];
	if (held)
		rs_bit(&stable, RB_VMAS);
	return !(f->wr.w[0] | f->wr.w[1] | f->st.w[0] | f->st.w[1]) &&
	       !(f->rd.w[0] & ~stable.w[0]) && !(f->rd.w[1] & ~stable.w[1]);
}

/* Cut the run just made into transitions and segments: tr.v[0] before the first node,
 * tr.v[k] after the k-th. Returns the number of nodes. */
static size_t transitions(const struct program *p)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	struct tctx ctx[NLABELS];
	static struct fp_future future;
	size_t nn = 0;

	tr.complete = dropped == 0;
	tr.comm = explore_grow(tr.comm, &tr.comm_cap, (size_t)n + 1, sizeof(*tr.comm));
	fp_reader_passes(ev, n, tr.comm);
	fp_future_init(p, &future);
	for (size_t h = 0; h < hk.n; h++)
		if (hk.v[h].node) {
			nodes_of = explore_grow(nodes_of, &nodes_cap, nn + 1, sizeof(*nodes_of));
			nodes_of[nn++] = h;
		}
	tr.v = explore_grow(tr.v, &tr.cap, nn + 1, sizeof(*tr.v));
	tr.n = nn + 1;
	tr.nseg = 0;
	for (int t = 0; t < NLABELS; t++) /* before its first op: none */
		ctx[t] = (struct tctx){
		    .kind = -1, .map_a = -1, .map_b = -1, .map_mmap = -1, .pages = ALL_PAGES};
	int e = 0;
	size_t h = 0;
	for (size_t k = 0; k <= nn; k++) {
		size_t from = k ? nodes_of[k - 1] : 0; /* the hook that opens it (k > 0) */
		size_t to = k < nn ? nodes_of[k] : hk.n;
		int label = k ? hk.v[from].decision : 1;
		tr.v[k].label = (uint8_t)label;
		if (label) /* the chosen task's segment first, even if it leaves no event */
			seg_of(k, label);
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
			/* the pages an op can touch, which it says at its start */
			for (int t = 1; t <= SIM_MAX_TASKS; t++)
				if (r->touched[t] & SIM_TOUCH_RANGE)
					ctx[t].pages = r->pages[t];
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
				fp_of_event(p, &ctx[t], v, tr.comm[e],
					    r->touched[t] & SIM_TOUCH_YOUNG, &g->fp);
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
		tr.v[k].quiet =
		    k && alone &&
		    quiet_step(&tr.v[k].fp, held, fp_future_writes(&future, ctx, label));
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
 * resource it touches, and the last reads and commuting updates since (fp_conflict()'s
 * rules). Two runs whose prefixes reorder only independent segments get the same names,
 * so the same key; and as the model is deterministic, the same state. A segment that
 * touched nothing and moved nowhere is left out (a pick that ran nothing). */
static void prefix_keys(size_t nn, uint64_t *key)
{
	static uint32_t lastw[RB_N], lastr[RB_N][NLABELS], lasts[RB_N][NLABELS];
	static uint16_t rmask[RB_N], smask[RB_N]; /* the labels whose lastr, lasts are set */
	_Static_assert(NLABELS <= 16, "a label mask is 16 bits");
	static uint64_t *hseg;
	static uint32_t *stamp;
	static size_t hcap, scap;
	uint64_t chain[NLABELS] = {0};
	uint32_t at[NLABELS] = {0};
	size_t x = 0;

	memset(lastw, 0xff, sizeof(lastw));
	memset(rmask, 0, sizeof(rmask));
	memset(smask, 0, sizeof(smask));
	hseg = explore_grow(hseg, &hcap, tr.nseg + 1, sizeof(*hseg));
	stamp = explore_grow(stamp, &scap, tr.nseg + 1, sizeof(*stamp));
	memset(stamp, 0, (tr.nseg + 1) * sizeof(*stamp));
	for (size_t j = 0; j < nn; j++) {
		const struct hook_rec *h = &hk.v[nodes_of[j]];
		for (; x < tr.nseg && tr.seg[x].trans == j; x++) {
			const struct seg *g = &tr.seg[x];
			int t = g->task;
			if (fp_empty(&g->fp) && h->points[t] == at[t])
				continue;
			uint64_t deps = 0;
			for (int r = fp_next_res(&g->fp, 0); r < RB_N;
			     r = fp_next_res(&g->fp, r + 1)) {
				uint64_t bit = (uint64_t)1 << (r & 63);
				bool rd = g->fp.rd.w[r >> 6] & bit, wr = g->fp.wr.w[r >> 6] & bit,
				     st = g->fp.st.w[r >> 6] & bit;
				uint32_t cand[2 * NLABELS + 1];
				int nc = 0;
				cand[nc++] = lastw[r];
				for (unsigned m = wr || st ? rmask[r] : 0; m; m &= m - 1)
					cand[nc++] = lastr[r][__builtin_ctz(m)];
				for (unsigned m = wr || rd ? smask[r] : 0; m; m &= m - 1)
					cand[nc++] = lasts[r][__builtin_ctz(m)];
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
			for (int r = fp_next_res(&g->fp, 0); r < RB_N;
			     r = fp_next_res(&g->fp, r + 1)) {
				uint64_t bit = (uint64_t)1 << (r & 63);
				if (g->fp.wr.w[r >> 6] & bit) {
					lastw[r] = (uint32_t)x;
					rmask[r] = smask[r] = 0;
				} else {
					if (g->fp.rd.w[r >> 6] & bit)
						lastr[r][t] = (uint32_t)x, rmask[r] |= 1u << t;
					if (g->fp.st.w[r >> 6] & bit)
						lasts[r][t] = (uint32_t)x, smask[r] |= 1u << t;
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

struct program explore_found;

#define NO_NODE     UINT32_MAX
/* The tree's size limit, about 600 MB with its footprints and queues: a long program
 * (Olof's testcase, 20,000 choice points a run) fills it in a few hundred runs. */
#define MAX_NODES   4000000
/* --preemptions=all: the levels below DFS_FROM preemptions breadth first, as with a
 * bound (a finding within EXPLORE_BOUND_FALLBACK preemptions is the one --preemptions=3
 * gives), then the rest depth first, with the tree compacted (compact()). */
#define DFS_FROM    (EXPLORE_BOUND_FALLBACK + 1)
#define NO_FP       UINT32_MAX /* a SUMMARY node whose quiet chain was never run (chain_fp()) */
#define GC_FROM     (1u << 16) /* compact() the tree from this many nodes, or twice what it kept */

static uint32_t new_fp(struct search *s, const struct fp *f)
{
	s->fps = explore_grow(s->fps, &s->fps_cap, s->nfps + 1, sizeof(*s->fps));
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

/* The footprint of what a label did from a node: the transition to its child X, and if
 * X is quiet (its choices are made before it), the transitions after it up to the first
 * node that is not; false if that part was never run (a run cut short there). */
static bool chain_fp(const struct search *s, uint32_t x, struct fp *f)
{
	*f = (struct fp){0};
	for (;;) {
		if (s->nodes[x].fp_in == NO_FP) /* a SUMMARY node's (compact()) */
			return false;
		fp_or(f, &s->fps[s->nodes[x].fp_in]);
		if (!s->nodes[x].quiet)
			return true;
		x = s->nodes[x].child[s->nodes[x].task];
		if (!x)
			return false;
	}
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
	if (s->unbounded && s->nshards == 1 && cost >= DFS_FROM) {
		s->stack = explore_grow(s->stack, &s->scap, s->sn + 1, sizeof(struct work));
		s->stack[s->sn++] = (struct work){.node = n, .label = (uint8_t)l};
		return true;
	}
	s->queue[cost] =
	    explore_grow(s->queue[cost], &s->qcap[cost], s->qn[cost] + 1, sizeof(struct work));
	s->queue[cost][s->qn[cost]++] = (struct work){.node = n, .label = (uint8_t)l};
	return true;
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
	path = explore_grow(path, &path_cap, depth + 1, 1);
	pnodes = explore_grow(pnodes, &pn_cap, depth + 1, sizeof(*pnodes));
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
	hk.reduce = s->reduce;
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
	bool keyed = s->reduce && tr.complete;
	if (keyed) {
		key = explore_grow(key, &key_cap, nn + 1, sizeof(*key));
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
	node_at = explore_grow(node_at, &na_cap, nn + 1, sizeof(*node_at));
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
		s->nodes = explore_grow(s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof(*s->nodes));
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
			d->quiet = s->reduce && d->task == via && tr.v[k].quiet;
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
					    chain_fp(s, pd->child[l], &sl[l].fp)) {
						sl[l].cost = (uint8_t)(pd->pre + (l != pd->task) +
								       (via != l));
						sl[l].last = via;
						sleep |= L_BIT(l);
					}
			d->sleep_at = (uint32_t)s->nsleepers;
			for (int l = 0; l < NLABELS; l++) {
				if (!(sleep & L_BIT(l)) || l == via ||
				    fp_conflict(&sl[l].fp, &tr.v[k].fp))
					continue;
				d->sleep |= L_BIT(l);
				s->sleepers = explore_grow(s->sleepers, &s->sleepers_cap,
							   s->nsleepers + 1, sizeof(*s->sleepers));
				s->sleepers[s->nsleepers++] = sl[l];
			}
			d = &s->nodes[id];
		}
		if (keyed) {
			uint16_t zz = 0;
			for (int l = 0; l < NLABELS; l++)
				if (d->enabled & L_BIT(l) && asleep(s, d, l))
					zz |= L_BIT(l);
			/* depth first, a state is met with more preemptions before fewer:
			 * without a bound those past DFS_FROM count alike (a trace cut at
			 * the 15 a case holds sets bound_hit, and the verdict says so) */
			int cost = s->unbounded && d->pre > DFS_FROM ? DFS_FROM : d->pre;
			if (seen_before(s, smix(key[k], r->task), (uint8_t)cost, zz)) {
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
		/* every other choice, less the sleepers: reversing races alone leaves traces
		 * to orders the bound forbids, and a run cut at a state met before shows no
		 * races with what follows (docs/explore.md, "The reduction") */
		for (int l = 0; l < NLABELS; l++)
			if (l != r->decision)
				backtrack(s, id, l);
	}
	if (last == nn)
		s->traces++;
}

/* ---- progress, and a stop on SIGINT or SIGTERM ---- */

volatile sig_atomic_t explore_stop;

void explore_on_signal(int sig)
{
	explore_stop = sig;
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
		explore_found = *q;
		snprintf(s->verdict, sizeof(s->verdict), "%s", s->r.verdict);
	}
	return !s->collect;
}

/* --check-reduction: what each run ended in (outcomes[], a sorted set). */
void (*explore_on_outcome)(struct search *s, const struct program *q);

/* When compact() starts: GC_FROM nodes, or $SNAFU_EXPLORE_COMPACT_AT (0: never), for the
 * tests to show that compacting changes nothing (each compaction then makes a line). */
#define COMPACT_ENV "SNAFU_EXPLORE_COMPACT_AT"
static size_t compact_from(void)
{
	static size_t from;

	if (!from) {
		const char *v = getenv(COMPACT_ENV);
		char *end = NULL;
		unsigned long long n = v ? strtoull(v, &end, 10) : GC_FROM;
		if (v && (!*v || *end)) {
			fprintf(stderr, "snafu explore: $%s='%s': expected a number of nodes\n",
				COMPACT_ENV, v);
			exit(2);
		}
		from = n ? (size_t)n : SIZE_MAX;
	}
	return from;
}

static void release(struct search *s)
{
	s->nnodes = s->nfps = s->nsleepers = 0;
	if (s->seen)
		memset(s->seen, 0, s->seen_cap * sizeof(*s->seen));
	s->nseen = 0;
	for (int k = 0; k <= MAX_K; k++)
		s->qn[k] = s->qhead[k] = 0;
	s->sn = 0;
	s->gc_at = compact_from();
}

/* The work items queued or stacked, for compact(): fn(s, item, arg) on each. */
static void each_work(struct search *s, void (*fn)(struct search *, struct work *, void *),
		      void *arg)
{
	for (int k = 0; k <= MAX_K; k++)
		for (size_t i = s->qhead[k]; i < s->qn[k]; i++)
			fn(s, &s->queue[k][i], arg);
	for (size_t i = 0; i < s->sn; i++)
		fn(s, &s->stack[i], arg);
}

enum { DEAD, LIVE, SUMMARY };

static void mark_path(struct search *s, struct work *w, void *arg)
{
	uint8_t *mark = arg;

	for (uint32_t x = w->node; x != NO_NODE && mark[x] != LIVE; x = s->nodes[x].parent)
		mark[x] = LIVE;
}

static void renumber(struct search *s, struct work *w, void *arg)
{
	(void)s;
	w->node = ((const uint32_t *)arg)[w->node];
}

/* Depth first (--preemptions=all), the subtrees explored in full go: kept are the nodes
 * on the path to a queued run (LIVE), and every other child of those as a SUMMARY, the
 * footprint of its transition and quiet chain (chain_fp()), which its siblings' runs
 * to come sleep with. What the subtrees met stays in the state table (seen_before()). */
static void compact(struct search *s)
{
	static uint8_t *mark;
	static uint32_t *to;
	static size_t mark_cap, to_cap;
	size_t n = s->nnodes, kept = 0, nfp = 0, nsl = 0;

	mark = explore_grow(mark, &mark_cap, n, 1);
	to = explore_grow(to, &to_cap, n, sizeof(*to));
	memset(mark, DEAD, n);
	each_work(s, mark_path, mark);
	for (size_t x = 0; x < n; x++)
		for (int l = 0; mark[x] == LIVE && l < NLABELS; l++)
			if (s->nodes[x].child[l] && mark[s->nodes[x].child[l]] != LIVE)
				mark[s->nodes[x].child[l]] = SUMMARY;
	for (size_t x = 0; x < n; x++) {
		to[x] = mark[x] == DEAD ? NO_NODE : (uint32_t)kept++;
		nsl += mark[x] == LIVE ? (size_t)__builtin_popcount(s->nodes[x].sleep) : 0;
	}
	struct dnode *nodes = malloc(kept * sizeof(*nodes));
	struct fp *fps = malloc(kept * sizeof(*fps));
	struct sleeper *sl = malloc((nsl + 1) * sizeof(*sl));
	if (!nodes || !fps || !sl) {
		fprintf(stderr, "snafu explore: out of memory\n");
		exit(2);
	}
	nsl = 0;
	for (size_t x = 0; x < n; x++) {
		if (mark[x] == DEAD)
			continue;
		struct dnode *d = &nodes[to[x]];
		struct fp f;
		*d = s->nodes[x];
		d->parent = d->parent == NO_NODE ? NO_NODE : to[d->parent];
		if (mark[x] == SUMMARY) {
			d->fp_in = chain_fp(s, (uint32_t)x, &f) ? (uint32_t)nfp : NO_FP;
			if (d->fp_in != NO_FP)
				fps[nfp++] = f;
			memset(d->child, 0, sizeof(d->child));
			d->quiet = false;
			d->sleep = 0;
			d->sleep_at = 0;
			continue;
		}
		fps[nfp] = s->fps[d->fp_in];
		d->fp_in = (uint32_t)nfp++;
		for (int l = 0; l < NLABELS; l++)
			d->child[l] = d->child[l] ? to[d->child[l]] : 0;
		int z = __builtin_popcount(d->sleep);
		memcpy(&sl[nsl], &s->sleepers[d->sleep_at], (size_t)z * sizeof(*sl));
		d->sleep_at = (uint32_t)nsl;
		nsl += (size_t)z;
	}
	each_work(s, renumber, to);
	free(s->nodes);
	free(s->fps);
	free(s->sleepers);
	s->nodes = nodes;
	s->nnodes = s->nodes_cap = kept;
	s->fps = fps;
	s->nfps = s->fps_cap = nfp;
	s->sleepers = sl;
	s->nsleepers = nsl;
	s->sleepers_cap = nsl + 1;
	s->gc_at = 2 * kept > compact_from() ? 2 * kept : compact_from();
	if (getenv(COMPACT_ENV))
		fprintf(stderr, "explore: compacted the tree: %zu nodes, %zu kept\n", n, kept);
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

/* splitmix64: the sampling order's stream (s->rng) */
static uint64_t sample_next(struct search *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A sampling search's next work (s->sampling): a level with work at random, from the
 * lowest, k, up; its work item at random, moved to the head of its queue */
static int sample_work(struct search *s, int k)
{
	int levels[MAX_K + 1], n = 0;

	for (int j = k; j <= s->K; j++)
		if (s->qhead[j] < s->qn[j])
			levels[n++] = j;
	k = levels[sample_next(s) % (unsigned)n];
	size_t i = s->qhead[k] + sample_next(s) % (s->qn[k] - s->qhead[k]);
	struct work w = s->queue[k][i];
	s->queue[k][i] = s->queue[k][s->qhead[k]];
	s->queue[k][s->qhead[k]] = w;
	return k;
}

/* The whole search on s->k; s->found, s->budget_hit or s->interrupted say how it ended.
 * A timer can fire at every choice point (`to timer`), and each firing point is a state
 * of its own (the clock): every trace of a program that can arm one is hundreds of
 * thousands even for two tasks of two ops (docs/explore.md, "Timers"). Such a program
 * gets the search within EXPLORE_BOUND_FALLBACK preemptions instead (s->timers: the line
 * says so). */
void explore_run_search(struct search *s)
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
	if (explore_on_outcome)
		explore_on_outcome(s, &q);
	if (finding(s, &q))
		return;
	for (;;) { /* the lowest level with work: a race may queue below the current one */
		int k = 0;
		while (k <= s->K && s->qhead[k] == s->qn[k])
			k++;
		struct work w;
		bool mine = true, dfs = k > s->K;
		if (!dfs && s->sampling)
			k = sample_work(s, k);
		if (!dfs) {
			w = s->queue[k][s->qhead[k]];
			/* shards (--no-reduction): levels below K whole, each counts its own */
			mine = s->nshards == 1 || s->qhead[k] % s->nshards == s->shard;
			s->qhead[k]++;
		} else if (s->sn) { /* depth first: the last run's choices first */
			w = s->stack[--s->sn];
			const struct dnode *d = &s->nodes[w.node];
			k = d->pre + (w.label != d->task);
			if (s->nnodes >= s->gc_at) {
				s->stack[s->sn++] = w; /* a pending run too, for compact() */
				compact(s);
				w = s->stack[--s->sn];
			}
		} else
			return;
		s->level = k;
		if (!mine && k == s->K)
			continue;
		if (explore_stop) {
			s->interrupted = true;
			return;
		}
		if (mine && !budget(s))
			return;
		explore_run(s, w, &q);
		s->steps += (long long)s->r.steps;
		if (explore_on_outcome)
			explore_on_outcome(s, &q);
		if ((mine || k < s->K) && finding(s, &q)) /* below K: every shard alike */
			return;
		if (!s->quiet && now_s() >= next) {
			next = now_s() + 3;
			fprintf(stderr,
				"explore: %s: %lld schedules, %lld traces, at %d %s%s, %zu %s, "
				"%.0f s\n",
				s->k->name, s->explored, s->traces, k,
				plural(k, "preemption", "preemptions"), dfs ? " (depth first)" : "",
				dfs ? s->sn : s->qn[k] - s->qhead[k], dfs ? "stacked" : "queued",
				now_s() - start);
		}
	}
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
	s.max = max_schedules;
	s.quiet = true;
	s.accept = NULL;
	s.ctx = NULL;
	s.sampling = false;
	return &s;
}

static bool other_run(struct search *s, int K, struct program *found, long long *runs)
{
	s->unbounded = K < 0 || K > MAX_K;
	s->K = s->unbounded ? MAX_K : K;
	explore_run_search(s);
	*runs = s->explored;
	if (s->found)
		*found = explore_found;
	return s->found;
}

bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, bool (*accept)(void *ctx, const struct run_result *r),
		    void *ctx, struct program *found, long long *runs)
{
	struct search *s = other_search(p, k, oracles, max_schedules);

	s->accept = accept;
	s->ctx = ctx;
	return other_run(s, K, found, runs);
}

bool explore_sample(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, uint64_t seed, struct program *found, long long *runs)
{
	struct search *s = other_search(p, k, oracles, max_schedules);

	s->sampling = true;
	s->rng = seed;
	return other_run(s, K, found, runs);
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
	explore_run_search(s);
	if (s->budget_hit) { /* too many traces: to EXPLORE_BOUND_FALLBACK preemptions */
		before = s->explored;
		s->max = max_schedules - before > 0 ? max_schedules - before : 1;
		s->max_steps = s->max * EXPLORE_BOUND_STEPS;
		s->unbounded = false;
		s->K = EXPLORE_BOUND_FALLBACK;
		explore_run_search(s);
	}
	*out = (struct explore_bound){.found = s->found,
				      .unbounded = s->unbounded && !s->timers && !s->bound_hit,
				      .cut = s->budget_hit,
				      .K = s->timers ? EXPLORE_BOUND_FALLBACK : s->K,
				      .npreempts = s->found ? explore_found.npreempts : 0,
				      .traces = s->traces,
				      .schedules = before + s->explored};
	snprintf(out->verdict, sizeof(out->verdict), "%s", s->found ? s->verdict : "ok");
}

#endif
