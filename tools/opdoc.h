/* snafu ops: the op table (prog/ops.c) as text, markdown and fuzzer dictionaries. */
#ifndef SNAFU_OPDOC_H
#define SNAFU_OPDOC_H

int cmd_ops(int argc, char **argv);

#endif
