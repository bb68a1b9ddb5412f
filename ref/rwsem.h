/* Read-write semaphores as in 2.6.11's lib/rwsem-spinlock.c: fair, FIFO. */
#ifndef SNAFU_RWSEM_H
#define SNAFU_RWSEM_H

#include "spinlock.h"

#define RWSEM_WAITING_FOR_READ  0x00000001
#define RWSEM_WAITING_FOR_WRITE 0x00000002

struct rwsem_waiter {
	struct list_head list;
	struct task_struct *_Atomic task; /* NULL once the lock is granted (read unlocked) */
	unsigned int flags;
};

struct rw_semaphore {
	int activity; /* 0: free; >0: that many readers; -1: one writer */
	spinlock_t wait_lock;
	struct list_head wait_list;
	const char *name;
	/* kernel rwsem-lockdepth only: read-lock depth of each task, by pid */
	int read_depth[SIM_MAX_TASKS + 1];
	/* kernel pf-mmap-sem only: holding this sem sets PF_MMAP_SEM (mm->mmap_sem) */
	bool sets_pf_mmap_sem;
	/* the model's: writers let in so far (an oracle asks whether the address space
	 * could have changed during a call, ref/wake_op_oracle.c) */
	unsigned long writers;
};

void init_rwsem(struct rw_semaphore *sem, const char *name);
/* "&mm->mmap_sem: activity 1, wait_list: T2 (write), T1 (read)" into buf, for reports. */
void rwsem_state_text(const struct rw_semaphore *sem, char *buf, size_t len);

/* The rwsem's contract is checked where it decides (ref/rwsem.c, rwsem_bug()): a broken
 * primitive fails in the run that breaks it, not only where a deadlock follows. To see
 * each rule fire, tests/test_contracts.c breaks one decision on purpose with this knob;
 * it is RWSEM_BREAK_NONE in every other run. */
enum rwsem_break {
	RWSEM_BREAK_NONE,
	RWSEM_BREAK_FAIRNESS, /* read_admits() lets readers past queued writers */
	RWSEM_BREAK_UNLINK,   /* a writer granted from the queue is left on it */
	RWSEM_BREAK_WRITER,   /* down_write() lets a writer in beside readers */
};
extern enum rwsem_break rwsem_test_break;

/* The caller's function name is recorded as the acquire site, like lockdep's _RET_IP_. */
void rwsem_down_read(struct rw_semaphore *sem, const char *site);
void rwsem_down_write(struct rw_semaphore *sem, const char *site);
int rwsem_down_read_trylock(struct rw_semaphore *sem, const char *site);
int rwsem_down_write_trylock(struct rw_semaphore *sem, const char *site);
void rwsem_up_read(struct rw_semaphore *sem);
void rwsem_up_write(struct rw_semaphore *sem);
void rwsem_downgrade_write(struct rw_semaphore *sem);

#define down_read(s)          rwsem_down_read(s, KFUNC)
#define down_write(s)         rwsem_down_write(s, KFUNC)
#define down_read_trylock(s)  rwsem_down_read_trylock(s, KFUNC)
#define down_write_trylock(s) rwsem_down_write_trylock(s, KFUNC)
#define up_read(s)            rwsem_up_read(s)
#define up_write(s)           rwsem_up_write(s)
#define downgrade_write(s)    rwsem_downgrade_write(s)

#endif
