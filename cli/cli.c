/* The shared part of the command line (see cli.h): GNU-style option normalisation, the
 * usage text, the one-line error exits, loading a case in either form, the schedule
 * warnings and finding snafu's own executable. tools/snafu.c holds main() and the command
 * table; the commands in files of their own use only this.
 *
 * Cases: load_case() tells text from the byte form by content (text_reason()), not by
 * the file's name; --input=text|bytes overrides, and - is standard input.
 */
#include "cli.h"

#include "../prog/ops.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog_name = "snafu";

/* --input=text|bytes (main() takes it off the command line for load_case) */
enum case_form case_input_form = CASE_AUTO;

static const char usage_notes[] =
    "\n"
    "Options may come before or after the arguments; one that takes a value takes it\n"
    "as --NAME=VALUE or --NAME VALUE (-o OUT); -- ends the options. -h or --help after\n"
    "a command prints its help.\n"
    "CASE, INPUT, FILE: a text case or the fuzzer's byte form, told apart by content:\n"
    "text when its first word (after blank and # comment lines) is a word of the case\n"
    "grammar, or every byte is printable ASCII, or the name ends in .case; else bytes.\n"
    "--input=text or --input=bytes says which instead; - reads standard input.\n"
    "-o writes through a temporary and a rename, onto a regular file or a new name only.\n";

