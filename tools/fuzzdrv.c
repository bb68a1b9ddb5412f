/* The fuzz driver (see fuzzdrv.h): one loop for `snafu fuzz`, `snafu evaluate`,
 * fuzz/run.sh and ci/fuzz.sh.
 *
 * For each kernel, one futex_mm_fuzzer process (up to --jobs at a time), or with --fork
 * one in libFuzzer's fork mode with --jobs workers (one kernel at a time). The budget is
 * counted in executions (--runs, the same on any machine) or in time (--seconds); with
 * neither, a single process runs until its first finding. Everything lands in OUT:
 *
 *   OUT/KERNEL/seeds/     a copy of corpus/futex_mm_fuzzer/ (the repository is never
 *                         written, but by --merge)
 *   OUT/KERNEL/seeds.txt  its files in name order, for -seed_inputs=@OUT/KERNEL/seeds.txt
 *   OUT/KERNEL/corpus/    what the fuzzer added: kept from run to run, unless --fresh
 *   OUT/KERNEL/fuzz.log   everything the fuzzer printed
 *   OUT/KERNEL/crash-...  libFuzzer's artifacts (crash-, timeout-, oom-, leak-; finding-
 *                         with --keep-going)
 *   OUT/KERNEL/progress   the executions so far (the fuzzer's --progress=FILE)
 *
 * OUT defaults to <the directory above snafu's>/NAME: build/fuzz for build/bin/snafu
 * (build/evaluate for `snafu evaluate`), wherever snafu is run from; .gitignore covers
 * build*. Every run starts with OUT/KERNEL emptied but for its corpus.
 *
 * With a budget and --known or --keep-going, the fuzzer goes on past its findings
 * (futex_mm_fuzzer --keep-going=OUT/KERNEL/: finding-HASH files, one per signature, and a
 * "finding after N executions" line each in the log): see keeps_going().
 *
 * Then every artifact is sorted by its signature: by replaying it (`snafu replay --quiet
 * --input=bytes`, one process for them all), and for what snafu does not replay to a
 * finding, by what the fuzzer binary says of it (its DEDUP_TOKEN line, else its
 * sanitizer's SUMMARY line, else "unreproducible"); timeout-, oom- and leak- files are
 * libfuzzer-timeout and the like. Never from the log alone: in fork mode a crashing child
 * ends its job, the parent prints only the children's "ERROR:" lines and starts another,
 * and each crash leaves crash-SHA1 under -artifact_prefix; the parent's log has no
 * DEDUP_TOKEN lines. The fuzzer prints a DEDUP_TOKEN for its ASan and UBSan reports too
 * (fuzz/fuzz_support.c: asan-heap-use-after-free--futex_wake--sys_futex and the like), so
 * they sort the same way; such a report is a bug in the model's code, not a finding to
 * minimize: saved with the fuzzer's report. A signature that --known lists for the
 * kernel is known; any other is new: the smallest input with it is minimized (`snafu
 * minimize`) into FOUND/KERNEL/SIGNATURE.case, its report beside it (.report, `snafu
 * replay`), the raw input too (.input). A new lockdep prediction (lockdep--...) then
 * goes to `snafu confirm` (tools/confirm.c), which looks for a schedule that deadlocks
 * and writes it to FOUND/KERNEL/SIGNATURE.confirmed.case: the table says "predicted and
 * confirmed" or "predicted only". One table closes the run.
 *
 * With --merge, the inputs that add coverage are then merged into the seed corpus
 * (--merge-into=DIR): `-merge=1` into a temporary copy of it (the checked-in seeds stay,
 * by name), kernel by kernel, then only the new files (named by their SHA-1) are copied
 * in, and only those that give no finding on any kernel (the seed corpus holds
 * programs, not reproducers: the fuzzer must find the interleaving itself). The merge
 * counts edges only (-use_counters=0), so the checked-in corpus grows by the inputs that
 * reach new code, not by every new hit count (a minute per kernel: about 100 files
 * instead of 700); the work corpora keep everything.
 *
 * libFuzzer's own flags (-NAME=VALUE) are checked before anything runs, as libFuzzer
 * only warns of a flag it does not know (in the log) and reads -runs=abc as 0: NAME must
 * be one that `futex_mm_fuzzer -help=1` lists, VALUE a whole number (a path or a string
 * for dict, seed_inputs, stop_file and the like); -artifact_prefix and
 * -exact_artifact_path are the driver's. Ctrl-C (SIGINT) or SIGTERM stops the fuzzers
 * (each in a process group of its own, fork-mode workers included) and says so: exit 130.
 *
 * The same seed gives the same run, byte for byte, on any machine, loaded or not
 * (tests/test_evaluate.sh, tests/test_evaluate_parallel.sh). What had to go for that,
 * each measured (issue 10):
 *  - the order of the seeds. libFuzzer shuffles them with its seeded RNG, then sorts them
 *    by size, stably: files of equal size (three seeds have 26 bytes, two 34) keep the
 *    order the directory listing gave, and that is the file system's (hash order on
 *    ext4, creation order on tmpfs). With the seeds in OUT/KERNEL/corpus, --out on ext4
 *    and on tmpfs gave different tables for seed 1 at --runs=20000 (2.6.11: a finding
 *    after 6605 executions on ext4, after 90 on tmpfs). So the seeds come in a list in
 *    strcmp() order (-seed_inputs=@FILE), and `snafu evaluate` starts from an empty
 *    corpus directory (--fresh). Fork mode ignores -seed_inputs (measured: "-fork=1: 0
 *    seed inputs"): there the copy of the seeds is the second corpus directory, and fork
 *    mode, its workers started by the clock, is not reproducible anyway.
 *  - libFuzzer's -reload (default: every 1 s of wall time) re-reads the corpus
 *    directory and runs every file in it that is not in its in-memory corpus (a seed
 *    that added no coverage, or one replaced by a smaller input): each such run counts
 *    toward -runs and feeds Entropic's feature frequencies, at a point in the stream
 *    that depends on the machine's speed. The fuzzer defaults to -reload=0 (see
 *    fuzz/futex_mm_fuzzer.c); it is passed here too, so that a run never depends on a
 *    default. (With the seeds out of the corpus directory nothing there would be re-run
 *    anyway.)
 *  - libFuzzer's per-input leak check (-detect_leaks=1) runs an input again when more
 *    mallocs than frees happened during it, in any thread: another thread's allocation
 *    at the wrong moment adds or saves one execution (measured: 1,652 instead of 1,653
 *    once in 20 loaded runs). The fuzzer defaults to -detect_leaks=0
 *    (fuzz/futex_mm_fuzzer.c).
 *  - the progress file: the fuzzer's report_progress() rewrites it when the clock's
 *    second changes, and with coverage counters in it, the input that ran then covered
 *    a new edge and was kept (measured: three identical runs at once found their first
 *    bug after 52,578, 52,578 and 8,163 executions). It has no counters now
 *    (tests/test_fuzz_reproducible.sh).
 *  - address randomization: libFuzzer's CMP dictionary picks up values that hold
 *    addresses, which then differ from run to run, and so would the executions to a
 *    finding. It is turned off for the fuzzers (personality, inherited through exec).
 * Not time-dependent, checked: -timeout (1200 s a unit; the model is bounded in steps),
 * -rss_limit_mb and its allocator purge every second above half of it (RSS stays near
 * 400 MB, and a purge every second changed nothing), the model's clock (virtual) and the
 * mutator (seeded by libFuzzer). Wall time is read only to report it, and for progress.
 */
#include "fuzzdrv.h"

#include "cli.h"
#include "confirm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PATH_LEN FUZZ_PATH

enum { WAITING, RUNNING, STOPPED, DONE }; /* struct fuzz_job's state */

struct known {
	char kernel[64], sig[256];
};

/* Everything about one run: the options, where things are, the kernels' jobs. */
struct fuzz_run {
	const struct fuzz_plan *p;
	const char *name;
	long long runs, seconds;
	long jobs;
	bool fork, fresh, merge, markdown;
	bool empty;      /* --empty: not even the seed corpus */
	bool keep_going; /* --keep-going (also on with --known): see keeps_going() */
	const char *ops;
	const char *oracles;         /* --oracles=LIST as given; NULL: the default set */
	const char *schedule, *icov; /* --schedule=, --interleaving-coverage=; NULL: the fuzzer's */
	long long joint;             /* --joint=N; 0: off */
	unsigned long long seed;
	int seed_count, seeds_argn;  /* --seeds=N (1 without), and where it was given */
	const char *kernel_args[64]; /* --kernel values; none: the plan's default */
	int nkernel_args;
	const char **lf; /* libFuzzer flags, as given, and their argument numbers */
	int *lf_argn, nlf;
	char out[PATH_LEN], found[PATH_LEN], known_file[PATH_LEN], merge_into[PATH_LEN];
	char fuzzer[PATH_LEN], exe[PATH_LEN], dir[PATH_LEN], seeds[PATH_LEN];
	bool fuzzer_given;
	struct known *known;
	int nknown;
	struct fuzz_job *job;
	int njobs;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

bool fuzz_interrupted(void)
{
	return interrupted != 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *cmd_name = "fuzz"; /* for the error lines of the helpers below */

/* snprintf for paths: a path that does not fit is an error, never silently cut. */
__attribute__((format(printf, 3, 4))) static void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		fprintf(stderr, "snafu %s: %s...: expected a path under %zu bytes\n", cmd_name, buf,
			len);
		exit(2);
	}
}

/* Append to the string in BUF (LEN bytes in all), cutting what does not fit. */
__attribute__((format(printf, 3, 4))) static void appendf(char *buf, size_t len, const char *fmt,
							  ...)
{
	size_t n = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
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

/* Remove what DIR holds (not DIR itself) but the entry KEEP (NULL: none); symlinks are
 * removed, never followed. */
static int empty_dir(const char *dir, const char *keep, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_LEN];
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (keep && !strcmp(e->d_name, keep)))
			continue;
		pathf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			rc = -1;
		else if (S_ISDIR(st.st_mode)) {
			if (depth > 4 || empty_dir(path, NULL, depth + 1) || rmdir(path))
				rc = -1;
		} else if (unlink(path))
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* FROM copied to TO through a temporary and a rename: TO is whole or as it was. */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[65536], tmp[PATH_LEN + 16];
	size_t n;
	int rc = 0;

	if (!in)
		return -1;
	pathf(tmp, sizeof(tmp), "%s.tmp", to);
	out = fopen(tmp, "wb");
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
	if (rc == 0 && rename(tmp, to))
		rc = -1;
	if (rc) {
		int e = errno;
		unlink(tmp);
		errno = e;
	}
	return rc;
}

