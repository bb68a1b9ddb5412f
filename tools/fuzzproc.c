/* The fuzzers as processes (tools/fuzzdrv.c): OUT's lock, each job's directory made
 * ready, a fuzzer's command line, the loop that starts them (up to --jobs at once), copies
 * their output into their logs, waits for them and prints progress, and Ctrl-C or
 * SIGTERM: every fuzzer stopped, exit 130. */
#include "fuzzdrv_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WAITING, RUNNING, STOPPED, DONE }; /* struct fuzz_job's state */

static volatile sig_atomic_t interrupted; /* the signal, once one came */

static void on_signal(int sig)
{
	interrupted = sig;
}

bool fuzz_interrupted(void)
{
	return interrupted != 0;
}

/* Forget a Ctrl-C already answered: a second one stops what comes after it. */
void fz_clear_interrupted(void)
{
	interrupted = 0;
}

/* Before the first fuzzer starts: address randomization off (the fuzzers inherit it; see
 * the top of fuzzdrv.c), and Ctrl-C and SIGTERM caught. */
void fz_set_up_process(const struct fuzz_run *r)
{
	int pers = personality(0xffffffff);
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
}

/* OUT is this run's alone: two runs into one OUT would empty, read and count each
 * other's corpora, logs and artifacts. OUT/.lock holds the pid of the run that has it,
 * locked (flock) while the run lives; the kernel lets go of it however the run ends. */
