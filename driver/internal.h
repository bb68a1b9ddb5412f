/* The fuzz driver's own interface: what its files (driver/, drive.c says which does
 * what) share, and nothing outside them includes. Each file calls only those listed
 * before it here, never one after: util, options, log, report, findings, process, merge,
 * drive. */
#ifndef SNAFU_DRIVER_INTERNAL_H
#define SNAFU_DRIVER_INTERNAL_H

#include "driver.h"

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PATH_LEN FUZZ_PATH

struct known {
	char kernel[64], sig[256];
};

struct fz_log; /* what the driver reads from a fuzzer's output (log.c) */

/* Everything about one run: the options, where things are, the kernels' jobs. */
struct fuzz_run {
	const struct fuzz_plan *p;
	const char *name;
	long long runs, seconds;
	long jobs;
	bool fork, fresh, merge, markdown;
	bool empty;      /* --empty: not even the seed corpus */
	bool keep_going; /* --keep-going (also on with --known): see fz_keeps_going() */
	const char *ops;
	const char *oracles;         /* --oracles=LIST as given; NULL: the default set */
	const char *schedule, *icov; /* --schedule=, --interleaving-coverage=; NULL: the fuzzer's */
	long long joint;             /* --joint=N; 0: off; -1: not given (the fuzzer's) */
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
	struct fz_log **log; /* by job: while it runs, and until its findings are sorted */
};

/* An argument vector built with printf formats. */
struct fz_args {
	char **v;
	int n, cap;
};

/* A child's output copied into a file by the driver itself, every write checked: a
 * write that fails is said in one line (the file, what failed), the file is removed (a
 * log is whole or not there), the output is still read to its end (the child never
 * blocks on it) and handed to LINE, line by line, and fz_unwritten() counts it for the
 * exit status. util.c. */
struct fz_sink {
	int in;  /* the pipe's read end (non-blocking); -1: at its end */
	int out; /* the file; -1: closed, or given up */
	long long written;
	char path[PATH_LEN];
	void (*line)(void *ctx, const char *line); /* NULL: nobody reads it */
	void *ctx;
	size_t len;     /* of the line so far in buf */
	char buf[4096]; /* a longer line is handed over cut */
};
int fz_sink_open(struct fz_sink *s, const char *path, int *child_fd);
bool fz_sink_pump(struct fz_sink *s);
void fz_sink_close(struct fz_sink *s);
int fz_unwritten(void);
void fz_ignore_xfsz(void);

/* util.c: the plumbing (fz_set_name() also drive.c's); Ctrl-C (fuzz_interrupted() is
 * driver.h's) */
void fz_set_name(const char *name); /* the command, for the error lines of the plumbing */
double fz_now(void);
__attribute__((format(printf, 3, 4))) void fz_pathf(char *buf, size_t len, const char *fmt, ...);
const char *fz_shown(const char *path);
bool fz_is_dir(const char *path);
int fz_mkdir_p(const char *path);
int fz_empty_dir(const char *dir, const char *keep, int depth);
int fz_copy_file(const char *from, const char *to);
char *fz_slurp(const char *path);
void fz_print_tail(FILE *out, const char *path, int n);
struct dirent **fz_files_of(const char *dir, int *n);
void fz_free_names(struct dirent **names, int n);
int fz_copy_files(const char *from, const char *to, const char *list, int *n);
__attribute__((format(printf, 2, 3))) void fz_arg(struct fz_args *a, const char *fmt, ...);
void fz_args_free(struct fz_args *a);
pid_t fz_spawn(char *const argv[], int out, int err, bool group);
int fz_wait_for(pid_t pid);
int fz_run_to(struct fz_args *a, const char *path, bool errors);
int fz_run_into(struct fz_args *a, const char *path, bool errors, bool *written);
char *fz_capture(struct fz_args *a);
void fz_status_text(int status, char *buf, size_t len);
void fz_set_up_process(const struct fuzz_run *r);
void fz_clear_interrupted(void);

/* options.c: the options, and the fuzzer's command line from them */
void fz_parse(struct fuzz_run *r, int argc, char **argv);
void fz_check_libfuzzer_flags(const struct fuzz_run *r);
void fz_read_known(struct fuzz_run *r);
bool fz_is_known(const struct fuzz_run *r, const char *k, const char *sig);
void fz_locate(struct fuzz_run *r);
void fz_writable_dir(const struct fuzz_run *r, const char *dir, const char *what);
const char *fz_job_oracles(const struct fuzz_run *r, const struct fuzz_job *j);
void fz_make_jobs(struct fuzz_run *r);
void fz_command_line(const struct fuzz_run *r, char *buf, size_t len);
bool fz_keeps_going(const struct fuzz_run *r);
void fz_fuzzer_args(const struct fuzz_run *r, const char *fuzzer, const struct fuzz_job *j,
		    struct fz_args *a);

/* log.c: what the driver reads from the fuzzers' output, and of their artifacts */
enum fz_state { FZ_WAITING, FZ_RUNNING, FZ_STOPPED, FZ_DONE }; /* struct fuzz_job's state */
int fz_log_open(struct fuzz_run *r, const struct fuzz_job *j);
void fz_pump_logs(const struct fuzz_run *r, int ms);
void fz_log_close(const struct fuzz_run *r, const struct fuzz_job *j);
long long fz_read_log(const struct fuzz_run *r, const struct fuzz_job *j, char *token, size_t len,
		      bool *done);
long long fz_log_execs_to(const struct fuzz_run *r, const struct fuzz_job *j, const char *sig);
long long fz_log_last(const struct fuzz_run *r, const struct fuzz_job *j);
void fz_log_free(struct fuzz_run *r, const struct fuzz_job *j);
bool fz_is_artifact(const char *name);
long long fz_count_entries(const char *dir, bool artifacts);

/* report.c: what is printed */
void fz_show(const struct fuzz_run *r, const struct fuzz_job *j, const struct fuzz_finding *f);
void fz_print_opening(const struct fuzz_run *r);
void fz_print_closing(const struct fuzz_run *r, const struct fuzz_totals *t, const char *cmd,
		      double wall);

/* findings.c: the findings (fuzz_first() is driver.h's) */
void fz_replay_verdicts(const struct fuzz_run *r, const struct kernel_config *k, char **files,
			int n, char (*verdicts)[256], const char *scratch, const char *oracles);
void fz_finish(struct fuzz_run *r, struct fuzz_job *j, int status, struct fuzz_totals *t);
void fz_save_interrupted(struct fuzz_run *r, struct fuzz_job *j);

/* process.c: the fuzzers as processes */
void fz_lock_out(const struct fuzz_run *r);
void fz_prepare(struct fuzz_run *r, struct fuzz_job *j);
__attribute__((noreturn)) void fz_stop(struct fuzz_run *r);
void fz_run_all(struct fuzz_run *r, struct fuzz_totals *t);

/* merge.c */
bool fz_merge(struct fuzz_run *r);

#endif