/* A whole file, NUL-terminated; NULL when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, len = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 1 >= cap) {
			cap = cap ? cap * 2 : 4096;
			if (cap > (256u << 20) || !(buf = realloc(buf, cap)))
				abort();
		}
		size_t got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	buf[len] = 0;
	fclose(f);
	return buf;
}

/* The last N lines of a file (its whole text when shorter) to OUT. */
static void print_tail(FILE *out, const char *path, int n)
{
	char *text = slurp(path);
	size_t len = text ? strlen(text) : 0;

	if (!text)
		return;
	const char *p = text + len;
	if (p > text && p[-1] == '\n')
		p--;
	while (p > text && (p[-1] != '\n' || --n > 0))
		p--;
	fputs(p, out);
	free(text);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name); /* bytes, not the locale's collation */
}

/* The plain files of DIR in strcmp() order (scandir's list, NULL-free on error: *n = 0). */
static struct dirent **files_of(const char *dir, int *n)
{
	struct dirent **names;
	int count = scandir(dir, &names, NULL, by_name), m = 0;
	char path[PATH_LEN];

	*n = 0;
	if (count < 0)
		return NULL;
	for (int i = 0; i < count; i++) {
		struct stat st;
		pathf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
			free(names[i]);
		else
			names[m++] = names[i];
	}
	*n = m;
	return names;
}

static void free_names(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Copy the plain files of FROM into TO; with LIST, write their paths there, in strcmp()
 * order, comma-separated for libFuzzer's -seed_inputs=@LIST (a name with ',' is left
 * out, said so). Sets *n to the number copied. */
static int copy_files(const char *from, const char *to, const char *list, int *n)
{
	int count, rc = 0;
	struct dirent **names = files_of(from, &count);
	char src[PATH_LEN], dst[PATH_LEN];
	FILE *f = list ? fopen(list, "w") : NULL;

	*n = 0;
	if (!names || (list && !f))
		rc = -1;
	for (int i = 0; i < count; i++) {
		const char *name = names[i]->d_name;
		pathf(src, sizeof(src), "%s/%s", from, name);
		pathf(dst, sizeof(dst), "%s/%s", to, name);
		if (list && strchr(name, ','))
			fprintf(stderr,
				"snafu %s: %s: expected a seed name without ',' (libFuzzer's "
				"-seed_inputs splits at it); not used\n",
				cmd_name, src);
		else if (copy_file(src, dst) || (f && fprintf(f, "%s%s", *n ? "," : "", dst) < 0))
			rc = -1;
		else
			++*n;
	}
	free_names(names, count);
	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* ---- child processes ---- */

/* An argument vector built with printf formats. */
struct args {
	char **v;
	int n, cap;
};

__attribute__((format(printf, 2, 3))) static void arg(struct args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = realloc(a->v, (size_t)a->cap * sizeof(*a->v));
	}
	char *s = malloc((size_t)len + 1);
	if (len < 0 || !a->v || !s)
		abort();
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void args_free(struct args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct args){0};
}

/* Start ARGV with standard input from /dev/null, standard output to descriptor OUT and
 * standard error to ERR (-1: /dev/null); in a process group of its own with GROUP. */
static pid_t spawn(char *const argv[], int out, int err, bool group)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "snafu %s: cannot fork: %s\n", cmd_name, strerror(errno));
		exit(2);
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0)
			_exit(127);
		if (group)
			setpgid(0, 0);
		dup2(null, 0);
		dup2(out >= 0 ? out : null, 1);
		dup2(err >= 0 ? err : null, 2);
		execv(argv[0], argv);
		dprintf(2, "snafu %s: %s: cannot run: %s\n", cmd_name, argv[0], strerror(errno));
		_exit(127);
	}
	if (group)
		setpgid(pid, pid); /* as the child does: whichever comes first */
	return pid;
}

static int wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127 << 8;
	return status;
}

/* Run ARGV to its end, its output in PATH (and its errors, with ERRORS too): the wait
 * status. */
static int run_to(struct args *a, const char *path, bool errors)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", cmd_name, path,
			strerror(errno));
		args_free(a);
		return 127 << 8;
	}
	int status = wait_for(spawn(a->v, fd, errors ? fd : -1, false));
	close(fd);
	args_free(a);
	return status;
}

