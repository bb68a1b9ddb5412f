/* The watchdog's judgement, in the spirit of kernel/hung_task.c and lockdep: when no task
 * can run and no timer is pending, find who waits for whom and name the bug; when the
 * tasks run but one never gets out of its call (the step budget), show its loop.
 *
 * Only tasks in uninterruptible sleep (rwsem waits) or spinning count as hung, as with
 * khungtaskd: a task sleeping interruptibly in futex_wait with no waker left is the user
 * program's business, and the run then simply ends.
 */
#include "report.h"
#include "rwsem.h"

#include <string.h>

static struct task_struct *task_of(int id)
{
	return (struct task_struct *)sim_task(id);
}

static bool is_rwsem_wait(const struct task_struct *t)
{
	return t->blocked_fn &&
	       (!strcmp(t->blocked_fn, "down_read") || !strcmp(t->blocked_fn, "down_write"));
}

static bool is_hung(const struct task_struct *t)
{
	return t->sim.state == SIM_BLOCKED && t->blocked_on &&
	       (t->state == TASK_UNINTERRUPTIBLE || !strcmp(t->blocked_fn, "spin_lock"));
}

static const struct held_lock *held_by(const struct task_struct *t, const void *lock)
{
	for (int i = 0; i < t->nheld; i++)
		if (t->held[i].lock == lock)
			return &t->held[i];
	return NULL;
}

/* edge[a][b]: task a cannot proceed until task b does something. */
static void wait_for_edges(bool edge[SIM_MAX_TASKS + 1][SIM_MAX_TASKS + 1], int n)
{
	memset(edge, 0, sizeof(bool) * (SIM_MAX_TASKS + 1) * (SIM_MAX_TASKS + 1));
	for (int a = 1; a <= n; a++) {
		struct task_struct *t = task_of(a);
		if (!is_hung(t))
			continue;
		for (int b = 1; b <= n; b++)
			if (b != a && held_by(task_of(b), t->blocked_on))
				edge[a][b] = true;
		if (is_rwsem_wait(t)) {
			/* fairness: everyone queued ahead of us must get the lock first */
			const struct rw_semaphore *sem = t->blocked_on;
			for (struct list_head *l = sem->wait_list.next; l != &sem->wait_list;
			     l = l->next) {
				struct rwsem_waiter *w = list_entry(l, struct rwsem_waiter, list);
				if (w->task == t)
					break;
				if (w->task)
					edge[a][w->task->pid] = true;
			}
		}
	}
}

static int find_cycle(bool edge[SIM_MAX_TASKS + 1][SIM_MAX_TASKS + 1], int n, int *cycle)
{
	/* tiny graphs: try each start, walk depth-first with an explicit path */
	for (int s = 1; s <= n; s++) {
		int path[SIM_MAX_TASKS + 1], next[SIM_MAX_TASKS + 1], depth = 0;
		bool on_path[SIM_MAX_TASKS + 1] = {false};
		path[0] = s;
		next[0] = 1;
		on_path[s] = true;
		while (depth >= 0) {
			int a = path[depth], b = next[depth]++;
			if (b > n) {
				on_path[a] = false;
				depth--;
				continue;
			}
			if (!edge[a][b])
				continue;
			if (b == s) {
				memcpy(cycle, path, sizeof(int) * (size_t)(depth + 1));
				return depth + 1;
			}
			if (on_path[b] || b < s)
				continue;
			path[++depth] = b;
			next[depth] = 1;
			on_path[b] = true;
		}
	}
	return 0;
}

/* The cycle the last deadlock finding was made of, for its picture (snafu trace). */
static int last_cycle[SIM_MAX_TASKS + 1], last_len;
static const char *last_fn[SIM_MAX_TASKS + 1], *last_lock[SIM_MAX_TASKS + 1];

int hung_task_cycle(int *tasks, const char **fns, const char **locks)
{
	/* every deadlock finding comes from check_hung_tasks(), which set the cycle */
	if (!finding.found || strncmp(finding.token, "deadlock--", 10))
		return 0;
	for (int i = 0; i < last_len; i++) {
		tasks[i] = last_cycle[i];
		fns[i] = last_fn[i];
		locks[i] = last_lock[i];
	}
	return last_len;
}

