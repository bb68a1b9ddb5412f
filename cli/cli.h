/* The command line (cli/cli.c): what every command shares, tools/snafu.c (main() and the
 * command table), the commands in files of their own and the fuzz driver (driver/),
 * which parses its commands' options: the same argument checks and error lines (one
 * line, exit 2) everywhere. Below all of them; it calls none. */
#ifndef SNAFU_CLI_H
#define SNAFU_CLI_H

#include "../prog/exec.h"
#include "../prog/program.h"
#include "../ref/kernels.h"

#include <stdbool.h>
#include <stdio.h>

/* `snafu --version` prints it. */
#define SNAFU_VERSION "0.10"

/* Every command: its help, and the options that take a value (cli_normalize reads
 * both). HELP is its lines of `snafu --help`, each beginning with two spaces. */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	bool reads_cases;              /* takes --input=text|bytes and - for stdin */
	const char *const *value_opts; /* "--kernel" (also --kernel=V), "-o" (-o V, -oV) */
	const char *help;
};

/* The usage text: of the NCMDS commands CMDS, or of ONLY alone when not NULL. */
void cli_usage(FILE *out, const struct cli_command *const *cmds, int ncmds,
	       const struct cli_command *only);
/* GNU-style arguments for command C (argv[1] its name), once for every command: options
 * anywhere, --NAME VALUE as --NAME=VALUE, -- ends the options, -h/--help/--version print
 * and exit 0, --input=text|bytes sets case_input_form. Returns the command's argv
 * (argv[0] its name, options first) and its count in *OUT_ARGC. */
char **cli_normalize(const struct cli_command *c, int argc, char **argv, int *out_argc);

/* One line "snafu: argument POS 'ARG': expected FMT (see snafu CMD --help)", then exit 2;
 * POS as typed, CMD the command cli_normalize() took (before one: "see snafu --help"). */
__attribute__((noreturn)) void cli_die_at(const char *fmt, const char *arg, int pos);
/* One line "snafu: argument ARGN 'ARG': expected FMT", then exit 2. ARGN is the index
 * in the command's argv plus one (argv[0], the command, is argument 1); it is printed as
 * the position typed (main() moves options first: see cli_argn). */
__attribute__((noreturn)) void die_usage(const char *fmt, const char *arg, int argn);
/* A command's argument A (argument ARGN) that is not one of its options: an option it
 * does not know gets die_usage(OPTIONS), a second one die_usage(ONE); else *IN = A. */
void cli_operand(const char **in, const char *a, int argn, const char *options, const char *one);
/* The position on the command line of what a command sees as argument ARGN. */
int cli_argn(int argn);
/* The command line as typed (argv of main), for handing a command to another build. */
char **cli_typed_argv(void);
/* Hand the command CMD over to the build EXE beside this executable, with the command
 * line as typed; returns 2 (after one line naming what was EXPECTED) when it cannot. */
int cli_exec_beside(const char *cmd, const char *exe, const char *expected);
/* snafu-native's way with a command that runs the simulator's schedules (explore, trace,
 * record, evaluate): hand it over to snafu beside it, as cli_exec_beside() does. */
int cli_to_simulator(const char *cmd);
/* This executable's path (cli_exe_path) or its directory without the trailing slash
 * (cli_exe_dir), from /proc/self/exe; false when it cannot be read. */
bool cli_exe_path(char *buf, size_t len);
bool cli_exe_dir(char *buf, size_t len);
/* A path as a developer pastes it into a shell: relative to the current directory when
 * under it, and quoted ('...') when it needs to be; in BUF when quoted. */
const char *cli_shell_word(const char *path, char *buf, size_t len);
/* --oracles=LIST (prog/oracle.h) as argument ARGN (A the whole argument): the oracles'
 * bits; a bad LIST gets one line and exit 2. */
unsigned oracles_arg(const char *a, const char *list, int argn);
/* The kernel called NAME; else one line listing the kernels, then exit 2. */
const struct kernel_config *kernel_arg(const char *name);

/* How load_case tells text from bytes: by content (see cli/cli.c), or as
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
