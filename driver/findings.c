/* The findings of the fuzz driver (driver/drive.c): every artifact sorted by its
 * signature (replayed by snafu, else asked of the fuzzer), the executions to each, a new
 * one saved (.input; minimized into .case with its .report, a lockdep prediction
 * confirmed), and the line that each fuzzer's end gets; an interrupted run's findings
 * saved as they are. */
#include "internal.h"

#include "../search/confirm.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- sorting the artifacts ---- */

/* snafu's verdict on each of FILES on kernel K (VERDICTS[i], "" where it gave none): one
 * `snafu replay --quiet --input=bytes` for a few hundred files, its output in SCRATCH. */
void fz_replay_verdicts(const struct fuzz_run *r, const struct kernel_config *k, char **files,
			int n, char (*verdicts)[256], const char *scratch, const char *oracles)
{
	char tag[96];

	snprintf(tag, sizeof(tag), " [%s]: ", k->name);
	for (int s = 0; s < n; s += 256) {
		int e = n - s < 256 ? n : s + 256, at = s;
		struct fz_args a = {0};
		fz_arg(&a, "%s", r->exe);
		fz_arg(&a, "replay");
		fz_arg(&a, "--quiet");
		fz_arg(&a, "--input=bytes");
		fz_arg(&a, "--kernel=%s", k->name);
		if (oracles)
			fz_arg(&a, "--oracles=%s", oracles);
		for (int i = s; i < e; i++)
			fz_arg(&a, "%s", files[i]);
		fz_run_to(&a, scratch, false); /* exit 1 on a finding: the lines say it */
		char *out = fz_slurp(scratch), *line = out, *next;
		for (; line && *line; line = next) { /* "PATH [KERNEL]: VERDICT", in order */
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = 0;
			char *t = strstr(line, tag);
			if (!t)
				continue;
			*t = 0;
			while (at < e && strcmp(files[at], line))
				at++;
			if (at < e)
				snprintf(verdicts[at++], 256, "%s", t + strlen(tag));
		}
		free(out);
	}
}

/* What the fuzzer binary says of one input: its DEDUP_TOKEN, else its sanitizer's
 * SUMMARY kind, else "unreproducible"; its output in LOG. */
static void fuzzer_signature(const struct fuzz_run *r, const struct fuzz_job *j, const char *input,
			     const char *log, char *sig, size_t len)
{
	struct fz_args a = {0};

	fz_arg(&a, "%s", r->fuzzer);
	fz_arg(&a, "--kernel=%s", j->k->name);
	fz_arg(&a, "--ops=%s", r->ops);
	if (r->oracles)
		fz_arg(&a, "--oracles=%s", r->oracles);
	fz_arg(&a, "-runs=1");
	fz_arg(&a, "%s", input);
	fz_run_to(&a, log, true);
	char *out = fz_slurp(log), *t = out ? strstr(out, "\nDEDUP_TOKEN: ") : NULL;
	char *s = out ? strstr(out, "SUMMARY: ") : NULL;
	if (t)
		snprintf(sig, len, "%.*s", (int)strcspn(t + 14, " \r\n"), t + 14);
	else if (s && strstr(s, "Sanitizer: ")) {
		char *kind = strstr(s, "Sanitizer: ") + 11;
		int n = snprintf(sig, len, "%.*ssanitizer--%.*s", (int)(kind - 11 - s - 9), s + 9,
				 (int)strcspn(kind, " \r\n"), kind);
		for (int i = 0; i < n && sig[i]; i++)
			sig[i] = (char)(sig[i] >= 'A' && sig[i] <= 'Z' ? sig[i] + 32 : sig[i]);
	} else
		snprintf(sig, len, "unreproducible");
	free(out);
}

static int by_sig(const void *a, const void *b)
{
	return strcmp(((const struct fuzz_finding *)a)->sig, ((const struct fuzz_finding *)b)->sig);
}

