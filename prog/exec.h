/* Running a program on a kernel: one task per program task, all sharing one mm. */
#ifndef SNAFU_EXEC_H
#define SNAFU_EXEC_H

#include "program.h"
#include "../ref/kernels.h"

struct run_opts {
	bool trace;            /* keep the event log, for the report */
	bool no_schedule;      /* ignore the program's preemptions */
	bool no_digest;        /* skip the trace digest: fastest, for the fuzzer */
	uint64_t stop_at_step; /* SIGTRAP at this scheduling point, for gdb; 0: never (sim) */
	/* real threads (snafu stress): loop every task's ops until time is up */
	bool loop;
	uint64_t seconds, hang_ms, chaos_seed;
};

struct run_result {
	enum sim_result result; /* SIM_OK, or how the run ended with a finding */
	uint64_t digest;        /* over every event of the run */
	uint64_t steps;
	int segv;            /* user-mode faults that got SIGSEGV */
	uint64_t iterations; /* rounds of their ops the tasks completed (loop mode) */
	/* each op's return value (the last one, for each-page ops); -ENOSYS... as Linux */
	long ret[PROG_MAX_OPS];
	bool ran[PROG_MAX_OPS]; /* whether the op ran to its return at all */
	/* the finding's signature, or "ok" */
	char verdict[160];
};

void prog_run(const struct program *p, const struct kernel_config *k, const struct run_opts *o,
	      struct run_result *r);

/* After a run with a finding: the full report (title, tasks, cycle, interleaving, token). */
void prog_report(FILE *out, const struct kernel_config *k);

#endif
