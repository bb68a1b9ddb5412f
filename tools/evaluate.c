/* snafu evaluate: "does my fix hold?" for every kernel at once.
 *
 * The fuzz driver (driver/drive.c) with these defaults: every kernel gets the same
 * budget, counted in executions (never in time, so the table does not depend on the
 * machine): one futex_mm_fuzzer process each, with the same seed (default 1), from an
 * empty corpus and a fresh copy of the seed corpus (--fresh), up to J of them at a time,
 * once per oracle (each alone: --oracles=NAME, for every name in --oracles=LIST, default
 * all four), so that what one oracle finds first does not hide what another would; with
 * --seeds=N, N times per oracle, with the seeds S, S+1, ..., S+N-1.
 * Each finding is minimized into OUT/KERNEL/ORACLE.case (OUT/KERNEL/ORACLE.seed-S.case for
 * the seeds after the first) with an expect line for every kernel (its input and report
 * beside it), and one table says, per kernel and oracle: the first finding's signature
 * and the executions it took, or none in the budget; with --seeds, how many seeds found
 * it and the median of their executions.
 *
 * Beside the fuzzer's cells, per kernel, the explore column: explore_bound()
 * (search/explore.h) on every program of repro/cases (--explore-cases=DIR: of DIR) and
 * every program the table's own cells found (any kernel's, lockdep's confirmed deadlocks
 * included; the same program once), at most --explore-schedules=M schedules each, in J
 * forked workers; each search's line goes to OUT/explore.txt. The same seed gives the same table,
 * byte for byte, on any machine, loaded or not, with any --jobs: driver/drive.c says how, and a
 * search is a function of its program, kernel, oracles and budget.
 *
 * OUT defaults to <the directory above snafu's>/evaluate, build/evaluate for
 * build/bin/snafu, wherever snafu is run from.
 *
 * Exit status: 0 when every fuzzer ran (findings are the expected output, not failures),
 * 1 when a fuzzer failed without leaving an artifact (or an explore worker failed), 2 on
 * bad usage.
 */
#include "commands.h"

#include "../cli/cli.h"
#include "../driver/driver.h"
#include "../prog/oracle.h"
#include "../prog/program.h"
#include "../search/explore.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Schedules the explore column runs per program and kernel without
 * --explore-schedules=M (explore_bound()'s budget: unbounded within it, else to
 * EXPLORE_BOUND_FALLBACK preemptions, cut there). */
#define EVALUATE_EXPLORE_SCHEDULES 20000

#define STR_(x) #x
#define XSTR(x) STR_(x) /* a number macro as a string, for the help */

static const char *const evaluate_value_opts[] = {"--runs",
						  "--jobs",
						  "--ops",
						  "--seed",
						  "--seeds",
						  "--out",
						  "--oracles",
						  "--kernel",
						  "--max-schedules",
						  "--explore-schedules",
						  "--explore-cases",
						  "--schedule",
						  "--interleaving-coverage",
						  "--joint",
						  NULL};

