/* Findings: what a checker saw, kept until the run ends and the report is printed. */
#ifndef SNAFU_REPORT_H
#define SNAFU_REPORT_H

#include <stdbool.h>
#include <stdio.h>

struct sim_trace_ev;

struct finding {
	bool found;
	char title[160]; /* "possible deadlock in do_page_fault" */
	char token[160]; /* the signature: "deadlock--do_page_fault--futex_wait" */
	char body[8192]; /* tasks, held locks, the wait-for cycle */
	size_t len;
};

extern struct finding finding;

void finding_reset(void);
void finding_begin(const char *title, const char *token);
void finding_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The task's Call Trace (call_trace_text(), ref/kernel.h) onto the finding's body. */
struct task_struct;
void finding_call_trace(const struct task_struct *t);

/* ref/hung_task.c: the watchdog's judgement when no task can run (sim's on_hang). */
bool check_hung_tasks(void *ctx);
/* The wait-for cycle of the current deadlock finding: its length (0: none), and for
 * each task in order the function and lock it waits in; tasks[i] waits for tasks[i + 1],
 * the last for the first. The arrays hold SIM_MAX_TASKS + 1. */
int hung_task_cycle(int *tasks, const char **fns, const char **locks);

/* The step budget ran out with task id still in its call `call` (the op's name): the
 * finding "livelock--CALL", each task as for a deadlock, and the loop the task's end of
 * the trace repeats (a traced run). */
void livelock_finding(int id, const char *call);

/* Print the finding with the interleaving table and the DEDUP_TOKEN line. */
void report_print(FILE *out, const char *kernel);
/* One cell of the interleaving table for a traced event, or false if the event gets no
 * row there (spinlocks, bare scheduling points). */
bool report_cell(const struct sim_trace_ev *e, char *buf, size_t len);
/* The interleaving as one column per task (needs a traced run). */
void report_interleaving(FILE *out, int max_rows);

#endif
