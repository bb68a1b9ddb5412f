/* Spinlocks (include/linux/spinlock.h), modelled for SMP: another task may run while
 * one holds a spinlock; a task that finds it taken spins (here: sleeps in the sim
 * until the unlock, which costs no virtual time, exactly like spinning on another CPU).
 * Taking one raises the preempt count, so sleeping under it is a finding. */
#ifndef SNAFU_SPINLOCK_H
#define SNAFU_SPINLOCK_H

#include "kernel.h"

typedef struct {
	struct task_struct *owner;
	const char *name;
} spinlock_t;

#define SPIN_LOCK_UNLOCKED(n) {NULL, n}
static inline void spin_lock_init(spinlock_t *l, const char *name)
{
	l->owner = NULL;
	l->name = name;
}

void _spin_lock(spinlock_t *l, const char *site);
void _spin_unlock(spinlock_t *l, const char *site);
#define spin_lock(l)   _spin_lock(l, __func__)
#define spin_unlock(l) _spin_unlock(l, __func__)

#endif
