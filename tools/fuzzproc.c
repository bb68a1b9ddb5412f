/* The fuzzers as processes (tools/fuzzdrv.c): OUT's lock, each job's directory made
 * ready, a fuzzer's command line, the loop that starts them (up to --jobs at once), waits
 * for them and prints progress, and Ctrl-C or SIGTERM: every fuzzer stopped, exit 130. */
#include "fuzzdrv_int.h"

#include <errno.h>
#include <fcntl.h>
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
	if (r->joint)
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

/* Job j's fuzzer started, in a process group of its own, its output in OUT/KERNEL/fuzz.log. */
static void start(struct fuzz_run *r, struct fuzz_job *j)
{
	char log[PATH_LEN];
	struct fz_args a = {0};
	int fd;

	fz_pathf(log, sizeof(log), "%s/fuzz.log", j->dir);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
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

/* "#1234: cov: ..." or "#1234\tNEW ...": 1234; else -1. */
static long long hash_count(const char *line)
{
	return line[0] == '#' && line[1] >= '0' && line[1] <= '9' ? strtoll(line + 1, NULL, 10)
								  : -1;
}

/* From the log: the executions (the final stats, else the last "#N" line; -1: none),
 * the first DEDUP_TOKEN, and whether fork mode says it is done. */
long long fz_read_log(const struct fuzz_job *j, char *token, size_t len, bool *done)
{
	char path[PATH_LEN];
	char *line = NULL;
	size_t cap = 0;
	long long stat = -1, last = -1;
	FILE *f;

	fz_pathf(path, sizeof(path), "%s/fuzz.log", j->dir);
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

/* The executions so far: the fuzzer's --progress file, else the log's last "#N" line. */
static long long executions_so_far(const struct fuzz_job *j)
{
	char path[PATH_LEN], buf[8192];
	long long n = -1;
	FILE *f;

	fz_pathf(path, sizeof(path), "%s/progress", j->dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	fz_pathf(path, sizeof(path), "%s/fuzz.log", j->dir);
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

/* A line for each running fuzzer: its time, executions, corpus and artifacts so far. */
static void progress(const struct fuzz_run *r)
{
	char path[PATH_LEN];

	for (int i = 0; i < r->njobs; i++) {
		const struct fuzz_job *j = &r->job[i];
		if (j->state != RUNNING)
			continue;
		long long el = (long long)(fz_now() - j->start), execs = executions_so_far(j);
		fz_pathf(path, sizeof(path), "%s/corpus", j->dir);
		fprintf(stderr,
			"%s: %s%s%llds, %lld executions, %lld/s, corpus %lld, findings %lld\n",
			r->name, r->njobs > 1 ? j->label : "", r->njobs > 1 ? ": " : "", el, execs,
			execs / (el > 0 ? el : 1), fz_count_entries(path, false),
			fz_count_entries(j->dir, true));
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
			fz_wait_for(j->pid);
		if (j->state != RUNNING && j->state != STOPPED)
			continue;
		long long execs = fz_read_log(j, token, sizeof(token), &done);
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
				r->job[i].state = interrupted ? STOPPED : DONE;
				if (!interrupted)
					fz_finish(r, &r->job[i], status, t);
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
		if (r->p->progress && fz_now() - last >= 3 && !interrupted) {
			last = fz_now();
			progress(r);
		}
	}
}
