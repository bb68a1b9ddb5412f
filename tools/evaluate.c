/* snafu evaluate: "does my fix hold?" for every kernel at once.
 *
 * Every kernel in kernels[] gets the same budget, counted in executions (never in time,
 * so the table does not depend on the machine): one futex_mm_fuzzer process each, with
 * the same seed and a fresh copy of the seed corpus, up to J of them at a time. Then each
 * finding is minimized into a case with an expect line for every kernel, and one table
 * says, per kernel: the verdict, the executions to the first finding, its signature and
 * the case.
 *
 *   OUT/KERNEL/seeds/     a copy of corpus/futex_mm_fuzzer/
 *   OUT/KERNEL/seeds.txt  its files in name order, for -seed_inputs=@OUT/KERNEL/seeds.txt
 *   OUT/KERNEL/corpus/    what the fuzzer added (starts empty)
 *   OUT/KERNEL/fuzz.log   everything the fuzzer printed
 *   OUT/KERNEL/crash-...  libFuzzer's artifact, on a finding
 *   OUT/KERNEL.case       the minimized case
 *
 * OUT defaults to <the directory above snafu's>/evaluate, build/evaluate for
 * build/bin/snafu, wherever snafu is run from.
 *
 * The same seed gives the same table, byte for byte, on any machine, loaded or not
 * (tests/test_evaluate.sh, tests/test_evaluate_parallel.sh). What had to go for that,
 * each measured (issue 10):
 *  - the order of the seeds. libFuzzer shuffles them with its seeded RNG, then sorts them
 *    by size, stably: files of equal size (three seeds have 26 bytes, two 34) keep the
 *    order the directory listing gave, and that is the file system's (hash order on
 *    ext4, creation order on tmpfs). With the seeds in OUT/KERNEL/corpus, --out on ext4
 *    and on tmpfs gave different tables for seed 1 at --runs=20000 (2.6.11: a finding
 *    after 6605 executions on ext4, after 90 on tmpfs). So the corpus directory starts
 *    empty and the seeds come in a list in strcmp() order (-seed_inputs=@FILE).
 *  - libFuzzer's -reload (default: every 1 s of wall time) re-reads the corpus
 *    directory and runs every file in it that is not in its in-memory corpus (a seed
 *    that added no coverage, or one replaced by a smaller input): each such run counts
 *    toward -runs and feeds Entropic's feature frequencies, at a point in the stream
 *    that depends on the machine's speed. The fuzzer defaults to -reload=0 (see
 *    fuzz/futex_mm_fuzzer.c); it is passed here too, so that the table never depends on
 *    a default. (With the seeds out of the corpus directory nothing there would be
 *    re-run anyway.)
 * Not time-dependent, checked: -timeout (1200 s a unit; the model is bounded in steps),
 * -rss_limit_mb and its allocator purge every second above half of it (RSS stays near
 * 400 MB, and a purge every second changed nothing), address randomization (turned off
 * below all the same), the model's clock (virtual) and the mutator (seeded by libFuzzer).
 *
 * Exit status: 0 when every fuzzer ran (findings are the expected output, not failures),
 * 1 when a fuzzer failed without leaving an artifact, 2 on bad usage. Wall time is read
 * only to report it.
 */
#include "evaluate.h"

#include "../prog/exec.h"
#include "../ref/kernels.h"
#include "casefile.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PATH_LEN 4096

struct job {
	const struct kernel_config *k;
	char dir[PATH_LEN]; /* OUT/KERNEL */
	pid_t pid;
	double start, secs;
	const char *verdict; /* "finding", "none" or "error" */
	long long execs;     /* -1: unknown */
	char sig[256];       /* the first DEDUP_TOKEN, or what went wrong */
	char artifact[PATH_LEN];
	char casefile[PATH_LEN]; /* empty: none */
	int nseeds;              /* in OUT/KERNEL/seeds.txt */
};

struct opts {
	long long runs;
	long jobs;
	const char *ops;
	unsigned long long seed;
	char out[PATH_LEN];
	bool markdown;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* snprintf for paths: a path that does not fit is an error, never silently cut. */
__attribute__((format(printf, 3, 4))) static void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "snafu evaluate: %s...: expected a path under %zu bytes\n", buf,
			len);
		exit(2);
	}
}

