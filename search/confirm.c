/* Confirm's search (snafu confirm, tools/confirm.c; the fuzzer's lockdep-steered search,
 * fuzz/joint.c): lockdep predicts a deadlock from one run (ref/lockdep.c) without needing
 * the schedule that deadlocks; this looks for that schedule, and for a run whose verdict is
 * a real deadlock whose wait-for cycle goes through a lock of the predicted classes.
 *
 * The search is systematic, cheapest first, and every run counts toward --runs:
 *  1. an added writer alone: an `mmap` (1 page, private), the smallest op that takes
 *     mmap_sem for write, in a task other than the predicting one (an idle task, a new
 *     one, or appended to another task's ops), in the order the tasks run. A recursive
 *     read on a fair rwsem deadlocks only if a writer queues between the two reads;
 *  2. one preemption: each task with ops, each of its ops (the predicting task's op at
 *     the report first), each point of the op (1 up to the op's last), to each other
 *     task; first in the case as it is, then with the writer added;
 *  3. two preemptions: every pair of the single preemptions that fired in step 2, on
 *     the same programs;
 *  4. what snafu explore searches: each program of steps 1-3 (the case as it is, and
 *     with each added writer) with the case's own preemptions left out, every schedule
 *     with at most CONFIRM_EXPLORE_PREEMPTIONS preemptions, fewest first (explore_search(),
 *     search/explore.h: partial-order reduced, sound within the bound). Steps 2-3 keep
 *     the case's preemptions and add theirs, so a deadlock that needs another order
 *     than the case's (tests/test_confirm.sh: the writer must run after the read that
 *     the case's preemption put after it) is found here;
 *  5. kswapd, only when 1-4 found nothing and the prediction is a user access under
 *     mmap_sem (lockdep--recursive-read--mmap_sem--...: might_fault()'s annotation) at
 *     an address in one of the program's mappings. Such an access deadlocks only if it
 *     faults, and a kernel that makes sure of the page first (Olof's RFC: its
 *     check_user_page_readable() loop) faults only if the page leaves memory in
 *     between, which takes page reclaim (repro/cases/reclaim-olof-rfc.case). The
 *     program: step 1's first writer's (in an idle or a new task where there is room
 *     for one), with two `reclaim` ops on the page of that access just before the
 *     writer, in the same task: kswapd's two shrink_list() passes (the first finds a
 *     used page referenced and only clears that, the second unmaps it: ref/vmscan.c,
 *     ref/rmap.c). The page must go and the writer queue inside one window (after the
 *     check, before the access): one task that empties the page and then maps needs
 *     one switch to it, where kswapd in a task of its own needs two and another task to
 *     schedule; and the writer comes after the passes, since a writer queued first
 *     sleeps on the mmap_sem the predicting task holds, and the passes behind it with
 *     it. Searched with explore_search() (search/explore.h): every schedule with at most
 *     CONFIRM_RECLAIM_PREEMPTIONS preemptions, fewest first, from none (the case's own
 *     preemptions left out), each run counted toward --runs.
 * The case's own preemptions stay in steps 1-3 (the added ones come after them). snafu
 * confirm minimizes the first run that deadlocks (tools/confirm.c).
 */
#include "confirm.h"

#include "../prog/exec.h"
#include "../ref/lockdep.h"
#include "../ref/report.h"
#include "explore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SINGLES  4096
#define MAX_VARIANTS 4
#define MAX_PREEMPTS (SIM_MAX_PREEMPTS - 1) /* what the text form holds */

/* Does the run just made (its result r) deadlock through one of the predicted classes? */
static bool deadlocks(const struct confirm_search *s, const struct run_result *r)
{
	int tasks[SIM_MAX_TASKS + 1];
	const char *fns[SIM_MAX_TASKS + 1], *locks[SIM_MAX_TASKS + 1];

	if (r->result != SIM_HANG || strncmp(r->verdict, "deadlock--", 10))
		return false;
	int n = hung_task_cycle(tasks, fns, locks);
	for (int i = 0; i < n; i++)
		if (locks[i] &&
		    (!strcmp(locks[i], s->pred.locks[0]) || !strcmp(locks[i], s->pred.locks[1])))
			return true;
	return false;
}

/* Run q; true when it confirms (s->found and s->verdict then hold it). */
static bool try_run(struct confirm_search *s, const struct program *q)
{
	struct run_opts o = {.no_digest = true};

	s->runs++;
	prog_run(q, s->k, &o, &s->r);
	if (!deadlocks(s, &s->r))
		return false;
	s->found = *q;
	snprintf(s->verdict, sizeof(s->verdict), "%s", s->r.verdict);
	return true;
}

