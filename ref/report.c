/* Findings and their reports: the title, the checker's body, the interleaving as one
 * column per task (like the LWN article's table), and the DEDUP_TOKEN line. */
#include "report.h"
#include "kernel.h"

#include "../sim/trace.h"

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

/* buf[n...] = s, as much as fits; the new length. (No printf: a run whose verdict is
 * lockdep's report formats its backtrace, and bench_replay makes thousands of them.) */
static size_t put(char *buf, size_t len, size_t n, const char *s)
{
	size_t l = strlen(s);

	if (n + 1 >= len)
		return n;
	if (l > len - 1 - n)
		l = len - 1 - n;
	memcpy(buf + n, s, l);
	buf[n + l] = 0;
	return n + l;
}

/* The Call Trace of a task, innermost first, from its shadow call stack (ref/kernel.h,
 * kframe()) and the syscall it is in, as 2.6.11 prints a task's stack (SysRq-T's
 * show_task() and an oops: show_stack() in arch/i386/kernel/traps.c prints "Call Trace:",
 * then show_trace()'s print_context_stack() a line " [<%08lx>] " and print_symbol()'s
 * "name+0xoff/0xsize" for each return address). The model has no addresses and no code
 * layout: an address or an offset made up for the line would look real and mean
 * nothing, and would differ between builds. So each line keeps the kernel's shape with
 * the address zeroed, " [<0>] down_read", as the kernel itself prints a frame whose
 * address it hides (/proc/PID/stack without CAP_SYS_ADMIN), and no offset. The names
 * are 2.6.11's at the source's level: down_read() and get_user() are an inline and a
 * macro there, whose real frames would read __down_read (lib/rwsem-spinlock.c) and
 * __get_user_4 (arch/i386/lib/getuser.S). */
void kstack_text(const struct kstack *ks, const char *syscall, char *buf, size_t len)
{
	unsigned depth = ks->depth, kept = depth < KSTACK_DEPTH ? depth : KSTACK_DEPTH;
	size_t n = 0;

	buf[0] = 0;
	if (!depth && !syscall)
		return;
	n = put(buf, len, n, "Call Trace:\n");
	for (unsigned i = 0; i < kept; i++) {
		n = put(buf, len, n, " [<0>] ");
		n = put(buf, len, n, ks->frame[(depth - 1 - i) % KSTACK_DEPTH]);
		n = put(buf, len, n, "\n");
	}
	if (depth > kept && n + 1 < len)
		n += (size_t)snprintf(buf + n, len - n, " ... %u outer frames not kept\n",
				      depth - kept);
	if (syscall && n < len) {
		n = put(buf, len, n, " [<0>] ");
		n = put(buf, len, n, syscall);
		put(buf, len, n, "\n");
	}
}

void call_trace_text(const struct task_struct *t, char *buf, size_t len)
{
	if (t)
		kstack_text(&t->kstack, t->syscall, buf, len);
	else
		buf[0] = 0;
}

/* --- the 2.6.11 source of an event (ref/kernel.h's KFRAME_SOURCES) --- */

static const struct ksource {
	const char *name, *file, *fn; /* fn NULL: a macro, its caller's */
} ksources[] = {
#define KSRC(name, file)        {#name, file, #name},
#define KSRC_AS(name, file, fn) {#name, file, #fn},
#define KSRC_MACRO(name, file)  {#name, file, NULL},
    KFRAME_SOURCES(KSRC, KSRC_AS, KSRC_MACRO)
#undef KSRC
#undef KSRC_AS
#undef KSRC_MACRO
};

static const struct ksource *ksource_of(const char *name)
{
	for (size_t i = 0; name && i < sizeof(ksources) / sizeof(ksources[0]); i++)
		if (!strcmp(ksources[i].name, name))
			return &ksources[i];
	return NULL;
}

const char *kframe_source(const char *inner, const char *outer, char *buf, size_t len)
{
	const struct ksource *k = ksource_of(inner);

	if (!inner)
		return "-";
	if (k && !k->fn && outer) { /* a macro: where it was used */
		inner = outer;
		k = ksource_of(outer);
	}
	if (!k)
		snprintf(buf, len, "?%s", inner);
	else
		snprintf(buf, len, "%s:%s", k->file, k->fn ? k->fn : k->name);
	return buf;
}

#ifndef SNAFU_NATIVE
/* sim/trace.h's hook: where the current task is, as the two innermost frames of its
 * shadow call stack, the syscall it is in below them. Set once, at load. */
static void kstack_where(struct sim_trace_where *w)
{
	const struct task_struct *t = (const struct task_struct *)sim_current();
	unsigned d = t ? t->kstack.depth : 0;

	if (!t)
		return;
	w->inner = d ? t->kstack.frame[(d - 1) % KSTACK_DEPTH] : t->syscall;
	w->outer = d > 1 ? t->kstack.frame[(d - 2) % KSTACK_DEPTH] : d ? t->syscall : NULL;
}

__attribute__((constructor)) static void kstack_where_init(void)
{
	sim_trace_where_hook = kstack_where;
}
#endif

void finding_call_trace(const struct task_struct *t)
{
	char trace[1024];

	call_trace_text(t, trace, sizeof(trace));
	finding_printf("%s", trace);
}

#define COL 40

/* The lock that a preemption at a lock function ("[preempted at spin_unlock: ...]") hit:
 * the object of the same task's lock event at that function, which the trace records
 * just before the point (spin_unlock: the unlock comes first) or just after it (every
 * other lock function: its point comes first). NULL if e is not in the trace's log or
 * the event is not there (downgrade_write() records none). */
static const char *preempted_lock(const struct sim_trace_ev *e)
{
	static const char *const lock_fns[] = {
	    "spin_lock",         "spin_unlock",        "down_read", "down_write",
	    "down_read_trylock", "down_write_trylock", "up_read",   "up_write",
	};
	int n, dropped, i, step;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	bool lock_fn = false;

	for (size_t k = 0; k < sizeof(lock_fns) / sizeof(lock_fns[0]) && e->fn; k++)
		lock_fn |= !strcmp(e->fn, lock_fns[k]);
	if (!lock_fn || !ev || (uintptr_t)e < (uintptr_t)ev || (uintptr_t)e >= (uintptr_t)(ev + n))
		return NULL;
	step = strcmp(e->fn, "spin_unlock") ? 1 : -1;
	for (i = (int)(e - ev) + step; i >= 0 && i < n; i += step) {
		const struct sim_trace_ev *p = &ev[i];
		if (p->task != e->task || p->kind == EV_POINT || p->kind == EV_PREEMPT)
			continue;
		if ((p->kind == EV_LOCK || p->kind == EV_UNLOCK || p->kind == EV_TRYFAIL ||
		     p->kind == EV_SLEEP) &&
		    p->fn && p->obj && !strcmp(p->fn, e->fn))
			return p->obj;
		return NULL;
	}
	return NULL;
}

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
	case EV_PREEMPT: {
		const char *lock = preempted_lock(e);
		if (lock)
			snprintf(buf, len, "  [preempted at %s(%s): T%ld runs]", e->fn, lock,
				 e->arg);
		else
			snprintf(buf, len, "  [preempted at %s: T%ld runs]", e->fn, e->arg);
		return true;
	}
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