/* What ARGV prints, standard output and error together. */
static char *capture(struct args *a)
{
	int fds[2];
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t got;

	if (!buf || pipe(fds))
		abort();
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	pid_t pid = spawn(a->v, fds[1], fds[1], false);
	close(fds[1]);
	while ((got = read(fds[0], buf + len, cap - len - 1)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0 && (len += (size_t)got) + 1 >= cap && !(buf = realloc(buf, cap *= 2)))
			abort();
	buf[len] = 0;
	close(fds[0]);
	wait_for(pid);
	args_free(a);
	return buf;
}

static void status_text(int status, char *buf, size_t len)
{
	snprintf(buf, len, "%s %d", WIFEXITED(status) ? "exit" : "signal",
		 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* ---- the options ---- */

enum {
	D_KERNEL,
	D_RUNS,
	D_SECONDS,
	D_JOBS,
	D_FORK,
	D_OPS,
	D_SEED,
	D_FRESH,
	D_OUT,
	D_FOUND,
	D_KNOWN,
	D_MERGE,
	D_NO_MERGE,
	D_MERGE_INTO,
	D_FUZZER,
	D_MARKDOWN,
	D_ORACLES,
	D_SCHEDULE,
	D_ICOV,
	D_SEEDS,
	D_KEEP_GOING,
	D_EMPTY,
	D_JOINT,
	D_COUNT
};
static const struct {
	unsigned bit;
	const char *name;  /* "--runs=": takes a value; "--fork": does not */
	const char *shown; /* what an unknown argument's error line offers */
} defs[D_COUNT] = {
    [D_KERNEL] = {FUZZ_KERNEL, "--kernel=", "--kernel=NAME|all"},
    [D_RUNS] = {FUZZ_RUNS, "--runs=", "--runs=N"},
    [D_SECONDS] = {FUZZ_SECONDS, "--seconds=", "--seconds=S"},
    [D_JOBS] = {FUZZ_JOBS, "--jobs=", "--jobs=J"},
    [D_FORK] = {FUZZ_FORK, "--fork", "--fork"},
    [D_OPS] = {FUZZ_OPS, "--ops=", "--ops=futex|all"},
    [D_SEED] = {FUZZ_SEED, "--seed=", "--seed=S"},
    [D_FRESH] = {FUZZ_FRESH, "--fresh", "--fresh"},
    [D_OUT] = {FUZZ_OUT, "--out=", "--out=DIR"},
    [D_FOUND] = {FUZZ_FOUND, "--found=", "--found=DIR"},
    [D_KNOWN] = {FUZZ_KNOWN, "--known=", "--known=FILE"},
    [D_MERGE] = {FUZZ_MERGE, "--merge", "--merge"},
    [D_NO_MERGE] = {FUZZ_MERGE, "--no-merge", "--no-merge"},
    [D_MERGE_INTO] = {FUZZ_MERGE, "--merge-into=", "--merge-into=DIR"},
    [D_FUZZER] = {FUZZ_FUZZER, "--fuzzer=", "--fuzzer=PATH"},
    [D_MARKDOWN] = {FUZZ_MARKDOWN, "--markdown", "--markdown"},
    [D_ORACLES] = {FUZZ_ORACLES, "--oracles=", "--oracles=LIST"},
    [D_SCHEDULE] = {FUZZ_SEARCH, "--schedule=", "--schedule=pct|preempt"},
    [D_ICOV] = {FUZZ_SEARCH, "--interleaving-coverage=", "--interleaving-coverage=0|1"},
    [D_SEEDS] = {FUZZ_SEEDS, "--seeds=", "--seeds=N"},
    [D_KEEP_GOING] = {FUZZ_KEEP_GOING, "--keep-going", "--keep-going"},
    [D_EMPTY] = {FUZZ_FRESH, "--empty", "--empty"},
    [D_JOINT] = {FUZZ_SEARCH, "--joint=", "--joint=N"},
};

/* A decimal number in lo..hi, digits only, or one line naming WHAT, exit 2. */
static unsigned long long num_arg(const char *a, const char *v, unsigned long long lo,
				  unsigned long long hi, const char *what, int argn)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = *v >= '0' && *v <= '9' ? strtoull(v, &end, 10) : (end = (char *)v, 0);
	if (end == v || *end || errno || n < lo || n > hi)
		die_usage(what, a, argn);
	return n;
}

/* A directory or file argument into DST: not empty, trailing slashes dropped. */
static void path_arg(char *dst, const char *a, const char *v, const char *what, int argn)
{
	size_t n = strlen(v);

	while (n > 1 && v[n - 1] == '/')
		n--;
	if (!n || n >= PATH_LEN - 256)
		die_usage(what, a, argn);
	pathf(dst, PATH_LEN, "%.*s", (int)n, v);
}

static void parse(struct fuzz_run *r, int argc, char **argv)
{
	const struct fuzz_plan *p = r->p;
	char expected[768] = "";
	int merge_into_argn = 0, no_merge_argn = 0;

	const char *names[D_COUNT + 9];
	int nn = 0;
	for (int d = 0; d < D_COUNT; d++)
		if (p->opts & defs[d].bit)
			names[nn++] = defs[d].shown;
	for (int i = 0; p->option_shown && p->option_shown[i] && i < 8; i++)
		names[nn++] = p->option_shown[i];
	if (p->opts & FUZZ_LIBFUZZER)
		names[nn++] = "a libFuzzer flag -NAME=VALUE";
	for (int i = 0; i < nn; i++) /* A, B, C or D */
		appendf(expected, sizeof(expected), "%s%s",
			!i           ? ""
			: i + 1 < nn ? ", "
				     : " or ",
			names[i]);
	r->lf = calloc((size_t)argc, sizeof(*r->lf));
	r->lf_argn = calloc((size_t)argc, sizeof(*r->lf_argn));
	if (!r->lf || !r->lf_argn)
		abort();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int d = 0, argn = i + 1;
		for (; d < D_COUNT; d++) {
			size_t len = strlen(defs[d].name);
			bool value = defs[d].name[len - 1] == '=';
			if ((p->opts & defs[d].bit) &&
			    (value ? !strncmp(a, defs[d].name, len) : !strcmp(a, defs[d].name))) {
				v = a + len;
				break;
			}
		}
		switch (d) {
		case D_KERNEL:
			if (strcmp(v, "all"))
				kernel_arg(v); /* one line and exit 2 when it is no kernel */
			if (r->nkernel_args == 64)
				die_usage("at most 64 --kernel options", a, argn);
			r->kernel_args[r->nkernel_args++] = v;
			break;
		case D_RUNS:
			r->runs = (long long)num_arg(a, v, 1, 1000000000000ull,
						     "--runs=N with N in 1..1000000000000", argn);
			break;
		case D_SECONDS:
			r->seconds = (long long)num_arg(a, v, 1, 100000000,
							"--seconds=S with S in 1..100000000", argn);
			break;
		case D_JOBS:
			r->jobs = (long)num_arg(a, v, 1, 1024, "--jobs=J with J in 1..1024", argn);
			break;
		case D_SEED: /* libFuzzer takes -seed=0 for "pick one": not reproducible */
			r->seed = num_arg(a, v, 1, 4294967295ull,
					  "--seed=S with S in 1..4294967295", argn);
			break;
		case D_SEEDS:
			r->seed_count =
			    (int)num_arg(a, v, 1, 1000, "--seeds=N with N in 1..1000", argn);
			r->seeds_argn = argn;
			break;
		case D_OPS:
			if (strcmp(v, "futex") && strcmp(v, "all"))
				die_usage("--ops=futex or --ops=all", a, argn);
			r->ops = v;
			break;
		case D_OUT:
			/* a ',' would split OUT/KERNEL/seeds/NAME in -seed_inputs */
			if (strchr(v, ','))
				die_usage("--out=DIR with a directory name (no ',')", a, argn);
			path_arg(r->out, a, v, "--out=DIR with a directory name (no ',')", argn);
			break;
		case D_FOUND:
			path_arg(r->found, a, v, "--found=DIR with a directory name", argn);
			break;
		case D_KNOWN:
			path_arg(r->known_file, a, v, "--known=FILE with a file name", argn);
			break;
		case D_MERGE_INTO: /* a merge, into DIR */
			path_arg(r->merge_into, a, v, "--merge-into=DIR with a directory name",
				 argn);
			merge_into_argn = argn;
			break;
		case D_FUZZER:
			path_arg(r->fuzzer, a, v, "--fuzzer=PATH with a file name", argn);
			r->fuzzer_given = true;
			break;
		case D_FORK:
			r->fork = true;
			break;
		case D_FRESH:
			r->fresh = true;
			break;
		case D_EMPTY: /* nothing at all: no seeds, no corpus of earlier runs */
			r->fresh = r->empty = true;
			break;
		case D_KEEP_GOING:
			r->keep_going = true;
			break;
		case D_MERGE:
		case D_NO_MERGE:
			r->merge = d == D_MERGE;
			no_merge_argn = d == D_NO_MERGE ? argn : 0;
			break;
		case D_MARKDOWN:
			r->markdown = true;
			break;
		case D_ORACLES:
			oracles_arg(a, v, argn); /* one line and exit 2 when it names none */
			r->oracles = v;
			break;
		case D_SCHEDULE: /* the kind of schedule the mutator writes (docs/fuzzing.md) */
			if (strcmp(v, "pct") && strcmp(v, "preempt"))
				die_usage("--schedule=pct or --schedule=preempt", a, argn);
			r->schedule = v;
			break;
		case D_ICOV:
			if (strcmp(v, "0") && strcmp(v, "1"))
				die_usage("--interleaving-coverage=0 or 1", a, argn);
			r->icov = v;
			break;
		case D_JOINT: /* the fuzzer's --joint=N (fuzz/joint.c) */
			r->joint =
			    (long long)num_arg(a, v, 0, 1000000, "--joint=N, 0..1000000", argn);
			break;
		default:
			if (p->option && p->option(a, argn))
				break; /* the command's own */
			if (!(p->opts & FUZZ_LIBFUZZER) || a[0] != '-' || a[1] < 'a' ||
			    a[1] > 'z' || !strchr(a, '='))
				die_usage(expected, a, argn);
			if (!strncmp(a, "-artifact_prefix=", 17) ||
			    !strncmp(a, "-exact_artifact_path=", 21))
				die_usage("no -artifact_prefix or -exact_artifact_path: snafu fuzz "
					  "puts artifacts in --out=DIR/KERNEL/",
					  a, argn);
			r->lf[r->nlf] = a;
			r->lf_argn[r->nlf++] = argn;
		}
	}
	if (merge_into_argn && !no_merge_argn) /* --no-merge: DIR only named */
		r->merge = true;
	if (r->seed_count > 1 &&
	    (!r->seed || r->seed + (unsigned)r->seed_count - 1 > 4294967295ull))
		die_usage("--seeds=N with --seed=S, S + N - 1 at most 4294967295",
			  argv[r->seeds_argn - 1], r->seeds_argn);
}

/* " NAME NAME ... ": the first word of each line after "Flags:" in `FUZZER -help=1`. */
static char *libfuzzer_flags(const char *fuzzer)
{
	struct args a = {0};

	arg(&a, "%s", fuzzer);
	arg(&a, "-help=1");
	char *help = capture(&a), *list = malloc(strlen(help) + 2), *o = list;
	if (!list)
		abort();
	o += sprintf(o, " ");
	for (const char *l = strstr(help, "\nFlags:"); l && (l = strchr(l + 1, '\n'));) {
		size_t w = strspn(l + 2, "abcdefghijklmnopqrstuvwxyz_");
		if (l[1] == ' ' && w && (l[2 + w] == ' ' || l[2 + w] == '\t'))
			o += sprintf(o, "%.*s ", (int)w, l + 2);
	}
	free(help);
	return list;
}

/* libFuzzer's flags that take a string or a path (FuzzerFlags.def's FUZZER_FLAG_STRING);
 * the unsigned ones (seed, jobs, workers) take no minus sign; every other one a number. */
static void check_libfuzzer_flags(const struct fuzz_run *r)
{
	static const char string_flags[] =
	    " seed_inputs stop_file merge_control_file features_dir mutation_graph_file dict "
	    "artifact_prefix exact_artifact_path exit_on_src_pos exit_on_item focus_function "
	    "data_flow_trace collect_data_flow ";
	char *known = NULL, what[PATH_LEN + 128];

	for (int i = 0; i < r->nlf; i++) {
		const char *f = r->lf[i], *eq = strchr(f, '=');
		int len = (int)(eq - f - 1);
		char name[80];
		snprintf(name, sizeof(name), " %.*s ", len, f + 1);
		known = known ? known : libfuzzer_flags(r->fuzzer);
		if (!strstr(known, name)) {
			snprintf(what, sizeof(what),
				 "a libFuzzer flag: -%.*s is not a libFuzzer flag (`%s -help=1` "
				 "lists them)",
				 len, f + 1, shown(r->fuzzer));
			die_usage(what, f, r->lf_argn[i]);
		}
		bool unsigned_only = strstr(" seed jobs workers ", name) != NULL;
		const char *v = eq + 1 + (!unsigned_only && eq[1] == '-');
		if (!strstr(string_flags, name) && (!*v || strspn(v, "0123456789") != strlen(v))) {
			snprintf(what, sizeof(what),
				 "a libFuzzer flag: -%.*s takes a whole number, not '%.64s'", len,
				 f + 1, eq + 1);
			die_usage(what, f, r->lf_argn[i]);
		}
	}
	free(known);
}

/* --known: KERNEL SIGNATURE lines; # comments and blank lines skipped. */
static void read_known(struct fuzz_run *r)
{
	FILE *f = fopen(r->known_file, "r");
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f) {
		fprintf(stderr, "snafu %s: %s: cannot open: %s\n", r->name, r->known_file,
			strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) > 0) {
		char *save, *w[3];
		n++;
		line[strcspn(line, "#")] = 0;
		w[0] = strtok_r(line, " \t\r\n", &save);
		w[1] = w[0] ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		w[2] = w[1] ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		if (!w[0])
			continue;
		if (!w[1] || w[2] || strlen(w[0]) >= 64 || strlen(w[1]) >= 256) {
			fprintf(stderr, "%s:%d: expected KERNEL SIGNATURE\n", r->known_file, n);
			exit(2);
		}
		r->known = realloc(r->known, (size_t)(r->nknown + 1) * sizeof(*r->known));
		if (!r->known)
			abort();
		snprintf(r->known[r->nknown].kernel, 64, "%s", w[0]);
		snprintf(r->known[r->nknown++].sig, 256, "%s", w[1]);
	}
	free(line);
	fclose(f);
}

static bool is_known(const struct fuzz_run *r, const char *k, const char *sig)
{
	for (int i = 0; i < r->nknown; i++)
		if (!strcmp(r->known[i].kernel, k) && (!sig || !strcmp(r->known[i].sig, sig)))
			return true;
	return false;
}

