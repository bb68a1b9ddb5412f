/* The commands that live in files of their own (tools/NAME.c), for main()'s table in
 * tools/snafu.c: each one's entry point and, where its file holds them, its lines of
 * `snafu --help` and the options that take a value (struct cli_command, cli/cli.h). */
#ifndef SNAFU_COMMANDS_H
#define SNAFU_COMMANDS_H

/* snafu confirm (tools/confirm.c): a lockdep prediction to a deadlocking case. */
extern const char confirm_help[];
extern const char *const confirm_value_opts[];
int cmd_confirm(int argc, char **argv);

/* snafu expect (tools/expect.c): the expect lines each kernel's run gives a case. */
extern const char expect_help[];
extern const char *const expect_value_opts[];
int cmd_expect(int argc, char **argv);

/* snafu explore (tools/explore.c): the schedule search on one case. */
extern const char explore_help[];
extern const char *const explore_value_opts[];
int cmd_explore(int argc, char **argv);
/* snafu evaluate --explore (tools/evaluate.c hands it the command line). */
int explore_evaluate(int argc, char **argv);

/* snafu evaluate (tools/evaluate.c): fuzz every kernel with the same budget and
 * tabulate the findings. */
extern const char evaluate_help[];
extern const char *const evaluate_value_opts[];
int cmd_evaluate(int argc, char **argv);

/* snafu fuzz (tools/fuzz.c): the fuzz driver (driver/) with every option. */
extern const char fuzz_help[];
extern const char *const fuzz_value_opts[];
int cmd_fuzz(int argc, char **argv);

/* snafu record (tools/record.c): a case's run under rr where rr can record, else the gdb
 * commands that land on its finding. */
int cmd_record(int argc, char **argv);

/* snafu ops (tools/ops.c): the op table (prog/ops.c) as text, markdown and fuzzer
 * dictionaries. */
int cmd_ops(int argc, char **argv);

/* snafu trace (tools/trace.c): one run of a case as a Chrome/Perfetto trace or an HTML
 * picture of the interleaving (trace/). */
int cmd_trace(int argc, char **argv);

#endif
