/* What tools/snafu.c gives the commands that live in files of their own: the same
 * argument checks and error lines (one line, exit 2) everywhere. */
#ifndef SNAFU_CLI_H
#define SNAFU_CLI_H

#include "../prog/program.h"
#include "../ref/kernels.h"

/* One line "snafu: argument ARGN 'ARG': expected FMT", then exit 2. */
void die_usage(const char *fmt, const char *arg, int argn);
/* The kernel called NAME; else one line listing the kernels, then exit 2. */
const struct kernel_config *kernel_arg(const char *name);
/* A case in either form (*.case is text); a bad one gets one line and exit 2. */
void load_case(const char *path, struct program *p);

#endif