/* snafu's directory, --out's default, the fuzzer, the seed corpus, --found's default. */
static void locate(struct fuzz_run *r)
{
	if (!cli_exe_path(r->exe, sizeof(r->exe)) || !cli_exe_dir(r->dir, sizeof(r->dir))) {
		fprintf(stderr, "snafu %s: cannot find snafu's own executable: %s\n", r->name,
			strerror(errno));
		exit(2);
	}
	if (!r->out[0]) {
		/* next to snafu's directory, not under the working directory: build/NAME for
		 * build/bin/snafu, wherever it is run from (dir is /proc/self/exe's, without
		 * symbolic links) */
		const char *slash = strrchr(r->dir, '/');
		int up = slash && slash > r->dir ? (int)(slash - r->dir) : 0;
		pathf(r->out, sizeof(r->out), "%.*s/%s", up, r->dir, r->p->out_name);
		if (strchr(r->out, ',')) {
			fprintf(stderr,
				"snafu %s: %s: expected a directory without ',' (give --out=DIR)\n",
				r->name, r->out);
			exit(2);
		}
	}
	if (!r->fuzzer_given)
		pathf(r->fuzzer, sizeof(r->fuzzer), "%s/futex_mm_fuzzer", r->dir);
	if (access(r->fuzzer, X_OK) || is_dir(r->fuzzer)) {
		fprintf(stderr, "snafu %s: %s: expected %s\n", r->name, r->fuzzer,
			r->fuzzer_given ? "an executable fuzz target"
					: "the fuzzer next to snafu (clang builds it: ./build.sh)");
		exit(2);
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
	pathf(rel, sizeof(rel), "%s/../../corpus/futex_mm_fuzzer", r->dir);
	candidates[1] = rel;
	for (int i = 0; i < 2 && !r->seeds[0]; i++)
		if (candidates[i] && is_dir(candidates[i]) &&
		    realpath(candidates[i], r->seeds) == NULL)
			r->seeds[0] = 0;
	if (!r->seeds[0]) {
		fprintf(stderr, "snafu %s: %s: expected the seed corpus there\n", r->name,
			candidates[0] ? candidates[0] : rel);
		exit(2);
	}
	if (!r->found[0]) { /* repro/found in the seeds' source tree, without ".." */
		char tree[PATH_LEN];
		pathf(tree, sizeof(tree), "%s", r->seeds); /* TREE/corpus/futex_mm_fuzzer */
		for (int up = 0; up < 2; up++) {
			char *slash = strrchr(tree, '/');
			if (slash && slash != tree)
				*slash = 0;
		}
		pathf(r->found, sizeof(r->found), "%s/repro/found", tree);
	}
	if (!r->merge_into[0])
		pathf(r->merge_into, sizeof(r->merge_into), "%s", r->seeds);
}

/* DIR is a directory this process may write in, or one it may create (its nearest
 * existing ancestor is): else one line naming it and WHAT, exit 2. */
static void writable_dir(const struct fuzz_run *r, const char *dir, const char *what)
{
	char at[PATH_LEN];
	struct stat st;

	pathf(at, sizeof(at), "%s", dir);
	for (;;) {
		if (stat(at, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				errno = ENOTDIR;
			else if (access(at, W_OK | X_OK) == 0)
				return;
			fprintf(stderr, "snafu %s: %s (%s): cannot write there: %s\n", r->name, dir,
				what, strerror(errno));
			exit(2);
		}
		char *slash = strrchr(at, '/');
		if (!slash || slash == at) { /* a relative name's first component: "." */
			pathf(at, sizeof(at), "%s", slash ? "/" : ".");
			continue;
		}
		*slash = 0;
	}
}

/* OUT is this run's alone: two runs into one OUT would empty, read and count each
 * other's corpora, logs and artifacts. OUT/.lock holds the pid of the run that has it,
 * locked (flock) while the run lives; the kernel lets go of it however the run ends. */
static void lock_out(const struct fuzz_run *r)
{
	char path[PATH_LEN], pid[32] = "";

	pathf(path, sizeof(path), "%s/.lock", r->out);
	int fd = mkdir_p(r->out) ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path, strerror(errno));
		exit(2);
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? strcspn(pid, "\n") : 0] = 0;
		fprintf(stderr, "snafu %s: %s: in use by %s%s (another snafu fuzz or evaluate)\n",
			r->name, r->out, pid[0] ? "pid " : "another run", pid);
		exit(2);
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid)) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path, strerror(errno));
		exit(2);
	}
	/* fd stays open (close-on-exec: the fuzzers do not hold it) until the run ends */
}

/* The oracles of a job's runs, as --oracles=LIST spells them (NULL: the default set). */
static const char *job_oracles(const struct fuzz_run *r, const struct fuzz_job *j)
{
	return j->oracle ? j->oracle : r->oracles;
}

/* The kernels: --kernel's, in the order given (all: every kernel), else the plan's
 * default; with per_oracle, a job for each of the run's oracles on each kernel, and for
 * each seed of --seeds. */
static void make_jobs(struct fuzz_run *r)
{
	bool all = r->p->all_kernels && !r->nkernel_args;
	const char *names[64] = {SNAFU_DEFAULT_KERNEL};
	int n = r->nkernel_args ? r->nkernel_args : 1;

	for (int a = 0; a < r->nkernel_args; a++) {
		names[a] = r->kernel_args[a];
		all |= !strcmp(names[a], "all");
	}
	char err[256];
	unsigned mask = r->oracles ? oracles_parse(r->oracles, err, sizeof(err)) : ORACLES_DEFAULT;
	int per = 0;
	for (const struct oracle_info *o = oracle_table; o->name; o++)
		per += r->p->per_oracle && (mask & o->bit);
	r->job =
	    calloc((size_t)kernel_count() * (size_t)(per ? per : 1) * (size_t)r->seed_count + 1,
		   sizeof(*r->job));
	if (!r->job)
		abort();
	const struct kernel_config *listed = NULL;
	for (int i = 0; i < (all ? kernel_count() : n); i++) {
		const struct kernel_config *k =
		    all ? (listed = kernel_next(listed)) : kernel_by_name(names[i]);
		bool dup = false;
		for (int d = 0; d < r->njobs; d++)
			dup |= r->job[d].k == k;
		for (const struct oracle_info *o = oracle_table; !dup && per && o->name; o++)
			for (int s = 0; (mask & o->bit) && s < r->seed_count; s++) {
				struct fuzz_job *j = &r->job[r->njobs++];
				j->k = k;
				j->oracle = o->name;
				j->seed = r->seed ? r->seed + (unsigned)s : 0;
				j->seed_index = s;
				j->seeds = r->seed_count;
				snprintf(j->label, sizeof(j->label), "%s, oracle %s", k->name,
					 o->name);
				if (r->seed_count > 1)
					appendf(j->label, sizeof(j->label), ", seed %llu", j->seed);
			}
		if (!dup && !per) {
			struct fuzz_job *j = &r->job[r->njobs++];
			j->k = k;
			j->seed = r->seed;
			j->seeds = 1;
			snprintf(j->label, sizeof(j->label), "%s", k->name);
		}
	}
	for (int i = 0; i < r->njobs; i++)
		if (strchr(r->job[i].k->name, '/') || r->job[i].k->name[0] == '.') {
			fprintf(stderr, "snafu %s: kernel '%s': expected a name without '/'\n",
				r->name, r->job[i].k->name);
			exit(2);
		}
}

/* OUT/KERNEL emptied but for its corpus (all of it with --fresh), with a fresh copy of
 * the seeds; with cases_in_out, OUT/KERNEL.{case,report,input,confirmed.case} removed.
 * The directory: OUT/KERNEL, or per_oracle OUT/KERNEL/ORACLE for the first seed,
 * OUT/KERNEL/ORACLE.seed-S for the others of --seeds. */
static void prepare(struct fuzz_run *r, struct fuzz_job *j)
{
	char path[PATH_LEN], copy[PATH_LEN], list[PATH_LEN];

	if (j->oracle && j->seed_index)
		pathf(j->dir, sizeof(j->dir), "%s/%s/%s.seed-%llu", r->out, j->k->name, j->oracle,
		      j->seed);
	else if (j->oracle)
		pathf(j->dir, sizeof(j->dir), "%s/%s/%s", r->out, j->k->name, j->oracle);
	else
		pathf(j->dir, sizeof(j->dir), "%s/%s", r->out, j->k->name);
	pathf(path, sizeof(path), "%s/corpus", j->dir);
	pathf(copy, sizeof(copy), "%s/seeds", j->dir);
	pathf(list, sizeof(list), "%s/seeds.txt", j->dir);
	if (mkdir_p(j->dir) || empty_dir(j->dir, r->fresh ? NULL : "corpus", 0) || mkdir_p(path) ||
	    mkdir_p(copy) || (!r->empty && copy_files(r->seeds, copy, list, &j->nseeds))) {
		fprintf(stderr, "snafu %s: %s: cannot prepare: %s\n", r->name, j->dir,
			strerror(errno));
		exit(2);
	}
	for (int i = 0; r->p->cases_in_out && i < 4; i++) {
		pathf(path, sizeof(path), "%s.%s", j->dir,
		      (const char *[]){"case", "report", "input", "confirmed.case"}[i]);
		unlink(path);
	}
	j->listed = is_known(r, j->k->name, NULL);
}

/* The fuzzer's command line for job j, FUZZER shown as given. */
/* With a budget and --keep-going or --known (a run that expects some findings and
 * looks for the others: CI's), one fuzzer process runs all of the budget, past every
 * finding (the fuzzer's --keep-going), and says when each signature first came.
 * Otherwise the first finding ends a fuzzer, as libFuzzer's own runs do, and its
 * executions are those to that finding; fork mode goes on by its -ignore_crashes. */
static bool keeps_going(const struct fuzz_run *r)
{
	return (r->runs || r->seconds) && !r->fork && (r->keep_going || r->known_file[0]);
}

static void fuzzer_args(const struct fuzz_run *r, const char *fuzzer, const struct fuzz_job *j,
			struct args *a)
{
	arg(a, "%s", fuzzer);
	arg(a, "--kernel=%s", j->k->name);
	arg(a, "--ops=%s", r->ops);
	if (job_oracles(r, j))
		arg(a, "--oracles=%s", job_oracles(r, j));
	if (r->schedule)
		arg(a, "--schedule=%s", r->schedule);
	if (r->icov)
		arg(a, "--interleaving-coverage=%s", r->icov);
	if (r->joint)
		arg(a, "--joint=%lld", r->joint);
	if (r->p->progress && !r->fork) /* fork mode's workers would each write it */
		arg(a, "--progress=%s/progress", j->dir);
	if (keeps_going(r)) /* past every finding, to the budget */
		arg(a, "--keep-going=%s/", j->dir);
	if (r->runs)
		arg(a, "-runs=%lld", r->runs);
	if (r->seconds)
		arg(a, "-max_total_time=%lld", r->seconds);
	if (j->seed)
		arg(a, "-seed=%llu", j->seed);
	arg(a, "-reload=0"); /* see the top of this file (the fuzzer's default too) */
	arg(a, "-print_final_stats=1");
	if (r->fork) {
		arg(a, "-fork=%ld", r->jobs);
		arg(a, "-ignore_crashes=1");
	}
	arg(a, "-artifact_prefix=%s/", j->dir);
	if (!r->fork && j->nseeds > 0) /* libFuzzer exits on an empty list */
		arg(a, "-seed_inputs=@%s/seeds.txt", j->dir);
	for (int i = 0; i < r->nlf; i++)
		arg(a, "%s", r->lf[i]);
	arg(a, "%s/corpus", j->dir);
	if (r->fork)
		arg(a, "%s/seeds", j->dir);
}

static void start(struct fuzz_run *r, struct fuzz_job *j)
{
	char log[PATH_LEN];
	struct args a = {0};
	int fd;

	pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, log, strerror(errno));
		exit(2);
	}
	fuzzer_args(r, r->fuzzer, j, &a);
	j->start = now();
	j->pid = spawn(a.v, fd, fd, true);
	j->state = RUNNING;
	close(fd);
	args_free(&a);
}