static const char *mode_of(const struct task_struct *t)
{
	return t->state == TASK_UNINTERRUPTIBLE ? "D" : t->state == TASK_INTERRUPTIBLE ? "S" : "R";
}

static void describe_task(struct task_struct *t, bool edge[SIM_MAX_TASKS + 1][SIM_MAX_TASKS + 1],
			  int n)
{
	finding_printf("%s (pid %d) state %s, in %s", t->comm, t->pid, mode_of(t),
		       t->syscall ? t->syscall : "user mode");
	if (t->sim.state == SIM_BLOCKED && t->blocked_on)
		finding_printf(", blocked in %s(%s) at %s\n", t->blocked_fn, t->blocked_name,
			       t->blocked_site);
	else
		finding_printf(t->sim.state == SIM_DONE ? ", exited\n" : "\n");
	if (t->nheld == 0)
		finding_printf("  holds no locks\n");
	for (int i = 0; i < t->nheld; i++)
		finding_printf("  holds #%d: %s (%s), taken at %s\n", i, t->held[i].name,
			       t->held[i].read ? "read" : "write", t->held[i].site);
	for (int b = 1; b <= n; b++) {
		if (!edge[t->pid][b])
			continue;
		struct task_struct *o = task_of(b);
		const struct held_lock *h = held_by(o, t->blocked_on);
		if (h)
			finding_printf("  waits for %s, which holds %s (%s) since %s\n", o->comm,
				       h->name, h->read ? "read" : "write", h->site);
		else
			finding_printf("  waits for %s, queued ahead of it in %s(%s)\n", o->comm,
				       o->blocked_fn, o->blocked_name);
	}
	if (t->sim.state != SIM_DONE)
		finding_call_trace(t);
}

/* Each rwsem the tasks of the cycle wait on (without a cycle: the hung tasks), once, as a
 * crash dump would show it: its activity and its wait list in order. */
static void describe_rwsems(const int *tasks, int len)
{
	const void *done[SIM_MAX_TASKS + 1];
	int ndone = 0;

	for (int i = 0; i < len; i++) {
		const struct task_struct *t = task_of(tasks[i]);
		char state[256];
		int k = 0;
		if (!is_hung(t) || !is_rwsem_wait(t))
			continue;
		while (k < ndone && done[k] != t->blocked_on)
			k++;
		if (k < ndone)
			continue;
		done[ndone++] = t->blocked_on;
		rwsem_state_text(t->blocked_on, state, sizeof(state));
		finding_printf("%s%s\n",
			       ndone == 1
				   ? "\nlock state (struct rw_semaphore, lib/rwsem-spinlock.c):\n  "
				   : "  ",
			       state);
	}
}

bool check_hung_tasks(void *ctx)
{
	bool edge[SIM_MAX_TASKS + 1][SIM_MAX_TASKS + 1];
	int n = sim_ntasks(), cycle[SIM_MAX_TASKS + 1], len;
	struct task_struct *culprit = NULL;
	char title[160], token[160];

	(void)ctx;
	for (int a = 1; a <= n && !culprit; a++)
		if (is_hung(task_of(a)))
			culprit = task_of(a);
	if (!culprit)
		return false;

	wait_for_edges(edge, n);
	len = find_cycle(edge, n, cycle);
	last_len = len;
	for (int i = 0; i < len; i++) {
		last_cycle[i] = cycle[i];
		last_fn[i] = task_of(cycle[i])->blocked_fn;
		last_lock[i] = task_of(cycle[i])->blocked_name;
	}
	if (len) {
		/* Name the bug after the task that waits for a lock it already holds (the
		 * recursive read), else after the first task of the cycle. */
		culprit = task_of(cycle[0]);
		for (int i = 0; i < len; i++) {
			struct task_struct *t = task_of(cycle[i]);
			if (held_by(t, t->blocked_on)) {
				culprit = t;
				break;
			}
		}
		const struct held_lock *h = held_by(culprit, culprit->blocked_on);
		snprintf(title, sizeof(title), "possible deadlock in %s", culprit->blocked_site);
		snprintf(token, sizeof(token), "deadlock--%s--%s", culprit->blocked_site,
			 h                  ? h->site
			 : culprit->syscall ? culprit->syscall
					    : "user");
	} else {
		snprintf(title, sizeof(title), "task hung in %s", culprit->blocked_site);
		snprintf(token, sizeof(token), "hung--%s--%s", culprit->blocked_site,
			 culprit->syscall ? culprit->syscall : "user");
	}
	finding_begin(title, token);
	for (int a = 1; a <= n; a++)
		describe_task(task_of(a), edge, n);
	if (len) {
		finding_printf("\nwait-for cycle:\n  ");
		for (int i = 0; i < len; i++) {
			struct task_struct *t = task_of(cycle[i]);
			finding_printf("%s --%s(%s)--> ", t->comm, t->blocked_fn, t->blocked_name);
		}
		finding_printf("%s\n", task_of(cycle[0])->comm);
		describe_rwsems(cycle, len);
	} else {
		int all[SIM_MAX_TASKS];
		finding_printf("\nno wait-for cycle: every task sleeps and nothing can wake the "
			       "uninterruptible ones\n");
		for (int a = 1; a <= n; a++)
			all[a - 1] = a;
		describe_rwsems(all, n);
	}
	return true;
}

