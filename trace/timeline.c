/* The timeline of one traced run: see timeline.h. One walk of the trace finds the
 * system calls, the holds, the waits and the arrows. */
#include "timeline.h"

#include "../prog/exec.h"
#include "../ref/kernel.h"
#include "../ref/report.h"

#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 8 /* hold tracks per task; more holds at once share the last one */

/* What the analysis keeps for each task while it walks the trace. */
struct task_walk {
	int syscall, wait; /* open spans, or -1 */
	int holds[MAX_HELD_LOCKS * 2], nholds;
	bool slot_busy[MAX_SLOTS];
	bool hold_after_wait; /* a contended down_*(): the lock is ours when the wait ends */
	const char *pending_fn, *pending_obj;
	unsigned pending_op;
	int flows[4], nflows; /* flows that end at this task's next event */
};

static bool is_spin(const struct sim_trace_ev *e)
{
	return e->fn && !strncmp(e->fn, "spin_", 5);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int add_span(struct timeline *m, enum span_kind kind, int task, int start, unsigned op,
		    const char *fn, const char *obj)
{
	struct span *s = &m->spans[m->nspans];

	*s = (struct span){.kind = kind,
			   .task = task,
			   .start = start,
			   .end = m->n,
			   .open = true,
			   .fn = fn,
			   .obj = obj,
			   .op = op};
	return m->nspans++;
}

static void close_span(struct timeline *m, int idx, int end)
{
	m->spans[idx].end = end;
	m->spans[idx].open = false;
}

static void open_hold(struct timeline *m, struct task_walk *w, int task, int at, unsigned op,
		      const char *fn, const char *obj)
{
	int slot = 0;

	while (slot < MAX_SLOTS - 1 && w->slot_busy[slot])
		slot++;
	w->slot_busy[slot] = true;
	if (slot + 1 > m->nslots[task])
		m->nslots[task] = slot + 1;
	int idx = add_span(m, SPAN_HOLD, task, at, op, fn, obj);
	m->spans[idx].slot = slot;
	if (w->nholds < (int)(sizeof(w->holds) / sizeof(w->holds[0])))
		w->holds[w->nholds++] = idx;
}

/* up_*() or spin_unlock(): the most recent hold of a lock of that name ends. */
static void close_hold(struct timeline *m, struct task_walk *w, int at, const char *obj)
{
	for (int i = w->nholds - 1; i >= 0; i--) {
		struct span *s = &m->spans[w->holds[i]];
		if (!same(s->obj, obj))
			continue;
		close_span(m, w->holds[i], at);
		w->slot_busy[s->slot] = false;
		memmove(&w->holds[i], &w->holds[i + 1],
			sizeof(w->holds[0]) * (size_t)(w->nholds - i - 1));
		w->nholds--;
		return;
	}
}

/* A down_read() or down_write() is traced when it is asked for. Does the task then sleep
 * for it (the lock is its own only when the wait ends), or is it granted at once? Only
 * the rwsem's wait_lock and scheduling points come between the call and the sleep. */
static bool goes_to_sleep(const struct timeline *m, int i)
{
	const struct sim_trace_ev *e = &m->ev[i];

	for (int j = i + 1; j < m->n; j++) {
		const struct sim_trace_ev *f = &m->ev[j];
		if (f->task != e->task || f->kind == EV_POINT || f->kind == EV_PREEMPT)
			continue;
		if ((f->kind == EV_LOCK || f->kind == EV_UNLOCK || f->kind == EV_SLEEP) &&
		    is_spin(f))
			continue;
		return f->kind == EV_SLEEP && same(f->fn, e->fn) && same(f->obj, e->obj);
	}
	return false;
}

static void end_wait(struct timeline *m, struct task_walk *w, int task, int at)
{
	if (w->wait < 0)
		return;
	const struct span *sp = &m->spans[w->wait];
	close_span(m, w->wait, at);
	w->wait = -1;
	/* not a spin on the rwsem's wait_lock on the way: the sleep for the rwsem itself */
	if (w->hold_after_wait && same(sp->fn, w->pending_fn) && same(sp->obj, w->pending_obj)) {
		w->hold_after_wait = false;
		open_hold(m, w, task, at, w->pending_op, w->pending_fn, w->pending_obj);
	}
}

static void add_flow(struct timeline *m, struct task_walk *to, int from, int from_task, int to_task,
		     bool wake)
{
	if (to->nflows == (int)(sizeof(to->flows) / sizeof(to->flows[0])))
		return;
	m->flows[m->nflows] = (struct flow){
	    .from = from, .to = -1, .from_task = from_task, .to_task = to_task, .wake = wake};
	to->flows[to->nflows++] = m->nflows++;
}

/* Walk the trace once: syscalls, holds, waits and arrows. */
static void walk_trace(struct timeline *m)
{
	struct task_walk walk[SIM_MAX_TASKS + 1];

	memset(walk, 0, sizeof(walk));
	for (int t = 0; t <= SIM_MAX_TASKS; t++)
		walk[t].syscall = walk[t].wait = -1;
	for (int i = 0; i < m->n; i++) {
		const struct sim_trace_ev *e = &m->ev[i];
		int t = e->task;
		if (t < 1 || t > m->ntasks)
			continue;
		struct task_walk *w = &walk[t];

		/* the task runs again: the arrows that wait for it end here */
		for (int f = 0; f < w->nflows; f++)
			m->flows[w->flows[f]].to = i;
		w->nflows = 0;
		/* A wait ends when a waker grants it (EV_WAKE, below), or else at the sleeper's
		 * next event of its own: a spinner's spin_lock, a timer, a wake-up that came
		 * before the sleep. Its schedule() point and a preemption there come first. */
		if (e->kind != EV_POINT && e->kind != EV_PREEMPT && e->kind != EV_SLEEP)
			end_wait(m, w, t, i);

		switch (e->kind) {
		case EV_SYSCALL:
			if (w->syscall >= 0)
				close_span(m, w->syscall, i);
			w->syscall = add_span(m, SPAN_SYSCALL, t, i, e->op, e->fn, e->obj);
			break;
		case EV_SYSRET:
			if (w->syscall >= 0) {
				close_span(m, w->syscall, i);
				m->spans[w->syscall].ret = e->arg;
				w->syscall = -1;
			}
			break;
		case EV_LOCK:
			if (is_spin(e) || strstr(e->fn, "trylock") || !goes_to_sleep(m, i)) {
				open_hold(m, w, t, i, e->op, e->fn, e->obj);
			} else {
				w->hold_after_wait = true;
				w->pending_fn = e->fn;
				w->pending_obj = e->obj;
				w->pending_op = e->op;
			}
			break;
		case EV_UNLOCK:
			close_hold(m, w, i, e->obj);
			break;
		case EV_SLEEP:
			end_wait(m, w, t, i);
			w->wait = add_span(m, SPAN_WAIT, t, i, e->op, e->fn, e->obj);
			break;
		case EV_WAKE:
			if (e->arg >= 1 && e->arg <= m->ntasks) {
				/* an rwsem wake-up hands the lock over: the wait ends here */
				end_wait(m, &walk[e->arg], (int)e->arg, i);
				add_flow(m, &walk[e->arg], i, t, (int)e->arg, true);
			}
			break;
		case EV_PREEMPT:
			if (e->arg >= 1 && e->arg <= m->ntasks)
				add_flow(m, &walk[e->arg], i, t, (int)e->arg, false);
			break;
		default:
			break;
		}
	}
}

struct task_struct *timeline_task(int id)
{
	return (struct task_struct *)sim_task(id);
}

bool timeline_label(const struct sim_trace_ev *e, char *buf, size_t len, int *indent)
{
	char cell[160];
	int sp = 0;

	if (!e->task || !report_cell(e, cell, sizeof(cell)))
		return false;
	while (cell[sp] == ' ')
		sp++;
	snprintf(buf, len, "%s", cell + sp);
	if (indent)
		*indent = sp;
	return true;
}

void timeline_task_calls(const struct timeline *m, int t, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int s = 0; s < m->nspans; s++) {
		const struct span *sp = &m->spans[s];
		bool seen = false;
		if (sp->kind != SPAN_SYSCALL || sp->task != t)
			continue;
		for (int r = 0; r < s && !seen; r++)
			seen = m->spans[r].kind == SPAN_SYSCALL && m->spans[r].task == t &&
			       same(m->spans[r].fn, sp->fn);
		if (seen || used + strlen(sp->fn) + 8 >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", sp->fn);
	}
}

const char *timeline_hold_mode(const struct span *sp)
{
	return !strncmp(sp->fn, "spin_", 5) ? "spin" : strstr(sp->fn, "read") ? "read" : "write";
}

int timeline_at(const struct timeline *m, int task, unsigned op, unsigned point)
{
	if (!op && !point)
		return -1; /* not recorded */
	for (int i = m->n - 1; i >= 0; i--)
		if (m->ev[i].task == task && m->ev[i].op == op && m->ev[i].point == point)
			return i;
	return -1;
}

int timeline_next_of(const struct timeline *m, int task, int i)
{
	for (int j = i + 1; j < m->n; j++)
		if (m->ev[j].task == task)
			return j;
	return -1;
}

static int at_of(const struct timeline *m, struct fo_view_at a)
{
	return timeline_at(m, a.task, a.op, a.point);
}

/* The syscall span of TASK around event I, or -1. */
static int syscall_around(const struct timeline *m, int task, int i)
{
	for (int s = 0; s < m->nspans; s++) {
		const struct span *sp = &m->spans[s];
		if (sp->kind == SPAN_SYSCALL && sp->task == task && sp->start <= i &&
		    (sp->open || sp->end >= i))
			return s;
	}
	return -1;
}

/* The finding's marks, from the oracle's books and lockdep's prediction: for a lost
 * wake-up, the wake call, the waiter it spent its wake-up on, the sleeper it passed over
 * or missed; for a wrong result, the call and the queue_me() calls that moved nqueued;
 * for a lockdep report, the acquisition and the hold of the held lock's class that was
 * open then (the prediction names the class and the function that took it, the trace
 * the place). */
static void mark_finding(struct timeline *m, const struct run_result *r)
{
	struct marks *k = &m->mk;

	k->kind = MARK_NONE;
	k->wake = k->spent = k->spent_read = k->spent_queued = k->sleeper_read = k->sleeper_queued =
	    k->sleeper_slept = k->eagain_at = k->call_span = k->acquire = k->held_span = -1;
	if (r->result == SIM_ORACLE && !strncmp(r->verdict, "lost-wakeup--", 13) &&
	    futex_oracle_lost(&k->lost)) {
		const struct fo_lost_view *v = &k->lost;
		k->kind = MARK_LOST_WAKEUP;
		k->wake = at_of(m, v->wake);
		if (!v->missed) {
			k->spent_read = at_of(m, v->spent_read);
			k->spent_queued = at_of(m, v->spent_queued);
			if (k->wake >= 0)
				k->spent = timeline_next_of(m, v->spent_read.task, k->wake);
		}
		k->sleeper_read = at_of(m, v->sleeper_read);
		k->sleeper_queued = at_of(m, v->sleeper_queued);
		k->sleeper_slept = at_of(m, v->sleeper_slept);
	} else if (r->result == SIM_ORACLE &&
		   !strcmp(r->verdict, "wrong-result--futex_cmp_requeue") &&
		   futex_oracle_wrong_result(&k->eagain)) {
		const struct fo_eagain_view *v = &k->eagain;
		k->kind = MARK_WRONG_RESULT;
		k->eagain_at = at_of(m, v->call);
		if (k->eagain_at >= 0)
			k->call_span = syscall_around(m, v->call.task, k->eagain_at);
		for (int i = 0; i < v->nqueuers; i++)
			k->queuer[i] = at_of(m, v->queuers[i]);
	} else if (r->result == SIM_PREDICTED && lockdep_prediction()->made) {
		const struct lockdep_prediction *p = lockdep_prediction();
		k->kind = MARK_LOCKDEP;
		k->pred = *p;
		k->acquire = timeline_at(m, p->task, p->op, p->point);
		for (int s = 0; k->acquire >= 0 && s < m->nspans; s++) {
			const struct span *sp = &m->spans[s];
			if (sp->kind == SPAN_HOLD && sp->task == p->task &&
			    same(sp->obj, p->locks[0]) && sp->start <= k->acquire &&
			    (sp->open || sp->end > k->acquire))
				k->held_span = s; /* the latest such: spans are in start order */
		}
	}
}

void timeline_build(struct timeline *m, const struct run_result *r)
{
	*m = (struct timeline){.ntasks = sim_ntasks()};
	m->ev = sim_trace_events(&m->n, &m->dropped);
	if (!m->ev)
		m->n = 0;
	/* an event opens at most two spans: a hold its wait granted, and its own */
	m->spans = calloc(2 * (size_t)m->n + 1, sizeof(*m->spans));
	m->flows = calloc((size_t)m->n + 1, sizeof(*m->flows));
	if (!m->spans || !m->flows)
		abort();
	walk_trace(m);
	m->ncycle = hung_task_cycle(m->cycle, m->cycle_fn, m->cycle_lock);
	mark_finding(m, r);
}

void timeline_free(struct timeline *m)
{
	free(m->spans);
	free(m->flows);
}