/* Every artifact of job j, sorted into its findings by signature. */
static void classify(const struct fuzz_run *r, struct fuzz_job *j)
{
	int n;
	struct dirent **names = fz_files_of(j->dir, &n);
	char **paths = calloc((size_t)n + 1, sizeof(*paths));
	char(*verdicts)[256] = calloc((size_t)n + 1, sizeof(*verdicts));
	char scratch[PATH_LEN];
	int m = 0;

	if (!paths || !verdicts)
		abort();
	for (int i = 0; i < n; i++)
		if (fz_is_artifact(names[i]->d_name)) {
			paths[m] = malloc(PATH_LEN);
			if (!paths[m])
				abort();
			fz_pathf(paths[m++], PATH_LEN, "%s/%s", j->dir, names[i]->d_name);
		}
	fz_free_names(names, n);
	fz_pathf(scratch, sizeof(scratch), "%s/replay.log", j->dir);
	fz_replay_verdicts(r, j->k, paths, m, verdicts, scratch, fz_job_oracles(r, j));
	for (int i = 0; i < m && !fuzz_interrupted(); i++) {
		const char *base = strrchr(paths[i], '/') + 1;
		char sig[256];
		struct stat st;
		bool crash = !strncmp(base, "crash-", 6) || !strncmp(base, "finding-", 8);
		bool model = crash && verdicts[i][0] && strcmp(verdicts[i], "ok");
		if (model) /* else: not replayed, or replayed without a finding: ask the fuzzer */
			snprintf(sig, sizeof(sig), "%s", verdicts[i]);
		else if (crash)
			fuzzer_signature(r, j, paths[i], scratch, sig, sizeof(sig));
		else
			snprintf(sig, sizeof(sig), "libfuzzer-%.*s", (int)strcspn(base, "-"), base);
		long long size = stat(paths[i], &st) ? 0 : (long long)st.st_size;
		struct fuzz_finding *f = NULL;
		for (int k = 0; k < j->nf && !f; k++)
			if (!strcmp(j->f[k].sig, sig))
				f = &j->f[k];
		if (!f) {
			j->f = realloc(j->f, (size_t)(j->nf + 1) * sizeof(*j->f));
			if (!j->f)
				abort();
			f = &j->f[j->nf++];
			*f = (struct fuzz_finding){.size = -1, .execs = -1, .model = model};
			snprintf(f->sig, sizeof(f->sig), "%s", sig);
		}
		f->count++;
		if (f->size < 0 || size < f->size) { /* the smallest, the first by name of those */
			f->size = size;
			snprintf(f->input, sizeof(f->input), "%s", paths[i]);
		}
	}
	for (int i = 0; i < m; i++)
		free(paths[i]);
	free(paths);
	free(verdicts);
	if (j->nf > 1)
		qsort(j->f, (size_t)j->nf, sizeof(*j->f), by_sig);
}

/* ---- the executions to each finding ---- */

/* Of a fuzzer that went on past its findings (--keep-going): the executions to each
 * finding's first input, by its signature, as its output said (fz_log_execs_to()). */
static void finding_execs(const struct fuzz_run *r, struct fuzz_job *j)
{
	for (int i = 0; i < j->nf; i++)
		if (j->f[i].execs < 0)
			j->f[i].execs = fz_log_execs_to(r, j, j->f[i].sig);
}

static int by_execs(const void *a, const void *b)
{
	const struct fuzz_finding *x = a, *y = b;
	long long m = x->execs < 0 ? LLONG_MAX : x->execs, n = y->execs < 0 ? LLONG_MAX : y->execs;

	return m < n ? -1 : m > n ? 1 : strcmp(x->sig, y->sig);
}

const struct fuzz_finding *fuzz_first(const struct fuzz_job *j, long long *execs)
{
	const struct fuzz_finding *first = NULL;

	for (int i = 0; i < j->nf; i++)
		if (!first ||
		    (j->f[i].execs >= 0 && (first->execs < 0 || j->f[i].execs < first->execs)))
			first = &j->f[i];
	*execs = first && first->execs >= 0 ? first->execs : j->execs;
	return first;
}

