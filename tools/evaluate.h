/* snafu evaluate: fuzz every kernel with the same budget and tabulate the findings. */
#ifndef SNAFU_EVALUATE_H
#define SNAFU_EVALUATE_H

/* Schedules the explore column runs per program and kernel without
 * --explore-schedules=M (explore_bound()'s budget: unbounded within it, else to
 * EXPLORE_BOUND_FALLBACK preemptions, cut there). */
#define EVALUATE_EXPLORE_SCHEDULES 20000

/* Its help, and the options that take a value (tools/snafu.c's table). */
extern const char evaluate_help[];
extern const char *const evaluate_value_opts[];
int cmd_evaluate(int argc, char **argv);

#endif