void cli_usage(FILE *out, const struct cli_command *const *cmds, int ncmds,
	       const struct cli_command *only)
{
	if (only) {
		fprintf(out, "usage: snafu %s", only->help + 2);
	} else {
		fprintf(out, "usage: snafu COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
		for (int i = 0; i < ncmds; i++)
			fputs(cmds[i]->help, out);
		fprintf(out, "  --version               print snafu's version\n");
	}
	fputs(usage_notes, out);
}

/* A name or argument as an error line shows it: at most 64 bytes, then "...". */
static const char *shown(const char *s, char *buf, size_t len)
{
	if (strlen(s) <= 64 || len < 68)
		return s;
	snprintf(buf, len, "%.64s...", s);
	return buf;
}

/* argpos[n]: the position on the command line of what the command sees as argument n
 * (main() moves options before the arguments and joins --NAME VALUE). */
static int *argpos, nargpos;

int cli_argn(int argn)
{
	return argn >= 0 && argn < nargpos ? argpos[argn] : argn;
}

/* The command whose arguments cli_normalize() took (NULL before a command is known): its
 * errors point to its own --help, which lists its options, not to the list of commands. */
static const char *help_command;

void cli_die_at(const char *fmt, const char *arg, int pos)
{
	char buf[80];

	fprintf(stderr, "%s: argument %d '%s': expected %s (see %s%s%s --help)\n", prog_name, pos,
		shown(arg, buf, sizeof(buf)), fmt, prog_name, help_command ? " " : "",
		help_command ? help_command : "");
	exit(2);
}

void die_usage(const char *fmt, const char *arg, int argn)
{
	cli_die_at(fmt, arg, cli_argn(argn));
}

void cli_operand(const char **in, const char *a, int argn, const char *options, const char *one)
{
	if (a[0] == '-' && a[1])
		die_usage(options, a, argn);
	if (*in)
		die_usage(one, a, argn);
	*in = a;
}

const struct kernel_config *kernel_arg(const char *name)
{
	const struct kernel_config *k = kernel_by_name(name);
	char buf[80];

	if (!k) {
		fprintf(stderr, "%s: unknown kernel '%s'; valid kernels:", prog_name,
			shown(name, buf, sizeof(buf)));
		for_each_kernel (l)
			fprintf(stderr, " %s", l->name);
		fprintf(stderr, "\n");
		exit(2);
	}
	return k;
}

unsigned oracles_arg(const char *a, const char *list, int argn)
{
	char err[256], what[320];
	unsigned mask = oracles_parse(list, err, sizeof(err));

	if (!mask) {
		snprintf(what, sizeof(what), "--oracles=LIST with LIST %s", err);
		die_usage(what, a, argn);
	}
	return mask;
}

const char *case_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/* Read a whole file ("-": standard input); on error print one line and exit 2. */
static uint8_t *read_file(const char *path, size_t *len)
{
	static bool stdin_read;
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	const char *name = case_name(path);
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (is_stdin && stdin_read) {
		fprintf(stderr, "%s: %s: expected - once: standard input is read already\n",
			prog_name, name);
		exit(2);
	}
	stdin_read |= is_stdin;
	if (!f) {
		fprintf(stderr, "%s: %s: cannot open: %s\n", prog_name, name, strerror(errno));
		exit(2);
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > (64u << 20)) {
				fprintf(stderr, "%s: %s: expected a case under 64 MiB\n", prog_name,
					name);
				exit(2);
			}
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: read error: %s\n", prog_name, name, strerror(errno));
		exit(2);
	}
	if (!is_stdin)
		fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Text or bytes, by content (the rule in usage_notes and README.md). The byte form's
 * first byte is 0xf5 (its header, prog/codec.c), never text; an input from another
 * byte form is arbitrary, so an all-printable one is possible: it is read
 * as text and, not parsing, gets an error with a hint (never a silent run of the
 * wrong program); --input=bytes reads it. A text case with a typo in its first word is
 * still all printable, so it is an error too, not a byte string. */
enum { BY_NAME = 1, BY_GRAMMAR, BY_PRINTABLE, BY_BOM };

static int text_reason(const char *path, const uint8_t *d, size_t n)
{
	size_t len = strlen(path), i = 0;

	if (len >= 5 && !strcmp(path + len - 5, ".case"))
		return BY_NAME; /* it says it is text: a binary one is an error, not bytes */
	if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
		return BY_BOM; /* an editor's UTF-8 mark: text (the parser points at it) */
	/* the first word after blanks and # comment lines */
	for (;;) {
		while (i < n && isspace(d[i]))
			i++;
		if (i < n && d[i] == '#') {
			while (i < n && d[i] != '\n')
				i++;
			continue;
		}
		break;
	}
	size_t w = i;
	while (w < n && !isspace(d[w]) && d[w] != '#' && d[w])
		w++;
	static const char *const words[] = {"task", "tasks", "preempt", "expect", "schedule"};
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (w - i == strlen(words[k]) && !memcmp(d + i, words[k], w - i))
			return BY_GRAMMAR;
	for (int k = 0; k < OP_NKINDS; k++)
		if (w - i == strlen(op_table[k].name) && !memcmp(d + i, op_table[k].name, w - i))
			return BY_GRAMMAR;
	for (i = 0; i < n; i++)
		if (!(d[i] >= 0x20 && d[i] < 0x7f) && !(d[i] >= '\t' && d[i] <= '\r'))
			return 0;
	return BY_PRINTABLE; /* the empty file too: an error, where bytes would run "ok" */
}

/* Load a case in either form; a malformed text case is reported as FILE:LINE:COL.
 * Shared through cli.h. */
void load_case(const char *path, struct program *p)
{
	size_t len;
	uint8_t *data = read_file(path, &len);
	const char *name = case_name(path);
	int why = case_input_form == CASE_TEXT    ? BY_NAME
		  : case_input_form == CASE_BYTES ? 0
						  : text_reason(path, data, len);

	if (why) {
		char err[PROG_ERR_LEN];
		uint8_t hdr[PROG_HEADER_BYTES];
		if (len >= sizeof(hdr) && !memcmp(data, hdr, prog_header(hdr))) {
			fprintf(
			    stderr, "%s:1:1: expected text, found the byte form's header%s\n", name,
			    case_input_form == CASE_AUTO ? " (--input=bytes reads the byte form)"
							 : "");
			exit(2);
		}
		if (memchr(data, 0, len)) {
			size_t off = (size_t)((uint8_t *)memchr(data, 0, len) - data);
			int line = 1, col = 1;
			for (size_t i = 0; i < off; i++, col++)
				if (data[i] == '\n')
					line++, col = 0;
			fprintf(stderr, "%s:%d:%d: expected text, found a NUL byte%s\n", name, line,
				col,
				case_input_form == CASE_AUTO
				    ? " (--input=bytes reads the byte form)"
				    : "");
			exit(2);
		}
		if (prog_parse((const char *)data, p, err, sizeof(err))) {
			fprintf(stderr, "%s:%s%s\n", name, err,
				why == BY_PRINTABLE ? " (read as text, every byte being printable; "
						      "--input=bytes reads the byte form)"
						    : "");
			exit(2);
		}
	} else if (prog_decode(data, len, p) < 0) {
		char err[PROG_ERR_LEN];
		prog_decode_error(data, len, err, sizeof(err));
		fprintf(stderr, "%s: %s\n", name, err);
		exit(2);
	}
	free(data);
}

/* After a run: one warning line on stderr for each preemption that did not fire and for
 * a --stop-at-step past the run's end. Returns the number of preemptions that did not
 * fire. Shared through cli.h. */
int warn_schedule(const char *name, const struct program *p, const struct kernel_config *k,
		  const struct run_result *r, uint64_t stop_at)
{
	char why[160];

	for (int i = 0; i < r->npreempts; i++) {
		if (r->pre[i].fired)
			continue;
		char line[80];
		prog_unfired_why(p, r, i, why, sizeof(why));
		fprintf(stderr, "%s [%s]: warning: %s did not fire: %s\n", case_name(name), k->name,
			prog_preempt_str(&p->preempts[i], line, sizeof(line)), why);
	}
	if (stop_at > r->steps)
		fprintf(stderr,
			"%s [%s]: warning: --stop-at-step=%llu never came: the run has %llu "
			"steps\n",
			case_name(name), k->name, (unsigned long long)stop_at,
			(unsigned long long)r->steps);
	return r->unfired;
}

bool cli_exe_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return false;
	buf[n] = 0;
	return true;
}

