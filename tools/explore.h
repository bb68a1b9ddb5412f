/* snafu explore (tools/explore.c): every schedule of one program with at most K
 * preemptions, fewest first (docs/explore.md). */
#ifndef SNAFU_EXPLORE_H
#define SNAFU_EXPLORE_H

/* Preemptions `snafu explore` allows without --preemptions. */
#define EXPLORE_DEFAULT_PREEMPTIONS 2
/* Schedules `snafu evaluate --explore` runs per program and kernel without
 * --max-schedules (Olof's 1,024-wait testcase has thousands of points a task). */
#define EXPLORE_EVALUATE_MAX_SCHEDULES 5000

/* Its help, and the options that take a value (tools/snafu.c's table). */
extern const char explore_help[];
extern const char *const explore_value_opts[];
int cmd_explore(int argc, char **argv);

/* snafu evaluate --explore (tools/evaluate.c hands it the command line). */
int explore_evaluate(int argc, char **argv);

#endif
