/* Spinlocks: see spinlock.h for how spinning is modelled. */
#include "spinlock.h"

void _spin_lock_nested(spinlock_t *l, unsigned subclass, const char *site)
{
	kframe_as("_spin_lock"); /* kernel/spinlock.c, _spin_lock() */
	struct task_struct *tsk = current;

	inc_preempt_count();
	sim_spin_next(&l->raw);
	sched_point("spin_lock");
	sim_spin_next(NULL);
	spin_acquire(l, subclass, site);
	if (!sim_spin_trylock(&l->raw)) {
		set_blocked_on(l, l->name, "spin_lock", site);
		sim_trace(EV_SLEEP, "spin_lock", l->name, 0, 0);
		sim_spin_lock(&l->raw);
		clear_blocked_on();
	}
	l->owner = tsk;
	spin_acquired(l, subclass, site);
	sim_trace(EV_LOCK, "spin_lock", l->name, 0, 0);
}

void _spin_unlock(spinlock_t *l, const char *site)
{
	(void)site;
	if (unlikely(l->owner != current)) {
		/* kernel/spinlock.c, _spin_unlock(). The frame only where a report can see
		 * it: a task is never reported while it is in here otherwise (it does not
		 * sleep, and a task preempted at the point below is runnable), and this is
		 * the model's hottest path. */
		kframe();
		kernel_bug("BUG: spinlock wrong owner", "spinlock-wrong-owner",
			   "spin_unlock(%s) by a task that does not hold it", l->name);
	}
	l->owner = NULL;
	lock_released(l);
	sim_trace(EV_UNLOCK, "spin_unlock", l->name, 0, 0);
	sim_spin_unlock(&l->raw);
	dec_preempt_count();
	sched_point("spin_unlock");
}
