/* The schedule search: systematic, for one program (docs/explore.md).
 *
 * A search of the states a program reaches, each named by the trace that led to it. A run
 * is cut into transitions at its choice points (the points a preemption can name: op 1..,
 * point 1..32); at each, the current task runs on or another (or the timer) runs instead,
 * and the choices made are the case language's preemptions. The runs form a tree of choice
 * points; each new run replays a path of it and then lets the scheduler go its own way.
 * What each transition touches (its footprint) is read from the trace and from the model's
 * sim_touch() marks, with conservative rules (footprint.c; run.c makes one run and cuts
 * it). At each new choice point every other choice within the bound is queued (iterative
 * context bounding, Musuvathi and Qadeer, PLDI 2007; --preemptions=all: the 15 a case
 * holds), less the labels asleep (sleep sets; under a bound a label sleeps only where the
 * order explored for it cost fewer preemptions: Coons, Musuvathi and McKinley, OOPSLA
 * 2013). A run stops at a state it met before (prefix_keys(): the trace of its prefix names
 * it) with the same current task, no fewer preemptions and no label awake that slept there;
 * a choice just after a quiet step (quiet_step()) is made at the point before it. Race
 * reversal (Flanagan and Godefroid, POPL 2005) lost outcomes here, with a bound and without
 * (docs/explore.md, "The reduction"). The queues are run fewest preemptions first, so a
 * finding has the fewest any finding in the explored runs has; without a bound, past
 * EXPLORE_BOUND_FALLBACK preemptions, depth first, the finished subtrees dropped as it goes
 * (compact()).
 * --no-reduction queues every choice within the bound; --check-reduction compares.
 *
 * Sharding (--no-reduction only): every process runs what the next level needs, but
 * counts and judges only the schedules whose number in their level is I-1 modulo N.
 */
#include "search.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef SNAFU_NATIVE
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

/* ---- the search: a tree of choice points ---- */

struct program explore_found;

#define NO_NODE         UINT32_MAX
/* The tree's size limit, about 600 MB with its footprints and queues: a long program
 * (Olof's testcase, 20,000 choice points a run) fills it in a few hundred runs. */
#define MAX_NODES       4000000
/* --preemptions=all: the levels below DFS_FROM preemptions breadth first, as with a
 * bound (a finding within EXPLORE_BOUND_FALLBACK preemptions is the one --preemptions=3
 * gives), then the rest depth first, with the tree compacted (compact()). */
#define DFS_FROM        (EXPLORE_BOUND_FALLBACK + 1)
/* ... unless the tree reaches DFS_ALL_AT nodes first (a long program), with a bound or
 * without: then every level depth first (depth_first_all()), so that the tree is
 * compacted and the search ends by its budget or its verdict, not by a full tree; a
 * finding then need not have the fewest preemptions */
#define DFS_ALL_AT      (MAX_NODES / 4)
#define NO_FP           UINT32_MAX /* a SUMMARY node whose quiet chain was never run (chain_fp()) */
#define GC_FROM         (1u << 16) /* compact() the tree from this many nodes, or twice what it kept */

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
	if (s->nshards == 1 && ((s->unbounded && cost >= DFS_FROM) || s->dfs_all)) {
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

	size_t nn = run_path(s, path, depth, q);
	static uint64_t *key;
	static size_t key_cap;
	bool keyed = s->reduce && run_complete();
	if (keyed) {
		key = explore_grow(key, &key_cap, nn + 1, sizeof(*key));
		prefix_keys(nn, key);
	}
	for (size_t k = 0; k < depth; k++) { /* runs are deterministic: the same points */
		const struct hook_rec *r = run_choice(k);
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
		const struct hook_rec *r = run_choice(k);
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
		const struct hook_rec *r = run_choice(k);
		uint32_t parent = k ? node_at[k - 1] : NO_NODE;
		uint8_t via = k ? run_choice(k - 1)->decision : 0;
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
		d->fp_in = new_fp(s, &run_transition(k)->fp);
		if (parent != NO_NODE) {
			const struct dnode *pd = &s->nodes[parent];
			d->pre = (uint8_t)(pd->pre + (via != pd->task));
			d->quiet = s->reduce && d->task == via && run_transition(k)->quiet;
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
				    fp_conflict(&sl[l].fp, &run_transition(k)->fp))
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
			 * without a bound those past DFS_FROM (all, once every level is depth
			 * first) count alike (a trace cut at the 15 a case holds sets
			 * bound_hit, and the verdict says so) */
			int cost =
			    s->unbounded && (d->pre > DFS_FROM || s->dfs_all) ? DFS_FROM : d->pre;
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

/* A number of nodes from the environment, for the tests: $NAME, else DEFAULT; 0 is
 * never (SIZE_MAX). */
static size_t env_nodes(const char *name, size_t def)
{
	const char *v = getenv(name);
	char *end = NULL;
	unsigned long long n = v ? strtoull(v, &end, 10) : def;

	if (v && (!*v || *end)) {
		fprintf(stderr, "snafu explore: $%s='%s': expected a number of nodes\n", name, v);
		exit(2);
	}
	return n ? (size_t)n : SIZE_MAX;
}

/* When compact() starts: GC_FROM nodes, or $SNAFU_EXPLORE_COMPACT_AT (0: never), for the
 * tests to show that compacting changes nothing (each compaction then makes a line). */
#define COMPACT_ENV     "SNAFU_EXPLORE_COMPACT_AT"
#define DEPTH_FIRST_ENV "SNAFU_EXPLORE_DEPTH_FIRST_AT"
static size_t compact_from(void)
{
	static size_t from;

	if (!from)
		from = env_nodes(COMPACT_ENV, GC_FROM);
	return from;
}

/* When every level goes depth first: DFS_ALL_AT nodes, or
 * $SNAFU_EXPLORE_DEPTH_FIRST_AT (0: never), for the tests to reach it (it then makes a
 * line). */
static size_t depth_first_from(void)
{
	static size_t from;

	if (!from)
		from = env_nodes(DEPTH_FIRST_ENV, DFS_ALL_AT);
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
	s->dfs_all = false;
}

/* Every level depth first from now on (DFS_ALL_AT): the queued runs onto the stack, the
 * fewest preemptions and the first queued on top, to run first. */
static void depth_first_all(struct search *s)
{
	s->dfs_all = true;
	if (getenv(DEPTH_FIRST_ENV))
		fprintf(stderr, "explore: every level depth first from %zu nodes\n", s->nnodes);
	for (int k = MAX_K; k >= 0; k--) {
		for (size_t i = s->qn[k]; i-- > s->qhead[k];) {
			s->stack = explore_grow(s->stack, &s->scap, s->sn + 1, sizeof(struct work));
			s->stack[s->sn++] = s->queue[k][i];
		}
		s->qn[k] = s->qhead[k] = 0;
	}
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
		if (z) /* (a search without sleepers has none allocated) */
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
		if (s->nshards == 1 && !s->sampling && !s->dfs_all &&
		    s->nnodes >= depth_first_from())
			depth_first_all(s);
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