/* ---- saving a finding ---- */

/* A lockdep prediction, minimized into f->casefile: `snafu confirm` searches for the
 * schedule that deadlocks (tools/confirm.c) and writes BASE.confirmed.case; its log is
 * OUT/KERNEL/confirm.log. */
static void confirm(const struct fuzz_run *r, const struct fuzz_job *j, struct fuzz_finding *f)
{
	char log[PATH_LEN], out[PATH_LEN];
	struct fz_args a = {0};

	fz_pathf(log, sizeof(log), "%s/confirm.log", j->dir);
	fz_pathf(out, sizeof(out), "%s.confirmed.case", f->base);
	unlink(out);
	fz_arg(&a, "%s", r->exe);
	fz_arg(&a, "confirm");
	fz_arg(&a, "--kernel=%s", j->k->name);
	fz_arg(&a, "--runs=%d", CONFIRM_DEFAULT_RUNS);
	fz_arg(&a, "-o");
	fz_arg(&a, "%s", out);
	fz_arg(&a, "%s", f->casefile);
	int status = fz_run_to(&a, log, true);
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		f->confirm = WEXITSTATUS(status) == 0 ? 1 : -1;
	else if (!fuzz_interrupted())
		fprintf(stderr, "snafu %s: %s: confirming %s failed; see %s\n", r->name, j->label,
			f->casefile, log);
	if (f->confirm > 0) {
		/* the deadlock's signature: the first line of the case, "# SIGNATURE" */
		char *text = fz_slurp(out);
		snprintf(f->confirmed, sizeof(f->confirmed), "%s", out);
		if (text && !strncmp(text, "# ", 2))
			snprintf(f->deadlock, sizeof(f->deadlock), "%.*s",
				 (int)strcspn(text + 2, "\n"), text + 2);
		free(text);
	}
}

/* SIG as a file name: no '/', no leading '.'. */
static void finding_name(const char *sig, char name[256])
{
	snprintf(name, 256, "%s", sig);
	for (char *c = name; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.",
			    *c) ||
		    (c == name && *c == '.'))
			*c = '_';
}

/* Finding f of job j as BASE.input and BASE.report, and minimized into BASE.case when
 * snafu replays it: BASE is FOUND/KERNEL/SIGNATURE, or with cases_in_out OUT/KERNEL for
 * the first and OUT/KERNEL/SIGNATURE for the others (emptied with OUT/KERNEL). A
 * lockdep prediction goes to snafu confirm as well. */
