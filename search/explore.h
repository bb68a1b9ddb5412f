/* The schedule search (search/explore.c): every trace of one program, or every one with
 * at most K preemptions, fewest first, one schedule per trace or close (docs/explore.md).
 * snafu explore and snafu evaluate --explore (tools/explore.c), confirm's search
 * (search/confirm.c) and the fuzzer's joint search (fuzz/joint.c) run it. */
#ifndef SNAFU_EXPLORE_H
#define SNAFU_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

/* Preemptions `snafu explore` allows without --preemptions. */
#define EXPLORE_DEFAULT_PREEMPTIONS 2
/* Schedules `snafu evaluate --explore` runs per program and kernel without
 * --max-schedules (Olof's 1,024-wait testcase has thousands of points a task). */
#define EXPLORE_EVALUATE_MAX_SCHEDULES 5000

struct program;
struct kernel_config;

/* One program's explore verdict on one kernel, as `snafu evaluate` prints it beside the
 * fuzzer's cells: the search without a preemption bound when it finishes within a
 * quarter of max_schedules, else the search to EXPLORE_BOUND_FALLBACK preemptions on the
 * rest (which may be cut too). Each part also stops after EXPLORE_BOUND_STEPS scheduling
 * points a schedule of its budget: a long program's runs are long (Olof's 1,028-op
 * testcase takes 20,000 points a run), and the budget stays one of counts, never of time.
 * The program's own preemptions are ignored. */
#define EXPLORE_BOUND_FALLBACK 3
#define EXPLORE_BOUND_STEPS    200
struct explore_bound {
	bool found;          /* verdict is the finding's signature; else "ok" */
	bool unbounded;      /* every trace was explored (no preemption bound) */
	bool cut;            /* max_schedules ran out before the bound was covered */
	int K;               /* the bound, when not unbounded */
	int npreempts;       /* the finding's preemptions */
	long long traces;    /* traces explored (one run each, after the reduction) */
	long long schedules; /* runs made, the unbounded try's included */
	char verdict[160];
};
/* A search for other commands (snafu confirm): p's schedules on k, fewest preemptions
 * first, at most K preemptions (EXPLORE_UNBOUNDED: every trace the case language can
 * write), at most max_schedules runs (0: no limit). A run is a finding when accept(ctx,
 * r) says so, called right after the run (the model's state is still the run's); NULL
 * accept: any finding of the oracles. True with the finding's program (p with its
 * schedule) in *found; *runs counts the runs made either way. */
#define EXPLORE_UNBOUNDED (-1)
struct run_result;
bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, bool (*accept)(void *ctx, const struct run_result *r),
		    void *ctx, struct program *found, long long *runs);

/* explore_search() with its work in a random order, from the stream SEED: where that
 * search runs the fewest preemptions first and each level's schedules in the order their
 * races were found, this one picks a level with work at random and a schedule of it at
 * random. For a budget far short of the bound's schedules (the fuzzer's joint search):
 * its runs sample every level the budget reaches instead of the first few of the
 * lowest. Still one run per trace; the same SEED, the same runs. */
bool explore_sample(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, uint64_t seed, struct program *found, long long *runs);

void explore_bound(const struct program *p, const struct kernel_config *k, unsigned oracles,
		   long long max_schedules, struct explore_bound *out);

#endif