void fz_lock_out(const struct fuzz_run *r)
{
	char path[PATH_LEN], pid[32] = "";

	fz_pathf(path, sizeof(path), "%s/.lock", r->out);
	int fd = fz_mkdir_p(r->out) ? -1 : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
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

/* OUT/KERNEL emptied but for its corpus (all of it with --fresh), with a fresh copy of
 * the seeds; with cases_in_out, OUT/KERNEL.{case,report,input,confirmed.case} removed.
 * The directory: OUT/KERNEL, or per_oracle OUT/KERNEL/ORACLE for the first seed,
 * OUT/KERNEL/ORACLE.seed-S for the others of --seeds. */
void fz_prepare(struct fuzz_run *r, struct fuzz_job *j)
{
	char path[PATH_LEN], copy[PATH_LEN], list[PATH_LEN];

	if (j->oracle && j->seed_index)
		fz_pathf(j->dir, sizeof(j->dir), "%s/%s/%s.seed-%llu", r->out, j->k->name,
			 j->oracle, j->seed);
	else if (j->oracle)
		fz_pathf(j->dir, sizeof(j->dir), "%s/%s/%s", r->out, j->k->name, j->oracle);
	else
		fz_pathf(j->dir, sizeof(j->dir), "%s/%s", r->out, j->k->name);
	fz_pathf(path, sizeof(path), "%s/corpus", j->dir);
	fz_pathf(copy, sizeof(copy), "%s/seeds", j->dir);
	fz_pathf(list, sizeof(list), "%s/seeds.txt", j->dir);
	if (fz_mkdir_p(j->dir) || fz_empty_dir(j->dir, r->fresh ? NULL : "corpus", 0) ||
	    fz_mkdir_p(path) || fz_mkdir_p(copy) ||
	    (!r->empty && fz_copy_files(r->seeds, copy, list, &j->nseeds))) {
		fprintf(stderr, "snafu %s: %s: cannot prepare: %s\n", r->name, j->dir,
			strerror(errno));
		exit(2);
	}
	for (int i = 0; r->p->cases_in_out && i < 4; i++) {
		fz_pathf(path, sizeof(path), "%s.%s", j->dir,
			 (const char *[]){"case", "report", "input", "confirmed.case"}[i]);
		unlink(path);
	}
	j->listed = fz_is_known(r, j->k->name, NULL);
}

/* With a budget and --keep-going or --known (a run that expects some findings and
 * looks for the others: CI's), one fuzzer process runs all of the budget, past every
 * finding (the fuzzer's --keep-going), and says when each signature first came.
 * Otherwise the first finding ends a fuzzer, as libFuzzer's own runs do, and its
 * executions are those to that finding; fork mode goes on by its -ignore_crashes. */
bool fz_keeps_going(const struct fuzz_run *r)
{
	return (r->runs || r->seconds) && !r->fork && (r->keep_going || r->known_file[0]);
}

/* The fuzzer's command line for job j, FUZZER shown as given. */
void fz_fuzzer_args(const struct fuzz_run *r, const char *fuzzer, const struct fuzz_job *j,
		    struct fz_args *a)
{
	fz_arg(a, "%s", fuzzer);
	fz_arg(a, "--kernel=%s", j->k->name);
	fz_arg(a, "--ops=%s", r->ops);
	if (fz_job_oracles(r, j))
		fz_arg(a, "--oracles=%s", fz_job_oracles(r, j));
	if (r->schedule)
		fz_arg(a, "--schedule=%s", r->schedule);
	if (r->icov)
		fz_arg(a, "--interleaving-coverage=%s", r->icov);
	if (r->joint >= 0)
		fz_arg(a, "--joint=%lld", r->joint);
	if (r->p->progress && !r->fork) /* fork mode's workers would each write it */
		fz_arg(a, "--progress=%s/progress", j->dir);
	if (fz_keeps_going(r)) /* past every finding, to the budget */
		fz_arg(a, "--keep-going=%s/", j->dir);
	if (r->runs)
		fz_arg(a, "-runs=%lld", r->runs);
	if (r->seconds)
		fz_arg(a, "-max_total_time=%lld", r->seconds);
	if (j->seed)
		fz_arg(a, "-seed=%llu", j->seed);
	fz_arg(a, "-reload=0"); /* see the top of fuzzdrv.c (the fuzzer's default too) */
	fz_arg(a, "-print_final_stats=1");
	if (r->fork) {
		fz_arg(a, "-fork=%ld", r->jobs);
		fz_arg(a, "-ignore_crashes=1");
	}
	fz_arg(a, "-artifact_prefix=%s/", j->dir);
	if (!r->fork && j->nseeds > 0) /* libFuzzer exits on an empty list */
		fz_arg(a, "-seed_inputs=@%s/seeds.txt", j->dir);
	for (int i = 0; i < r->nlf; i++)
		fz_arg(a, "%s", r->lf[i]);
	fz_arg(a, "%s/corpus", j->dir);
	if (r->fork)
		fz_arg(a, "%s/seeds", j->dir);
}

/* What the driver reads from a fuzzer's output on its way into OUT/KERNEL/fuzz.log (the
 * driver writes the log itself, every write checked: struct fz_sink), so that a log that
 * could not be written whole costs the log, not the executions or the findings. */
struct fz_after { /* --keep-going: "futex_mm_fuzzer: finding after N executions: SIG" */
	char sig[256];
	long long n;
};
struct fz_log {
	struct fz_sink sink;
	long long stat, last; /* the final stats' executions, the last "#N" line's; -1: none */
	bool done;            /* fork mode's "INFO: exiting: " */
	char token[256];      /* the first DEDUP_TOKEN */
	struct fz_after *after;
	int nafter;
};

/* "#1234: cov: ..." or "#1234\tNEW ...": 1234; else -1. */
static long long hash_count(const char *line)
{
	return line[0] == '#' && line[1] >= '0' && line[1] <= '9' ? strtoll(line + 1, NULL, 10)
								  : -1;
}

/* One line of the fuzzer's output. */
static void log_line(void *ctx, const char *line)
{
	static const char after[] = "futex_mm_fuzzer: finding after ";
	struct fz_log *l = ctx;
	char sig[256];
	long long n;

	if (!l->token[0] && !strncmp(line, "DEDUP_TOKEN: ", 13))
		snprintf(l->token, sizeof(l->token), "%.*s", (int)strcspn(line + 13, "\r"),
			 line + 13);
	else if (!strncmp(line, "stat::number_of_executed_units:", 31))
		l->stat = strtoll(line + 31, NULL, 10);
	else if (!strncmp(line, "INFO: exiting: ", 15))
		l->done = true;
	else if (hash_count(line) >= 0)
		l->last = hash_count(line);
	else if (!strncmp(line, after, sizeof(after) - 1) &&
		 sscanf(line + sizeof(after) - 1, "%lld executions: %255s", &n, sig) == 2) {
		l->after = realloc(l->after, (size_t)(l->nafter + 1) * sizeof(*l->after));
		if (!l->after)
			abort();
		snprintf(l->after[l->nafter].sig, sizeof(l->after[0].sig), "%s", sig);
		l->after[l->nafter++].n = n;
	}
}

static struct fz_log *log_of(const struct fuzz_run *r, const struct fuzz_job *j)
{
	return r->log ? r->log[j - r->job] : NULL;
}

/* Job j's fuzzer started, in a process group of its own, its output on its way to
 * OUT/KERNEL/fuzz.log. */
static void start(struct fuzz_run *r, struct fuzz_job *j)
{
	char log[PATH_LEN];
	struct fz_args a = {0};
	struct fz_log *l;
	int fd;

	if (!r->log && !(r->log = calloc((size_t)r->njobs, sizeof(*r->log))))
		abort();
	if (!(l = r->log[j - r->job] = calloc(1, sizeof(*l))))
		abort();
	*l = (struct fz_log){.stat = -1, .last = -1, .sink = {.line = log_line, .ctx = l}};
	fz_pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
	if (fz_sink_open(&l->sink, log, &fd)) {
		fprintf(stderr, "snafu %s: %s: cannot write: %s\n", r->name, log, strerror(errno));
		exit(2);
	}
	fz_fuzzer_args(r, r->fuzzer, j, &a);
	j->start = fz_now();
	j->pid = fz_spawn(a.v, fd, fd, true);
	j->state = RUNNING;
	close(fd);
	fz_args_free(&a);
}

/* From the fuzzer's output: the executions (the final stats, else the last "#N" line;
 * -1: none), the first DEDUP_TOKEN, and whether fork mode says it is done. */
long long fz_read_log(const struct fuzz_run *r, const struct fuzz_job *j, char *token, size_t len,
		      bool *done)
{
	const struct fz_log *l = log_of(r, j);

	snprintf(token, len, "%s", l ? l->token : "");
	*done = l && l->done;
	return !l ? -1 : l->stat >= 0 ? l->stat : l->last;
}

/* --keep-going: the executions to the first input with signature SIG, as the fuzzer
 * said; -1: it did not. */
long long fz_log_execs_to(const struct fuzz_run *r, const struct fuzz_job *j, const char *sig)
{
	const struct fz_log *l = log_of(r, j);

	for (int i = 0; l && i < l->nafter; i++)
		if (!strcmp(l->after[i].sig, sig))
			return l->after[i].n;
	return -1;
}

void fz_log_free(struct fuzz_run *r, const struct fuzz_job *j)
{
	struct fz_log *l = log_of(r, j);

	if (l) {
		free(l->after);
		free(l);
		r->log[j - r->job] = NULL;
	}
}

/* The fuzzer of job j has ended (or was stopped): the rest of its output into its log. */
static void log_close(const struct fuzz_run *r, const struct fuzz_job *j)
{
	struct fz_log *l = log_of(r, j);

	if (l)
		fz_sink_close(&l->sink);
}

/* The entries of DIR but its dot files; with ARTIFACTS, only the artifacts. */
long long fz_count_entries(const char *dir, bool artifacts)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	long long n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.' && (!artifacts || fz_is_artifact(e->d_name));
	if (d)
		closedir(d);
	return n;
}

