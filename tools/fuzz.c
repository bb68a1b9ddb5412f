/* snafu fuzz: the fuzz driver (driver/) with every option; its table has a row per
 * kernel. */
#include "commands.h"

#include "../driver/driver.h"
#include "../prog/exec.h" /* SNAFU_DEFAULT_KERNEL */

#include <stdio.h>

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
		fz_appendf(c[2], FUZZ_PATH, "%s%s (%s%s)", i ? ", " : "", f->sig, when,
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

static const char *const fuzz_value_opts[] = {"--kernel",     "--runs",
					      "--seconds",    "--jobs",
					      "--ops",        "--oracles",
					      "--seed",       "--out",
					      "--found",      "--known",
					      "--merge-into", "--fuzzer",
					      "--schedule",   "--interleaving-coverage",
					      "--joint",      NULL};

static const char fuzz_help[] =
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
    "                          result, integrity, lockdep, comma-separated (default:\n"
    "                          all five); passed to the fuzzer, snafu replay and\n"
    "                          snafu minimize; snafu confirm runs on each new lockdep\n"
    "                          prediction\n"
    "      --schedule=pct|preempt  the kind of schedule the fuzzer writes (default pct)\n"
    "      --interleaving-coverage=0|1  feedback on what the schedule did (default 0)\n"
    "      --joint=N           the joint search: each program that reaches new code\n"
    "                          gets snafu explore's search of its schedules (up to 2\n"
    "                          preemptions, in a random order), at most N runs (5N for\n"
    "                          a contended futex word, with the lost-wakeup or result\n"
    "                          oracle), each counted as an execution (default 30; 0:\n"
    "                          off)\n"
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

static int cmd_fuzz(int argc, char **argv)
{
	struct fuzz_totals t = fuzz_drive(&fuzz_plan, argc, argv);

	/* a result that could not be written is lost: that outranks a new finding */
	return t.errors ? 2 : t.unknown ? 1 : 0;
}

const struct cli_command fuzz_command = {"fuzz", cmd_fuzz, false, fuzz_value_opts, fuzz_help};