static bool save(const struct fuzz_run *r, struct fuzz_job *j, struct fuzz_finding *f)
{
	char dir[PATH_LEN], name[256], path[PATH_LEN], log[PATH_LEN];
	struct fz_args a = {0};
	bool ok = true;

	finding_name(f->sig, name);
	fz_pathf(dir, sizeof(dir), "%s/%s", r->found, j->k->name);
	/* the first finding as OUT/KERNEL; the others (--keep-going) in it, by signature */
	if (r->p->cases_in_out && f == j->f)
		fz_pathf(f->base, sizeof(f->base), "%s", j->dir);
	else if (r->p->cases_in_out)
		fz_pathf(f->base, sizeof(f->base), "%s/%s", j->dir, name);
	else
		fz_pathf(f->base, sizeof(f->base), "%s/%s", dir, name);
	fz_pathf(path, sizeof(path), "%s.input", f->base);
	if ((!r->p->cases_in_out && fz_mkdir_p(dir)) || fz_copy_file(f->input, path)) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path, strerror(errno));
		f->base[0] = 0;
		return false;
	}
	fz_pathf(path, sizeof(path), "%s.case", f->base);
	fz_pathf(log, sizeof(log), "%s/minimize.log", j->dir);
	unlink(path);
	if (f->model) {
		fz_arg(&a, "%s", r->exe);
		fz_arg(&a, "minimize");
		fz_arg(&a, "--kernel=%s", j->k->name);
		if (fz_job_oracles(r, j))
			fz_arg(&a, "--oracles=%s", fz_job_oracles(r, j));
		fz_arg(&a, "--input=bytes");
		fz_arg(&a, "-o");
		fz_arg(&a, "%s", path);
		fz_arg(&a, "%s", f->input);
		int status = fz_run_to(&a, log, true);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			snprintf(f->casefile, sizeof(f->casefile), "%s", path);
		else if (!fuzz_interrupted()) {
			fprintf(stderr, "snafu %s: %s: minimizing %s failed; see %s\n", r->name,
				j->label, f->input, log);
			ok = false;
		}
	}
	if (f->casefile[0] && !strncmp(f->sig, "lockdep--", 9))
		confirm(r, j, f);
	fz_pathf(path, sizeof(path), "%s.report", f->base);
	if (f->casefile[0]) { /* through a temporary: whole or not at all */
		char tmp[PATH_LEN + 16];
		fz_pathf(tmp, sizeof(tmp), "%s.tmp", path);
		fz_arg(&a, "%s", r->exe);
		fz_arg(&a, "replay");
		fz_arg(&a, "--kernel=%s", j->k->name);
		if (fz_job_oracles(r, j))
			fz_arg(&a, "--oracles=%s", fz_job_oracles(r, j));
		fz_arg(&a, "%s", f->casefile);
		bool written;                                      /* if not, said so */
		int status = fz_run_into(&a, tmp, true, &written); /* 0 or 1 (a finding) */
		if (!written || !WIFEXITED(status) || WEXITSTATUS(status) > 1) {
			char how[48];
			fz_status_text(status, how, sizeof(how));
			if (written && !fuzz_interrupted())
				fprintf(
				    stderr,
				    "snafu %s: %s: cannot write the report: snafu replay failed "
				    "(%s)\n",
				    r->name, path, how);
			unlink(tmp);
			ok = false;
		} else if (rename(tmp, path)) {
			fprintf(stderr, "snafu %s: %s: cannot write the report: %s\n", r->name,
				path, strerror(errno));
			unlink(tmp);
			ok = false;
		}
	} else if (!strncmp(strrchr(f->input, '/') + 1, "crash-", 6) ||
		   !strncmp(strrchr(f->input, '/') + 1, "finding-", 8)) {
		/* not a finding snafu can replay (a sanitizer report, say): the fuzzer's word */
		char sig[256];
		fuzzer_signature(r, j, f->input, path, sig, sizeof(sig));
	} else { /* a libFuzzer timeout, OOM or leak: what the log says of it */
		FILE *out = fopen(path, "w");
		fz_pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
		if (out)
			fz_print_tail(out, log, 20);
		if (!out || fclose(out)) {
			fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path,
				strerror(errno));
			unlink(path); /* whole or not at all */
			ok = false;
		}
	}
	return ok;
}