bool cli_exe_dir(char *buf, size_t len)
{
	if (!cli_exe_path(buf, len))
		return false;
	char *slash = strrchr(buf, '/');
	if (!slash)
		return false;
	*slash = 0;
	return true;
}

/* The command line as it was typed: a command that hands itself over to another snafu
 * build passes this on (that build's main() reads the options again). */
static char **typed_argv;

char **cli_typed_argv(void)
{
	return typed_argv;
}

int cli_exec_beside(const char *cmd, const char *exe, const char *expected)
{
	char dir[4096], path[4200];

	if (!cli_exe_dir(dir, sizeof(dir))) {
		fprintf(stderr, "%s %s: cannot find my own executable\n", prog_name, cmd);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, exe);
	char **typed = cli_typed_argv();
	typed[0] = path;
	execv(path, typed);
	fprintf(stderr, "%s %s: %s: expected %s: %s\n", prog_name, cmd, path, expected,
		strerror(errno));
	return 2;
}

int cli_to_simulator(const char *cmd)
{
	return cli_exec_beside(cmd, "snafu", "the simulator's build (snafu) beside snafu-native");
}

/* GNU-style arguments, once, for every command (record and evaluate too): the options,
 * wherever they are, come first in the order given, then the other arguments; "--" ends
 * the options (an argument after it that begins with '-' becomes ./-...); an option
 * that takes a value takes the next argument as --NAME=VALUE or -o VALUE; -h, --help and
 * --version anywhere print and exit 0; --input=text|bytes sets case_input_form. The
 * commands then parse a plain "options, then arguments" list, and argpos maps what they
 * see back to the position typed, for their error lines. Returns the command's argv
 * (argv[0] its name) with a free slot before it: record and stress hand themselves to
 * another build through argv[-1]. */
static char **normalized; /* kept for the run (and for LeakSanitizer) */

