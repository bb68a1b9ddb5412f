/* lib/rwsem-spinlock.c, 2.6.11.
 *
 * Fairness is the whole bug: a new locker queues behind anything already waiting,
 * readers included, so a reader that already holds the semaphore and asks again
 * sleeps behind a queued writer that waits for it. Two kernels of the 2005 debate
 * change the admission here (kernels.h): rwsem-lockdepth lets a task that holds the
 * semaphore for read in again at once; rwsem-reader-pref admits readers whenever no
 * writer is active.
 */
#include "rwsem.h"
#include "kernels.h"

#include <string.h>

void init_rwsem(struct rw_semaphore *sem, const char *name)
{
	sem->activity = 0;
	spin_lock_init(&sem->wait_lock, "&sem->wait_lock");
	INIT_LIST_HEAD(&sem->wait_list);
	sem->name = name;
	sem->writers = 0;
	memset(sem->read_depth, 0, sizeof(sem->read_depth));
	sem->sets_pf_mmap_sem = false;
}

enum rwsem_break rwsem_test_break;

/* The contract, broken: "BUG: rwsem contract broken", token rwsem-contract--RULE. The
 * rules, each checked under wait_lock where the decision is made (as lockdep checks its
 * own state with DEBUG_LOCKS_WARN_ON), on every kernel unless said:
 *   reader-with-writer         a reader let in while a writer holds it
 *   reader-past-queued-writer  a reader let in at once while a writer waits (a fair
 *                              rwsem: every kernel but rwsem-reader-pref, which admits
 *                              readers whenever no writer holds it, by design)
 *   writer-not-alone           a writer let in while anyone holds it
 *   granted-but-queued         a waiter granted the lock still on the wait list
 * (rwsem-lockdepth's re-entry of a reader that holds it already is no admission.) */
__attribute__((noinline, noreturn)) static void rwsem_bug(const struct rw_semaphore *sem,
							  const char *rule, const char *what)
{
	char state[256];

	rwsem_state_text(sem, state, sizeof(state));
	contract_bug("rwsem", rule,
		     "%s: %s\n%s (pid %d) (lib/rwsem-spinlock.c, 2.6.11: %s)\nlock state: %s\n",
		     sem->name, what, current->comm, current->pid, kcfg->name, state);
}

/* As a crash dump shows the semaphore (struct rw_semaphore's activity and wait_list, in
 * queue order): "&mm->mmap_sem: activity 1, wait_list: T2 (write), T1 (read)". A list
 * longer than the tasks can make (a broken one) is cut short. */
void rwsem_state_text(const struct rw_semaphore *sem, char *buf, size_t len)
{
	const struct list_head *l = sem->wait_list.next;
	size_t n =
	    (size_t)snprintf(buf, len, "%s: activity %d, wait_list:", sem->name, sem->activity);
	int k;

	for (k = 0; l != &sem->wait_list && l && n < len; l = l->next, k++) {
		const struct rwsem_waiter *w = list_entry(l, struct rwsem_waiter, list);
		const struct task_struct *t = w->task;
		if (k == SIM_MAX_TASKS) {
			n += (size_t)snprintf(buf + n, len - n, ", ...");
			break;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s %s (%s)", k ? "," : "",
				      t ? t->comm : "(granted)",
				      w->flags & RWSEM_WAITING_FOR_WRITE ? "write" : "read");
	}
	if (!k && n < len)
		snprintf(buf + n, len - n, " empty");
}

static bool writer_queued(const struct rw_semaphore *sem)
{
	const struct list_head *p;

	for (p = sem->wait_list.next; p != &sem->wait_list; p = p->next)
		if (list_entry(p, struct rwsem_waiter, list)->flags & RWSEM_WAITING_FOR_WRITE)
			return true;
	return false;
}

/* A reader let in at once, under wait_lock. */
static void reader_in(struct rw_semaphore *sem)
{
	if (unlikely(sem->activity < 0))
		rwsem_bug(sem, "reader-with-writer", "a reader let in while a writer holds it");
	if (unlikely(kcfg->rwsem != RWSEM_READER_PREF && writer_queued(sem)))
		rwsem_bug(sem, "reader-past-queued-writer",
			  "a reader let in at once past a queued writer on a fair rwsem");
	sem->activity++;
}

/* A writer let in, under wait_lock: at once, or from the queue. */
static void writer_in(struct rw_semaphore *sem)
{
	if (unlikely(sem->activity != 0))
		rwsem_bug(sem, "writer-not-alone", "a writer let in while the lock is held");
	sem->activity = -1;
	sem->writers++;
}

