/* Spinlocks (include/linux/spinlock.h), modelled for SMP: another task may run while
 * one holds a spinlock; a task that finds it taken spins (sim_spin_lock: on real
 * threads a real spin, on fibers a sleep in the simulator until the unlock). Taking one
 * raises the preempt count, so sleeping under it is a finding. */
#ifndef SNAFU_SPINLOCK_H
#define SNAFU_SPINLOCK_H

#include "kernel.h"

typedef struct spinlock {
	struct sim_spin raw;       /* the word the runtime spins on */
	struct task_struct *owner; /* for reports and the wrong-owner check */
	const char *name;
	/* for lockdep's reports on instances of one class (ref/lockdep.c): the array the
	 * lock belongs to and its index there ("futex_queues", 17), or NULL and -1 */
	const char *array;
	int index;
} spinlock_t;

static inline void spin_lock_init(spinlock_t *l, const char *name)
{
	l->raw.locked = 0;
	l->owner = NULL;
	l->name = name;
	l->array = NULL;
	l->index = -1;
}

/* spin_lock_nested(): a second lock of the same class, taken in an order that cannot
 * deadlock, as lockdep is told (subclass 1: SINGLE_DEPTH_NESTING) */
void _spin_lock_nested(spinlock_t *l, unsigned subclass, const char *site);
void _spin_unlock(spinlock_t *l, const char *site);
#define spin_lock(l)             _spin_lock_nested(l, 0, KFUNC)
#define spin_lock_nested(l, sub) _spin_lock_nested(l, sub, KFUNC)
#define spin_unlock(l)           _spin_unlock(l, KFUNC)
#define SINGLE_DEPTH_NESTING     1

#endif