/* A decimal number in lo..hi, digits only; false otherwise. */
static bool parse_num(const char *s, unsigned long long lo, unsigned long long hi,
		      unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno && *v >= lo && *v <= hi;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	unsigned long long v;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	*o = (struct opts){.runs = 1000000, .jobs = cpus > 0 ? cpus : 1, .ops = "all", .seed = 1};
	o->out[0] = 0; /* default: set by cmd_evaluate, next to snafu's own directory */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--runs=", 7)) {
			if (!parse_num(a + 7, 1, 1000000000000ull, &v))
				die_usage("--runs=N with N in 1..1000000000000", a, i + 1);
			o->runs = (long long)v;
		} else if (!strncmp(a, "--jobs=", 7)) {
			if (!parse_num(a + 7, 1, 1024, &v))
				die_usage("--jobs=J with J in 1..1024", a, i + 1);
			o->jobs = (long)v;
		} else if (!strncmp(a, "--seed=", 7)) {
			/* libFuzzer takes -seed=0 for "pick one": not reproducible */
			if (!parse_num(a + 7, 1, 4294967295ull, &v))
				die_usage("--seed=S with S in 1..4294967295", a, i + 1);
			o->seed = v;
		} else if (!strncmp(a, "--ops=", 6)) {
			if (strcmp(a + 6, "futex") && strcmp(a + 6, "all"))
				die_usage("--ops=futex or --ops=all", a, i + 1);
			o->ops = a + 6;
		} else if (!strncmp(a, "--out=", 6)) {
			size_t n = strlen(a + 6);
			while (n > 1 && a[6 + n - 1] == '/')
				n--;
			/* a ',' would split OUT/KERNEL/seeds/NAME in -seed_inputs */
			if (!n || n >= sizeof(o->out) - 256 || memchr(a + 6, ',', n))
				die_usage("--out=DIR with a directory name (no ',')", a, i + 1);
			pathf(o->out, sizeof(o->out), "%.*s", (int)n, a + 6);
		} else if (!strcmp(a, "--markdown")) {
			o->markdown = true;
		} else {
			die_usage("--runs=N, --jobs=J, --ops=futex|all, --seed=S, --out=DIR or "
				  "--markdown",
				  a, i + 1);
		}
	}
}

/* PATH relative to the working directory when it lies under it, for printing. */
static const char *shown(const char *path)
{
	static char cwd[PATH_LEN];
	size_t n;

	if (!cwd[0] && !getcwd(cwd, sizeof(cwd)))
		return path;
	n = strlen(cwd);
	if (!strncmp(path, cwd, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int mkdir_p(const char *path)
{
	char buf[PATH_LEN];

	pathf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -1;
	return is_dir(buf) ? 0 : (errno = ENOTDIR, -1);
}

/* Remove what DIR holds (not DIR itself); symlinks are removed, never followed. */
static int empty_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_LEN];
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		pathf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			rc = -1;
		else if (S_ISDIR(st.st_mode)) {
			if (depth > 4 || empty_dir(path, depth + 1) || rmdir(path))
				rc = -1;
		} else if (unlink(path))
			rc = -1;
	}
	closedir(d);
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536];
	size_t n;
	int rc = 0;

	if (!in)
		return -1;
	out = fopen(to, "wb");
	if (!out) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (ferror(in))
		rc = -1;
	fclose(in);
	if (fclose(out))
		rc = -1;
	return rc;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name); /* bytes, not the locale's collation */
}

/* Copy the plain files of SEEDS into DIR (the repository is never written) and write
 * their paths to LIST, in strcmp() order, comma-separated for libFuzzer's
 * -seed_inputs=@LIST. Sets *n to the number of seeds. */
