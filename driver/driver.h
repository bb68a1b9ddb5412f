/* The fuzz driver (driver/drive.c): libFuzzer on one kernel or several, progress, the
 * artifacts sorted by signature, the new findings minimized and saved, one table, the
 * optional merge into the seed corpus. `snafu fuzz` is the driver with every option;
 * `snafu evaluate` (tools/evaluate.c), fuzz/run.sh and ci/fuzz.sh are the driver with
 * other defaults. Below the commands (tools/), above cli/ and search/. */
#ifndef SNAFU_DRIVER_H
#define SNAFU_DRIVER_H

#include "../prog/oracle.h"
#include "../ref/kernels.h"

#include <stdbool.h>
#include <sys/types.h>

#define FUZZ_PATH  4096
/* a table's columns at most: the kernel, a column per oracle, a last one (explore) */
#define FUZZ_CELLS (NR_ORACLES + 2)

/* The options a command built on the driver takes (struct fuzz_plan's opts). */
enum {
	FUZZ_KERNEL = 1u << 0,
	FUZZ_RUNS = 1u << 1,
	FUZZ_SECONDS = 1u << 2,
	FUZZ_JOBS = 1u << 3,
	FUZZ_FORK = 1u << 4,
	FUZZ_OPS = 1u << 5,
	FUZZ_SEED = 1u << 6,
	FUZZ_FRESH = 1u << 7,
	FUZZ_OUT = 1u << 8,
	FUZZ_FOUND = 1u << 9,
	FUZZ_KNOWN = 1u << 10,
	FUZZ_MERGE = 1u << 11, /* --merge, --no-merge, --merge-into=DIR */
	FUZZ_FUZZER = 1u << 12,
	FUZZ_MARKDOWN = 1u << 13,
	FUZZ_LIBFUZZER = 1u << 14,  /* libFuzzer's own -NAME=VALUE flags */
	FUZZ_ORACLES = 1u << 15,    /* --oracles=LIST, to the fuzzer, replay and minimize */
	FUZZ_SEARCH = 1u << 16,     /* --schedule=pct|preempt, --interleaving-coverage=0|1 */
	FUZZ_SEEDS = 1u << 17,      /* --seeds=N: per_oracle, N seeds a cell, --seed on */
	FUZZ_KEEP_GOING = 1u << 18, /* --keep-going: past every finding, to the budget */
};

/* One signature found on one kernel. */
struct fuzz_finding {
	char sig[256];
	char input[FUZZ_PATH]; /* the smallest artifact with it (the first by name of those) */
	long long size;
	int count;       /* artifacts with it */
	long long execs; /* the executions to its first input (-1: not known, as in fork mode) */
	bool model;      /* snafu replays it to this finding: it is minimized */
	bool known;      /* listed in --known for this kernel */
	char base[FUZZ_PATH];     /* saved as BASE.input and BASE.report; "": not saved */
	char casefile[FUZZ_PATH]; /* BASE.case, the minimized case; "": none */
	/* a lockdep prediction (lockdep--...) that snafu confirm tried: 1 confirmed, into
	 * BASE.confirmed.case (confirmed), -1 not confirmed ("predicted only"); 0: not tried */
	int confirm;
	char confirmed[FUZZ_PATH];
	char deadlock[256]; /* the confirmed case's verdict */
};

/* One kernel's fuzzer and what came of it. */
struct fuzz_job {
	const struct kernel_config *k;
	const char *oracle; /* per_oracle: the one oracle it runs (its name); NULL: the run's */
	unsigned long long seed; /* libFuzzer's -seed (0: libFuzzer picks) */
	int seed_index;          /* 0..seeds-1: its seed is --seed plus this */
	int seeds;       /* libFuzzer seeds of its kernel and oracle (--seeds=N; else 1): not the
			    seed inputs (nseeds) */
	char label[112]; /* "KERNEL", "KERNEL, oracle NAME[, seed S]": messages */
	/* OUT/KERNEL, or OUT/KERNEL/ORACLE (the first seed's), OUT/KERNEL/ORACLE.seed-S (the
	 * others': --seeds) */
	char dir[FUZZ_PATH];
	pid_t pid; /* while it runs */
	int state; /* internal */
	double start, secs;
	long long execs;        /* -1: unknown */
	bool error;             /* the fuzzer failed without an artifact: why says how */
	char why[48];           /* "exit 3", "signal 9" */
	bool listed;            /* --known lists this kernel */
	bool went_on;           /* the fuzzer went on past its findings (fz_keeps_going()) */
	int nseeds;             /* in OUT/KERNEL/seeds.txt */
	struct fuzz_finding *f; /* by signature, in strcmp() order */
	int nf, nknown, nnew;
};

