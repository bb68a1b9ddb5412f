/* One run of snafu explore's search (search/explore.c runs the tree): the program run
 * along a path of decisions, then the scheduler's own way, under a hook that sees every
 * scheduling point; the run cut into transitions with their footprints (footprint.c);
 * the states its prefixes reach, named by their traces (prefix_keys()). */
#include "search.h"

#include <stdlib.h>
#include <string.h>

#ifndef SNAFU_NATIVE

/* ---- what the hook sees at every scheduling point ---- */

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
/* A transition's steps of one task (struct trans, search.h): races are between segments. */
struct seg {
	struct fp fp;
	uint32_t trans; /* the transition it is part of */
	uint8_t task;
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
 * takes mmap_sem for write, or while the task holds mmap_sem throughout. Its commuting
 * updates may only be a reader's passes through mmap_sem's wait_lock once no other task
 * has such an op to come: only a writer's pass, or a reader queued behind a writer, sees
 * where a reader's came (fp_reader_passes()); page_table_lock's are the only other
 * commuting updates of a lock, hence the names' bits must differ. A switch to another
 * task just after such a step is the switch just before it, with the step run later as
 * part of the task's next one, at the same cost: no choice is needed after it, whether
 * the task ran on into the step or was switched to. */
static bool quiet_step(const struct fp *f, bool held, rset future)
{
	static rset passes_bit; /* the names are constants: hashed once */
	static bool hashed;
	rset stable = {{0, 0}};

	if (!hashed && fp_lock_bit(WAIT_LOCK) != fp_lock_bit(PT_LOCK))
		rs_bit(&passes_bit, fp_lock_bit(WAIT_LOCK));
	hashed = true;
	rset passes = passes_bit;
	rs_range(&stable, RB_MAP, 8);
	rs_bit(&stable, RB_VMAS);
	stable.w[0] &= ~future.w[0];
	stable.w[1] &= ~future.w[1];
	passes.w[0] &= ~future.w[0];
	passes.w[1] &= ~future.w[1];
	if (held)
		rs_bit(&stable, RB_VMAS);
	return !(f->wr.w[0] | f->wr.w[1]) && !(f->st.w[0] & ~passes.w[0]) &&
	       !(f->st.w[1] & ~passes.w[1]) && !(f->rd.w[0] & ~stable.w[0]) &&
	       !(f->rd.w[1] & ~stable.w[1]);
}

/* Whether event E keeps its task's step one that only takes spinlocks (transitions()):
 * a point, a spinner's failed try, a spinlock taken (an rwsem's own events move which
 * holding rules apply: not). */
static bool acquires_only(const struct sim_trace_ev *e)
{
	switch (e->kind) {
	case EV_POINT:
	case EV_PREEMPT:
		return true;
	case EV_SLEEP:
		return fp_spin_wait(e);
	case EV_LOCK:
		return fp_spin_acquire(e);
	default:
		return false;
	}
}

/* Cut the run just made into transitions and segments: tr.v[0] before the first node,
 * tr.v[k] after the k-th. Returns the number of nodes. With UNBOUNDED (every trace, with
 * the reduction), a step of one task that only takes spinlocks and keeps them (its
 * events acquires_only(), no sim_touch() mark, nobody blocked or woken, no timer moved)
 * is quiet too: while it holds them no other task can take them (a try must fail), so
 * whatever another does just after it commutes with it, and the switch after it is the
 * switch before it (a right mover). Not under a bound: there the switch after it can be
 * cheaper, as a task switched to that reaches the held lock blocks and hands back for
 * free (docs/explore.md, "A spinlock taken, without a bound"). */
static size_t transitions(const struct program *p, bool unbounded)
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
		bool acquire = label != 0; /* acquires_only() so far, nothing marked */
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
			for (int t = 0; t <= SIM_MAX_TASKS; t++)
				acquire &= !r->touched[t];
			acquire &= !r->run_moved && !r->clock_moved;
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
				acquire &= t == label && acquires_only(v);
				struct seg *g = seg_of(k, t);
				fp_of_event(p, &ctx[t], v, tr.comm[e], r->touched[t], &g->fp);
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
		    ((acquire && unbounded) ||
		     quiet_step(&tr.v[k].fp, held, fp_future_writes(&future, ctx, label)));
	}
	return nn;
}

/* ---- states: a run's prefix up to a node, named by its trace ---- */

uint64_t smix(uint64_t h, uint64_t v)
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
void prefix_keys(size_t nn, uint64_t *key)
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

/* ---- one run of the search ---- */

size_t run_path(struct search *s, const uint8_t *path, size_t depth, struct program *q)
{
	struct run_opts o = {.trace = true, .oracles = s->oracles, .mm_digest = s->collect};
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
	return transitions(s->p, s->unbounded && s->reduce);
}

const struct hook_rec *run_choice(size_t k)
{
	return &hk.v[nodes_of[k]];
}

const struct trans *run_transition(size_t k)
{
	return &tr.v[k];
}

bool run_complete(void)
{
	return tr.complete;
}

#endif
