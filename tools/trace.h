/* snafu trace: one run of a case as a Chrome/Perfetto trace or a self-contained HTML
 * picture of the interleaving. */
#ifndef SNAFU_TRACE_H
#define SNAFU_TRACE_H

int cmd_trace(int argc, char **argv);

#endif