static int copy_seeds(const char *seeds, const char *dir, const char *list, int *n)
{
	struct dirent **names;
	char from[PATH_LEN], to[PATH_LEN];
	int count = scandir(seeds, &names, NULL, by_name), rc = 0;
	FILE *f;

	*n = 0;
	if (count < 0)
		return -1;
	f = fopen(list, "w");
	if (!f)
		rc = -1;
	for (int i = 0; i < count; i++) {
		struct stat st;
		const char *name = names[i]->d_name;
		pathf(from, sizeof(from), "%s/%s", seeds, name);
		pathf(to, sizeof(to), "%s/%s", dir, name);
		if (name[0] == '.' || stat(from, &st) || !S_ISREG(st.st_mode)) {
			free(names[i]);
			continue;
		}
		if (strchr(name, ',')) {
			fprintf(stderr,
				"snafu evaluate: %s: expected a seed name without ',' (libFuzzer's "
				"-seed_inputs splits at it); not used\n",
				from);
		} else if (copy_file(from, to) || !f || fprintf(f, "%s%s", *n ? "," : "", to) < 0) {
			rc = -1;
		} else {
			++*n;
		}
		free(names[i]);
	}
	free(names);
	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* OUT/KERNEL emptied, with an empty corpus and a fresh copy of the seeds;
 * OUT/KERNEL.case removed. */
static void prepare(const struct opts *o, const char *seeds, struct job *j)
{
	char path[PATH_LEN], copy[PATH_LEN], list[PATH_LEN];

	pathf(j->dir, sizeof(j->dir), "%s/%s", o->out, j->k->name);
	pathf(path, sizeof(path), "%s/corpus", j->dir);
	pathf(copy, sizeof(copy), "%s/seeds", j->dir);
	pathf(list, sizeof(list), "%s/seeds.txt", j->dir);
	if (mkdir_p(j->dir) || empty_dir(j->dir, 0) || mkdir_p(path) || mkdir_p(copy) ||
	    copy_seeds(seeds, copy, list, &j->nseeds)) {
		fprintf(stderr, "snafu evaluate: %s: cannot prepare: %s\n", j->dir,
			strerror(errno));
		exit(2);
	}
	pathf(path, sizeof(path), "%s.case", j->dir);
	unlink(path);
}

#define FUZZER_ARGS 11

/* The fuzzer's command line for job j; the strings live in bufs. -reload=0: see the top
 * of this file (the fuzzer's default too, passed all the same); the seeds in name order
 * through -seed_inputs, the corpus directory empty (ditto). */
static void fuzzer_argv(const struct opts *o, const char *fuzzer, const struct job *j,
			char bufs[7][PATH_LEN], char *argv[FUZZER_ARGS])
{
	int n = 0;

	pathf(bufs[0], PATH_LEN, "--kernel=%s", j->k->name);
	pathf(bufs[1], PATH_LEN, "--ops=%s", o->ops);
	pathf(bufs[2], PATH_LEN, "-runs=%lld", o->runs);
	pathf(bufs[3], PATH_LEN, "-seed=%llu", o->seed);
	pathf(bufs[4], PATH_LEN, "-artifact_prefix=%s/", j->dir);
	pathf(bufs[5], PATH_LEN, "-seed_inputs=@%s/seeds.txt", j->dir);
	pathf(bufs[6], PATH_LEN, "%s/corpus", j->dir);
	argv[n++] = (char *)fuzzer;
	argv[n++] = bufs[0];
	argv[n++] = bufs[1];
	argv[n++] = bufs[2];
	argv[n++] = bufs[3];
	argv[n++] = "-reload=0";
	argv[n++] = "-print_final_stats=1";
	argv[n++] = bufs[4];
	if (j->nseeds > 0) /* libFuzzer exits on an empty list */
		argv[n++] = bufs[5];
	argv[n++] = bufs[6];
	argv[n] = NULL;
}

static void start(const struct opts *o, const char *fuzzer, struct job *j)
{
	char bufs[7][PATH_LEN], *argv[FUZZER_ARGS], log[PATH_LEN];

	fuzzer_argv(o, fuzzer, j, bufs, argv);
	pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
	fflush(stdout);
	fflush(stderr);
	j->start = now();
	j->pid = fork();
	if (j->pid < 0) {
		fprintf(stderr, "snafu evaluate: cannot fork: %s\n", strerror(errno));
		exit(1);
	}
	if (j->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int null = open("/dev/null", O_RDONLY);
		if (fd < 0 || null < 0)
			_exit(127);
		dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
		close(null);
		execv(fuzzer, argv);
		dprintf(2, "snafu evaluate: %s: cannot run: %s\n", fuzzer, strerror(errno));
		_exit(127);
	}
}

/* From the log: the first DEDUP_TOKEN and the last executed-units count. */
static void read_log(struct job *j)
{
	char path[PATH_LEN];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	pathf(path, sizeof(path), "%s/fuzz.log", j->dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\r\n")] = 0;
		if (!j->sig[0] && !strncmp(line, "DEDUP_TOKEN: ", 13))
			snprintf(j->sig, sizeof(j->sig), "%s", line + 13);
		else if (!strncmp(line, "stat::number_of_executed_units:", 31))
			j->execs = strtoll(line + 31, NULL, 10);
	}
	free(line);
	fclose(f);
}

/* libFuzzer's artifact in OUT/KERNEL, if any: crash-, timeout-, oom- or leak-. */
static bool find_artifact(struct job *j)
{
	static const char *const kinds[] = {"crash-", "timeout-", "oom-", "leak-"};
	DIR *d = opendir(j->dir);
	struct dirent *e;
	char best[256] = "";

	if (!d)
		return false;
	while ((e = readdir(d)))
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strncmp(e->d_name, kinds[i], strlen(kinds[i])) &&
			    (!best[0] || strcmp(e->d_name, best) < 0))
				snprintf(best, sizeof(best), "%s", e->d_name);
	closedir(d);
	if (best[0])
		pathf(j->artifact, sizeof(j->artifact), "%s/%s", j->dir, best);
	return best[0] != 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 4096;
			if (cap > (64u << 20) || !(buf = realloc(buf, cap)))
				abort();
		}
		size_t got = fread(buf + *len, 1, cap - *len, f);
		*len += got;
		if (!got)
			break;
	}
	fclose(f);
	return buf;
}