/* The job's first finding (the fewest executions to it; the first by signature where
 * they are not known), and the executions to it (the job's own where not known); NULL
 * and the job's executions when it found nothing. */
const struct fuzz_finding *fuzz_first(const struct fuzz_job *j, long long *execs);

/* What a plan's before and after callbacks see of the run. */
struct fuzz_info {
	const char *name;           /* the command's */
	const struct fuzz_job *job; /* every job (after: done, the findings saved) */
	int njobs;
	long jobs;           /* --jobs */
	const char *oracles; /* --oracles=LIST as given; NULL: the default set */
	const char *out;     /* --out=DIR */
	const char *seeds;   /* the seed corpus, SOURCE/corpus/futex_mm_fuzzer */
};

/* A command built on the driver: its name, its options and their defaults, its table. */
struct fuzz_plan {
	const char *name;        /* "fuzz", "evaluate": messages, the command line shown */
	unsigned opts;           /* FUZZ_*: the options it takes */
	long long runs;          /* -runs (0: none) */
	const char *ops;         /* --ops */
	unsigned long long seed; /* -seed (0: libFuzzer picks) */
	bool all_kernels;        /* every kernel, else SNAFU_DEFAULT_KERNEL */
	bool fresh;              /* an empty corpus each run */
	bool progress;           /* a progress line every 3 s (--progress=FILE to the fuzzer) */
	bool judge;              /* a finding not in --known is NEW: printed in full, exit 1 */
	bool cases_in_out;       /* every finding saved as OUT/KERNEL.{case,report,input} */
	/* one job per kernel, oracle and seed (each oracle alone: --oracles=NAME; with
	 * FUZZ_SEEDS, --seeds=N jobs with the seeds S..S+N-1), one row per kernel with a
	 * column per oracle: the row callback gets the kernel's jobs, by oracle, then by
	 * seed; the cases go to OUT/KERNEL/ORACLE.{case,report,input} (the first seed's),
	 * OUT/KERNEL/ORACLE.seed-S.{case,report,input} (the others') */
	bool per_oracle;
	const char *out_name;         /* --out's default: this name beside snafu's directory */
	const char *head[FUZZ_CELLS]; /* the table's columns (per_oracle: the first; then
					 the oracles' names) */
	int right;                    /* the one aligned right (-1: none) */
	/* a row of the table from the N jobs at J (1, or per_oracle: the kernel's) */
	void (*row)(const struct fuzz_job *j, int n, char cells[FUZZ_CELLS][FUZZ_PATH],
		    bool code[FUZZ_CELLS]);
	/* The command's own options beside the driver's (NULL: none): option(ARG, ARGN) is
	 * true when it took argument ARGN, ARG (a bad value: die_usage()); option_shown
	 * lists them in the error line of an unknown argument; option_line appends them, as
	 * set, to the command line shown. */
	bool (*option)(const char *arg, int argn);
	const char *const *option_shown; /* NULL-terminated */
	void (*option_line)(char *buf, size_t len);
	/* Called (when not NULL) after the arguments are parsed and the jobs made, before
	 * any fuzzer runs (exit 2 there on bad input: nothing has run); and after every
	 * fuzzer has ended and its findings are saved, before the table: false when it
	 * failed (the exit status of a fuzzer that failed). */
	void (*before)(const struct fuzz_info *info);
	bool (*after)(const struct fuzz_info *info);
	/* per_oracle: the header of a column after the oracles' (NULL, or NULL returned:
	 * none); the row callback fills it */
	const char *(*tail)(void);
};

struct fuzz_totals {
	int findings; /* signatures, over every kernel */
	int unknown;  /* of those, not in --known (judge only) */
	int errors;   /* fuzzers that failed without an artifact */
};

/* Parse the command's arguments (bad usage: one line, exit 2), fuzz, save, print the
 * table; exit 130 when interrupted. */
struct fuzz_totals fuzz_drive(const struct fuzz_plan *plan, int argc, char **argv);

/* Whether Ctrl-C (SIGINT) or SIGTERM has come since fuzz_drive() started: an after
 * callback stops its work and returns (the driver then exits 130). */
bool fuzz_interrupted(void);

/* Append to BUF (LEN bytes in all) as printf does, cut where it is full: for a plan's row
 * callback. */
__attribute__((format(printf, 3, 4))) void fz_appendf(char *buf, size_t len, const char *fmt, ...);

#endif
