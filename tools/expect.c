/* snafu expect [--kernel=NAME]... [--write] CASE...: the expect lines a run proposes.
 *
 * A kernel is one entry of ref/kernels.c; what the saved cases say of it is derived, not
 * typed: this runs each case on each kernel (every listed one, the test-only ones the case
 * names, or those of --kernel), as `snafu replay --check` would judge it (the default
 * oracles, the whole schedule), and prints for each the expect line its run gives, and
 * how that stands beside the case: as its own line says, as its `expect *` line says
 * (a kernel judged by a line written before anyone looked at it: review it), new (no
 * line), or changed. A person reviews; --write then puts the new and changed lines into
 * the case (each kernel's own line, its verdict replaced, or a new line after the case's
 * last expect line for a kernel), through a temporary and a rename.
 *
 * Exit status: 0 when every line is as the case says (or --write wrote the others), 1
 * when one is new or changed (or no expect line fits a run: a finding with a preemption
 * that did not fire), 2 for bad usage or input.
 */
#include "commands.h"

#include "../cli/casefile.h"
#include "../cli/cli.h"
#include "../prog/exec.h"

#include <stdlib.h>
#include <string.h>

static const char *const expect_value_opts[] = {"--kernel", NULL};

static const char expect_help[] =
    "  expect [--kernel=NAME]... [--write] CASE...\n"
    "                          run each case on every listed kernel (and the test-only\n"
    "                          ones it names) and print the expect line each run gives:\n"
    "                          as the case says, as its 'expect *' says (review it), new\n"
    "                          or changed; exit 0 when all are as the case says, 1 when\n"
    "                          not (docs/model.md, \"Add your own fix\")\n"
    "      --kernel=NAME       this kernel only (again for more)\n"
    "      --write             put the new and changed lines into the cases (text cases)\n";

/* What one kernel's run proposes for a case. */
struct proposal {
	const struct kernel_config *k;
	const char *word; /* the verdict word (case_expect_word()), in word_buf; NULL: none
			     fits */
	char word_buf[160], verdict[160];
	const char *had; /* the case's verdict for k: its own line's, else `expect *`'s */
	bool own;        /* had is k's own line */
};

static const char *own_line(const struct program *p, const struct kernel_config *k)
{
	for (int e = 0; e < p->nexpect; e++)
		if (!strcmp(p->expect[e].kernel, k->name))
			return p->expect[e].verdict;
	return NULL;
}

/* Whether the case needs a line for it: none says its word, its own or `expect *`. */
static bool to_write(const struct proposal *q)
{
	return q->word && (!q->had || strcmp(q->had, q->word));
}

/* The first word of LINE (its length in *LEN); NULL on a blank line. */
static const char *word_at(const char *line, size_t *len)
{
	line += strspn(line, " \t");
	*len = strcspn(line, " \t\r\n#");
	return *len ? line : NULL;
}

/* Whether LINE is an expect line, and for which kernel (*K, *KLEN) with its verdict at
 * *V (*VLEN). */
static bool expect_line(const char *line, const char **k, size_t *klen, const char **v,
			size_t *vlen)
{
	size_t n;
	const char *w = word_at(line, &n);

	if (!w || n != 6 || strncmp(w, "expect", 6))
		return false;
	*k = word_at(w + n, klen);
	*v = *k ? word_at(*k + *klen, vlen) : NULL;
	return *v != NULL;
}

/* The case at PATH again, with the proposals to write put in: one line of stderr and 2
 * when it cannot be written (a byte-form input, a file that changed meanwhile). */
static int write_case(const char *path, const struct proposal *q, int nq)
{
	const char *name = case_name(path);
	FILE *in = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	if (!in) {
		fprintf(stderr, "snafu expect: %s: expected a text case file for --write\n", name);
		return 2;
	}
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text) - 1, in);
	bool whole = feof(in) && !ferror(in);
	fclose(in);
	text[n] = 0;
	static struct program check;
	char err[PROG_ERR_LEN];
	if (!whole || strlen(text) != n || prog_parse(text, &check, err, sizeof(err))) {
		fprintf(stderr, "snafu expect: %s: expected a text case for --write (%s)\n", name,
			!whole ? "too large" : "the byte form, or not a case");
		return 2;
	}

	/* the lines, each without its newline; a new expect line goes after the last one
	 * that names a kernel, else after the case's last line */
	static char *line[1 << 16];
	int nl = 0, after = -1;
	for (char *l = text; *l && nl < (int)(sizeof(line) / sizeof(line[0]));) {
		size_t len = strcspn(l, "\n");
		line[nl++] = l;
		l += len;
		if (*l)
			*l++ = 0;
	}
	for (int i = 0; i < nl; i++) {
		const char *k, *v;
		size_t kl, vl;
		if (expect_line(line[i], &k, &kl, &v, &vl) && !(kl == 1 && *k == '*'))
			after = i;
	}
	if (after < 0)
		after = nl - 1;
	char tmp[4096];
	FILE *f = case_open_out(path, tmp, sizeof(tmp));
	if (!f)
		return 2;
	for (int i = 0; i < nl; i++) {
		const char *l = line[i], *k, *v;
		size_t kl, vl;
		bool done = false;
		if (expect_line(l, &k, &kl, &v, &vl))
			for (int x = 0; x < nq && !done; x++)
				if (q[x].own && to_write(&q[x]) && strlen(q[x].k->name) == kl &&
				    !strncmp(k, q[x].k->name, kl)) {
					fprintf(f, "%.*s%s%s\n", (int)(v - l), l, q[x].word,
						v + vl);
					done = true;
				}
		if (!done)
			fprintf(f, "%s\n", l);
		for (int x = 0; i == after && x < nq; x++)
			if (!q[x].own && to_write(&q[x]))
				fprintf(f, "expect %s %s\n", q[x].k->name, q[x].word);
	}
	return case_close_out(f, tmp, path);
}