/* q with an `mmap` (1 page, read-write, private) appended to task u's ops. */
static void add_writer(const struct program *p, struct program *q, int u)
{
	*q = *p;
	struct op *o = &q->ops[q->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = OP_MMAP;
	o->task = (uint8_t)u;
	o->a.map = o->b.map = PROG_NULL_MAP;
	o->x = 0; /* 1 page */
	o->y = 3; /* PROT_READ | PROT_WRITE, private */
	if (u > q->ntasks)
		q->ntasks = u;
	prog_canonicalize(q); /* the ops by task, the mappings renumbered */
}

/* The programs to search: the case as it is, then with a writer in each task other than
 * the predicting one (idle tasks and a new task first); task[i]: v[i]'s writer's task (0
 * for the case as it is). */
static int variants(const struct program *p, const struct confirm_search *s,
		    struct program v[MAX_VARIANTS], char what[MAX_VARIANTS][64],
		    int task[MAX_VARIANTS])
{
	int n = 0, order[PROG_MAX_TASKS + 1], no = 0;

	v[n] = *p;
	task[n] = 0;
	snprintf(what[n++], 64, "%s", "");
	if (p->nops >= PROG_MAX_OPS || p->nmaps >= PROG_MAX_MAPS)
		return n;
	for (int pass = 0; pass < 2; pass++) /* idle or new tasks, then busy ones */
		for (int u = 1; u <= PROG_MAX_TASKS && u <= p->ntasks + 1; u++)
			if (u != s->pred.task &&
			    (task_instances(p, u) == 0 || u > p->ntasks) == (pass == 0))
				order[no++] = u;
	for (int i = 0; i < no && n < MAX_VARIANTS; i++) {
		add_writer(p, &v[n], order[i]);
		task[n] = order[i];
		snprintf(what[n++], 64, " and a writer added (mmap in task %d)", order[i]);
	}
	return n;
}

struct single {
	struct sim_preempt pre;
};

/* Every single preemption of q, the predicting task's reported op first; those that
 * fired go to out[] (for the pairs). True when one confirmed. */
static bool singles(struct confirm_search *s, const struct program *q, struct single *out,
		    int *nout)
{
	static struct program c;
	int base = q->npreempts;

	*nout = 0;
	if (base + 1 > MAX_PREEMPTS)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		for (int t = 1; t <= q->ntasks; t++) {
			int n = task_instances(q, t);
			for (int op = 1; op <= n; op++) {
				bool first = t == s->pred.task && op == s->pred.op;
				if (first != (pass == 0))
					continue;
				for (int point = 1; point <= PREEMPT_MAX_POINT; point++) {
					bool past_end = false;
					for (int u = 1; u <= q->ntasks && !past_end; u++) {
						if (u == t)
							continue;
						if (s->runs >= s->budget)
							return false;
						c = *q;
						c.preempts[base] =
						    (struct sim_preempt){.task = (uint8_t)t,
									 .op = (uint16_t)op,
									 .point = (uint16_t)point,
									 .to = (uint8_t)u};
						c.npreempts = base + 1;
						if (try_run(s, &c))
							return true;
						const struct sim_preempt_status *st =
						    &s->r.pre[base];
						if (st->fired && *nout < MAX_SINGLES)
							out[(*nout)++].pre = c.preempts[base];
						/* the op has fewer points: none further fires */
						past_end = !st->fired && st->reached &&
							   st->op_ended && st->points < point;
					}
					if (past_end)
						break;
				}
			}
		}
	}
	return false;
}

static bool pairs(struct confirm_search *s, const struct program *q, const struct single *one,
		  int n)
{
	static struct program c;
	int base = q->npreempts;

	if (base + 2 > MAX_PREEMPTS)
		return false;
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			const struct sim_preempt *a = &one[i].pre, *b = &one[j].pre;
			if (a->task == b->task && a->op == b->op && a->point == b->point)
				continue; /* one point, one switch */
			if (s->runs >= s->budget)
				return false;
			c = *q;
			c.preempts[base] = *a;
			c.preempts[base + 1] = *b;
			c.npreempts = base + 2;
			if (try_run(s, &c))
				return true;
		}
	}
	return false;
}

/* ---- step 5: kswapd ---- */

