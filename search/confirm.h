/* Confirm's search (search/confirm.c): from a lockdep prediction to a deadlocking run. */
#ifndef SNAFU_CONFIRM_H
#define SNAFU_CONFIRM_H

#include "../prog/exec.h"
#include "../ref/lockdep.h"

#include <stdbool.h>

/* Executions `snafu confirm` tries without --runs (the fuzz driver's budget too). */
#define CONFIRM_DEFAULT_RUNS 200000
/* Step 4's bound, and step 5's (search/confirm.c; snafu confirm's help says them too). */
#define CONFIRM_EXPLORE_PREEMPTIONS 2
#define CONFIRM_RECLAIM_PREEMPTIONS 3

/* One search: snafu confirm fills k, pred, budget and r (the input's run) and calls
 * confirm_search(); the rest is what came of it. */
struct confirm_search {
	const struct kernel_config *k;
	struct lockdep_prediction pred; /* the input's */
	long long runs, budget;
	struct run_result r;
	struct program found;
	int added_from; /* found.preempts[] from here on were added by the search */
	char verdict[160];
	char how[256];    /* "1 preemption and a writer added (mmap in task 2)" */
	bool explore_cut; /* step 4 ran out of --runs */
	/* step 5 (kswapd): whether it began, ran to its end, or why it was not tried */
	int reclaim_task; /* its task, once begun */
	bool reclaim_done;
	char no_reclaim[128];
};

/* Steps 1 to 5 on p, whose run made the prediction PREDICTED (its token): true when a
 * run confirmed it (s->found, s->verdict, s->how); *EXHAUSTED: every candidate was tried. */
bool confirm_search(struct confirm_search *s, const struct program *p, const char *predicted,
		    bool *exhausted);

/* The lockdep-steered search of the fuzzer (fuzz/joint.c): PRED, the prediction p's run
 * just made, searched for a deadlock through its classes, as steps 4 and 5 of snafu
 * confirm search (search/confirm.c: a writer added, every schedule within 2 preemptions;
 * kswapd's two passes and the writer, within 3), p's own schedule left out, at most
 * BUDGET runs. True with the deadlock's program in *found; *runs: the runs made. */
bool confirm_explore(const struct program *p, const struct kernel_config *k,
		     const struct lockdep_prediction *pred, long long budget, struct program *found,
		     long long *runs);

#endif
