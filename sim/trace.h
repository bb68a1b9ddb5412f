/* Where each event of the trace happened, beside the event log (sim/trace.c): the model
 * says where the current task is through a hook (ref/report.c: the two innermost frames
 * of its shadow call stack, ref/kernel.h's kframe()), and the log keeps that per event,
 * for the source column of `snafu replay --trace`. The sim knows the names only as
 * strings; only a kept log (sim_tracing) asks, so the fuzzer and the digest never do,
 * and the digest does not change. Real threads (sim/native.c) keep no log. */
#ifndef SNAFU_SIM_TRACE_H
#define SNAFU_SIM_TRACE_H

#include "sim.h"

/* The current task's innermost frame and the one around it (NULL: none). */
struct sim_trace_where {
	const char *inner, *outer;
};

/* A trace event's kind (enum sim_event) as a word: "point", "syscall", ...; "event" if
 * out of range. */
static inline const char *sim_event_name(int kind)
{
	static const char *const names[] = {
	    [EV_POINT] = "point",     [EV_SYSCALL] = "syscall", [EV_SYSRET] = "return",
	    [EV_LOCK] = "lock",       [EV_TRYFAIL] = "tryfail", [EV_UNLOCK] = "unlock",
	    [EV_SLEEP] = "sleep",     [EV_WAKE] = "wake",       [EV_UACCESS] = "uaccess",
	    [EV_FAULT] = "fault",     [EV_USER] = "user",       [EV_SIGNAL] = "signal",
	    [EV_PREEMPT] = "preempt", [EV_TIMER] = "timer",     [EV_NOTE] = "note",
	};

	return kind >= 0 && kind <= EV_NOTE ? names[kind] : "event";
}

#ifndef SNAFU_NATIVE
/* Set by the model: fills in where the current task is (no current task: the timer). */
extern void (*sim_trace_where_hook)(struct sim_trace_where *w);
/* Beside sim_trace_events(): where each event kept happened (NULL with no log). */
const struct sim_trace_where *sim_trace_wheres(void);
#else
static inline const struct sim_trace_where *sim_trace_wheres(void)
{
	return NULL;
}
#endif

#endif
