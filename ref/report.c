/* Findings and their reports: the title, the checker's body, the interleaving as one
 * column per task (like the LWN article's table), and the DEDUP_TOKEN line. */
#include "report.h"
#include "kernel.h"

#include <stdarg.h>
#include <string.h>

struct finding finding;

void finding_reset(void)
{
	finding.found = false;
	finding.len = 0;
	finding.body[0] = 0;
}

void finding_begin(const char *title, const char *token)
{
	finding_reset();
	finding.found = true;
	snprintf(finding.title, sizeof(finding.title), "%s", title);
	snprintf(finding.token, sizeof(finding.token), "%s", token);
}

void finding_printf(const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(finding.body) - finding.len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(finding.body + finding.len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		finding.len += (size_t)n < room ? (size_t)n : room - 1;
}

#define COL 40

/* One cell of the table, or false if the event is not worth a row. Spinlocks and bare
 * scheduling points stay in the trace (`snafu replay --trace`) but not in the table. */
bool report_cell(const struct sim_trace_ev *e, char *buf, size_t len)
{
	bool spin = e->fn && !strncmp(e->fn, "spin_", 5);

	switch (e->kind) {
	case EV_SYSCALL:
		snprintf(buf, len, "%s(%s)", e->fn, e->obj ? e->obj : "");
		return true;
	case EV_SYSRET:
		if (e->arg > 0xffff)
			snprintf(buf, len, "  = 0x%lx", e->arg);
		else
			snprintf(buf, len, "  = %ld", e->arg);
		return true;
	case EV_LOCK:
		if (spin)
			return false;
		snprintf(buf, len, "%s(%s)", e->fn, e->obj);
		return true;
	case EV_TRYFAIL:
		snprintf(buf, len, "%s(%s) fails", e->fn, e->obj);
		return true;
	case EV_UNLOCK:
		if (spin)
			return false;
		snprintf(buf, len, "%s(%s)", e->fn, e->obj);
		return true;
	case EV_SLEEP:
		if (spin)
			snprintf(buf, len, "  (spins on %s)", e->obj);
		else
			snprintf(buf, len, "  (goes to sleep in %s)", e->fn);
		return true;
	case EV_WAKE:
		snprintf(buf, len, "  wakes %s", e->obj);
		return true;
	case EV_UACCESS:
		snprintf(buf, len, "%s(0x%lx)", e->fn, e->arg);
		return true;
	case EV_FAULT:
		snprintf(buf, len, "  do_page_fault(0x%lx, %s)", e->arg, e->obj);
		return true;
	case EV_USER:
		snprintf(buf, len, "user %s 0x%lx", e->fn, e->arg);
		return true;
	case EV_SIGNAL:
		snprintf(buf, len, "%s %s", e->fn, e->obj);
		return true;
	case EV_PREEMPT:
		snprintf(buf, len, "  [preempted at %s: T%ld runs]", e->fn, e->arg);
		return true;
	case EV_TIMER:
		snprintf(buf, len, "  (timer fires, t=%ld)", e->arg);
		return true;
	case EV_NOTE:
		snprintf(buf, len, "%s", e->obj);
		return true;
	default:
		return false;
	}
}

void report_interleaving(FILE *out, int max_rows)
{
	int n, dropped, ntasks = sim_ntasks(), rows = 0, first = 0;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	char buf[160];

	if (!ev) {
		fprintf(out, "(no trace recorded)\n");
		return;
	}
	for (int i = n - 1; i >= 0; i--) {
		if (report_cell(&ev[i], buf, sizeof(buf)) && ev[i].task) {
			if (rows == max_rows) {
				first = i + 1;
				break;
			}
			rows++;
		}
	}
	for (int t = 1; t <= ntasks; t++)
		fprintf(out, "%-*s", COL, ((struct task_struct *)sim_task(t))->comm);
	fprintf(out, "\n");
	for (int t = 1; t <= ntasks; t++)
		fprintf(out, "%-*s", COL, "--");
	fprintf(out, "\n");
	if (first || dropped) {
		int skipped = dropped;
		for (int i = 0; i < first; i++)
			skipped += report_cell(&ev[i], buf, sizeof(buf)) && ev[i].task;
		fprintf(out, "(%d earlier events not shown)\n", skipped);
	}
	for (int i = first; i < n; i++) {
		if (!ev[i].task || !report_cell(&ev[i], buf, sizeof(buf)))
			continue;
		fprintf(out, "%*s%s\n", (ev[i].task - 1) * COL, "", buf);
	}
}

void report_print(FILE *out, const char *kernel)
{
	fprintf(out, "==================================================================\n");
	fprintf(out, "%s\n", finding.title);
	fprintf(out, "kernel %s, virtual time %llu, %llu scheduling points\n", kernel,
		(unsigned long long)sim_now(), (unsigned long long)sim_steps());
	fprintf(out, "------------------------------------------------------------------\n");
	fputs(finding.body, out);
	fprintf(out, "\ninterleaving:\n");
	report_interleaving(out, 60);
	fprintf(out, "==================================================================\n");
	fprintf(out, "DEDUP_TOKEN: %s\n", finding.token);
}