/* "#1234: cov: ..." or "#1234\tNEW ...": 1234; else -1. */
static long long hash_count(const char *line)
{
	return line[0] == '#' && line[1] >= '0' && line[1] <= '9' ? strtoll(line + 1, NULL, 10)
								  : -1;
}

/* From the log: the executions (the final stats, else the last "#N" line; -1: none),
 * the first DEDUP_TOKEN, and whether fork mode says it is done. */
static long long read_log(const struct fuzz_job *j, char *token, size_t len, bool *done)
{
	char path[PATH_LEN];
	char *line = NULL;
	size_t cap = 0;
	long long stat = -1, last = -1;
	FILE *f;

	pathf(path, sizeof(path), "%s/fuzz.log", j->dir);
	token[0] = 0;
	*done = false;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\r\n")] = 0;
		if (!token[0] && !strncmp(line, "DEDUP_TOKEN: ", 13))
			snprintf(token, len, "%s", line + 13);
		else if (!strncmp(line, "stat::number_of_executed_units:", 31))
			stat = strtoll(line + 31, NULL, 10);
		else if (!strncmp(line, "INFO: exiting: ", 15))
			*done = true;
		else if (hash_count(line) >= 0)
			last = hash_count(line);
	}
	free(line);
	fclose(f);
	return stat >= 0 ? stat : last;
}

/* From the log of a fuzzer that went on past its findings (--keep-going): the executions
 * to each finding's first input, by its signature. */
static void finding_execs(struct fuzz_job *j)
{
	static const char head[] = "futex_mm_fuzzer: finding after ";
	char path[PATH_LEN], sig[256];
	char *line = NULL;
	size_t cap = 0;
	long long n;
	FILE *f;

	pathf(path, sizeof(path), "%s/fuzz.log", j->dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, head, sizeof(head) - 1) &&
		    sscanf(line + sizeof(head) - 1, "%lld executions: %255s", &n, sig) == 2)
			for (int i = 0; i < j->nf; i++)
				if (!strcmp(j->f[i].sig, sig) && j->f[i].execs < 0)
					j->f[i].execs = n;
	free(line);
	fclose(f);
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

/* ---- sorting the artifacts ---- */

static bool is_artifact(const char *name)
{
	static const char *const kinds[] = {"crash-", "finding-", "timeout-", "oom-", "leak-"};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(name, kinds[i], strlen(kinds[i])))
			return true;
	return false;
}

/* snafu's verdict on each of FILES on kernel K (VERDICTS[i], "" where it gave none): one
 * `snafu replay --quiet --input=bytes` for a few hundred files, its output in SCRATCH. */
static void replay_verdicts(const struct fuzz_run *r, const struct kernel_config *k, char **files,
			    int n, char (*verdicts)[256], const char *scratch, const char *oracles)
{
	char tag[96];

	snprintf(tag, sizeof(tag), " [%s]: ", k->name);
	for (int s = 0; s < n; s += 256) {
		int e = n - s < 256 ? n : s + 256, at = s;
		struct args a = {0};
		arg(&a, "%s", r->exe);
		arg(&a, "replay");
		arg(&a, "--quiet");
		arg(&a, "--input=bytes");
		arg(&a, "--kernel=%s", k->name);
		if (oracles)
			arg(&a, "--oracles=%s", oracles);
		for (int i = s; i < e; i++)
			arg(&a, "%s", files[i]);
		run_to(&a, scratch, false); /* exit 1 on a finding: the lines say it */
		char *out = slurp(scratch), *line = out, *next;
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
	struct args a = {0};

	arg(&a, "%s", r->fuzzer);
	arg(&a, "--kernel=%s", j->k->name);
	arg(&a, "--ops=%s", r->ops);
	if (r->oracles)
		arg(&a, "--oracles=%s", r->oracles);
	arg(&a, "-runs=1");
	arg(&a, "%s", input);
	run_to(&a, log, true);
	char *out = slurp(log), *t = out ? strstr(out, "\nDEDUP_TOKEN: ") : NULL;
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
	struct dirent **names = files_of(j->dir, &n);
	char **paths = calloc((size_t)n + 1, sizeof(*paths));
	char(*verdicts)[256] = calloc((size_t)n + 1, sizeof(*verdicts));
	char scratch[PATH_LEN];
	int m = 0;

	if (!paths || !verdicts)
		abort();
	for (int i = 0; i < n; i++)
		if (is_artifact(names[i]->d_name)) {
			paths[m] = malloc(PATH_LEN);
			if (!paths[m])
				abort();
			pathf(paths[m++], PATH_LEN, "%s/%s", j->dir, names[i]->d_name);
		}
	free_names(names, n);
	pathf(scratch, sizeof(scratch), "%s/replay.log", j->dir);
	replay_verdicts(r, j->k, paths, m, verdicts, scratch, job_oracles(r, j));
	for (int i = 0; i < m && !interrupted; i++) {
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

/* ---- saving and showing a finding ---- */

static bool is_sanitizer(const char *sig)
{
	return !strncmp(sig, "asan-", 5) || !strncmp(sig, "ubsan-", 6) ||
	       strstr(sig, "sanitizer--");
}

/* A lockdep prediction, minimized into f->casefile: `snafu confirm` searches for the
 * schedule that deadlocks (tools/confirm.c) and writes BASE.confirmed.case; its log is
 * OUT/KERNEL/confirm.log. */
static void confirm(const struct fuzz_run *r, const struct fuzz_job *j, struct fuzz_finding *f)
{
	char log[PATH_LEN], out[PATH_LEN];
	struct args a = {0};

	pathf(log, sizeof(log), "%s/confirm.log", j->dir);
	pathf(out, sizeof(out), "%s.confirmed.case", f->base);
	unlink(out);
	arg(&a, "%s", r->exe);
	arg(&a, "confirm");
	arg(&a, "--kernel=%s", j->k->name);
	arg(&a, "--runs=%d", CONFIRM_DEFAULT_RUNS);
	arg(&a, "-o");
	arg(&a, "%s", out);
	arg(&a, "%s", f->casefile);
	int status = run_to(&a, log, true);
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		f->confirm = WEXITSTATUS(status) == 0 ? 1 : -1;
	else if (!interrupted)
		fprintf(stderr, "snafu %s: %s: confirming %s failed; see %s\n", r->name, j->label,
			f->casefile, log);
	if (f->confirm > 0) {
		/* the deadlock's signature: the first line of the case, "# SIGNATURE" */
		char *text = slurp(out);
		snprintf(f->confirmed, sizeof(f->confirmed), "%s", out);
		if (text && !strncmp(text, "# ", 2))
			snprintf(f->deadlock, sizeof(f->deadlock), "%.*s",
				 (int)strcspn(text + 2, "\n"), text + 2);
		free(text);
	}
}

/* Finding f of job j as BASE.input and BASE.report, and minimized into BASE.case when
 * snafu replays it: BASE is FOUND/KERNEL/SIGNATURE, or with cases_in_out OUT/KERNEL for
 * the first and OUT/KERNEL/SIGNATURE for the others (emptied with OUT/KERNEL). A
 * lockdep prediction goes to snafu confirm as well. */
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

static bool save(const struct fuzz_run *r, struct fuzz_job *j, struct fuzz_finding *f)
{
	char dir[PATH_LEN], name[256], path[PATH_LEN], log[PATH_LEN];
	struct args a = {0};
	bool ok = true;

	finding_name(f->sig, name);
	pathf(dir, sizeof(dir), "%s/%s", r->found, j->k->name);
	/* the first finding as OUT/KERNEL; the others (--keep-going) in it, by signature */
	if (r->p->cases_in_out && f == j->f)
		pathf(f->base, sizeof(f->base), "%s", j->dir);
	else if (r->p->cases_in_out)
		pathf(f->base, sizeof(f->base), "%s/%s", j->dir, name);
	else
		pathf(f->base, sizeof(f->base), "%s/%s", dir, name);
	pathf(path, sizeof(path), "%s.input", f->base);
	if ((!r->p->cases_in_out && mkdir_p(dir)) || copy_file(f->input, path)) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path, strerror(errno));
		f->base[0] = 0;
		return false;
	}
	pathf(path, sizeof(path), "%s.case", f->base);
	pathf(log, sizeof(log), "%s/minimize.log", j->dir);
	unlink(path);
	if (f->model) {
		arg(&a, "%s", r->exe);
		arg(&a, "minimize");
		arg(&a, "--kernel=%s", j->k->name);
		if (job_oracles(r, j))
			arg(&a, "--oracles=%s", job_oracles(r, j));
		arg(&a, "--input=bytes");
		arg(&a, "-o");
		arg(&a, "%s", path);
		arg(&a, "%s", f->input);
		int status = run_to(&a, log, true);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			snprintf(f->casefile, sizeof(f->casefile), "%s", path);
		else if (!interrupted) {
			fprintf(stderr, "snafu %s: %s: minimizing %s failed; see %s\n", r->name,
				j->label, f->input, log);
			ok = false;
		}
	}
	if (f->casefile[0] && !strncmp(f->sig, "lockdep--", 9))
		confirm(r, j, f);
	pathf(path, sizeof(path), "%s.report", f->base);
	if (f->casefile[0]) { /* through a temporary: whole or not at all */
		char tmp[PATH_LEN + 16];
		pathf(tmp, sizeof(tmp), "%s.tmp", path);
		arg(&a, "%s", r->exe);
		arg(&a, "replay");
		arg(&a, "--kernel=%s", j->k->name);
		if (job_oracles(r, j))
			arg(&a, "--oracles=%s", job_oracles(r, j));
		arg(&a, "%s", f->casefile);
		int status = run_to(&a, tmp, true); /* 0 or 1 (a finding): written */
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 1 || rename(tmp, path)) {
			if (!interrupted)
				fprintf(stderr, "snafu %s: %s: cannot write the report (%s)\n",
					r->name, path, strerror(errno));
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
		pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
		if (out)
			print_tail(out, log, 20);
		if (!out || fclose(out)) {
			fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path,
				strerror(errno));
			ok = false;
		}
	}
	return ok;
}

/* A sanitizer's report, from its first lines down to the first stack's end, and its
 * summary (at most 40 lines). */