/* A fuzzer has ended with STATUS: its findings, sorted, judged and saved, one line. */
void fz_finish(struct fuzz_run *r, struct fuzz_job *j, int status, struct fuzz_totals *t)
{
	char token[256], line[4096] = "", log[PATH_LEN];
	bool done;

	j->secs = fz_now() - j->start;
	j->execs = fz_read_log(r, j, token, sizeof(token), &done);
	fz_pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
	classify(r, j);
	if (fuzz_interrupted())
		return;
	/* the executions to each finding: the fuzzer's line for it (its count takes in the
	 * joint search's runs, which libFuzzer's does not) */
	if (!r->fork)
		finding_execs(r, j);
	j->went_on = fz_keeps_going(r);
	if (j->went_on && j->nf) /* in the order they came */
		qsort(j->f, (size_t)j->nf, sizeof(*j->f), by_execs);
	else if (!r->fork && j->nf) /* it ended at its finding */
		fuzz_first(j, &j->execs);
	if (!j->nf && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !done) {
		/* fork mode exits with the last failed child's status: done if it says so */
		j->error = true;
		fz_status_text(status, j->why, sizeof(j->why));
		fprintf(stderr,
			"snafu %s: %s: the fuzzer failed (%s) without an artifact; see %s\n",
			r->name, j->label, j->why, log);
		fz_print_tail(stderr, log, 5);
		t->errors++;
		return;
	}
	if (!j->nf && j->execs < 0 && r->runs)
		j->execs = r->runs;
	if (!r->fork && j->nf == 1 && token[0] && strcmp(token, j->f[0].sig))
		fprintf(stderr, "snafu %s: %s: replays as %s; the fuzzer said %s\n", r->name,
			j->f[0].input, j->f[0].sig, token);
	for (int i = 0; i < j->nf; i++) {
		struct fuzz_finding *f = &j->f[i];
		f->known = r->p->judge && fz_is_known(r, j->k->name, f->sig);
		if (f->known)
			j->nknown++;
		else
			j->nnew++, t->errors += !save(r, j, f); /* what failed said so */
		fz_appendf(line, sizeof(line), "%s%s", i ? ", " : "", f->sig);
		if (j->went_on && f->execs >= 0)
			fz_appendf(line, sizeof(line), " after %lld", f->execs);
		if (r->fork)
			fz_appendf(line, sizeof(line), " (%d)", f->count);
		if (f->known)
			fz_appendf(line, sizeof(line), " known");
		if (f->base[0])
			fz_appendf(line, sizeof(line), " -> %s%s",
				   f->casefile[0] ? f->casefile : f->base,
				   f->casefile[0] ? "" : ".input");
		if (f->confirm)
			fz_appendf(line, sizeof(line), f->confirm > 0 ? " (confirmed: %s)" : "%s",
				   f->confirm > 0 ? f->confirmed : " (predicted only)");
	}
	t->findings += j->nf;
	t->unknown += r->p->judge ? j->nnew : 0;
	char execs[32] = "?";
	if (j->execs >= 0)
		snprintf(execs, sizeof(execs), "%lld", j->execs);
	if (!j->nf)
		fprintf(stderr, "%s: %s: no finding in %s executions, %.1f s\n", r->name, j->label,
			execs, j->secs);
	else
		fprintf(stderr, "%s: %s: %s%s executions, %.1f s: %s\n", r->name, j->label,
			r->fork || fz_keeps_going(r) ? "" : "finding after ", execs, j->secs, line);
	for (int i = 0; r->p->judge && i < j->nf; i++)
		if (!j->f[i].known && j->f[i].base[0])
			fz_show(r, j, &j->f[i]);
}

/* An interrupted fuzzer's new findings, sorted by signature and saved as they are (no
 * time to minimize): FOUND/KERNEL/SIGNATURE.input, where the next run, which empties
 * OUT/KERNEL, does not reach them. */
void fz_save_interrupted(struct fuzz_run *r, struct fuzz_job *j)
{
	char name[256], dir[PATH_LEN], path[PATH_LEN];

	if (!r->p->judge || r->p->cases_in_out || j->nf)
		return;         /* sorted already (fz_finish()), or the plan keeps them in OUT */
	fz_clear_interrupted(); /* a second Ctrl-C stops this too */
	classify(r, j);
	for (int i = 0; i < j->nf && !fuzz_interrupted(); i++) {
		const struct fuzz_finding *f = &j->f[i];
		if (fz_is_known(r, j->k->name, f->sig))
			continue;
		finding_name(f->sig, name);
		fz_pathf(dir, sizeof(dir), "%s/%s", r->found, j->k->name);
		fz_pathf(path, sizeof(path), "%s/%s.input", dir, name);
		if (fz_mkdir_p(dir) || fz_copy_file(f->input, path))
			fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path,
				strerror(errno));
		else
			fprintf(stderr, "%s: %s: %s saved, not minimized: %s\n", r->name, j->label,
				f->sig, fz_shown(path));
	}
}
