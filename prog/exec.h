/* Running a program on a kernel: one task per program task, all sharing one mm. */
#ifndef SNAFU_EXEC_H
#define SNAFU_EXEC_H

#include "oracle.h"
#include "program.h"
#include "../ref/kernels.h"

/* The kernel every command runs without --kernel: the unfixed one. */
#define SNAFU_DEFAULT_KERNEL "2.6.11-rc4"

struct run_opts {
	bool trace;       /* keep the event log, for the report */
	bool no_schedule; /* ignore the program's preemptions */
	bool no_digest;   /* skip the trace digest: fastest, for the fuzzer */
	unsigned oracles; /* what counts as a finding: ORACLE_* bits; 0: ORACLES_DEFAULT */
	/* lockdep checks the run even where its prediction is no finding (oracles without
	 * ORACLE_LOCKDEP): lockdep_prediction() tells after the run, the verdict does not
	 * (the fuzzer's lockdep-steered search, fuzz/joint.c) */
	bool lockdep_guide;
	uint64_t stop_at_step; /* SIGTRAP at this scheduling point, for gdb; 0: never (sim) */
	bool mm_digest;        /* fill run_result.mm_digest (snafu explore --check-reduction) */
	/* real threads (snafu stress): loop every task's ops until time is up */
	bool loop;
	uint64_t seconds, hang_ms, chaos_seed;
	/* real threads: called every progress_ms of wall time with the rounds done so far */
	uint64_t progress_ms;
	void (*progress)(uint64_t now_ms, uint64_t iterations);
};

struct run_result {
	/* SIM_OK, or how the run ended with a finding (SIM_ORACLE: an end-of-run oracle's) */
	enum sim_result result;
	uint64_t digest;    /* over every event of the run */
	uint64_t mm_digest; /* mm_state_digest() at the end (run_opts.mm_digest), else 0 */
	uint64_t steps;
	int segv;            /* user-mode faults that got SIGSEGV */
	uint64_t iterations; /* rounds of their ops the tasks completed (loop mode) */
	/* each op's return value (the last one, for each-page ops); -ENOSYS... as Linux */
	long ret[PROG_MAX_OPS];
	bool ran[PROG_MAX_OPS]; /* whether the op ran to its return at all */
	/* what each load read (0 after a SIGSEGV; the last run for each-page); 0 for other
	 * ops (tests/differential compares it with the host's) */
	uint32_t loaded[PROG_MAX_OPS];
	/* the finding's signature, or "ok" */
	char verdict[160];
	/* the schedule (simulator): what became of each of the program's preemptions, and
	 * how many did not fire; none with no_schedule */
	int npreempts, unfired;
	struct sim_preempt_status pre[SIM_MAX_PREEMPTS];
	/* a PCT schedule (program.pct): the preemptions it made, which replay the run */
	int nmade;
	struct sim_preempt made[SIM_MAX_PREEMPTS];
};

void prog_run(const struct program *p, const struct kernel_config *k, const struct run_opts *o,
	      struct run_result *r);

/* A program with a PCT schedule: run it on k (with the oracles ORACLES, as
 * run_opts.oracles) and put the preemptions it made in its place, so that the program
 * runs the same with those alone. A program without one is left as it is. */
void prog_resolve_schedule(struct program *p, const struct kernel_config *k, unsigned oracles);

/* Why preemption i of p did not fire in the run r gave: "task 1's op 2 has only 23
 * points", ... (one phrase, no newline). */
void prog_unfired_why(const struct program *p, const struct run_result *r, int i, char *buf,
		      size_t len);

/* A futex_wake_op op's system call arguments: sets its two wake counts and returns the
 * encoded operation, FUTEX_OP() of op, shift, oparg, cmp and cmparg (the one place that
 * says how; tests/differential passes the same to the host). */
int prog_wake_op_args(const struct op *o, int *nr_wake, int *nr_wake2);
/* A futex op's command: cmd (FUTEX_WAIT, ...), with FUTEX_PRIVATE_FLAG where the op
 * says `private` (tests/differential passes the same to the host) */
int prog_futex_cmd(const struct op *o, int cmd);

/* After a run with a finding: the full report (title, tasks, cycle, interleaving, token). */
void prog_report(FILE *out, const struct kernel_config *k);

#endif
