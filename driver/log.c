/* What the driver reads from the fuzzers' output on its way into OUT/KERNEL/fuzz.log (the
 * driver writes each log itself, every write checked: struct fz_sink, util.c): the
 * executions, the first DEDUP_TOKEN, --keep-going's findings; and what a job's directory
 * holds (its artifacts). Below the findings (findings.c) and the processes (process.c),
 * which both read it. */
#include "internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A log that could not be written whole costs the log, not the executions or the
 * findings. */
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

/* Job j's log opened (OUT/KERNEL/fuzz.log); the fuzzer's end of the pipe into it. */
int fz_log_open(struct fuzz_run *r, const struct fuzz_job *j)
{
	char log[PATH_LEN];
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
	return fd;
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
void fz_log_close(const struct fuzz_run *r, const struct fuzz_job *j)
{
	struct fz_log *l = log_of(r, j);

	if (l)
		fz_sink_close(&l->sink);
}

/* libFuzzer's files of an input that failed (and the fuzzer's finding- with --keep-going). */
bool fz_is_artifact(const char *name)
{
	static const char *const kinds[] = {"crash-", "finding-", "timeout-", "oom-", "leak-"};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(name, kinds[i], strlen(kinds[i])))
			return true;
	return false;
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

/* The last "#N" line's executions; -1: none. */
long long fz_log_last(const struct fuzz_run *r, const struct fuzz_job *j)
{
	const struct fz_log *l = log_of(r, j);

	return l ? l->last : -1;
}

/* The fuzzers' output, into their logs, for up to MS milliseconds or until some comes. */
void fz_pump_logs(const struct fuzz_run *r, int ms)
{
	struct pollfd *fds = malloc((size_t)r->njobs * sizeof(*fds));
	struct fz_log **ls = malloc((size_t)r->njobs * sizeof(*ls));
	int n = 0;

	if (!fds || !ls)
		abort();
	for (int i = 0; r->log && i < r->njobs; i++) {
		struct fz_log *l = r->log[i];
		if (l && r->job[i].state == FZ_RUNNING && l->sink.in >= 0) {
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
