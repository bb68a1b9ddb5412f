/* What tools/snafu.c gives the commands that live in files of their own: the same
 * argument checks and error lines (one line, exit 2) everywhere. */
#ifndef SNAFU_CLI_H
#define SNAFU_CLI_H

#include "../prog/exec.h"
#include "../prog/program.h"
#include "../ref/kernels.h"

/* `snafu --version` prints it. */
#define SNAFU_VERSION "0.10"

/* One line "snafu: argument ARGN 'ARG': expected FMT", then exit 2. ARGN is the index
 * in the command's argv plus one (argv[0], the command, is argument 1); it is printed as
 * the position typed (main() moves options first: see cli_argn). */
__attribute__((noreturn)) void die_usage(const char *fmt, const char *arg, int argn);
/* The position on the command line of what a command sees as argument ARGN. */
int cli_argn(int argn);
/* The command line as typed (argv of main), for handing a command to another build. */
char **cli_typed_argv(void);
/* The kernel called NAME; else one line listing the kernels, then exit 2. */
const struct kernel_config *kernel_arg(const char *name);

/* How load_case tells text from bytes: by content (see tools/snafu.c), or as
 * --input=text / --input=bytes says. */
enum case_form { CASE_AUTO, CASE_TEXT, CASE_BYTES };
extern enum case_form case_input_form;
/* A case in either form ("-": standard input); a bad one gets one line and exit 2. */
void load_case(const char *path, struct program *p);
/* PATH as messages name it: "<stdin>" for "-". */
const char *case_name(const char *path);
/* After a run of case NAME: a warning line on stderr for each preemption that did not
 * fire, and for a --stop-at-step STOP_AT (0: none) past the run's end. Returns the
 * number of preemptions that did not fire. */
int warn_schedule(const char *name, const struct program *p, const struct kernel_config *k,
		  const struct run_result *r, uint64_t stop_at);

#endif
