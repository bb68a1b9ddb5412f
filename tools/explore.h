/* snafu explore (tools/explore.c): every schedule of one program with at most K
 * preemptions, fewest first (docs/explore.md). */
#ifndef SNAFU_EXPLORE_H
#define SNAFU_EXPLORE_H

/* Preemptions `snafu explore` allows without --preemptions. */
#define EXPLORE_DEFAULT_PREEMPTIONS 2

/* Its help, and the options that take a value (tools/snafu.c's table). */
extern const char explore_help[];
extern const char *const explore_value_opts[];
int cmd_explore(int argc, char **argv);

/* snafu evaluate --explore (tools/evaluate.c hands it the command line). */
int explore_evaluate(int argc, char **argv);

#endif