char **cli_normalize(const struct cli_command *c, int argc, char **argv, int *out_argc)
{
	char **nv = normalized = calloc((size_t)argc + 2, sizeof(*nv)), **cv = nv + 1;
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int *pos = calloc((size_t)argc + 2, sizeof(*pos));
	int *rest_pos = calloc((size_t)argc + 1, sizeof(*rest_pos));
	int m = 0, nrest = 0;
	bool options = true;

	if (!nv || !rest || !pos || !rest_pos)
		abort();
	typed_argv = argv;
	help_command = c->name;
	cv[m] = argv[1];
	pos[++m] = 1;
	for (int i = 2; i < argc; i++) {
		char *a = argv[i];
		if (!options || a[0] != '-' || !a[1]) {
			if (a[0] == '-' && a[1]) { /* after "--": a file named -x */
				char *b = malloc(strlen(a) + 3);
				if (!b)
					abort();
				sprintf(b, "./%s", a);
				a = b;
			}
			rest[nrest] = a;
			rest_pos[nrest++] = i;
			continue;
		}
		if (!strcmp(a, "--")) {
			options = false;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_usage(stdout, NULL, 0, c);
			exit(0);
		}
		if (!strcmp(a, "--version")) {
			printf("snafu %s\n", SNAFU_VERSION);
			exit(0);
		}
		if (c->reads_cases && (!strcmp(a, "--input") || !strncmp(a, "--input=", 8))) {
			int at = i;
			const char *v = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : NULL;
			if (v && !strcmp(v, "text"))
				case_input_form = CASE_TEXT;
			else if (v && !strcmp(v, "bytes"))
				case_input_form = CASE_BYTES;
			else
				cli_die_at("--input=text or --input=bytes", a, at);
			continue;
		}
		const char *vopt = NULL;
		bool glued = false; /* -oVALUE */
		for (const char *const *vo = c->value_opts; *vo; vo++) {
			if (!strcmp(*vo, a))
				vopt = *vo;
			else if ((*vo)[1] != '-' && !strncmp(*vo, a, 2))
				vopt = *vo, glued = true;
		}
		if (vopt && !glued) { /* NAME VALUE */
			if (i + 1 >= argc) {
				char what[64];
				snprintf(what, sizeof(what), "a value after %s", a);
				cli_die_at(what, a, i);
			}
			if (a[1] == '-') {
				char *b = malloc(strlen(a) + strlen(argv[i + 1]) + 2);
				if (!b)
					abort();
				sprintf(b, "%s=%s", a, argv[i + 1]);
				cv[m] = b;
				pos[++m] = i;
			} else {
				cv[m] = a;
				pos[++m] = i;
				cv[m] = argv[i + 1];
				pos[++m] = i + 1;
			}
			i++;
			continue;
		}
		if (vopt) { /* -oVALUE */
			cv[m] = (char *)vopt;
			pos[++m] = i;
			cv[m] = a + 2;
			pos[++m] = i;
			continue;
		}
		cv[m] = a;
		pos[++m] = i;
	}
	for (int j = 0; j < nrest; j++) {
		cv[m] = rest[j];
		pos[++m] = rest_pos[j];
	}
	cv[m] = NULL;
	free(rest);
	free(rest_pos);
	argpos = pos;
	nargpos = m + 1;
	*out_argc = m;
	return cv;
}

/* A path as the developer should type it: relative to the current directory when under
 * it, and quoted for the shell when it needs to be. */
const char *cli_shell_word(const char *path, char *buf, size_t len)
{
	char cwd[4096];
	size_t n;

	if (getcwd(cwd, sizeof(cwd)) && (n = strlen(cwd)) > 1 && !strncmp(path, cwd, n) &&
	    path[n] == '/')
		path += n + 1;
	if (path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			      "_./=:,+-@%")] == 0 &&
	    *path)
		return path;
	size_t o = 0;
	buf[o++] = '\'';
	for (const char *p = path; *p && o + 5 < len; p++) {
		if (*p == '\'') {
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = *p;
		}
	}
	buf[o++] = '\'';
	buf[o] = 0;
	return buf;
}
