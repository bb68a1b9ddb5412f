/* The fuzzers as processes (driver/drive.c): OUT's lock, each job's directory made
 * ready, a fuzzer's command line, the loop that starts them (up to --jobs at once), copies
 * their output into their logs, waits for them and prints progress, and Ctrl-C or
 * SIGTERM: every fuzzer stopped, exit 130. */
#include "internal.h"

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

/* Job j's fuzzer started, in a process group of its own, its output on its way to
 * OUT/KERNEL/fuzz.log. */
static void start(struct fuzz_run *r, struct fuzz_job *j)
{
	struct fz_args a = {0};
	int fd = fz_log_open(r, j);

	fz_fuzzer_args(r, r->fuzzer, j, &a);
	j->start = fz_now();
	j->pid = fz_spawn(a.v, fd, fd, true);
	j->state = FZ_RUNNING;
	close(fd);
	fz_args_free(&a);
}

/* The executions so far: the fuzzer's --progress file, else its last "#N" line. */
static long long executions_so_far(const struct fuzz_run *r, const struct fuzz_job *j)
{
	char path[PATH_LEN];
	long long n = -1;
	FILE *f;

	fz_pathf(path, sizeof(path), "%s/progress", j->dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	if (n < 0)
		n = fz_log_last(r, j);
	return n < 0 ? 0 : n;
}

/* A line for each running fuzzer: its time, executions, corpus and artifacts so far. */
static void progress(const struct fuzz_run *r)
{
	char path[PATH_LEN];

	for (int i = 0; i < r->njobs; i++) {
		const struct fuzz_job *j = &r->job[i];
		if (j->state != FZ_RUNNING)
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
		fz_pump_logs(r, 100);
	}
}

/* Ctrl-C or SIGTERM: every fuzzer stopped, what each did and found, exit 130. */
__attribute__((noreturn)) void fz_stop(struct fuzz_run *r)
{
	char token[256];
	bool done;

	for (int i = 0; i < r->njobs; i++)
		if (r->job[i].state == FZ_RUNNING)
			kill(-r->job[i].pid, SIGTERM);
	for (int i = 0; i < r->njobs; i++) {
		struct fuzz_job *j = &r->job[i];
		if (j->state == FZ_RUNNING)
			wait_pumping(r, j);
		if (j->state != FZ_RUNNING && j->state != FZ_STOPPED)
			continue;
		fz_log_close(r, j);
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
		while (!fuzz_interrupted() && next < r->njobs && running < parallel) {
			start(r, &r->job[next++]);
			running++;
		}
		if (fuzz_interrupted())
			fz_stop(r);
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);
		for (int i = 0; pid > 0 && i < next; i++)
			if (r->job[i].pid == pid && r->job[i].state == FZ_RUNNING) {
				running--;
				fz_log_close(r, &r->job[i]);
				r->job[i].state = fuzz_interrupted() ? FZ_STOPPED : FZ_DONE;
				if (!fuzz_interrupted())
					fz_finish(r, &r->job[i], status, t);
				if (fuzz_interrupted() && r->job[i].state == FZ_DONE)
					r->job[i].state = FZ_STOPPED;
				/* fz_stop() reads a stopped one's */
				if (r->job[i].state == FZ_DONE)
					fz_log_free(r, &r->job[i]);
			}
		if (pid > 0)
			continue;
		if (pid < 0 && errno != EINTR) {
			fprintf(stderr, "snafu %s: waitpid: %s\n", r->name, strerror(errno));
			exit(2);
		}
		fz_pump_logs(r, 100);
		if (r->p->progress && fz_now() - last >= 3 && !fuzz_interrupted()) {
			last = fz_now();
			progress(r);
		}
	}
}