static void print_report_head(const char *path)
{
	char *text = slurp(path), *line = text, *next;
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

/* A new finding in full (stdout): the case, its report and the commands for it; or the
 * sanitizer's report, or libFuzzer's word. */
/* PATH in a command printed to be pasted: as shown(), quoted for a shell when it needs
 * to be (a few at once: the buffers rotate). */
static const char *quoted(const char *path)
{
	static char buf[8][PATH_LEN + 8];
	static unsigned n;

	return cli_shell_word(shown(path), buf[n++ % 8], sizeof(buf[0]));
}

static void show(const struct fuzz_run *r, const struct fuzz_job *j, const struct fuzz_finding *f)
{
	char rep[PATH_LEN], in[PATH_LEN], html[PATH_LEN + 8], *text;
	const char *k = j->k->name, *oracles = job_oracles(r, j);

	pathf(rep, sizeof(rep), "%s.report", f->base);
	pathf(in, sizeof(in), "%s.input", f->base);
	printf("%s: %s: NEW finding %s: %s.{%sreport,input}\n", r->name, k, f->sig, shown(f->base),
	       f->casefile[0] ? "case," : "");
	if (f->casefile[0]) {
		const char *c = quoted(f->casefile), *me = quoted(r->exe);
		printf("%s: minimized case: %s\n", r->name, shown(f->casefile));
		for (int i = 0; i < 2; i++) {
			text = slurp(i ? rep : f->casefile);
			printf("%s\n", text ? text : "");
			free(text);
		}
		printf("reproduce with: %s replay --kernel=%s%s%s %s\n", me, k,
		       oracles ? " --oracles=" : "", oracles ? oracles : "", c);
		if (f->confirm > 0)
			printf("predicted and confirmed: %s confirm found %s: %s\n"
			       "reproduce the deadlock with: %s replay --kernel=%s %s\n",
			       me, f->deadlock, shown(f->confirmed), me, k, quoted(f->confirmed));
		else if (f->confirm < 0)
			printf("predicted only: %s confirm found no schedule that deadlocks within "
			       "%d executions\n",
			       me, CONFIRM_DEFAULT_RUNS);
		pathf(html, sizeof(html), "%s.html", shown(f->casefile));
		printf("picture it with: %s trace --kernel=%s %s -o %s\n", me, k, c, quoted(html));
		printf("debug it with:  %s record --kernel=%s %s   (rr, else gdb at the finding's "
		       "step)\n",
		       me, k, c);
	} else if (is_sanitizer(f->sig)) {
		/* ASan or UBSan in the model's code (fuzz/fuzz_support.c's token): snafu
		 * would hit the same report, so nothing to minimize */
		printf("%s: a sanitizer report, not a finding of the model's; the input: %s\n",
		       r->name, shown(in));
		print_report_head(rep);
		printf("DEDUP_TOKEN: %s\n", f->sig);
		printf("reproduce with: %s --kernel=%s --ops=%s%s%s %s\n", quoted(r->fuzzer), k,
		       r->ops, oracles ? " --oracles=" : "", oracles ? oracles : "", quoted(in));
	} else {
		printf("%s: libFuzzer reported %s; see %s\n", r->name, strrchr(f->input, '/') + 1,
		       shown(rep));
		print_tail(stdout, rep, 20);
	}
	printf("\n");
}

/* A fuzzer has ended with STATUS: its findings, sorted, judged and saved, one line. */
static void finish(struct fuzz_run *r, struct fuzz_job *j, int status, struct fuzz_totals *t)
{
	char token[256], line[4096] = "", log[PATH_LEN];
	bool done;

	j->secs = now() - j->start;
	j->execs = read_log(j, token, sizeof(token), &done);
	pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
	classify(r, j);
	if (interrupted)
		return;
	/* the executions to each finding: the fuzzer's line for it (its count takes in the
	 * joint search's runs, which libFuzzer's does not) */
	if (!r->fork)
		finding_execs(j);
	j->went_on = keeps_going(r);
	if (j->went_on && j->nf) /* in the order they came */
		qsort(j->f, (size_t)j->nf, sizeof(*j->f), by_execs);
	else if (!r->fork && j->nf) /* it ended at its finding */
		fuzz_first(j, &j->execs);
	if (!j->nf && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) && !done) {
		/* fork mode exits with the last failed child's status: done if it says so */
		j->error = true;
		status_text(status, j->why, sizeof(j->why));
		fprintf(stderr,
			"snafu %s: %s: the fuzzer failed (%s) without an artifact; see %s\n",
			r->name, j->label, j->why, log);
		print_tail(stderr, log, 5);
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
		f->known = r->p->judge && is_known(r, j->k->name, f->sig);
		if (f->known)
			j->nknown++;
		else
			j->nnew++, t->errors += !save(r, j, f); /* what failed said so */
		appendf(line, sizeof(line), "%s%s", i ? ", " : "", f->sig);
		if (j->went_on && f->execs >= 0)
			appendf(line, sizeof(line), " after %lld", f->execs);
		if (r->fork)
			appendf(line, sizeof(line), " (%d)", f->count);
		if (f->known)
			appendf(line, sizeof(line), " known");
		if (f->base[0])
			appendf(line, sizeof(line), " -> %s%s",
				f->casefile[0] ? f->casefile : f->base,
				f->casefile[0] ? "" : ".input");
		if (f->confirm)
			appendf(line, sizeof(line), f->confirm > 0 ? " (confirmed: %s)" : "%s",
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
			r->fork || keeps_going(r) ? "" : "finding after ", execs, j->secs, line);
	for (int i = 0; r->p->judge && i < j->nf; i++)
		if (!j->f[i].known && j->f[i].base[0])
			show(r, j, &j->f[i]);
}

/* ---- the loop ---- */

static long long count_entries(const char *dir, bool artifacts)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long long n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' && (!artifacts || is_artifact(e->d_name));
	if (d)
		closedir(d);
	return n;
}

/* The executions so far: the fuzzer's --progress file, else the log's last "#N" line. */
static long long executions_so_far(const struct fuzz_job *j)
{
	char path[PATH_LEN], buf[8192];
	long long n = -1;
	FILE *f;

	pathf(path, sizeof(path), "%s/progress", j->dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	pathf(path, sizeof(path), "%s/fuzz.log", j->dir);
	if (n < 0 && (f = fopen(path, "r"))) {
		fseek(f, -(long)sizeof(buf) + 1, SEEK_END); /* fails on a short file: from 0 */
		size_t got = fread(buf, 1, sizeof(buf) - 1, f);
		buf[got] = 0;
		for (char *l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			n = hash_count(l) >= 0 ? hash_count(l) : n;
		fclose(f);
	}
	return n < 0 ? 0 : n;
}

static void progress(const struct fuzz_run *r)
{
	char path[PATH_LEN];

	for (int i = 0; i < r->njobs; i++) {
		const struct fuzz_job *j = &r->job[i];
		if (j->state != RUNNING)
			continue;
		long long el = (long long)(now() - j->start), execs = executions_so_far(j);
		pathf(path, sizeof(path), "%s/corpus", j->dir);
		fprintf(stderr,
			"%s: %s%s%llds, %lld executions, %lld/s, corpus %lld, findings %lld\n",
			r->name, r->njobs > 1 ? j->label : "", r->njobs > 1 ? ": " : "", el, execs,
			execs / (el > 0 ? el : 1), count_entries(path, false),
			count_entries(j->dir, true));
	}
}

/* An interrupted fuzzer's new findings, sorted by signature and saved as they are (no
 * time to minimize): FOUND/KERNEL/SIGNATURE.input, where the next run, which empties
 * OUT/KERNEL, does not reach them. */
static void save_interrupted(struct fuzz_run *r, struct fuzz_job *j)
{
	char name[256], dir[PATH_LEN], path[PATH_LEN];

	if (!r->p->judge || r->p->cases_in_out || j->nf)
		return;  /* sorted already (finish()), or the plan keeps them in OUT */
	interrupted = 0; /* a second Ctrl-C stops this too */
	classify(r, j);
	for (int i = 0; i < j->nf && !interrupted; i++) {
		const struct fuzz_finding *f = &j->f[i];
		if (is_known(r, j->k->name, f->sig))
			continue;
		finding_name(f->sig, name);
		pathf(dir, sizeof(dir), "%s/%s", r->found, j->k->name);
		pathf(path, sizeof(path), "%s/%s.input", dir, name);
		if (mkdir_p(dir) || copy_file(f->input, path))
			fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path,
				strerror(errno));
		else
			fprintf(stderr, "%s: %s: %s saved, not minimized: %s\n", r->name, j->label,
				f->sig, shown(path));
	}
}

/* Ctrl-C or SIGTERM: every fuzzer stopped, what each did and found, exit 130. */
__attribute__((noreturn)) static void stop(struct fuzz_run *r)
{
	char token[256];
	bool done;

	for (int i = 0; i < r->njobs; i++)
		if (r->job[i].state == RUNNING)
			kill(-r->job[i].pid, SIGTERM);
	for (int i = 0; i < r->njobs; i++) {
		struct fuzz_job *j = &r->job[i];
		if (j->state == RUNNING)
			wait_for(j->pid);
		if (j->state != RUNNING && j->state != STOPPED)
			continue;
		long long execs = read_log(j, token, sizeof(token), &done);
		if (execs <= 0)
			execs = executions_so_far(j);
		if (execs <= 0 && r->fork) /* its parent counts its workers' jobs as they end */
			fprintf(
			    stderr,
			    "%s: interrupted on %s before fork mode counted any executions; the "
			    "corpus so far is in %s/corpus\n",
			    r->name, j->label, j->dir);
		else
			fprintf(stderr,
				"%s: interrupted after %lld executions on %s; the corpus so far is "
				"in %s/corpus\n",
				r->name, execs, j->label, j->dir);
		save_interrupted(r, j);
	}
	exit(130);
}

static void run_all(struct fuzz_run *r, struct fuzz_totals *t)
{
	int next = 0, running = 0;
	long parallel = r->fork ? 1 : r->jobs;
	double last = now();

	while (next < r->njobs || running > 0) {
		while (!interrupted && next < r->njobs && running < parallel) {
			start(r, &r->job[next++]);
			running++;
		}
		if (interrupted)
			stop(r);
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		for (int i = 0; pid > 0 && i < next; i++)
			if (r->job[i].pid == pid && r->job[i].state == RUNNING) {
				running--;
				r->job[i].state = interrupted ? STOPPED : DONE;
				if (!interrupted)
					finish(r, &r->job[i], status, t);
				if (interrupted && r->job[i].state == DONE)
					r->job[i].state = STOPPED;
			}
		if (pid > 0)
			continue;
		if (pid < 0 && errno != EINTR) {
			fprintf(stderr, "snafu %s: waitpid: %s\n", r->name, strerror(errno));
			exit(2);
		}
		nanosleep(&(struct timespec){0, 100000000}, NULL);
		if (r->p->progress && now() - last >= 3 && !interrupted) {
			last = now();
			progress(r);
		}
	}
}

/* The oracles --merge judges by: the run's, lockdep aside. The seeds are programs whose
 * deadlock, if any, the fuzzer must find the schedule of, and on 2.6.11-rc4 nearly every
 * futex program makes lockdep's prediction. */
static const char *merge_oracles(const struct fuzz_run *r, char *buf, size_t len)
{
	unsigned mask = r->oracles ? oracles_parse(r->oracles, buf, len) : ORACLES_DEFAULT;

	mask &= ~(unsigned)ORACLE_LOCKDEP;
	return oracles_str(mask ? mask : ORACLE_DEADLOCK, buf, len);
}

/* --merge: the new inputs with new coverage (edges only) that find nothing on any
 * kernel (merge_oracles), into merge_into. */
static bool merge(struct fuzz_run *r)
{
	bool ok = true;
	char tmp[PATH_LEN], corpus[PATH_LEN], path[PATH_LEN], scratch[PATH_LEN], oracles[200];
	int n, nnew = 0, added = 0;

	pathf(tmp, sizeof(tmp), "%s/merge", r->out);
	pathf(corpus, sizeof(corpus), "%s/corpus", tmp);
	pathf(scratch, sizeof(scratch), "%s/replay.log", tmp);
	if (mkdir_p(tmp) || empty_dir(tmp, NULL, 0) || mkdir_p(corpus) ||
	    copy_files(r->merge_into, corpus, NULL, &n)) {
		fprintf(stderr, "snafu %s: %s: cannot merge through %s: %s\n", r->name,
			r->merge_into, tmp, strerror(errno));
		return false;
	}
	for (int i = 0; i < r->njobs; i++) {
		struct fuzz_job *j = &r->job[i];
		struct args a = {0};
		char log[PATH_LEN];
		pathf(log, sizeof(log), "%s/merge.log", j->dir);
		arg(&a, "%s", r->fuzzer);
		arg(&a, "--kernel=%s", j->k->name);
		arg(&a, "--oracles=%s", merge_oracles(r, oracles, sizeof(oracles)));
		arg(&a, "-merge=1");
		arg(&a, "-use_counters=0");
		arg(&a, "-timeout=25");
		arg(&a, "-artifact_prefix=%s/", tmp);
		arg(&a, "%s", corpus);
		arg(&a, "%s/corpus", j->dir);
		if (run_to(&a, log, true)) {
			fprintf(stderr, "snafu %s: %s: merge failed; see %s\n", r->name, j->label,
				log);
			ok = false;
		}
	}
	struct dirent **names = files_of(corpus, &n);
	char **files = calloc((size_t)n + 1, sizeof(*files));
	char(*verdicts)[256] = calloc((size_t)n + 1, sizeof(*verdicts));
	int *clean = calloc((size_t)n + 1, sizeof(*clean)); /* kernels it finds nothing on */
	if (!files || !verdicts || !clean)
		abort();
	for (int i = 0; i < n; i++) {
		pathf(path, sizeof(path), "%s/%s", r->merge_into, names[i]->d_name);
		if (access(path, F_OK) == 0)
			continue;
		if (!(files[nnew] = malloc(PATH_LEN)))
			abort();
		pathf(files[nnew++], PATH_LEN, "%s/%s", corpus, names[i]->d_name);
	}
	for_each_kernel (k) { /* every kernel, not only those fuzzed */
		if (!nnew)
			break;
		memset(verdicts, 0, (size_t)nnew * sizeof(*verdicts));
		replay_verdicts(r, k, files, nnew, verdicts, scratch,
				merge_oracles(r, oracles, sizeof(oracles)));
		for (int i = 0; i < nnew; i++)
			clean[i] += !strcmp(verdicts[i], "ok");
	}
	for (int i = 0; i < nnew; i++) {
		pathf(path, sizeof(path), "%s/%s", r->merge_into, strrchr(files[i], '/') + 1);
		if (clean[i] == kernel_count()) {
			if (copy_file(files[i], path) == 0)
				added++;
			else {
				fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, path,
					strerror(errno));
				ok = false;
			}
		}
		free(files[i]);
	}
	free_names(names, n);
	free(files);
	free(verdicts);
	free(clean);
	empty_dir(tmp, NULL, 0);
	rmdir(tmp);
	fprintf(stderr,
		"%s: merged %d new inputs into %s (%lld files; %d more left out: they find "
		"something on some kernel)\n",
		r->name, added, shown(r->merge_into), count_entries(r->merge_into, false),
		nnew - added);
	return ok;
}

