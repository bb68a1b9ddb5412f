/* What the fuzz driver (driver/drive.c) prints of a run: its first lines (the kernels,
 * the budget, a fuzzer's command line), a new finding in full, and at its end the table,
 * the command line that gives the run again and where the new findings are. */
#include "internal.h"

#include "../cli/cli.h"
#include "../search/confirm.h"

#include <stdlib.h>
#include <string.h>

/* ---- a new finding ---- */

/* ASan's or UBSan's report (fuzz/fuzz_support.c's token), or another sanitizer's. */
static bool is_sanitizer(const char *sig)
{
	return !strncmp(sig, "asan-", 5) || !strncmp(sig, "ubsan-", 6) ||
	       strstr(sig, "sanitizer--");
}

/* A sanitizer's report, from its first lines down to the first stack's end, and its
 * summary (at most 40 lines). */
static void print_report_head(const char *path)
{
	char *text = fz_slurp(path), *line = text, *next;
	int on = 0, printed = 0;

	for (; line && *line && printed < 40; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = 0;
		if (strstr(line, "==ERROR: ") || strstr(line, "runtime error: "))
			on = on ? on : 1;
		if (on && !strncmp(line, "SUMMARY: ", 9)) {
			puts(line);
			break;
		}
		if (!*line && on == 1)
			on = 2;
		if (on == 1)
			printed += puts(line) >= 0;
	}
	free(text);
}

/* PATH in a command printed to be pasted: as fz_shown(), quoted for a shell when it needs
 * to be (a few at once: the buffers rotate). */
static const char *quoted(const char *path)
{
	static char buf[8][PATH_LEN + 8];
	static unsigned n;

	return cli_shell_word(fz_shown(path), buf[n++ % 8], sizeof(buf[0]));
}

/* A new finding in full (stdout): the case, its report and the commands for it; or the
 * sanitizer's report, or libFuzzer's word. */
void fz_show(const struct fuzz_run *r, const struct fuzz_job *j, const struct fuzz_finding *f)
{
	char rep[PATH_LEN], in[PATH_LEN], html[PATH_LEN + 8], *text;
	const char *k = j->k->name, *oracles = fz_job_oracles(r, j);

	fz_pathf(rep, sizeof(rep), "%s.report", f->base);
	fz_pathf(in, sizeof(in), "%s.input", f->base);
	printf("%s: %s: NEW finding %s: %s.{%sreport,input}\n", r->name, k, f->sig,
	       fz_shown(f->base), f->casefile[0] ? "case," : "");
	if (f->casefile[0]) {
		const char *c = quoted(f->casefile), *me = quoted(r->exe);
		printf("%s: minimized case: %s\n", r->name, fz_shown(f->casefile));
		for (int i = 0; i < 2; i++) {
			text = fz_slurp(i ? rep : f->casefile);
			printf("%s\n", text ? text : "");
			free(text);
		}
		printf("reproduce with: %s replay --kernel=%s%s%s %s\n", me, k,
		       oracles ? " --oracles=" : "", oracles ? oracles : "", c);
		if (f->confirm > 0)
			printf("predicted and confirmed: %s confirm found %s: %s\n"
			       "reproduce the deadlock with: %s replay --kernel=%s %s\n",
			       me, f->deadlock, fz_shown(f->confirmed), me, k,
			       quoted(f->confirmed));
		else if (f->confirm < 0)
			printf("predicted only: %s confirm found no schedule that deadlocks within "
			       "%d executions\n",
			       me, CONFIRM_DEFAULT_RUNS);
		fz_pathf(html, sizeof(html), "%s.html", fz_shown(f->casefile));
		printf("picture it with: %s trace --kernel=%s %s -o %s\n", me, k, c, quoted(html));
		printf("debug it with:  %s record --kernel=%s %s   (rr, else gdb at the finding's "
		       "step)\n",
		       me, k, c);
	} else if (is_sanitizer(f->sig)) {
		/* ASan or UBSan in the model's code (fuzz/fuzz_support.c's token): snafu
		 * would hit the same report, so nothing to minimize */
		printf("%s: a sanitizer report, not a finding of the model's; the input: %s\n",
		       r->name, fz_shown(in));
		print_report_head(rep);
		printf("DEDUP_TOKEN: %s\n", f->sig);
		printf("reproduce with: %s --kernel=%s --ops=%s%s%s %s\n", quoted(r->fuzzer), k,
		       r->ops, oracles ? " --oracles=" : "", oracles ? oracles : "", quoted(in));
	} else {
		printf("%s: libFuzzer reported %s; see %s\n", r->name, strrchr(f->input, '/') + 1,
		       fz_shown(rep));
		fz_print_tail(stdout, rep, 20);
	}
	printf("\n");
}

