/* Writing cases; see casefile.h. */
#include "casefile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What is at OUT, if it is something -o must not replace: a name for the error line. */
static const char *not_replaceable(const char *out)
{
	struct stat st;

	if (lstat(out, &st) != 0 || S_ISREG(st.st_mode))
		return NULL; /* a new name (or an error the open will report), or a file */
	return S_ISDIR(st.st_mode)    ? "a directory"
	       : S_ISLNK(st.st_mode)  ? "a symbolic link (name the file it points to)"
	       : S_ISCHR(st.st_mode)  ? "a character device"
	       : S_ISBLK(st.st_mode)  ? "a block device"
	       : S_ISFIFO(st.st_mode) ? "a FIFO"
	       : S_ISSOCK(st.st_mode) ? "a socket"
				      : "not a regular file";
}

bool case_out_ok(const char *out)
{
	const char *what = strcmp(out, "-") ? not_replaceable(out) : NULL;

	if (what)
		fprintf(stderr,
			"snafu: %s: expected a regular file or a new name to write, found %s\n",
			out, what);
	return !what;
}

FILE *case_open_out(const char *out, char *tmp, size_t len)
{
	tmp[0] = 0;
	if (!strcmp(out, "-"))
		return stdout;
	if (!case_out_ok(out))
		return NULL;
	/* O_EXCL: never through whatever (a link) already has the temporary's name */
	for (int n = 0;; n++) {
		int w = n ? snprintf(tmp, len, "%s.tmp.%d.%d", out, (int)getpid(), n)
			  : snprintf(tmp, len, "%s.tmp.%d", out, (int)getpid());
		if (w < 0 || (size_t)w >= len) {
			fprintf(stderr, "snafu: %s: cannot write: %s\n", out,
				strerror(ENAMETOOLONG));
			tmp[0] = 0;
			return NULL;
		}
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			FILE *f = fdopen(fd, "wb");
			if (f)
				return f;
			close(fd);
			unlink(tmp);
		}
		if (fd >= 0 || errno != EEXIST || n == 99) {
			fprintf(stderr, "snafu: %s: cannot write: %s\n", out, strerror(errno));
			tmp[0] = 0;
			return NULL;
		}
	}
}

int case_close_out(FILE *f, const char *tmp, const char *out)
{
	if (!tmp[0]) { /* -o -: standard output */
		if (fflush(f) != 0 || ferror(f)) {
			fprintf(stderr, "snafu: standard output: cannot write: %s\n",
				strerror(errno));
			return 2;
		}
		return 0;
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "snafu: %s: cannot write: %s\n", out, strerror(errno));
		unlink(tmp);
		return 2;
	}
	/* checked again: something may have appeared at OUT while we wrote */
	if (!case_out_ok(out)) {
		unlink(tmp);
		return 2;
	}
	struct stat st; /* a file replaced keeps its mode */
	if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
		chmod(tmp, st.st_mode & 07777);
	if (rename(tmp, out) != 0) {
		fprintf(stderr, "snafu: %s: cannot write: %s\n", out, strerror(errno));
		unlink(tmp);
		return 2;
	}
	return 0;
}

const char *case_expect_word(const struct run_result *r)
{
	/* lockdep's prediction needs no schedule: the run makes it whatever fired */
	if (!r->unfired || r->result == SIM_PREDICTED)
		return r->verdict;
	return r->result == SIM_OK ? EXPECT_UNFIRED : NULL;
}

bool case_expect_met(const char *want, const struct run_result *r)
{
	const char *word = case_expect_word(r);

	return word && !strcmp(word, want);
}

int case_write_minimized(struct program *p, const struct kernel_config *k, const char *verdict,
			 unsigned oracles, const char *in, const char *by, const char *out)
{
	return case_write_minimized_note(p, k, verdict, oracles, in, by, NULL, out);
}

int case_write_minimized_note(struct program *p, const struct kernel_config *k, const char *verdict,
			      unsigned oracles, const char *in, const char *by, const char *note,
			      const char *out)
{
	/* the expect lines hold the default oracles' verdicts, as `replay --check` checks
	 * them; the header names the finding as ORACLES found it */
	struct run_opts quiet = {0}, traced = {.trace = true, .oracles = oracles};
	struct run_result r;
	/* a PCT schedule counts as the preemptions it makes (prog_minimize() works on them) */
	prog_resolve_schedule(p, k, oracles);
	int before_ops = p->nops, before_pre = p->npreempts;
	int runs = prog_minimize(p, k, verdict, oracles);

	/* every listed kernel's verdict on the minimized case becomes an expect line: its
	 * verdict where the schedule fires in full (a saved case is exact: replay --check
	 * insists), `unfired` where the run ends ok without it; a finding with a preemption
	 * that does not fire fits no expect line, so that kernel gets a comment, with why
	 * (and replay --check will call it a mismatch) */
	char notes[PROG_MAX_EXPECT][512];
	int nnotes = 0;
	p->nexpect = 0;
	for_each_kernel (kc) {
		if (p->nexpect == PROG_MAX_EXPECT)
			break; /* not while kernel_count() <= PROG_MAX_EXPECT (tests/test_kernels.c)
				*/
		prog_run(p, kc, &quiet, &r);
		const char *word = case_expect_word(&r);
		if (!word) {
			char why[160];
			int u = 0;
			while (r.pre[u].fired)
				u++;
			prog_unfired_why(p, &r, u, why, sizeof(why));
			char line[80];
			if (nnotes < PROG_MAX_EXPECT)
				snprintf(
				    notes[nnotes++], sizeof(notes[0]),
				    "# no expect line for %s (%s there), as %s does not fire: %s\n",
				    kc->name, r.verdict,
				    prog_preempt_str(&p->preempts[u], line, sizeof(line)), why);
			continue;
		}
		struct expectation *e = &p->expect[p->nexpect++];
		snprintf(e->kernel, sizeof(e->kernel), "%s", kc->name);
		snprintf(e->verdict, sizeof(e->verdict), "%s", word);
	}
	prog_run(p, k, &traced, &r);

	char tmp[4096];
	FILE *f = out ? case_open_out(out, tmp, sizeof(tmp)) : stdout;
	if (!f)
		return 2;
	fprintf(f, "# %s\n# found on %s; minimized by %s from %s\n", r.verdict, k->name, by, in);
	fprintf(f, "# (%d op%s, %d preemption%s before; %d run%s to minimize)\n", before_ops,
		before_ops == 1 ? "" : "s", before_pre, before_pre == 1 ? "" : "s", runs,
		runs == 1 ? "" : "s");
	char names[200], list[220] = "";
	if (oracles && oracles != ORACLES_DEFAULT) /* the header's verdict is these oracles' */
		snprintf(list, sizeof(list), " --oracles=%s",
			 oracles_str(oracles, names, sizeof(names)));
	fprintf(f, "# replay: build/bin/snafu replay --kernel=%s%s %s\n", k->name, list,
		out && strcmp(out, "-") ? out : "THIS.case");
	for (const char *l = note; l && *l;) { /* each line as a comment */
		size_t n = strcspn(l, "\n");
		fprintf(f, "# %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	for (int i = 0; i < nnotes; i++)
		fputs(notes[i], f);
	prog_print(p, f);
	if (out && case_close_out(f, tmp, out))
		return 2;
	return 0;
}