/* ---- the table ---- */

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

/* The command line that gives this run again: the options the command takes, each as
 * it is set. */
static void command_line(const struct fuzz_run *r, char *buf, size_t len)
{
	unsigned o = r->p->opts;

	buf[0] = 0;
	appendf(buf, len, "%s/snafu %s", shown(r->dir), r->name);
	for (int i = 0; i < r->nkernel_args; i++)
		appendf(buf, len, " --kernel=%s", r->kernel_args[i]);
	if ((o & FUZZ_RUNS) && r->runs)
		appendf(buf, len, " --runs=%lld", r->runs);
	if ((o & FUZZ_SECONDS) && r->seconds)
		appendf(buf, len, " --seconds=%lld", r->seconds);
	appendf(buf, len, " --jobs=%ld%s --ops=%s", r->jobs, r->fork ? " --fork" : "", r->ops);
	if (r->oracles)
		appendf(buf, len, " --oracles=%s", r->oracles);
	if (r->schedule)
		appendf(buf, len, " --schedule=%s", r->schedule);
	if (r->icov)
		appendf(buf, len, " --interleaving-coverage=%s", r->icov);
	if (r->joint)
		appendf(buf, len, " --joint=%lld", r->joint);
	if (r->seed)
		appendf(buf, len, " --seed=%llu", r->seed);
	if ((o & FUZZ_SEEDS) && r->seed_count > 1)
		appendf(buf, len, " --seeds=%d", r->seed_count);
	if (r->p->option_line)
		r->p->option_line(buf, len);
	if ((o & FUZZ_FRESH) && r->empty)
		appendf(buf, len, " --empty");
	else if ((o & FUZZ_FRESH) && r->fresh)
		appendf(buf, len, " --fresh");
	if ((o & FUZZ_KEEP_GOING) && r->keep_going)
		appendf(buf, len, " --keep-going");
	appendf(buf, len, " --out=%s", r->out);
	if (o & FUZZ_FOUND)
		appendf(buf, len, " --found=%s", shown(r->found));
	if (r->known_file[0])
		appendf(buf, len, " --known=%s", shown(r->known_file));
	if (r->merge)
		appendf(buf, len, " --merge --merge-into=%s", shown(r->merge_into));
	if (r->fuzzer_given)
		appendf(buf, len, " --fuzzer=%s", shown(r->fuzzer));
	for (int i = 0; i < r->nlf; i++)
		appendf(buf, len, " %s", r->lf[i]);
	if (r->markdown)
		appendf(buf, len, " --markdown");
}

/* ---- snafu fuzz, and any command built on the driver ---- */

struct fuzz_totals fuzz_drive(const struct fuzz_plan *p, int argc, char **argv)
{
	static struct fuzz_run run;
	struct fuzz_run *r = &run;
	struct fuzz_totals totals = {0}, *t = &totals;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char cmd[3 * PATH_LEN], what[128];

	*r = (struct fuzz_run){.p = p,
			       .name = p->name,
			       .runs = p->runs,
			       .ops = p->ops,
			       .seed = p->seed,
			       .seed_count = 1,
			       .fresh = p->fresh,
			       .jobs = cpus > 0 ? cpus : 1};
	cmd_name = p->name;
	setvbuf(stdout, NULL, _IOLBF, 0); /* in order with stderr, in a pipe too */
	parse(r, argc, argv);
	locate(r);
	/* every directory a result goes to, before the first execution: a finding is not
	 * to be lost after the whole run */
	writable_dir(r, r->out, "--out");
	if (r->p->judge && !r->p->cases_in_out)
		writable_dir(r, r->found, "--found");
	struct stat st;
	if (r->merge && (stat(r->merge_into, &st) || !S_ISDIR(st.st_mode))) { /* a corpus */
		int e = stat(r->merge_into, &st) ? errno : ENOTDIR;
		errno = e;
		fprintf(stderr, "snafu %s: %s (--merge-into): cannot merge into: %s\n", r->name,
			r->merge_into, strerror(errno));
		exit(2);
	}
	if (r->merge)
		writable_dir(r, r->merge_into, "--merge-into");
	check_libfuzzer_flags(r);
	if (r->known_file[0])
		read_known(r);
	make_jobs(r);
	lock_out(r); /* the usage is good: from here on OUT is written */
	struct fuzz_info info = {.name = r->name,
				 .job = r->job,
				 .njobs = r->njobs,
				 .jobs = r->jobs,
				 .oracles = r->oracles,
				 .out = r->out,
				 .seeds = r->seeds};
	if (p->before)
		p->before(&info);
	if (mkdir_p(r->out)) {
		fprintf(stderr, "snafu %s: %s: cannot create: %s\n", r->name, r->out,
			strerror(errno));
		exit(2);
	}
	for (int i = 0; i < r->njobs; i++)
		prepare(r, &r->job[i]);