static int cmd_expect(int argc, char **argv)
{
	const struct kernel_config *only[64];
	int nonly = 0, first = argc;
	bool write = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9)) {
			if (nonly == 64)
				die_usage("at most 64 --kernel options", a, i + 1);
			only[nonly++] = kernel_arg(a + 9);
		} else if (!strcmp(a, "--write"))
			write = true;
		else if (a[0] == '-' && a[1])
			die_usage("--kernel=NAME, --write or a CASE", a, i + 1);
		else {
			first = i;
			break;
		}
	}
	if (first == argc) {
		fprintf(stderr, "snafu expect: expected at least one CASE file\n");
		return 2;
	}

	static struct program p;
	static struct proposal q[64 + PROG_MAX_EXPECT];
	int lines = 0, star = 0, change = 0, nofit = 0, written = 0;
	for (int c = first; c < argc; c++) {
		const char *name = case_name(argv[c]);
		load_case(argv[c], &p);
		const char *any = NULL;
		for (int e = 0; e < p.nexpect; e++)
			if (!strcmp(p.expect[e].kernel, EXPECT_ANY_KERNEL))
				any = p.expect[e].verdict;
		/* the kernels: --kernel's; else every listed one, then the test-only ones
		 * the case names */
		int nq = 0;
		for (int i = 0; i < nonly; i++)
			q[nq++].k = only[i];
		if (!nonly) {
			for_each_kernel (k)
				q[nq++].k = k;
			for (int e = 0; e < p.nexpect; e++) {
				const struct kernel_config *k = kernel_by_name(p.expect[e].kernel);
				if (k && k->test_only)
					q[nq++].k = k;
			}
		}
		int mine = 0;
		for (int i = 0; i < nq; i++) {
			struct proposal *x = &q[i];
			struct run_opts quiet = {0};
			struct run_result r;
			prog_run(&p, x->k, &quiet, &r);
			const char *word = case_expect_word(&r);
			snprintf(x->word_buf, sizeof(x->word_buf), "%s", word ? word : "");
			x->word = word ? x->word_buf : NULL;
			snprintf(x->verdict, sizeof(x->verdict), "%s", r.verdict);
			x->had = own_line(&p, x->k);
			x->own = x->had != NULL;
			if (!x->own && !x->k->test_only)
				x->had = any;
			lines++;
			if (!x->word) {
				printf(
				    "%s: kernel %s: no expect line fits: %s with a preemption that "
				    "did not fire\n",
				    name, x->k->name, x->verdict);
				nofit++;
				continue;
			}
			const char *how;
			char buf[224];
			if (x->own && !strcmp(x->had, x->word))
				how = "as the case says";
			else if (x->had && !strcmp(x->had, x->word))
				how = "as its 'expect *' says";
			else if (x->own) {
				snprintf(buf, sizeof(buf), "changed: the case says %s", x->had);
				how = buf;
			} else if (x->had) {
				snprintf(buf, sizeof(buf), "new: its 'expect *' says %s", x->had);
				how = buf;
			} else
				how = "new: no line";
			printf("%s: expect %s %s  (%s)\n", name, x->k->name, x->word, how);
			star += !x->own && x->had && !strcmp(x->had, x->word);
			change += to_write(x);
			mine += to_write(x);
		}
		if (write && mine) {
			if (write_case(argv[c], q, nq))
				return 2;
			written += mine;
		}
	}
	int cases = argc - first;
	if (write)
		printf("expect: %d line%s written into %d case%s", written, written == 1 ? "" : "s",
		       cases, cases == 1 ? "" : "s");
	else
		printf("expect: %d of %d line%s new or changed", change, lines,
		       lines == 1 ? "" : "s");
	printf("; %d as an 'expect *' line says (review them)%s\n", star,
	       nofit ? "; some runs fit no expect line" : "");
	return nofit || (!write && change) ? 1 : 0;
}

const struct cli_command expect_command = {"expect", cmd_expect, true, expect_value_opts,
					   expect_help};
