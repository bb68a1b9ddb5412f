/* The commands that live in files of their own (tools/NAME.c): each file's entry of main()'s
 * table (tools/snafu.c), its name, function, options that take a value and lines of `snafu
 * --help` (struct cli_command, cli/cli.h). */
#ifndef SNAFU_COMMANDS_H
#define SNAFU_COMMANDS_H

#include "../cli/cli.h"

extern const struct cli_command confirm_command, evaluate_command, expect_command, explore_command,
    fuzz_command, ops_command, record_command, trace_command;

/* snafu evaluate --explore: evaluate (tools/evaluate.c) hands its command line to
 * tools/explore.c. */
int explore_evaluate(int argc, char **argv);

#endif
