/* snafu record: record a case's run under rr where rr can record, else print the gdb
 * commands that land on its finding in the simulator's replay, and those that step
 * backwards to it with gdb's `record full` where gdb's recorder can. */
#ifndef SNAFU_RECORD_H
#define SNAFU_RECORD_H

int cmd_record(int argc, char **argv);

#endif
