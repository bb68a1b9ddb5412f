/* The timeline of one traced run, for snafu trace's writers (tools/trace_json.c,
 * tools/trace_html.c): every task's system calls, the locks it holds and the waits it
 * sleeps or spins in as spans between two trace events, the arrows from waker to wakee
 * and from a preempted task to the one the schedule switched to, and the wait-for cycle
 * of a deadlock. Built from the simulator's trace (sim_trace_events()) after a run. */
#ifndef SNAFU_TIMELINE_H
#define SNAFU_TIMELINE_H

#include "../sim/sim.h"

#include <stdbool.h>
#include <stddef.h>

struct task_struct;

enum span_kind { SPAN_SYSCALL, SPAN_HOLD, SPAN_WAIT };

/* An interval of one task's life, between two trace events. */
struct span {
	enum span_kind kind;
	int task;
	int start, end;  /* event indices; end == n when the run ended first */
	bool open;       /* still running, held or waited for when the run ended */
	int slot;        /* holds: the track (JSON) or bar column (HTML) beside the task's */
	const char *fn;  /* sys_futex; down_read, spin_lock; what the task waits in */
	const char *obj; /* the syscall's details; the lock */
	long ret;        /* syscalls: the return value */
	unsigned op;     /* the task's op it began in */
};

/* An arrow from one task to another: a wake-up, or the schedule switching tasks. */
struct flow {
	int from, to; /* event indices: the wake (or preemption), the wakee's next event */
	int from_task, to_task;
	bool wake;
};

struct timeline {
	const struct sim_trace_ev *ev;
	int n, dropped, ntasks;
	struct span *spans;
	int nspans;
	struct flow *flows;
	int nflows;
	int nslots[SIM_MAX_TASKS + 1];
	int ncycle, cycle[SIM_MAX_TASKS + 1];
	const char *cycle_fn[SIM_MAX_TASKS + 1], *cycle_lock[SIM_MAX_TASKS + 1];
};

/* The timeline of the run that just ended: M's arrays are allocated; timeline_free. */
void timeline_build(struct timeline *m);
void timeline_free(struct timeline *m);

/* Task ID of the run (1..ntasks). */
struct task_struct *timeline_task(int id);
/* The cell text of the report's table without its indentation (*INDENT, when not NULL,
 * gets its width); false if the event has no row. */
bool timeline_label(const struct sim_trace_ev *e, char *buf, size_t len, int *indent);
/* "sys_mmap2, sys_futex": the system calls task T made, each once. */
void timeline_task_calls(const struct timeline *m, int t, char *buf, size_t len);
/* A hold's mode: "spin", "read" or "write". */
const char *timeline_hold_mode(const struct span *sp);

#endif
