/* The timeline of one traced run, for snafu trace's writers (trace/json.c,
 * trace/html.c): every task's system calls, the locks it holds and the waits it
 * sleeps or spins in as spans between two trace events, the arrows from waker to wakee
 * and from a preempted task to the one the schedule switched to, and the wait-for cycle
 * of a deadlock. Built from the simulator's trace (sim_trace_events()) after a run. */
#ifndef SNAFU_TIMELINE_H
#define SNAFU_TIMELINE_H

#include "../ref/futex_oracle.h"
#include "../ref/lockdep.h"
#include "../sim/sim.h"

#include <stdbool.h>
#include <stddef.h>

struct task_struct;
struct run_result;

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

/* What the run's finding was made of, as the oracle recorded it (ref/futex_oracle.h's
 * views) or lockdep predicted it (lockdep_prediction()), placed on the trace: each place
 * op.point of a task is the last event of that task at that op.point (-1: not in the
 * trace, or not recorded). */
enum mark_kind {
	MARK_NONE,
	MARK_LOST_WAKEUP,  /* lost-wakeup--absorbed/missed--futex_wait (lost.missed) */
	MARK_WRONG_RESULT, /* wrong-result--futex_cmp_requeue */
	MARK_LOCKDEP,      /* lockdep--...: the report's acquisition and the held lock */
};

struct marks {
	enum mark_kind kind;
	/* MARK_LOST_WAKEUP */
	struct fo_lost_view lost;
	int wake;           /* the wake call, where it walked the chain */
	int spent;          /* absorbed: the spent-on task's next event after the wake */
	int spent_read;     /* absorbed: its read (not its val) */
	int spent_queued;   /* absorbed: its queue_me() */
	int sleeper_read;   /* the sleeper's read of its val: waiting from there */
	int sleeper_queued; /* its queue_me() (missed: after the wake) */
	int sleeper_slept;  /* its sleep: asleep from there to the end of the run */
	/* MARK_WRONG_RESULT */
	struct fo_eagain_view eagain;
	int eagain_at;                   /* where the call found nqueued moved and chose -EAGAIN */
	int call_span;                   /* the FUTEX_CMP_REQUEUE's syscall span (-1: none) */
	int queuer[FO_VIEW_MAX_QUEUERS]; /* each queue_me() that moved nqueued */
	/* MARK_LOCKDEP */
	struct lockdep_prediction pred;
	int acquire;   /* the acquisition lockdep reported */
	int held_span; /* the hold of the held lock's class open then (-1: none drawn) */
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
	struct marks mk;
};

/* The timeline of the run R that just ended: M's arrays are allocated; timeline_free.
 * The marks of R's finding (R's verdict: a lost wake-up, a wrong result, a lockdep
 * report) come from the oracle's books and lockdep's prediction of that run. */
void timeline_build(struct timeline *m, const struct run_result *r);
void timeline_free(struct timeline *m);

/* Task ID of the run (1..ntasks). */
struct task_struct *timeline_task(int id);
/* The cell text of the report's table without its indentation (*INDENT, when not NULL,
 * gets its width); false if the event has no row. */
bool timeline_label(const struct sim_trace_ev *e, char *buf, size_t len, int *indent);
/* "sys_mmap2, sys_futex": the system calls task T made, each once. */
void timeline_task_calls(const struct timeline *m, int t, char *buf, size_t len);
/* The last event of TASK at OP.POINT, or -1. */
int timeline_at(const struct timeline *m, int task, unsigned op, unsigned point);
/* TASK's first event after event I, or -1. */
int timeline_next_of(const struct timeline *m, int task, int i);
/* A hold's mode: "spin", "read" or "write". */
const char *timeline_hold_mode(const struct span *sp);

#endif