/* Minimize the crash artifact into OUT/KERNEL.case, in a child process: a finding that
 * is a bug of the model itself (an ASan report) must not take the table with it. */
static void minimize(struct job *j)
{
	char out[PATH_LEN];
	int status;

	pathf(out, sizeof(out), "%s.case", j->dir);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "snafu evaluate: cannot fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		static struct program p;
		struct run_opts quiet = {0};
		struct run_result r;
		size_t len;
		uint8_t *data = slurp(j->artifact, &len);
		if (!data)
			_exit(4);
		prog_decode(data, len, &p);
		free(data);
		prog_run(&p, j->k, &quiet, &r);
		if (r.result == SIM_OK)
			_exit(3);
		if (strcmp(r.verdict, j->sig))
			fprintf(stderr, "snafu evaluate: %s: replays as %s; the fuzzer said %s\n",
				j->artifact, r.verdict, j->sig);
		char verdict[sizeof(r.verdict)];
		snprintf(verdict, sizeof(verdict), "%s", r.verdict);
		int rc =
		    case_write_minimized(&p, j->k, verdict, j->artifact, "snafu evaluate", out);
		fflush(stderr);
		_exit(rc);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		pathf(j->casefile, sizeof(j->casefile), "%s", out);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		fprintf(stderr, "snafu evaluate: %s: runs to the end in snafu; not minimized\n",
			j->artifact);
	else
		fprintf(stderr, "snafu evaluate: %s: minimizing failed (%s %d); not minimized\n",
			j->artifact, WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* A fuzzer has ended with STATUS: its verdict, and the case for a finding. */
static void finish(const struct opts *o, struct job *j, int status)
{
	j->secs = now() - j->start;
	j->execs = -1;
	read_log(j);
	if (find_artifact(j)) {
		j->verdict = "finding";
		const char *base = strrchr(j->artifact, '/') + 1;
		if (!j->sig[0])
			snprintf(j->sig, sizeof(j->sig), "libfuzzer-%.*s", (int)strcspn(base, "-"),
				 base);
		if (!strncmp(base, "crash-", 6))
			minimize(j);
		char n[32] = "?";
		if (j->execs >= 0)
			snprintf(n, sizeof(n), "%lld", j->execs);
		fprintf(stderr, "evaluate: %s: finding after %s executions, %.1f s: %s%s%s\n",
			j->k->name, n, j->secs, j->sig, j->casefile[0] ? " -> " : "", j->casefile);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		j->verdict = "none";
		if (j->execs < 0)
			j->execs = o->runs;
		fprintf(stderr, "evaluate: %s: no finding in %lld executions, %.1f s\n", j->k->name,
			j->execs, j->secs);
	} else {
		j->verdict = "error";
		snprintf(j->sig, sizeof(j->sig), "fuzzer %s %d, no artifact",
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		fprintf(stderr, "snafu evaluate: %s: %s; see %s/fuzz.log\n", j->k->name, j->sig,
			j->dir);
	}
}

/* A markdown cell: '|' escaped. */
static void md_cell(const char *s, bool code)
{
	fputs(code ? " `" : " ", stdout);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', stdout);
		fputc(*s, stdout);
	}
	fputs(code ? "` |" : " |", stdout);
}

static void print_table(const struct opts *o, struct job *jobs, int n)
{
	static const char *const head[5] = {"kernel", "verdict", "executions to first finding",
					    "signature", "minimized case"};
	char cells[5][PATH_LEN];
	int w[5] = {0};

	for (int c = 0; c < 5; c++)
		w[c] = (int)strlen(head[c]);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && o->markdown)
			printf("| kernel | verdict | executions to first finding | signature | "
			       "minimized case |\n|---|---|--:|---|---|\n");
		else if (pass == 1)
			printf("%-*s  %-*s  %*s  %-*s  %s\n", w[0], head[0], w[1], head[1], w[2],
			       head[2], w[3], head[3], head[4]);
		for (int i = 0; i < n; i++) {
			struct job *j = &jobs[i];
			bool found = !strcmp(j->verdict, "finding");
			snprintf(cells[0], PATH_LEN, "%s", j->k->name);
			snprintf(cells[1], PATH_LEN, "%s", j->verdict);
			if (j->execs >= 0)
				snprintf(cells[2], PATH_LEN, "%lld", j->execs);
			else
				snprintf(cells[2], PATH_LEN, "?");
			snprintf(cells[3], PATH_LEN, "%s", j->sig[0] ? j->sig : "-");
			snprintf(cells[4], PATH_LEN, "%s", j->casefile[0] ? j->casefile : "-");
			if (pass == 0) {
				for (int c = 0; c < 5; c++)
					if ((int)strlen(cells[c]) > w[c])
						w[c] = (int)strlen(cells[c]);
			} else if (o->markdown) {
				fputc('|', stdout);
				md_cell(cells[0], true);
				md_cell(cells[1], false);
				md_cell(cells[2], false);
				md_cell(cells[3], found && j->sig[0]);
				md_cell(cells[4], j->casefile[0]);
				fputc('\n', stdout);
			} else {
				printf("%-*s  %-*s  %*s  %-*s  %s\n", w[0], cells[0], w[1],
				       cells[1], w[2], cells[2], w[3], cells[3], cells[4]);
			}
		}
	}
}

