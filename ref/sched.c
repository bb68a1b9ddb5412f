/* kernel/sched.c, kernel/timer.c (schedule_timeout) and kernel/signal.c, 2.6.11:
 * sleeping, waking, signals, and might_sleep()'s checker (lockdep is ref/lockdep.c). */
#include "kernel.h"
#include "report.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

void schedule(void)
{
	kframe(); /* kernel/sched.c, schedule() */
	struct task_struct *tsk = current;

	if (unlikely(in_atomic() && tsk->state != TASK_RUNNING))
		kernel_bug("BUG: scheduling while atomic", "scheduling-while-atomic",
			   "%s sleeps with preempt_count %d", tsk->comm, tsk->preempt_count);
	sched_point("schedule");
	sim_touch_task(tsk, pid); /* its state word, which a waker writes */
	if (tsk->state == TASK_RUNNING)
		return; /* woken between setting the state and getting here */
	if (tsk->state == TASK_INTERRUPTIBLE && signal_pending(tsk)) {
		tsk->state = TASK_RUNNING;
		return;
	}
	sim_sleep(&tsk->state, SIM_NO_DEADLINE);
}

int64_t schedule_timeout(int64_t timeout)
{
	kframe(); /* kernel/timer.c, schedule_timeout() */
	struct task_struct *tsk = current;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	uint64_t expire = sim_now() + (uint64_t)timeout;
	sched_point("schedule_timeout");
	sim_touch_task(tsk, pid);
	if (tsk->state == TASK_RUNNING)
		return timeout;
	if (tsk->state == TASK_INTERRUPTIBLE && signal_pending(tsk)) {
		tsk->state = TASK_RUNNING;
		return timeout;
	}
	if (sim_sleep(&tsk->state, expire)) {
		tsk->state = TASK_RUNNING;
		return 0;
	}
	/* woken early: the remaining time, at least one tick so 0 still means "expired" */
	return expire > sim_now() ? (int64_t)(expire - sim_now()) : 1;
}

void wake_up_process(struct task_struct *p)
{
	sim_touch_task(p, pid); /* even when it runs: no event says so */
	if (atomic_exchange(&p->state, TASK_RUNNING) == TASK_RUNNING)
		return;
	sim_trace(EV_WAKE, "wake_up_process", p->comm, p->pid, 0);
	sim_wake(&p->sim);
}

/* kernel/signal.c, reduced to what a futex sleeper sees: a pending signal, and
 * signal_wake_up() for a task in an interruptible sleep. */
void send_sig(struct task_struct *p)
{
	p->sigpending = true;
	sim_trace(EV_SIGNAL, "send_sig", p->comm, p->pid, 0);
	if (p->state == TASK_INTERRUPTIBLE)
		wake_up_process(p);
}

void __might_sleep(const char *site)
{
	struct task_struct *tsk = current;

	if (unlikely(in_atomic())) {
		kframe(); /* kernel/sched.c, __might_sleep(): only its report can see it */
		char token[128];
		snprintf(token, sizeof(token), "sleep-in-atomic--%s", site);
		kernel_bug("BUG: sleeping function called from invalid context", token,
			   "in_atomic(): 1, preempt_count %d, %s (pid %d) in %s\n",
			   tsk->preempt_count, tsk->comm, tsk->pid, site);
	}
}

static __attribute__((noreturn)) void kernel_vbug(const char *title, const char *token,
						  const char *fmt, va_list ap)
{
	char buf[4096], trace[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	call_trace_text(current, trace, sizeof(trace)); /* the reporter's, as dump_stack() */
	finding_begin(title, token);
	/* a blank line before the Call Trace, unless the body ends in one */
	finding_printf("%s\n%s%s", buf,
		       trace[0] && buf[0] && buf[strlen(buf) - 1] != '\n' ? "\n" : "", trace);
	sim_stop(SIM_STOPPED);
}

void kernel_bug(const char *title, const char *token, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kernel_vbug(title, token, fmt, ap);
}

void contract_bug(const char *what, const char *rule, const char *fmt, ...)
{
	char title[96], token[128];
	va_list ap;

	snprintf(title, sizeof(title), "BUG: %s contract broken", what);
	snprintf(token, sizeof(token), "%s-contract--%s", what, rule);
	va_start(ap, fmt);
	kernel_vbug(title, token, fmt, ap);
}