/* The executions so far: the fuzzer's --progress file, else its last "#N" line. */
static long long executions_so_far(const struct fuzz_run *r, const struct fuzz_job *j)
{
	char path[PATH_LEN];
	const struct fz_log *l = log_of(r, j);
	long long n = -1;
	FILE *f;

	fz_pathf(path, sizeof(path), "%s/progress", j->dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	if (n < 0 && l)
		n = l->last;
	return n < 0 ? 0 : n;
}

/* A line for each running fuzzer: its time, executions, corpus and artifacts so far. */
static void progress(const struct fuzz_run *r)
{
	char path[PATH_LEN];

	for (int i = 0; i < r->njobs; i++) {
		const struct fuzz_job *j = &r->job[i];
		if (j->state != RUNNING)
			continue;
		long long el = (long long)(fz_now() - j->start), execs = executions_so_far(r, j);
		fz_pathf(path, sizeof(path), "%s/corpus", j->dir);
		fprintf(stderr,
			"%s: %s%s%llds, %lld executions, %lld/s, corpus %lld, findings %lld\n",
			r->name, r->njobs > 1 ? j->label : "", r->njobs > 1 ? ": " : "", el, execs,
			execs / (el > 0 ? el : 1), fz_count_entries(path, false),
			fz_count_entries(j->dir, true));
	}
}

/* The fuzzers' output, into their logs, for up to MS milliseconds or until some comes. */
static void pump_logs(const struct fuzz_run *r, int ms)
{
	struct pollfd *fds = malloc((size_t)r->njobs * sizeof(*fds));
	struct fz_log **ls = malloc((size_t)r->njobs * sizeof(*ls));
	int n = 0;

	if (!fds || !ls)
		abort();
	for (int i = 0; r->log && i < r->njobs; i++) {
		struct fz_log *l = r->log[i];
		if (l && r->job[i].state == RUNNING && l->sink.in >= 0) {
			ls[n] = l;
			fds[n++] = (struct pollfd){.fd = l->sink.in, .events = POLLIN};
		}
	}
	if (!n)
		nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
	else if (poll(fds, (nfds_t)n, ms) > 0)
		for (int i = 0; i < n; i++)
			if (fds[i].revents)
				fz_sink_pump(&ls[i]->sink);
	free(fds);
	free(ls);
}

/* How long a fuzzer told to stop has before it is killed: libFuzzer's SIGTERM handler
 * allocates, and waits forever for the allocator's lock when the signal came in malloc
 * (seen once in some seventy stops of an ASan build). */
#define STOP_GRACE_S 10

/* Wait for job j's fuzzer, told to stop, to end, its output into its log meanwhile (a
 * fuzzer that fills the pipe would wait for us as we wait for it). */
static void wait_pumping(const struct fuzz_run *r, const struct fuzz_job *j)
{
	double until = fz_now() + STOP_GRACE_S;
	bool killed = false;
	int status;
	pid_t w;

	while ((w = waitpid(j->pid, &status, WNOHANG)) == 0 || (w < 0 && errno == EINTR)) {
		if (!killed && fz_now() > until) {
			fprintf(stderr, "%s: the fuzzer on %s did not stop within %d s; killed\n",
				r->name, j->label, STOP_GRACE_S);
			kill(-j->pid, SIGKILL);
			killed = true;
		}
		pump_logs(r, 100);
	}
}

/* Ctrl-C or SIGTERM: every fuzzer stopped, what each did and found, exit 130. */
__attribute__((noreturn)) void fz_stop(struct fuzz_run *r)
{
	char token[256];
	bool done;

	for (int i = 0; i < r->njobs; i++)
		if (r->job[i].state == RUNNING)
			kill(-r->job[i].pid, SIGTERM);
	for (int i = 0; i < r->njobs; i++) {
		struct fuzz_job *j = &r->job[i];
		if (j->state == RUNNING)
			wait_pumping(r, j);
		if (j->state != RUNNING && j->state != STOPPED)
			continue;
		log_close(r, j);
		long long execs = fz_read_log(r, j, token, sizeof(token), &done);
		if (execs <= 0)
			execs = executions_so_far(r, j);
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
		fz_save_interrupted(r, j);
	}
	exit(130);
}

/* Every job's fuzzer, up to --jobs at once (fork mode: one), each finished as it ends
 * (fz_finish()); a progress line every 3 s. */
void fz_run_all(struct fuzz_run *r, struct fuzz_totals *t)
{
	int next = 0, running = 0;
	long parallel = r->fork ? 1 : r->jobs;
	double last = fz_now();

	while (next < r->njobs || running > 0) {
		while (!interrupted && next < r->njobs && running < parallel) {
			start(r, &r->job[next++]);
			running++;
		}
		if (interrupted)
			fz_stop(r);
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		for (int i = 0; pid > 0 && i < next; i++)
			if (r->job[i].pid == pid && r->job[i].state == RUNNING) {
				running--;
				log_close(r, &r->job[i]);
				r->job[i].state = interrupted ? STOPPED : DONE;
				if (!interrupted)
					fz_finish(r, &r->job[i], status, t);
				if (interrupted && r->job[i].state == DONE)
					r->job[i].state = STOPPED;
				if (r->job[i].state == DONE) /* fz_stop() reads a STOPPED one's */
					fz_log_free(r, &r->job[i]);
			}
		if (pid > 0)
			continue;
		if (pid < 0 && errno != EINTR) {
			fprintf(stderr, "snafu %s: waitpid: %s\n", r->name, strerror(errno));
			exit(2);
		}
		pump_logs(r, 100);
		if (r->p->progress && fz_now() - last >= 3 && !interrupted) {
			last = fz_now();
			progress(r);
		}
	}
}