/* ---- the table, and the lines around it ---- */

/* A markdown cell: '|' escaped. */
static void md_cell(FILE *out, const char *s, bool code, bool first, bool last)
{
	fputs(first ? "|" : "", out);
	fputs(code ? " `" : " ", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputs(code ? "` |" : " |", out);
	fputs(last ? "\n" : "", out);
}

/* A plain cell: padded to width W (right-aligned with RIGHT), but the last (LAST). */
static void plain_cell(FILE *out, const char *s, bool last, int w, bool right)
{
	if (last)
		fprintf(out, "%s\n", s);
	else
		fprintf(out, "%*s  ", right ? w : -w, s);
}

/* The jobs of the row that starts at job I: 1, or per_oracle the kernel's. */
static int row_jobs(const struct fuzz_run *r, int i)
{
	int n = 1;

	while (r->p->per_oracle && i + n < r->njobs && r->job[i + n].k == r->job[i].k)
		n++;
	return n;
}

/* The table: the plan's columns, a row per kernel (the plan's row callback). */
static void print_table(FILE *out, const struct fuzz_run *r, bool markdown)
{
	const struct fuzz_plan *p = r->p;
	static char cells[FUZZ_CELLS][PATH_LEN];
	const char *head[FUZZ_CELLS];
	bool code[FUZZ_CELLS];
	int w[FUZZ_CELLS], nc;

	for (nc = 0; nc < FUZZ_CELLS && p->head[nc]; nc++)
		head[nc] = p->head[nc];
	if (p->per_oracle && r->njobs) { /* the kernel, a column per oracle, the tail's */
		const char *tail = p->tail ? p->tail() : NULL;
		nc = 1;
		for (int i = 0; i < row_jobs(r, 0) && nc < FUZZ_CELLS; i += r->job[i].seeds)
			head[nc++] = r->job[i].oracle;
		if (tail && nc < FUZZ_CELLS)
			head[nc++] = tail;
	}
	for (int c = 0; c < nc; c++)
		w[c] = (int)strlen(head[c]);
	for (int i = 0; i < r->njobs; i += row_jobs(r, i)) { /* the widths */
		p->row(&r->job[i], row_jobs(r, i), cells, code);
		for (int c = 0; c < nc; c++)
			if ((int)strlen(cells[c]) > w[c])
				w[c] = (int)strlen(cells[c]);
	}
	for (int c = 0; c < nc; c++)
		if (markdown)
			fprintf(out, "%s %s |%s", c ? "" : "|", head[c], c + 1 < nc ? "" : "\n");
		else
			plain_cell(out, head[c], c + 1 == nc, w[c], c == p->right);
	for (int c = 0; markdown && c < nc; c++)
		fprintf(out, "%s%s%s", c ? "" : "|", c == p->right ? "--:|" : "---|",
			c + 1 < nc ? "" : "\n");
	for (int i = 0; i < r->njobs; i += row_jobs(r, i)) {
		p->row(&r->job[i], row_jobs(r, i), cells, code);
		for (int c = 0; c < nc; c++)
			if (markdown)
				md_cell(out, cells[c], code[c], !c, c + 1 == nc);
			else
				plain_cell(out, cells[c], c + 1 == nc, w[c], c == p->right);
	}
}

/* The budget, as the first line and the step summary say it. */
static void budget(const struct fuzz_run *r, char *buf, size_t len)
{
	if (r->runs && r->seconds)
		snprintf(buf, len, "%lld executions or %lld s", r->runs, r->seconds);
	else if (r->runs || r->seconds)
		snprintf(buf, len, r->runs ? "%lld executions" : "%lld s",
			 r->runs ? r->runs : r->seconds);
	else
		snprintf(buf, len, "%s", r->fork ? "no limit" : "until the first finding");
}

/* The first lines: the kernels, the budget, the jobs at once; a fuzzer's command line
 * and where the seeds come from. */
void fz_print_opening(const struct fuzz_run *r)
{
	char what[128];

	budget(r, what, sizeof(what));
	fz_appendf(what, sizeof(what), "%s", r->runs || r->seconds ? " each" : "");
	if (r->seed && r->seed_count > 1)
		fz_appendf(what, sizeof(what), ", seeds %llu..%llu", r->seed,
			   r->seed + (unsigned)r->seed_count - 1);
	else if (r->seed)
		fz_appendf(what, sizeof(what), ", seed %llu", r->seed);
	int per = row_jobs(r, 0), nk = r->njobs / per; /* per_oracle: oracles x seeds a kernel */
	char each[96] = "";
	if (r->p->per_oracle) {
		int no = per / r->seed_count;
		snprintf(each, sizeof(each), " x %d oracle%s", no, no == 1 ? "" : "s");
		if (r->seed_count > 1)
			fz_appendf(each, sizeof(each), " x %d seeds", r->seed_count);
		fz_appendf(each, sizeof(each), ", one fuzzer each");
	}
	fprintf(stderr, "%s: %d kernel%s%s, %s, %ld at a time%s\n", r->name, nk, nk == 1 ? "" : "s",
		each, what,
		r->fork              ? 1
		: r->jobs < r->njobs ? r->jobs
				     : r->njobs,
		r->fork ? ", each in libFuzzer's fork mode" : "");
	struct fz_args a = {0};
	struct fuzz_job eg = {.k = &(struct kernel_config){.name = "KERNEL"},
			      .oracle = r->p->per_oracle ? "ORACLE" : NULL,
			      .seed = r->seed,
			      .nseeds = r->job[0].nseeds};
	fz_pathf(eg.dir, sizeof(eg.dir), "%s/KERNEL%s", r->out, r->p->per_oracle ? "/ORACLE" : "");
	fz_fuzzer_args(r, fz_shown(r->fuzzer), &eg, &a);
	fprintf(stderr, "%s: each runs", r->name);
	for (int i = 0; i < a.n; i++)
		fprintf(stderr, " %s", a.v[i]);
	if (r->empty)
		fprintf(stderr, " (no seed inputs: --empty)\n");
	else
		fprintf(stderr, " (seeds copied from %s, %d of them)\n", fz_shown(r->seeds),
			eg.nseeds);
	fz_args_free(&a);
	if (r->seed_count > 1)
		fprintf(stderr,
			"%s: seed %llu in %s/KERNEL/ORACLE, seed S of the others (-seed=S) "
			"in %s/KERNEL/ORACLE.seed-S\n",
			r->name, r->seed, r->out, r->out);
}

/* The last lines: the table (stdout, and $GITHUB_STEP_SUMMARY's), the command line CMD,
 * the wall time; and where the new findings are. */
void fz_print_closing(const struct fuzz_run *r, const struct fuzz_totals *t, const char *cmd,
		      double wall)
{
	char what[128];

	print_table(stdout, r, r->markdown);
	printf("\n");
	if (r->markdown)
		printf("Command: `%s`; wall time %.1f s.\n", cmd, wall);
	else
		printf("command: %s\nwall time: %.1f s\n", cmd, wall);
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	FILE *f = summary && *summary ? fopen(summary, "a") : NULL;
	if (f) {
		budget(r, what, sizeof(what));
		fprintf(f, "### snafu %s, %s%s\n\n", r->name, what,
			r->runs || r->seconds ? " per kernel" : "");
		print_table(f, r, true);
		fprintf(f, "\nCommand: `%s`; wall time %.1f s.\n\n", cmd, wall);
		fclose(f);
	}
	fflush(stdout);
	if (r->p->judge && t->unknown) {
		fprintf(stderr, "%s: NEW findings:", r->name);
		for (int i = 0; i < r->njobs; i++)
			for (int k = 0; k < r->job[i].nf; k++) {
				const struct fuzz_finding *nf = &r->job[i].f[k];
				if (!nf->known && nf->base[0])
					fprintf(stderr, " %s%s",
						fz_shown(nf->casefile[0] ? nf->casefile : nf->base),
						nf->casefile[0] ? "" : ".input");
			}
		fprintf(stderr, "\n");
	}
	fflush(stdout);
}