/* The user address of the access the prediction was made at: the predicting op's
 * (s->pred.task's op instance s->pred.op), its vector B for mincore (copy_to_user), its
 * A otherwise (the futex word, get_mempolicy's policy), a page further on for each
 * instance of an each-page op. False, with the reason in s->no_reclaim, when the
 * prediction is no user access under mmap_sem or the address lies in no mapping. */
static bool access_ref(struct confirm_search *s, const struct program *p, const char *predicted,
		       struct uref *ref)
{
	static const char user_access[] = "lockdep--recursive-read--mmap_sem--";

	if (strncmp(predicted, user_access, sizeof(user_access) - 1)) {
		snprintf(s->no_reclaim, sizeof(s->no_reclaim),
			 "no kswapd passes tried: the report is no user access under mmap_sem");
		return false;
	}
	int inst = 0;
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		if (o->task != s->pred.task)
			continue;
		int n = op_instances(p, i);
		if (s->pred.op > inst + n) {
			inst += n;
			continue;
		}
		*ref = o->kind == OP_MINCORE ? o->b : o->a;
		if (o->each_page)
			ref->page = (uint8_t)(ref->page + (s->pred.op - inst - 1));
		if (!(o->kind == OP_MINCORE ? op_uses_b(o->kind) : op_uses_a(o->kind)) ||
		    ref->map == PROG_NULL_MAP)
			break;
		return true;
	}
	snprintf(s->no_reclaim, sizeof(s->no_reclaim),
		 "no kswapd passes tried: the reported access names no mapped page");
	return false;
}

/* q: p with `reclaim REF`, `reclaim REF` and an `mmap` (1 page, private) appended to task
 * u's ops: kswapd's two passes over the page, then the writer. */
static void add_reclaim_writer(const struct program *p, struct program *q, int u,
			       const struct uref *ref)
{
	*q = *p;
	for (int i = 0; i < 3; i++) {
		struct op *o = &q->ops[q->nops++];
		memset(o, 0, sizeof(*o));
		o->task = (uint8_t)u;
		o->a = o->b = (struct uref){.map = PROG_NULL_MAP};
		if (i < 2) {
			o->kind = OP_RECLAIM;
			o->a = *ref;
		} else {
			o->kind = OP_MMAP;
			o->x = 0; /* 1 page */
			o->y = 3; /* PROT_READ | PROT_WRITE, private */
		}
	}
	if (u > q->ntasks)
		q->ntasks = u;
	prog_canonicalize(q);
}

static bool explore_accept(void *ctx, const struct run_result *r)
{
	struct confirm_search *s = ctx;

	if (!deadlocks(s, r))
		return false;
	snprintf(s->verdict, sizeof(s->verdict), "%s", r->verdict);
	return true;
}

/* Step 5 on task u, the first task step 1 gave a writer (the header). */
static bool reclaim_search(struct confirm_search *s, const struct program *p, const char *predicted,
			   int u)
{
	static struct program q, found;
	struct uref ref;

	if (!access_ref(s, p, predicted, &ref))
		return false;
	if (p->nops + 3 > PROG_MAX_OPS || p->nmaps >= PROG_MAX_MAPS || !u) {
		snprintf(s->no_reclaim, sizeof(s->no_reclaim),
			 "no kswapd passes tried: no room for three more ops");
		return false;
	}
	long long left = s->budget - s->runs, runs = 0;
	if (left <= 0)
		return false;
	s->reclaim_task = u;
	add_reclaim_writer(p, &q, u, &ref);
	bool hit = explore_search(&q, s->k, ORACLE_DEADLOCK, CONFIRM_RECLAIM_PREEMPTIONS, left,
				  explore_accept, s, &found, &runs);
	s->runs += runs;
	if (hit) {
		s->found = found;
		s->added_from = 0;
		snprintf(s->how, sizeof(s->how),
			 "%d %s, two kswapd passes and a writer added (reclaim, reclaim and mmap "
			 "in task %d%s)",
			 found.npreempts, found.npreempts == 1 ? "preemption" : "preemptions", u,
			 p->npreempts ? "; the case's own preemptions left out" : "");
		return true;
	}
	/* explore_search() stops at max_schedules: a search that used them all was cut (or
	 * ended just then: said as cut); one with no run made none (snafu-native) */
	s->reclaim_done = runs < left && runs > 0;
	return false;
}

/* Step 4: what `snafu explore --preemptions=CONFIRM_EXPLORE_PREEMPTIONS` searches, on each
 * program of steps 1-3 with the case's own preemptions left out: a deadlock that needs
 * another order than the case's (its writer before the preemption the case makes, say)
 * is out of reach of steps 2-3, which only add preemptions to the case's. *DONE: every
 * such schedule was run. */