/* --- a call that never returns: the step budget ------------------------------------ */

static bool same_event(const struct sim_trace_ev *a, const struct sim_trace_ev *b)
{
	return a->kind == b->kind && a->fn == b->fn && a->obj == b->obj && a->arg == b->arg &&
	       a->arg2 == b->arg2;
}

#define LOOP_MAX_EVENTS 512 /* the longest loop looked for, in events of the task */

/* The loop at the end of task id's events in the trace: the shortest period that the
 * last three rounds repeat, printed once as the task's column shows it, with how many
 * rounds the trace holds. Nothing where the run was not traced, or the end repeats
 * nothing. */
static void describe_loop(int id)
{
	static const struct sim_trace_ev *mine[3 * LOOP_MAX_EVENTS * 4];
	const int cap = (int)(sizeof(mine) / sizeof(mine[0]));
	int n, dropped, m = 0, period = 0, rounds;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	char buf[160];

	if (!ev) {
		finding_printf("\nthe loop: replay the case to see it (this run kept no trace)\n");
		return;
	}
	for (int i = n - 1; i >= 0 && m < cap; i--) /* the task's events, the last first */
		if (ev[i].task == id)
			mine[m++] = &ev[i];
	for (int p = 1; p <= LOOP_MAX_EVENTS && 3 * p <= m && !period; p++) {
		int j = 0;
		while (j < 2 * p && same_event(mine[j], mine[j + p]))
			j++;
		if (j == 2 * p)
			period = p;
	}
	if (!period) {
		finding_printf("\nno loop of at most %d events at the end of %s's trace\n",
			       LOOP_MAX_EVENTS, task_of(id)->comm);
		return;
	}
	int same = 2 * period;
	while (same + period < m && same_event(mine[same], mine[same + period]))
		same++;
	rounds = (same + period) / period;
	finding_printf("\nthe loop: %s went round it %d times in a row at the end of the "
		       "trace%s; one round, %d events, of which the interleaving shows these:\n",
		       task_of(id)->comm, rounds, m == cap || dropped ? " (or more)" : "", period);
	for (int j = period - 1; j >= 0; j--)
		if (report_cell(mine[j], buf, sizeof(buf)))
			finding_printf("  %s\n", buf);
}

void livelock_finding(int id, const char *call)
{
	bool none[SIM_MAX_TASKS + 1][SIM_MAX_TASKS + 1] = {{false}};
	struct task_struct *t = task_of(id);
	char title[160], token[160];
	int n = sim_ntasks();

	snprintf(title, sizeof(title), "livelock in %s: %s never returns", call, t->comm);
	snprintf(token, sizeof(token), "livelock--%s", call);
	finding_begin(title, token);
	finding_printf("%llu scheduling points and no end: %s has spent %u of them in its "
		       "%s, which never returned\n\n",
		       (unsigned long long)sim_steps(), t->comm, t->sim.op_points, call);
	for (int a = 1; a <= n; a++)
		describe_task(task_of(a), none, n);
	describe_loop(id);
}