/* clang-format off */
static const char evaluate_help[] =
    "  evaluate [OPTIONS]      fuzz every kernel with the same budget of executions, once\n"
    "                          per oracle and seed, explore every saved and found\n"
    "                          program on every kernel, and print a table: a row per\n"
    "                          kernel, a column per oracle (the finding and the\n"
    "                          executions it took, or none in the budget), then the\n"
    "                          explore column; cases in OUT/KERNEL/ORACLE.case; exit 0\n"
    "                          when it ran\n"
    "      --kernel=NAME       this kernel only (again for more; default: every listed\n"
    "                          kernel)\n"
    "      --runs=N            executions per fuzzer (default 1000000)\n"
    "      --keep-going        run all of them past the first finding: a cell adds\n"
    "                          \"(+K others)\" for the other signatures it found\n"
    "      --seeds=N           N fuzzers per kernel and oracle, libFuzzer seeds S..S+N-1\n"
    "                          (1..1000, default 1): a cell says how many found it and\n"
    "                          their median executions; seed S's case is ORACLE.case,\n"
    "                          seed T's ORACLE.seed-T.case\n"
    "      --seed=S            libFuzzer's seed, 1..4294967295 (default 1)\n"
    "      --explore-schedules=M  the explore column's budget per program and kernel\n"
    "                          (default " XSTR(EVALUATE_EXPLORE_SCHEDULES) "): every trace if the search ends within\n"
    "                          it, else to " XSTR(EXPLORE_BOUND_FALLBACK) " preemptions; each search in OUT/explore.txt\n"
    "      --explore-cases=DIR the saved programs the explore column searches, beside\n"
    "                          the findings: DIR/*.case (default: repro/cases)\n"
    "      --no-explore        no explore column\n"
    "      --jobs=J            fuzzers (and explore workers) at once (default: the\n"
    "                          online CPUs)\n"
    "      --ops=futex|all     the ops the fuzzer may use (default all)\n"
    "      --oracles=LIST      what counts as a finding: some of deadlock, lost-wakeup,\n"
    "                          result, integrity, lockdep, comma-separated (default:\n"
    "                          all five); the explore column uses them but lockdep\n"
    "      --schedule=pct|preempt, --interleaving-coverage=0|1, --joint=N  as for\n"
    "                          snafu fuzz\n"
    "      --out=DIR           corpora, logs, artifacts, cases (default: evaluate/ beside\n"
    "                          snafu's directory, build/evaluate for build/bin/snafu)\n"
    "      --markdown          print the table as GitHub markdown\n"
    "  evaluate --explore[=K] [OPTIONS] [CASE...]\n"
    "                          snafu explore on every saved program (default: the cases\n"
    "                          of repro/cases) and every listed kernel, at most K\n"
    "                          preemptions (default 2): a line each, then a table per\n"
    "                          kernel; exit 0 when it ran\n"
    "      --kernel=NAME       one kernel instead of every listed one\n"
    "      --oracles=LIST      as for snafu explore (default: deadlock, lost-wakeup, result)\n"
    "      --max-schedules=M   per program and kernel (default " XSTR(EXPLORE_EVALUATE_MAX_SCHEDULES) "; a search cut there\n"
    "                          is counted apart)\n"
    "      --jobs=J            processes (default: the online CPUs)\n"
    "      --markdown          print the table as GitHub markdown\n";
/* clang-format on */

/* ---- the fuzzer's cells ---- */

/* N with a comma every three digits: 12,345 (one of four buffers, in turn). */
static const char *commas(long long n)
{
	static char buf[4][32];
	static int next;
	char digits[32], *b = buf[next++ % 4];
	int len = snprintf(digits, sizeof(digits), "%lld", n < 0 ? -n : n), o = 0;

	if (n < 0)
		b[o++] = '-';
	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			b[o++] = ',';
		b[o++] = digits[i];
	}
	b[o] = 0;
	return b;
}

