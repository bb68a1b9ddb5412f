/* Writing cases; see casefile.h. */
#include "casefile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

FILE *case_open_out(const char *out, char *tmp, size_t len)
{
	snprintf(tmp, len, "%s.tmp.%d", out, (int)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f)
		fprintf(stderr, "snafu: %s: cannot write: %s\n", out, strerror(errno));
	return f;
}

int case_close_out(FILE *f, const char *tmp, const char *out)
{
	if (fclose(f) != 0 || rename(tmp, out) != 0) {
		fprintf(stderr, "snafu: %s: cannot write: %s\n", out, strerror(errno));
		unlink(tmp);
		return 2;
	}
	return 0;
}

int case_write_minimized(struct program *p, const struct kernel_config *k, const char *verdict,
			 const char *in, const char *by, const char *out)
{
	struct run_opts quiet = {0}, traced = {.trace = true};
	struct run_result r;
	int before_ops = p->nops, before_pre = p->npreempts;
	int runs = prog_minimize(p, k, verdict);

	/* every kernel's verdict on the minimized case becomes an expect line */
	p->nexpect = 0;
	for (int i = 0; i < nkernels && p->nexpect < PROG_MAX_EXPECT; i++) {
		prog_run(p, &kernels[i], &quiet, &r);
		struct expectation *e = &p->expect[p->nexpect++];
		snprintf(e->kernel, sizeof(e->kernel), "%s", kernels[i].name);
		snprintf(e->verdict, sizeof(e->verdict), "%s", r.verdict);
	}
	prog_run(p, k, &traced, &r);

	char tmp[4096];
	FILE *f = out ? case_open_out(out, tmp, sizeof(tmp)) : stdout;
	if (!f)
		return 2;
	fprintf(f, "# %s\n# found on %s; minimized by %s from %s\n", r.verdict, k->name, by, in);
	fprintf(f, "# (%d ops, %d preemptions before; %d runs to minimize)\n", before_ops,
		before_pre, runs);
	fprintf(f, "# replay: build/bin/snafu replay --kernel=%s %s\n", k->name,
		out ? out : "THIS.case");
	prog_print(p, f);
	if (out && case_close_out(f, tmp, out))
		return 2;
	return 0;
}