int cmd_evaluate(int argc, char **argv)
{
	struct opts o;
	char dir[PATH_LEN], fuzzer[PATH_LEN], seeds[PATH_LEN] = "";

	parse_opts(argc, argv, &o);
	if (!cli_exe_dir(dir, sizeof(dir))) {
		fprintf(stderr, "snafu evaluate: cannot find snafu's own executable: %s\n",
			strerror(errno));
		return 2;
	}
	if (!o.out[0]) {
		/* next to snafu's directory, not under the working directory: build/evaluate
		 * for build/bin/snafu, wherever it is run from (dir is /proc/self/exe's,
		 * without symbolic links) */
		const char *slash = strrchr(dir, '/');
		int up = slash && slash > dir ? (int)(slash - dir) : 0;
		pathf(o.out, sizeof(o.out), "%.*s/evaluate", up, dir);
		if (strchr(o.out, ',')) {
			fprintf(stderr,
				"snafu evaluate: %s: expected a directory without ',' (give "
				"--out=DIR)\n",
				o.out);
			return 2;
		}
	}
	pathf(fuzzer, sizeof(fuzzer), "%s/futex_mm_fuzzer", dir);
	if (access(fuzzer, X_OK)) {
		fprintf(stderr,
			"snafu evaluate: %s: expected the fuzzer next to snafu (clang builds it: "
			"./build.sh)\n",
			fuzzer);
		return 2;
	}
	/* the seed corpus: in the source tree this snafu was built from, else two levels
	 * up from bin/ (a build directory in the source tree, moved along with it) */
	const char *candidates[2] = {
#ifdef SNAFU_SOURCE_DIR
	    SNAFU_SOURCE_DIR "/corpus/futex_mm_fuzzer",
#else
	    NULL,
#endif
	    NULL};
	char rel[PATH_LEN];
	pathf(rel, sizeof(rel), "%s/../../corpus/futex_mm_fuzzer", dir);
	candidates[1] = rel;
	for (int i = 0; i < 2 && !seeds[0]; i++)
		if (candidates[i] && is_dir(candidates[i]) &&
		    realpath(candidates[i], seeds) == NULL)
			seeds[0] = 0;
	if (!seeds[0]) {
		fprintf(stderr, "snafu evaluate: %s: expected the seed corpus there\n",
			candidates[0] ? candidates[0] : rel);
		return 2;
	}
	if (mkdir_p(o.out)) {
		fprintf(stderr, "snafu evaluate: %s: cannot create: %s\n", o.out, strerror(errno));
		return 2;
	}
	for (int i = 0; i < nkernels; i++)
		if (strchr(kernels[i].name, '/') || kernels[i].name[0] == '.') {
			fprintf(stderr,
				"snafu evaluate: kernel '%s': expected a name without '/'\n",
				kernels[i].name);
			return 2;
		}

	struct job *jobs = calloc(nkernels > 0 ? (size_t)nkernels : 1, sizeof(*jobs));
	if (!jobs)
		abort();
	for (int i = 0; i < nkernels; i++) {
		jobs[i].k = &kernels[i];
		prepare(&o, seeds, &jobs[i]);
	}

	char cmd[2 * PATH_LEN];
	pathf(cmd, sizeof(cmd),
	      "%s/snafu evaluate --runs=%lld --jobs=%ld --ops=%s --seed=%llu --out=%s%s",
	      shown(dir), o.runs, o.jobs, o.ops, o.seed, o.out, o.markdown ? " --markdown" : "");
	fprintf(stderr, "evaluate: %d kernels, %lld executions each, seed %llu, %ld at a time\n",
		nkernels, o.runs, o.seed, o.jobs);
	{
		char bufs[7][PATH_LEN], *fa[FUZZER_ARGS];
		struct job eg = {.k = &(struct kernel_config){.name = "KERNEL"},
				 .nseeds = jobs[0].nseeds};
		pathf(eg.dir, sizeof(eg.dir), "%s/KERNEL", o.out);
		fuzzer_argv(&o, shown(fuzzer), &eg, bufs, fa);
		fprintf(stderr, "evaluate: each runs");
		for (int a = 0; fa[a]; a++)
			fprintf(stderr, " %s", fa[a]);
		fprintf(stderr, " (seeds copied from %s, %d of them)\n", shown(seeds), eg.nseeds);
	}

	/* libFuzzer's CMP dictionary picks up values that hold addresses; with address
	 * randomization they differ from run to run, and so would the executions to a
	 * finding. Fixed addresses for the fuzzers (set here, inherited through exec): the
	 * same seed gives the same table. */
	int pers = personality(0xffffffff);
	if (pers == -1 || personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1)
		fprintf(stderr,
			"evaluate: cannot turn off address randomization (%s): executions to a "
			"finding may differ from run to run\n",
			strerror(errno));

	double t0 = now();
	int next = 0, running = 0, failed = 0;
	while (next < nkernels || running > 0) {
		while (next < nkernels && running < o.jobs) {
			start(&o, fuzzer, &jobs[next++]);
			running++;
		}
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "snafu evaluate: waitpid: %s\n", strerror(errno));
			return 1;
		}
		for (int i = 0; i < next; i++)
			if (jobs[i].pid == pid) {
				jobs[i].pid = 0;
				running--;
				finish(&o, &jobs[i], status);
				failed += !strcmp(jobs[i].verdict, "error");
			}
	}
	double wall = now() - t0;

	print_table(&o, jobs, nkernels);
	printf("\n");
	if (o.markdown)
		printf("Command: `%s`; wall time %.1f s.\n", cmd, wall);
	else
		printf("command: %s\nwall time: %.1f s\n", cmd, wall);
	free(jobs);
	return failed ? 1 : 0;
}