static bool explore_variants(struct confirm_search *s, const struct program *v,
			     const char (*what)[64], int n, bool *done)
{
	static struct program q, found;

	*done = false;
	for (int i = 0; i < n; i++) {
		long long left = s->budget - s->runs, runs = 0;
		if (left <= 0)
			return false;
		q = v[i];
		q.npreempts = 0;
		bool hit = explore_search(&q, s->k, ORACLE_DEADLOCK, CONFIRM_EXPLORE_PREEMPTIONS,
					  left, explore_accept, s, &found, &runs);
		s->runs += runs;
		if (hit) {
			s->found = found;
			s->added_from = 0;
			snprintf(s->how, sizeof(s->how), "%d %s%s, the case's own left out",
				 found.npreempts,
				 found.npreempts == 1 ? "preemption" : "preemptions", what[i]);
			return true;
		}
		if (runs >= left) {
			s->explore_cut = true;
			return false;
		}
	}
	*done = true;
	return false;
}

bool confirm_search(struct confirm_search *s, const struct program *p, const char *predicted,
		    bool *exhausted)
{
	static struct program v[MAX_VARIANTS];
	static struct single one[MAX_VARIANTS][MAX_SINGLES];
	char what[MAX_VARIANTS][64];
	int writer_task[MAX_VARIANTS];
	int n = variants(p, s, v, what, writer_task), none[MAX_VARIANTS] = {0};

	*exhausted = false;
	s->added_from = p->npreempts;
	/* an added writer alone, in the order the tasks run without preemptions */
	for (int i = 1; i < n; i++) {
		if (s->runs >= s->budget)
			return false;
		if (try_run(s, &v[i])) {
			snprintf(s->how, sizeof(s->how), "no preemption added%s", what[i]);
			return true;
		}
	}
	for (int i = 0; i < n; i++) {
		if (singles(s, &v[i], one[i], &none[i])) {
			snprintf(s->how, sizeof(s->how), "1 preemption%s", what[i]);
			return true;
		}
		if (s->runs >= s->budget)
			return false;
	}
	for (int i = 0; i < n; i++) {
		if (pairs(s, &v[i], one[i], none[i])) {
			snprintf(s->how, sizeof(s->how), "2 preemptions%s", what[i]);
			return true;
		}
		if (s->runs >= s->budget)
			return false;
	}
	bool explored;
	if (explore_variants(s, v, what, n, &explored))
		return true;
	if (!explored)
		return false;
	if (reclaim_search(s, p, predicted, n > 1 ? writer_task[1] : 0))
		return true;
	*exhausted = s->reclaim_done || s->no_reclaim[0];
	return false;
}

/* For the fuzzer's lockdep-steered search (fuzz/joint.c): steps 4 and 5 on the program
 * whose run just made PRED, cheapest first, within BUDGET runs. A fuzzer's program is
 * small and most often lacks the writer, so the search starts where a deadlock of a
 * recursive read most often is: a writer in the first idle or new task, every schedule
 * within CONFIRM_EXPLORE_PREEMPTIONS (on half the budget at most); then kswapd's passes and that
 * writer (step 5, for a kernel that makes sure of the page first); then the program as
 * it is and with its other writers. The singles and pairs of steps 2-3 are left out:
 * they add preemptions to the program's own schedule, which the fuzzer draws anyway. */
bool confirm_explore(const struct program *p, const struct kernel_config *k,
		     const struct lockdep_prediction *pred, long long budget, struct program *found,
		     long long *runs)
{
	static struct confirm_search s;
	static struct program v[MAX_VARIANTS], q;
	char what[MAX_VARIANTS][64];
	int writer_task[MAX_VARIANTS];

	memset(&s, 0, sizeof(s));
	s.k = k;
	s.pred = *pred;
	s.budget = budget;
	q = *p;
	q.npreempts = 0;
	q.pct.on = false;
	int n = variants(&q, &s, v, what, writer_task);
	bool done, hit = false;
	if (n > 1) {
		s.budget = budget / 2;
		hit = explore_variants(&s, &v[1], &what[1], 1, &done);
		s.budget = budget;
		hit = hit || reclaim_search(&s, &q, pred->token, writer_task[1]);
	}
	for (int i = 0; i < n && !hit && s.runs < s.budget; i++)
		if (i != 1) /* v[1]: searched above */
			hit = explore_variants(&s, &v[i], &what[i], 1, &done);
	*runs = s.runs;
	if (hit)
		*found = s.found;
	return hit;
}