/* Can a reader enter at once? 2.6.11: only if no writer is active and nobody waits. */
static bool read_admits(const struct rw_semaphore *sem)
{
	if (kcfg->rwsem == RWSEM_READER_PREF || rwsem_test_break == RWSEM_BREAK_FAIRNESS)
		return sem->activity >= 0;
	return sem->activity >= 0 && list_empty(&sem->wait_list);
}

/* Can a writer enter at once? Only if nobody holds it and nobody waits. */
static bool write_admits(const struct rw_semaphore *sem)
{
	return (sem->activity == 0 || rwsem_test_break == RWSEM_BREAK_WRITER) &&
	       list_empty(&sem->wait_list);
}

/* Bookkeeping after the lock is ours and before it goes: the held-lock stack (a read as
 * lockdep annotates it on this kernel: ref/lockdep.c), and the PF_MMAP_SEM flag for the
 * pf-mmap-sem kernel. */
static void got_it(struct rw_semaphore *sem, const char *site, bool read, bool trylock)
{
	struct task_struct *tsk = current;

	lock_acquired(sem, sem->name, 0, site, read ? lockdep_rwsem_read() : LD_WRITE, trylock);
	if (sem->sets_pf_mmap_sem && tsk->mmap_sem_depth++ == 0)
		tsk->flags |= PF_MMAP_SEM;
}

static void giving_it_up(struct rw_semaphore *sem)
{
	struct task_struct *tsk = current;

	lock_released(sem);
	if (sem->sets_pf_mmap_sem && --tsk->mmap_sem_depth == 0)
		tsk->flags &= ~PF_MMAP_SEM;
}

/* Grant the lock to waiters at the head of the queue: a writer alone, or every
 * consecutive reader up to the first writer. wakewrite == 0 wakes readers only. */
static void __rwsem_do_wake(struct rw_semaphore *sem, int wakewrite)
{
	kframe(); /* lib/rwsem-spinlock.c, __rwsem_do_wake() */
	struct rwsem_waiter *waiter = list_entry(sem->wait_list.next, struct rwsem_waiter, list);
	struct task_struct *tsk;
	int woken = 0;

	if (waiter->flags & RWSEM_WAITING_FOR_WRITE) {
		if (!wakewrite)
			return;
		writer_in(sem);
		if (rwsem_test_break != RWSEM_BREAK_UNLINK)
			list_del(&waiter->list);
		tsk = waiter->task;
		waiter->task = NULL; /* the waiter may return as soon as this is NULL */
		wake_up_process(tsk);
		return;
	}
	while (waiter->flags & RWSEM_WAITING_FOR_READ) {
		struct list_head *next = waiter->list.next;

		list_del(&waiter->list);
		tsk = waiter->task;
		waiter->task = NULL;
		wake_up_process(tsk);
		woken++;
		if (list_empty(&sem->wait_list))
			break;
		waiter = list_entry(next, struct rwsem_waiter, list);
	}
	sem->activity += woken;
}

/* Queue behind everything already waiting and sleep until a waker grants the lock. */
static void rwsem_wait(struct rw_semaphore *sem, unsigned int flags, const char *fn,
		       const char *site)
{
	struct task_struct *tsk = current;
	struct rwsem_waiter waiter;

	set_current_state(TASK_UNINTERRUPTIBLE);
	waiter.task = tsk;
	waiter.flags = flags;
	list_add_tail(&waiter.list, &sem->wait_list);
	spin_unlock(&sem->wait_lock);

	set_blocked_on(sem, sem->name, fn, site);
	sim_trace(EV_SLEEP, fn, sem->name, 0, 0);
	for (;;) {
		sim_touch_task(tsk, pid); /* waiter.task, which the waker clears */
		if (!waiter.task)
			break;
		schedule();
		set_current_state(TASK_UNINTERRUPTIBLE);
	}
	/* granted: the waker took us off the list first (list_del() clears next) */
	if (unlikely(waiter.list.next))
		rwsem_bug(sem, "granted-but-queued",
			  "a waiter granted the lock is still on the wait list");
	tsk->state = TASK_RUNNING;
	clear_blocked_on();
}

void rwsem_down_read(struct rw_semaphore *sem, const char *site)
{
	kframe_as("down_read"); /* include/linux/rwsem.h, down_read() */
	int *depth = &sem->read_depth[current->pid];

	might_sleep();
	sched_point("down_read");
	lock_acquire(sem, sem->name, 0, site, lockdep_rwsem_read()); /* rwsem_acquire_read() */
	sim_trace(EV_LOCK, "down_read", sem->name, 0, 0);
	if (kcfg->rwsem == RWSEM_LOCKDEPTH && *depth > 0) {
		(*depth)++; /* already a reader: in again without queueing */
		got_it(sem, site, true, false);
		return;
	}
	spin_lock(&sem->wait_lock);
	if (read_admits(sem)) {
		reader_in(sem);
		spin_unlock(&sem->wait_lock);
	} else {
		rwsem_wait(sem, RWSEM_WAITING_FOR_READ, "down_read", site);
	}
	*depth = 1;
	got_it(sem, site, true, false);
}

