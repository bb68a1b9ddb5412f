/* snafu confirm (tools/confirm.c): from a lockdep prediction to a deadlocking case. */
#ifndef SNAFU_CONFIRM_H
#define SNAFU_CONFIRM_H

#include <stdbool.h>

/* Executions `snafu confirm` tries without --runs (the fuzz driver's budget too). */
#define CONFIRM_DEFAULT_RUNS 200000

/* Its help, and the options that take a value (tools/snafu.c's table). */
extern const char confirm_help[];
extern const char *const confirm_value_opts[];
int cmd_confirm(int argc, char **argv);

/* The lockdep-steered search of the fuzzer (fuzz/joint.c): PRED, the prediction p's run
 * just made, searched for a deadlock through its classes, as steps 4 and 5 of snafu
 * confirm search (tools/confirm.c: a writer added, every schedule within 2 preemptions;
 * kswapd's two passes and the writer, within 3), p's own schedule left out, at most
 * BUDGET runs. True with the deadlock's program in *found; *runs: the runs made. */
struct program;
struct kernel_config;
struct lockdep_prediction;
bool confirm_explore(const struct program *p, const struct kernel_config *k,
		     const struct lockdep_prediction *pred, long long budget, struct program *found,
		     long long *runs);

#endif
