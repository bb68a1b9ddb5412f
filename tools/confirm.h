/* snafu confirm (tools/confirm.c): from a lockdep prediction to a deadlocking case. */
#ifndef SNAFU_CONFIRM_H
#define SNAFU_CONFIRM_H

/* Executions `snafu confirm` tries without --runs (the fuzz driver's budget too). */
#define CONFIRM_DEFAULT_RUNS 200000

/* Its help, and the options that take a value (tools/snafu.c's table). */
extern const char confirm_help[];
extern const char *const confirm_value_opts[];
int cmd_confirm(int argc, char **argv);

#endif