void rwsem_down_write(struct rw_semaphore *sem, const char *site)
{
	kframe_as("down_write"); /* include/linux/rwsem.h, down_write() */
	might_sleep();
	sched_point("down_write");
	lock_acquire(sem, sem->name, 0, site, LD_WRITE); /* rwsem_acquire() */
	sim_trace(EV_LOCK, "down_write", sem->name, 0, 0);
	spin_lock(&sem->wait_lock);
	if (write_admits(sem)) {
		writer_in(sem);
		spin_unlock(&sem->wait_lock);
	} else {
		rwsem_wait(sem, RWSEM_WAITING_FOR_WRITE, "down_write", site);
	}
	got_it(sem, site, false, false);
}

/* Trylocks fail whenever the lock could not be granted at once: a queued waiter counts. */
int rwsem_down_read_trylock(struct rw_semaphore *sem, const char *site)
{
	kframe_as("down_read_trylock"); /* include/linux/rwsem.h, down_read_trylock() */
	int *depth = &sem->read_depth[current->pid];
	int ret = 0;

	sched_point("down_read_trylock");
	if (kcfg->rwsem == RWSEM_LOCKDEPTH && *depth > 0) {
		(*depth)++;
		ret = 1;
	} else {
		spin_lock(&sem->wait_lock);
		if (read_admits(sem)) {
			reader_in(sem);
			*depth = 1;
			ret = 1;
		}
		spin_unlock(&sem->wait_lock);
	}
	if (ret) {
		got_it(sem, site, true, true);
		sim_trace(EV_LOCK, "down_read_trylock", sem->name, 0, 0);
	} else {
		sim_trace(EV_TRYFAIL, "down_read_trylock", sem->name, 0, 0);
	}
	return ret;
}

int rwsem_down_write_trylock(struct rw_semaphore *sem, const char *site)
{
	kframe_as("down_write_trylock"); /* include/linux/rwsem.h, down_write_trylock() */
	int ret = 0;

	sched_point("down_write_trylock");
	spin_lock(&sem->wait_lock);
	if (write_admits(sem)) {
		writer_in(sem);
		ret = 1;
	}
	spin_unlock(&sem->wait_lock);
	if (ret) {
		got_it(sem, site, false, true);
		sim_trace(EV_LOCK, "down_write_trylock", sem->name, 0, 0);
	} else {
		sim_trace(EV_TRYFAIL, "down_write_trylock", sem->name, 0, 0);
	}
	return ret;
}

void rwsem_up_read(struct rw_semaphore *sem)
{
	kframe_as("up_read"); /* include/linux/rwsem.h, up_read() */
	sched_point("up_read");
	giving_it_up(sem);
	sim_trace(EV_UNLOCK, "up_read", sem->name, 0, 0);
	if (--sem->read_depth[current->pid] > 0 && kcfg->rwsem == RWSEM_LOCKDEPTH)
		return; /* still a reader at an outer level */
	sem->read_depth[current->pid] = 0;
	spin_lock(&sem->wait_lock);
	/* the last reader out wakes the writer at the head (readers would not be queued) */
	if (--sem->activity == 0 && !list_empty(&sem->wait_list))
		__rwsem_do_wake(sem, 1);
	spin_unlock(&sem->wait_lock);
}

void rwsem_up_write(struct rw_semaphore *sem)
{
	kframe_as("up_write"); /* include/linux/rwsem.h, up_write() */
	sched_point("up_write");
	giving_it_up(sem);
	sim_trace(EV_UNLOCK, "up_write", sem->name, 0, 0);
	spin_lock(&sem->wait_lock);
	sem->activity = 0;
	if (!list_empty(&sem->wait_list))
		__rwsem_do_wake(sem, 1);
	spin_unlock(&sem->wait_lock);
}

void rwsem_downgrade_write(struct rw_semaphore *sem)
{
	kframe_as("downgrade_write"); /* include/linux/rwsem.h, downgrade_write() */
	struct task_struct *tsk = current;

	sched_point("downgrade_write");
	spin_lock(&sem->wait_lock);
	sem->activity = 1;
	sem->read_depth[tsk->pid] = 1;
	if (!list_empty(&sem->wait_list))
		__rwsem_do_wake(sem, 0);
	spin_unlock(&sem->wait_lock);
	for (int i = 0; i < tsk->nheld; i++)
		if (tsk->held[i].lock == sem) {
			tsk->held[i].read = true;
			tsk->held[i].ld_read = (uint8_t)lockdep_rwsem_read();
		}
}