	budget(r, what, sizeof(what));
	command_line(r, cmd, sizeof(cmd));
	appendf(what, sizeof(what), "%s", r->runs || r->seconds ? " each" : "");
	if (r->seed && r->seed_count > 1)
		appendf(what, sizeof(what), ", seeds %llu..%llu", r->seed,
			r->seed + (unsigned)r->seed_count - 1);
	else if (r->seed)
		appendf(what, sizeof(what), ", seed %llu", r->seed);
	int per = row_jobs(r, 0), nk = r->njobs / per; /* per_oracle: oracles x seeds a kernel */
	char each[96] = "";
	if (r->p->per_oracle) {
		int no = per / r->seed_count;
		snprintf(each, sizeof(each), " x %d oracle%s", no, no == 1 ? "" : "s");
		if (r->seed_count > 1)
			appendf(each, sizeof(each), " x %d seeds", r->seed_count);
		appendf(each, sizeof(each), ", one fuzzer each");
	}
	fprintf(stderr, "%s: %d kernel%s%s, %s, %ld at a time%s\n", r->name, nk, nk == 1 ? "" : "s",
		each, what,
		r->fork              ? 1
		: r->jobs < r->njobs ? r->jobs
				     : r->njobs,
		r->fork ? ", each in libFuzzer's fork mode" : "");
	{
		struct args a = {0};
		struct fuzz_job eg = {.k = &(struct kernel_config){.name = "KERNEL"},
				      .oracle = r->p->per_oracle ? "ORACLE" : NULL,
				      .seed = r->seed,
				      .nseeds = r->job[0].nseeds};
		pathf(eg.dir, sizeof(eg.dir), "%s/KERNEL%s", r->out,
		      r->p->per_oracle ? "/ORACLE" : "");
		fuzzer_args(r, shown(r->fuzzer), &eg, &a);
		fprintf(stderr, "%s: each runs", r->name);
		for (int i = 0; i < a.n; i++)
			fprintf(stderr, " %s", a.v[i]);
		if (r->empty)
			fprintf(stderr, " (no seed inputs: --empty)\n");
		else
			fprintf(stderr, " (seeds copied from %s, %d of them)\n", shown(r->seeds),
				eg.nseeds);
		args_free(&a);
		if (r->seed_count > 1)
			fprintf(stderr,
				"%s: seed %llu in %s/KERNEL/ORACLE, seed S of the others (-seed=S) "
				"in %s/KERNEL/ORACLE.seed-S\n",
				r->name, r->seed, r->out, r->out);
	}

	int pers = personality(0xffffffff); /* see the top of this file */
	if (pers == -1 || personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1)
		fprintf(stderr,
			"%s: cannot turn off address randomization (%s): executions to a "
			"finding may differ from run to run\n",
			r->name, strerror(errno));
	/* Ctrl-C reaches the fuzzers through us (each has a process group of its own); a
	 * signal ignored when we started (nohup) stays ignored */
	for (int s = 0; s < 2; s++) {
		int sig = s ? SIGTERM : SIGINT;
		struct sigaction old, sa = {.sa_handler = on_signal};
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sig, &sa, NULL);
	}

	double t0 = now();
	run_all(r, t);
	if (p->after && !interrupted && !p->after(&info))
		t->errors++;
	if (r->merge && !interrupted && !merge(r))
		t->errors++;
	if (interrupted) /* while the last results were sorted, or the merge ran */
		stop(r);
	else if ((p->opts & FUZZ_MERGE) && !r->merge)
		fprintf(stderr,
			"%s: %s left as it is; the new inputs stay in %s/KERNEL/corpus (--merge "
			"adds those with new coverage)\n",
			r->name, shown(r->merge_into), r->out);
	double wall = now() - t0;

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
	if (p->judge && t->unknown) {
		fprintf(stderr, "%s: NEW findings:", r->name);
		for (int i = 0; i < r->njobs; i++)
			for (int k = 0; k < r->job[i].nf; k++) {
				const struct fuzz_finding *nf = &r->job[i].f[k];
				if (!nf->known && nf->base[0])
					fprintf(stderr, " %s%s",
						shown(nf->casefile[0] ? nf->casefile : nf->base),
						nf->casefile[0] ? "" : ".input");
			}
		fprintf(stderr, "\n");
	}
	fflush(stdout);
	return totals;
}

/* snafu fuzz's table: per kernel, the executions, the signatures (with how many
 * artifacts had each), known and new, a verdict. */
static void fuzz_row(const struct fuzz_job *j, int n, char c[FUZZ_CELLS][FUZZ_PATH],
		     bool code[FUZZ_CELLS])
{
	(void)n; /* 1: not per_oracle */
	snprintf(c[0], FUZZ_PATH, "%s", j->k->name);
	if (j->execs >= 0)
		snprintf(c[1], FUZZ_PATH, "%lld", j->execs);
	else
		snprintf(c[1], FUZZ_PATH, "?");
	snprintf(c[2], FUZZ_PATH, "%s", j->nf ? "" : "-");
	/* each with the executions to it where known, else its count of artifacts (fork
	 * mode); a lockdep prediction: confirmed by snafu confirm? */
	for (int i = 0; i < j->nf; i++) {
		const struct fuzz_finding *f = &j->f[i];
		char when[48];
		if (j->went_on && f->execs >= 0)
			snprintf(when, sizeof(when), "after %lld", f->execs);
		else
			snprintf(when, sizeof(when), "%d", f->count);
		appendf(c[2], FUZZ_PATH, "%s%s (%s%s)", i ? ", " : "", f->sig, when,
			f->confirm > 0   ? "; predicted and confirmed"
			: f->confirm < 0 ? "; predicted only"
					 : "");
	}
	if (j->error)
		snprintf(c[3], FUZZ_PATH, "-");
	else
		snprintf(c[3], FUZZ_PATH, "%d known, %d new", j->nknown, j->nnew);
	if (j->error)
		snprintf(c[4], FUZZ_PATH, "ERROR (%s)", j->why);
	else
		snprintf(c[4], FUZZ_PATH, "%s",
			 j->nnew     ? "NEW"
			 : j->nknown ? "known bugs only"
			 : j->listed ? "clean (known bugs not hit)"
				     : "clean");
	for (int i = 0; i < FUZZ_CELLS; i++)
		code[i] = false;
}

const char *const fuzz_value_opts[] = {"--kernel",     "--runs",
				       "--seconds",    "--jobs",
				       "--ops",        "--oracles",
				       "--seed",       "--out",
				       "--found",      "--known",
				       "--merge-into", "--fuzzer",
				       "--schedule",   "--interleaving-coverage",
				       "--joint",      NULL};

const char fuzz_help[] =
    "  fuzz [OPTIONS] [libFuzzer flags -NAME=VALUE]\n"
    "                          fuzz kernels with libFuzzer, sort the findings by\n"
    "                          signature, minimize each new one into FOUND/KERNEL/\n"
    "                          SIGNATURE.case (with .report and .input), run snafu\n"
    "                          confirm on each new lockdep prediction (.confirmed.case\n"
    "                          when one deadlocks), print a table;\n"
    "                          a progress line every 3 s; exit 1 on a new finding, 2 on\n"
    "                          a fuzzer that failed or a file that could not be\n"
    "                          written (new finding or not), 130 when interrupted\n"
    "      --kernel=NAME       a kernel to fuzz, repeatable; all: every kernel (default\n"
    "                          " SNAFU_DEFAULT_KERNEL ")\n"
    "      --runs=N            executions per kernel (libFuzzer's -runs)\n"
    "      --seconds=S         seconds per kernel (-max_total_time); with neither, each\n"
    "                          fuzzer runs to its first finding (with --fork: for ever)\n"
    "      --jobs=J            fuzzers at once (default: the online CPUs): J kernels at\n"
    "                          once, or with --fork J workers on one kernel at a time\n"
    "      --fork              libFuzzer's -fork=J -ignore_crashes=1: every finding up to\n"
    "                          the budget, not just the first\n"
    "      --ops=futex|all     the ops the fuzzer may use (default futex)\n"
    "      --oracles=LIST      what counts as a finding: some of deadlock, lost-wakeup,\n"
    "                          result, lockdep, comma-separated (default: all four);\n"
    "                          passed to the fuzzer, snafu replay and snafu minimize;\n"
    "                          snafu confirm runs on each new lockdep prediction\n"
    "      --schedule=pct|preempt  the kind of schedule the fuzzer writes (default pct)\n"
    "      --interleaving-coverage=0|1  feedback on what the schedule did (default 0)\n"
    "      --joint=N           the joint search: each program that reaches new code\n"
    "                          gets snafu explore's search of its schedules (up to 2\n"
    "                          preemptions), at most N runs, each counted as an\n"
    "                          execution (default 0: off)\n"
    "      --seed=S            libFuzzer's seed, 1..4294967295 (default: libFuzzer's pick)\n"
    "      --fresh             forget the corpus of earlier runs (OUT/KERNEL/corpus,\n"
    "                          which otherwise grows from run to run); the seed corpus\n"
    "                          is still loaded\n"
    "      --empty             start from nothing: no seed corpus, no earlier corpus\n"
    "      --keep-going        with --runs or --seconds: run all of it, past every\n"
    "                          finding, and say when each signature first came (on\n"
    "                          whenever --known is given; otherwise the first finding\n"
    "                          ends a kernel's fuzzer)\n"
    "      --out=DIR           corpora, logs, artifacts (default: fuzz/ beside snafu's\n"
    "                          directory, build/fuzz for build/bin/snafu)\n"
    "      --found=DIR         where new findings go (default: repro/found)\n"
    "      --known=FILE        KERNEL SIGNATURE lines (ci/known-findings.txt): what a\n"
    "                          kernel may find without it being new\n"
    "      --merge             afterwards, merge the inputs that add coverage and find\n"
    "                          nothing on any kernel (lockdep aside) into\n"
    "                          corpus/futex_mm_fuzzer\n"
    "      --no-merge          leave it alone (the default)\n"
    "      --merge-into=DIR    merge, into DIR instead (an existing directory); with\n"
    "                          --no-merge, only named\n"
    "      --fuzzer=PATH       the fuzz target (default: futex_mm_fuzzer beside snafu)\n"
    "      --markdown          print the table as GitHub markdown (and with\n"
    "                          $GITHUB_STEP_SUMMARY set, append it there)\n";

static const struct fuzz_plan fuzz_plan = {
    .name = "fuzz",
    .opts = FUZZ_KERNEL | FUZZ_RUNS | FUZZ_SECONDS | FUZZ_JOBS | FUZZ_FORK | FUZZ_OPS | FUZZ_SEED |
	    FUZZ_FRESH | FUZZ_OUT | FUZZ_FOUND | FUZZ_KNOWN | FUZZ_MERGE | FUZZ_FUZZER |
	    FUZZ_MARKDOWN | FUZZ_LIBFUZZER | FUZZ_ORACLES | FUZZ_SEARCH | FUZZ_KEEP_GOING,
    .ops = "futex",
    .progress = true,
    .judge = true,
    .out_name = "fuzz",
    .head = {"kernel", "executions", "signatures found", "known/new", "verdict"},
    .right = 1,
    .row = fuzz_row,
};

int cmd_fuzz(int argc, char **argv)
{
	struct fuzz_totals t = fuzz_drive(&fuzz_plan, argc, argv);

	/* a result that could not be written is lost: that outranks a new finding */
	return t.errors ? 2 : t.unknown ? 1 : 0;
}