static int by_value(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* One seed's cell, as it has always read: "SIG after N[, confirmed|, predicted only]",
 * "none in N" or the fuzzer's error. */
static void one_seed(const struct fuzz_job *o, char *c)
{
	long long n;
	const struct fuzz_finding *f = fuzz_first(o, &n);
	char execs[32] = "?", other[32] = "";

	if (n >= 0)
		snprintf(execs, sizeof(execs), "%lld", n);
	if (o->nf > 1)
		snprintf(other, sizeof(other), " (+%d other%s)", o->nf - 1, o->nf > 2 ? "s" : "");
	if (o->error)
		snprintf(c, FUZZ_PATH, "error: fuzzer %s, no artifact", o->why);
	else if (!f)
		snprintf(c, FUZZ_PATH, "none in %s", execs);
	else
		snprintf(c, FUZZ_PATH, "%s%s after %s%s", f->sig, other, execs,
			 f->confirm > 0   ? ", confirmed"
			 : f->confirm < 0 ? ", predicted only"
					  : "");
}

/* Whether signature SIG is among seed S's findings before its I-th, or any earlier seed's. */
static bool sig_seen_before(const struct fuzz_job *o, int s, int i, const char *sig)
{
	for (int t = 0; t <= s; t++)
		for (int j = 0; j < (t < s ? o[t].nf : i); j++)
			if (!o[t].error && !strcmp(o[t].f[j].sig, sig))
				return true;
	return false;
}

/* The cell of N seeds (jobs o[0..n-1], one kernel and oracle): "SIG[ (+K other[s])]
 * found by F of N seeds, median M[, confirmed]" (the most common first signature, the
 * earliest seed's of those tied; K: the other signatures any seed found, its first or,
 * with --keep-going, later; the median of the finding seeds' executions to their first,
 * the lower middle one of an even count; "after M" when one seed found it), "none in N
 * x E", or an error. */
static void seeds_cell(const struct fuzz_job *o, int n, char *c)
{
	long long execs[1000];
	int found = 0, errors = 0, nexecs = 0, best = -1, bestn = 0, distinct = 0;
	const char *why = NULL;
	bool same = true;
	const struct fuzz_finding *ff[1000]; /* each seed's first finding, and executions to it */
	long long fn[1000];

	for (int s = 0; s < n; s++)
		ff[s] = fuzz_first(&o[s], &fn[s]);
	for (int s = 0; s < n; s++) {
		if (o[s].error) {
			errors++;
			why = why ? why : o[s].why;
			continue;
		}
		same &= o[s].execs == o[0].execs;
		if (!o[s].nf)
			continue;
		found++;
		if (fn[s] >= 0)
			execs[nexecs++] = fn[s];
		int first = s, count = 0; /* the first seed with this signature, and how many */
		for (int t = 0; t < n; t++)
			if (!o[t].error && o[t].nf && !strcmp(ff[t]->sig, ff[s]->sig)) {
				first = first < t ? first : t;
				count++;
			}
		if (first == s && count > bestn)
			best = s, bestn = count;
		for (int i = 0; i < o[s].nf; i++)
			distinct += !sig_seen_before(o, s, i, o[s].f[i].sig);
	}
	if (errors) {
		snprintf(c, FUZZ_PATH, "error: fuzzer %s, no artifact (%d of %d seeds)", why,
			 errors, n);
		return;
	}
	if (!found) {
		if (same && o[0].execs >= 0)
			snprintf(c, FUZZ_PATH, "none in %d x %lld", n, o[0].execs);
		else {
			long long all = 0;
			for (int s = 0; s < n; s++)
				all += o[s].execs > 0 ? o[s].execs : 0;
			snprintf(c, FUZZ_PATH, "none in %d seeds, %lld executions in all", n, all);
		}
		return;
	}
	const struct fuzz_finding *f = ff[best];
	int tried = 0, confirmed = 0;
	for (int s = 0; s < n; s++)
		if (!o[s].error && o[s].nf && !strcmp(ff[s]->sig, f->sig) && ff[s]->confirm) {
			tried++;
			confirmed += ff[s]->confirm > 0;
		}
	char other[32] = "", median[48] = "?", confirm[48] = "";
	if (distinct > 1)
		snprintf(other, sizeof(other), " (+%d other%s)", distinct - 1,
			 distinct > 2 ? "s" : "");
	qsort(execs, (size_t)nexecs, sizeof(execs[0]), by_value);
	if (nexecs)
		snprintf(median, sizeof(median), "%s %s", found == 1 ? "after" : "median",
			 commas(execs[(nexecs - 1) / 2]));
	if (tried && confirmed == tried)
		snprintf(confirm, sizeof(confirm), ", confirmed");
	else if (tried && !confirmed)
		snprintf(confirm, sizeof(confirm), ", predicted only");
	else if (tried)
		snprintf(confirm, sizeof(confirm), ", confirmed for %d of %d", confirmed, tried);
	snprintf(c, FUZZ_PATH, "%s%s found by %d of %d seeds, %s%s", f->sig, other, found, n,
		 median, confirm);
}

/* ---- the explore column ---- */

static struct {
	bool off;      /* --no-explore */
	long long max; /* --explore-schedules=M */
	/* the programs: the saved cases (the first nsaved), then the findings' */
	struct eprog {
		char name[FUZZ_PATH]; /* repro/cases/X.case, or KERNEL/ORACLE.case under OUT */
		char also[512];       /* the names of the same program found again */
		struct program p;
	} * v;
	int n, nsaved;
	char cases_dir[FUZZ_PATH]; /* where the saved cases are */
	const char *cases_arg;     /* --explore-cases=DIR as given; NULL: repro/cases */
	/* the kernels, in the table's order, and each one's cell */
	const struct kernel_config *kern[64];
	char cell[64][FUZZ_PATH];
	int nk;
} ex = {.max = EVALUATE_EXPLORE_SCHEDULES};

static bool option(const char *a, int argn)
{
	if (!strcmp(a, "--no-explore")) {
		ex.off = true;
		return true;
	}
	if (!strncmp(a, "--explore-cases=", 16)) {
		const char *v = a + 16;
		DIR *d = *v ? opendir(v) : NULL;
		if (!d || strlen(v) >= FUZZ_PATH - 256)
			die_usage("--explore-cases=DIR with a directory of .case files", a, argn);
		closedir(d);
		ex.cases_arg = v;
		return true;
	}
	if (strncmp(a, "--explore-schedules=", 20))
		return false;
	const char *v = a + 20;
	char *end;
	errno = 0;
	long long m = *v >= '0' && *v <= '9' ? strtoll(v, &end, 10) : (end = (char *)v, 0);
	if (end == v || *end || errno || m < 1 || m > 1000000000000LL)
		die_usage("--explore-schedules=M with M in 1..1000000000000", a, argn);
	ex.max = m;
	return true;
}

static const char *const option_shown[] = {"--explore-schedules=M", "--explore-cases=DIR",
					   "--no-explore", NULL};

static void option_line(char *buf, size_t len)
{
	size_t n = strlen(buf);

	if (ex.off)
		snprintf(buf + n, len - n, " --no-explore");
	else if (ex.cases_arg)
		snprintf(buf + n, len - n, " --explore-schedules=%lld --explore-cases=%s", ex.max,
			 ex.cases_arg);
	else
		snprintf(buf + n, len - n, " --explore-schedules=%lld", ex.max);
}

static const char *tail(void)
{
	return ex.off ? NULL : "explore";
}

/* Same ops in the same tasks: the same program (schedules and expect lines aside). */
static bool same_program(const struct program *a, const struct program *b)
{
	return a->ntasks == b->ntasks && a->nops == b->nops &&
	       !memcmp(a->ops, b->ops, (size_t)a->nops * sizeof(a->ops[0]));
}

/* Program p, named NAME, into the list unless it is there already. */
static void add_program(const char *name, const struct program *p)
{
	for (int i = 0; i < ex.n; i++)
		if (same_program(&ex.v[i].p, p)) {
			size_t n = strlen(ex.v[i].also);
			snprintf(ex.v[i].also + n, sizeof(ex.v[i].also) - n, "%s%s", n ? ", " : "",
				 name);
			return;
		}
	ex.v = realloc(ex.v, (size_t)(ex.n + 1) * sizeof(*ex.v));
	if (!ex.v)
		abort();
	struct eprog *e = &ex.v[ex.n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->p = *p;
	e->p.npreempts = 0; /* explore_bound() ignores them: said here too */
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Before any fuzzer runs: the saved cases, DIR/ *.case in strcmp() order, each loaded (a
 * bad one: one line, exit 2). DIR: --explore-cases, else SOURCE/repro/cases (SOURCE: the
 * seed corpus's tree), the cases then named repro/cases/NAME.case. */
static void before(const struct fuzz_info *info)
{
	const char *suffix = "/corpus/futex_mm_fuzzer";
	size_t n = strlen(info->seeds), sl = strlen(suffix);

	if (ex.off)
		return;
	if (ex.cases_arg)
		snprintf(ex.cases_dir, sizeof(ex.cases_dir), "%s", ex.cases_arg);
	else if (n > sl && !strcmp(info->seeds + n - sl, suffix))
		snprintf(ex.cases_dir, sizeof(ex.cases_dir), "%.*s/repro/cases", (int)(n - sl),
			 info->seeds);
	else
		snprintf(ex.cases_dir, sizeof(ex.cases_dir), "%s/../../repro/cases", info->seeds);
	DIR *d = opendir(ex.cases_dir);
	char **names = NULL;
	int count = 0;
	if (!d) {
		fprintf(stderr,
			"%s: %s: cannot list (%s): the explore column has the findings' programs "
			"only\n",
			info->name, ex.cases_dir, strerror(errno));
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".case"))
			continue;
		names = realloc(names, (size_t)(count + 1) * sizeof(*names));
		if (!names || !(names[count++] = strdup(e->d_name)))
			abort();
	}
	closedir(d);
	qsort(names, (size_t)count, sizeof(*names), by_str);
	static struct program p;
	for (int i = 0; i < count; i++) {
		char path[FUZZ_PATH + 256], name[FUZZ_PATH];
		snprintf(path, sizeof(path), "%s/%s", ex.cases_dir, names[i]);
		snprintf(name, sizeof(name), "%s/%s", ex.cases_arg ? ex.cases_arg : "repro/cases",
			 names[i]);
		load_case(path, &p); /* one line and exit 2 on a bad case: nothing has run */
		add_program(name, &p);
		free(names[i]);
	}
	free(names);
	ex.nsaved = ex.n;
}

/* A case the run wrote, as text (minimize and confirm write text): false, with a line
 * on stderr, when it does not parse (it is left out; the table goes on). */
static bool read_case(const char *who, const char *path, struct program *p)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, err[PROG_ERR_LEN];
	size_t cap = 0, len = 0;

	if (f) {
		for (size_t got = 1; got;) {
			if (len + 4097 > cap && !(text = realloc(text, cap = cap * 2 + 8192)))
				abort();
			len += got = fread(text + len, 1, 4096, f);
		}
		text[len] = 0;
		fclose(f);
	}
	if (!f || prog_parse(text, p, err, sizeof(err))) {
		fprintf(stderr, "%s: %s: %s; not explored\n", who, path, f ? err : strerror(errno));
		free(text);
		return false;
	}
	free(text);
	return true;
}

/* What one search gave (a worker's record). */
struct erec {
	int prog, kern;
	struct explore_bound b;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* How the searches without a finding were bounded: "unbounded", "unbounded for 18 of 20
 * programs, else to 3 preemptions", "to 3 preemptions for 2 of 4 programs, cut at 20,000
 * schedules for 2" and the like. */
static void bound_words(const struct erec *const *r, int n, char *buf, size_t len)
{
	int un = 0, cut = 0, K = -1;

	for (int i = 0; i < n; i++) {
		un += r[i]->b.unbounded;
		cut += !r[i]->b.unbounded && r[i]->b.cut;
		if (!r[i]->b.unbounded && (K < 0 || r[i]->b.K < K))
			K = r[i]->b.K;
	}
	int to = n - un - cut;
	char k[48], m[64];
	snprintf(k, sizeof(k), "to %d %s", K, plural(K, "preemption", "preemptions"));
	snprintf(m, sizeof(m), "cut at %s schedules", commas(ex.max));
	if (un == n)
		snprintf(buf, len, "unbounded");
	else if (to == n)
		snprintf(buf, len, "%s", k);
	else if (cut == n)
		snprintf(buf, len, "%s", m);
	else if (!cut)
		snprintf(buf, len, "unbounded for %d of %d programs, else %s", un, n, k);
	else if (!to)
		snprintf(buf, len, "unbounded for %d of %d programs, else %s", un, n, m);
	else if (!un)
		snprintf(buf, len, "%s for %d of %d programs, else %s", k, to, n, m);
	else
		snprintf(buf, len, "unbounded for %d of %d programs, %s for %d, %s for %d", un, n,
			 k, to, m, cut);
}

/* Kernel ki's cell from the records of every program on it (r[0..n-1], in program
 * order): "no finding in T traces (BOUND)", or "SIG (N programs), SIG2 (M)" by count,
 * then name, and "; the other P: no finding in T traces (BOUND)" when some found
 * nothing. */
static void kernel_cell(const struct erec *const *r, int n, char *c)
{
	const struct erec **none = calloc((size_t)n + 1, sizeof(*none));
	int nnone = 0, nsig = 0;
	long long traces = 0;
	struct sigcount {
		const char *sig;
		int count;
	} *sigs = calloc((size_t)n + 1, sizeof(*sigs));
	char bound[256];
	size_t w = 0;

	if (!none || !sigs)
		abort();
	for (int i = 0; i < n; i++) {
		if (!r[i]->b.found) {
			none[nnone++] = r[i];
			traces += r[i]->b.traces;
			continue;
		}
		int s = 0;
		while (s < nsig && strcmp(sigs[s].sig, r[i]->b.verdict))
			s++;
		if (s == nsig)
			sigs[nsig++].sig = r[i]->b.verdict;
		sigs[s].count++;
	}
	for (int a = 1; a < nsig; a++) /* by count, then name: insertion sort */
		for (int b = a; b > 0 && (sigs[b].count > sigs[b - 1].count ||
					  (sigs[b].count == sigs[b - 1].count &&
					   strcmp(sigs[b].sig, sigs[b - 1].sig) < 0));
		     b--) {
			struct sigcount t = sigs[b];
			sigs[b] = sigs[b - 1];
			sigs[b - 1] = t;
		}
	c[0] = 0;
	for (int s = 0; s < nsig && w < FUZZ_PATH; s++)
		w += (size_t)snprintf(c + w, FUZZ_PATH - w, "%s%s (%d%s)", s ? ", " : "",
				      sigs[s].sig, sigs[s].count,
				      s ? "" : plural(sigs[s].count, " program", " programs"));
	if (nnone && w < FUZZ_PATH) {
		bound_words(none, nnone, bound, sizeof(bound));
		if (nsig)
			w += (size_t)snprintf(c + w, FUZZ_PATH - w, "; the other %d: ", nnone);
		if (w < FUZZ_PATH)
			snprintf(c + w, FUZZ_PATH - w, "no finding in %s %s (%s)", commas(traces),
				 plural(traces, "trace", "traces"), bound);
	}
	if (!n)
		snprintf(c, FUZZ_PATH, "no programs");
	free(none);
	free(sigs);
}

/* Kill and reap the workers still running. */
static void stop_workers(pid_t *pid, long n)
{
	for (long w = 0; w < n; w++)
		if (pid[w] > 0)
			kill(pid[w], SIGTERM);
	for (long w = 0; w < n; w++)
		while (pid[w] > 0 && waitpid(pid[w], NULL, 0) < 0 && errno == EINTR)
			;
}

/* After the fuzzers: the findings' programs join the saved ones; every program on every
 * kernel, in J workers (worker w takes the searches w, w + J, ...; a search's number is
 * program x kernels + kernel); the cells, and OUT/explore.txt. */
static bool after(const struct fuzz_info *info)
{
	const char *who = info->name;
	char err[256];
	static struct program p;

	if (ex.off)
		return true;
	size_t olen = strlen(info->out);
	for (int i = 0; i < info->njobs; i++)
		for (int k = 0; k < info->job[i].nf; k++) {
			const struct fuzz_finding *f = &info->job[i].f[k];
			const char *files[2] = {f->casefile, f->confirm > 0 ? f->confirmed : ""};
			for (int c = 0; c < 2; c++) {
				const char *name = files[c];
				if (!name[0] || !read_case(who, name, &p))
					continue;
				if (!strncmp(name, info->out, olen) && name[olen] == '/')
					name += olen + 1; /* KERNEL/ORACLE.case, under OUT */
				add_program(name, &p);
			}
		}
	for (int i = 0; i < info->njobs && ex.nk < 64; i++)
		if (!ex.nk || ex.kern[ex.nk - 1] != info->job[i].k)
			ex.kern[ex.nk++] = info->job[i].k;
	/* the run's oracles but lockdep (its column says what it predicts, and a prediction
	 * needs no schedule), unless lockdep is all there is */
	unsigned oracles =
	    info->oracles ? oracles_parse(info->oracles, err, sizeof(err)) : ORACLES_DEFAULT;
	if (oracles & ~(unsigned)ORACLE_LOCKDEP)
		oracles &= ~(unsigned)ORACLE_LOCKDEP;
	int nk = ex.nk, npairs = ex.n * nk;
	long jobs = info->jobs < npairs ? info->jobs : npairs;
	if (jobs < 1)
		jobs = 1;
	if (jobs > 1024)
		jobs = 1024;
	fprintf(stderr,
		"%s: explore: %d program%s (%d saved, %d found) x %d kernel%s, at most %s "
		"schedules each, oracles %s, %ld at a time\n",
		who, ex.n, plural(ex.n, "", "s"), ex.nsaved, ex.n - ex.nsaved, nk,
		plural(nk, "", "s"), commas(ex.max), oracles_str(oracles, err, sizeof(err)), jobs);

	FILE *rec[1024];
	pid_t pid[1024];
	double t0 = now(), last = t0;
	for (long w = 0; w < jobs; w++) {
		fflush(stdout);
		fflush(stderr);
		rec[w] = tmpfile();
		pid[w] = rec[w] ? fork() : -1;
		if (pid[w] < 0) {
			fprintf(stderr, "%s: explore: cannot start a worker: %s\n", who,
				strerror(errno));
			stop_workers(pid, w);
			return false;
		}
		if (pid[w])
			continue;
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		for (int i = (int)w; i < npairs; i += (int)jobs) {
			struct erec r = {.prog = i / nk, .kern = i % nk};
			explore_bound(&ex.v[r.prog].p, ex.kern[r.kern], oracles, ex.max, &r.b);
			if (fwrite(&r, sizeof(r), 1, rec[w]) != 1 || fflush(rec[w]))
				_exit(1);
		}
		_exit(0);
	}
	int running = (int)jobs, failed = 0;
	while (running > 0) {
		int st;
		pid_t got = waitpid(-1, &st, WNOHANG);
		for (long w = 0; got > 0 && w < jobs; w++)
			if (pid[w] == got) {
				pid[w] = 0;
				running--;
				if (!WIFEXITED(st) || WEXITSTATUS(st)) {
					fprintf(stderr, "%s: explore: worker %ld failed (%s %d)\n",
						who, w + 1, WIFEXITED(st) ? "exit" : "signal",
						WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
					failed = 1;
				}
			}
		if (got > 0)
			continue;
		long long done = 0;
		for (long w = 0; w < jobs; w++) {
			struct stat sb;
			done += fstat(fileno(rec[w]), &sb)
				    ? 0
				    : sb.st_size / (long long)sizeof(struct erec);
		}
		if (fuzz_interrupted()) {
			stop_workers(pid, jobs);
			fprintf(stderr, "%s: explore: interrupted after %lld of %d searches\n", who,
				done, npairs);
			return false;
		}
		if (now() - last >= 10) {
			last = now();
			fprintf(stderr, "%s: explore: %lld of %d searches done, %.0f s\n", who,
				done, npairs, last - t0);
		}
		nanosleep(&(struct timespec){0, 100000000}, NULL);
	}

	struct erec *res = calloc((size_t)npairs + 1, sizeof(*res));
	bool *have = calloc((size_t)npairs + 1, sizeof(*have));
	if (!res || !have)
		abort();
	for (long w = 0; w < jobs; w++) {
		struct erec r;
		rewind(rec[w]);
		while (fread(&r, sizeof(r), 1, rec[w]) == 1)
			if (r.prog >= 0 && r.prog < ex.n && r.kern >= 0 && r.kern < nk)
				res[r.prog * nk + r.kern] = r, have[r.prog * nk + r.kern] = true;
		fclose(rec[w]);
	}
	int missing = 0;
	for (int i = 0; i < npairs; i++)
		missing += !have[i];
	if (missing) {
		fprintf(stderr, "%s: explore: %d of %d searches gave no result\n", who, missing,
			npairs);
		failed = 1;
	}

	/* the cells, and every search in OUT/explore.txt */
	const struct erec **col = calloc((size_t)ex.n + 1, sizeof(*col));
	char path[FUZZ_PATH + 32];
	snprintf(path, sizeof(path), "%s/explore.txt", info->out);
	FILE *log = fopen(path, "w");
	if (!col)
		abort();
	if (!log)
		fprintf(stderr, "%s: %s: cannot write: %s\n", who, path, strerror(errno));
	for (int ki = 0; ki < nk; ki++) {
		int n = 0;
		for (int pi = 0; pi < ex.n; pi++)
			if (have[pi * nk + ki])
				col[n++] = &res[pi * nk + ki];
		kernel_cell(col, n, ex.cell[ki]);
		if (missing)
			snprintf(ex.cell[ki] + strlen(ex.cell[ki]), FUZZ_PATH - strlen(ex.cell[ki]),
				 " (error: %d searches missing)", missing);
	}
	if (log) {
		fprintf(log,
			"# snafu %s's explore column: every program on every kernel, at most %lld "
			"schedules each, oracles %s\n",
			who, ex.max, oracles_str(oracles, err, sizeof(err)));
		for (int pi = 0; pi < ex.n; pi++)
			if (ex.v[pi].also[0])
				fprintf(log, "# %s: also %s\n", ex.v[pi].name, ex.v[pi].also);
		for (int pi = 0; pi < ex.n; pi++)
			for (int ki = 0; ki < nk; ki++) {
				const struct explore_bound *b = &res[pi * nk + ki].b;
				if (!have[pi * nk + ki])
					continue;
				fprintf(log, "%s [%s]: %s", ex.v[pi].name, ex.kern[ki]->name,
					b->verdict);
				if (b->found)
					fprintf(log, " with %d %s", b->npreempts,
						plural(b->npreempts, "preemption", "preemptions"));
				fprintf(log, ", %lld %s", b->traces,
					plural(b->traces, "trace", "traces"));
				if (b->unbounded)
					fprintf(log, ", unbounded\n");
				else
					fprintf(log, ", to %d %s%s\n", b->K,
						plural(b->K, "preemption", "preemptions"),
						b->cut && !b->found ? ", cut" : "");
			}
		if (fclose(log))
			fprintf(stderr, "%s: %s: cannot write: %s\n", who, path, strerror(errno));
	}
	fprintf(stderr, "%s: explore: %d searches, %.1f s; each in %s\n", who, npairs, now() - t0,
		path);
	free(col);
	free(res);
	free(have);
	return !failed;
}

/* ---- the table ---- */

/* A row: the kernel, then per oracle (each run alone, --oracles=NAME) its first finding
 * and the executions it took, or "none in N" (over the seeds with --seeds); a lockdep
 * prediction says whether snafu confirm turned it into a deadlock; then the kernel's
 * explore cell. */
static void row(const struct fuzz_job *j, int n, char c[FUZZ_CELLS][FUZZ_PATH],
		bool code[FUZZ_CELLS])
{
	int col = 1;

	snprintf(c[0], FUZZ_PATH, "%s", j->k->name);
	code[0] = true;
	for (int i = 0; i < n && col < FUZZ_CELLS; col++) {
		int seeds = j[i].seeds > 0 ? j[i].seeds : 1;
		if (seeds == 1)
			one_seed(&j[i], c[col]);
		else
			seeds_cell(&j[i], seeds, c[col]);
		code[col] = false;
		i += seeds;
	}
	if (!ex.off && col < FUZZ_CELLS) {
		snprintf(c[col], FUZZ_PATH, "-");
		for (int k = 0; k < ex.nk; k++)
			if (ex.kern[k] == j->k)
				snprintf(c[col], FUZZ_PATH, "%s", ex.cell[k]);
		code[col] = false;
	}
}

static const struct fuzz_plan plan = {
    .head = {"kernel"}, /* then the oracles' names, then "explore" */
    .right = -1,
    .row = row,
    .name = "evaluate",
    .opts = FUZZ_KERNEL | FUZZ_RUNS | FUZZ_JOBS | FUZZ_OPS | FUZZ_SEED | FUZZ_SEEDS | FUZZ_OUT |
	    FUZZ_MARKDOWN | FUZZ_KEEP_GOING | FUZZ_ORACLES | FUZZ_SEARCH,
    .runs = 1000000,
    .seed = 1,
    .ops = "all",
    .all_kernels = true,
    .fresh = true,
    .cases_in_out = true,
    .per_oracle = true,
    .out_name = "evaluate",
    .option = option,
    .option_shown = option_shown,
    .option_line = option_line,
    .before = before,
    .after = after,
    .tail = tail,
};

static int cmd_evaluate(int argc, char **argv)
{
#ifdef SNAFU_NATIVE
	/* the findings' replays and the explore column run the simulator's schedules:
	 * snafu's work, not snafu-native's */
	(void)argc, (void)argv, (void)plan;
	return cli_to_simulator("evaluate");
#else
	/* --explore: schedules searched, not sampled (search/explore.c) */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--explore") || !strncmp(argv[i], "--explore=", 10))
			return explore_evaluate(argc, argv);
	return fuzz_drive(&plan, argc, argv).errors ? 1 : 0;
#endif
}

const struct cli_command evaluate_command = {"evaluate", cmd_evaluate, false, evaluate_value_opts,
					     evaluate_help};
