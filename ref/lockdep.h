/* Lockdep on the 2.6.11 model (ref/lockdep.c): the held-lock stack of each task (which
 * the hung-task report reads too), and the prediction lockdep would make from one run.
 *
 * The rules are Linux's lock validator of 2.6.18 on (kernel/lockdep.c) and the
 * might_fault() annotation of 2.6.27 (mm/memory.c); docs/lockdep.md says what is
 * modelled and what is not. A run makes at most one report, like lockdep's
 * debug_locks_off() after the first; prog_run() makes it the run's verdict when nothing
 * worse (a deadlock, a hang, a BUG, a livelock) happened.
 */
#ifndef SNAFU_LOCKDEP_H
#define SNAFU_LOCKDEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstack.h"

/* Lock classes: a lock's name and subclass ("&mm->mmap_sem", "&bh->lock" nested 1).
 * Classes live for the process, like lockdep's; the dependency graph lives for one run. */
#define LOCKDEP_MAX_CLASSES 32

/* lockdep's `read` argument: 0 exclusive, 1 a read that must not recurse (an rwsem's
 * down_read: rwsem_acquire_read), 2 a read that may (rwlock_acquire_read). */
enum { LD_WRITE = 0, LD_READ = 1, LD_READ_RECURSIVE = 2 };

struct spinlock;
struct task_struct;

/* Before a non-try acquisition, as lock_acquire() is called before the lock is taken:
 * the checks (recursion, circular dependency) and the new dependencies. */
void lock_acquire(const void *lock, const char *name, unsigned subclass, const char *site,
		  int read);
/* Once the lock is the task's, for try-locks too: onto its held-lock stack. */
void lock_acquired(const void *lock, const char *name, unsigned subclass, const char *site,
		   int read, bool trylock);
void lock_released(const void *lock);
/* The same for a spinlock (ref/spinlock.c, spin_acquire() in Linux's lockdep), which
 * lockdep also checks as an instance of its class: two locks of one class taken in both
 * orders within a run are a circular dependency, which the class graph cannot see
 * (every futex bucket's lock is &bh->lock). */
void spin_acquire(const struct spinlock *l, unsigned subclass, const char *site);
void spin_acquired(const struct spinlock *l, unsigned subclass, const char *site);

/* lockdep_assert_held() (include/linux/lockdep.h, 2.6.28 on; 2.6.11 has
 * assert_spin_locked(), include/linux/spinlock.h): the current task holds LOCK, and for
 * lockdep_assert_held_write() not only for read. Else a finding, always on whatever the
 * oracles (the held-lock stacks are kept whether or not lockdep checks): "WARNING: lock
 * not held: NAME in FN", token lock-assert--CLASS--FN (CLASS as in lockdep's tokens,
 * with "-write" for a write hold: lock-assert--mmap_sem-write--split_vma). A scan of the
 * task's held locks (a handful). docs/lockdep.md, "Lock assertions", lists where.
 * spin: the lock if it is a spinlock, for the report to name the instance. */
void lock_assert_held(const void *lock, const char *name, const struct spinlock *spin, bool write,
		      const char *fn);
#define lockdep_spinlock_of(l) \
	_Generic((l), struct spinlock * : (l), const struct spinlock * : (l), default : NULL)
#define lockdep_assert_held(l) \
	lock_assert_held((l), (l)->name, lockdep_spinlock_of(l), false, KFUNC)
#define lockdep_assert_held_write(s) lock_assert_held((s), (s)->name, NULL, true, KFUNC)

/* For the model's other reports: "T1 holds 2 locks:" and a line for each, into buf. */
void held_locks_text(const struct task_struct *t, char *buf, size_t len);

/* How a down_read() is annotated on the kernel being run (kcfg->rwsem): LD_READ on a fair
 * rwsem, where a second read by the holder queues behind a waiting writer; LD_READ_RECURSIVE
 * where the holder re-enters (rwsem-lockdepth) or readers pass writers (rwsem-reader-pref). */
int lockdep_rwsem_read(void);

/* might_fault() (mm/memory.c, 2.6.27): a user access FN ("get_user"), called from CALLER,
 * may fault, and the fault handler takes mm->mmap_sem for read: check that acquisition
 * (and release it at once). Silent with page faults disabled (in_atomic()), without an
 * mm, and where the fault handler would not take mmap_sem (pf-mmap-sem with PF_MMAP_SEM
 * set). The model has no might_sleep() here: 2.6.11's get_user() had none. */
void might_fault(const char *fn, const char *caller);

/* Start of a run: an empty dependency graph, no report; ON: whether to check at all
 * (the held-lock stacks are kept either way). */
void lockdep_reset(bool on);

/* What the run's report said, if it made one. */
struct lockdep_prediction {
	bool made;
	bool circular;         /* else recursive locking */
	bool instances;        /* circular between two locks of one class (the instance rule) */
	int task;              /* the task that tried to take the lock */
	uint16_t op, point;    /* its op and point then (sim_task), 1-based */
	uint64_t step;         /* sim_steps() then */
	const char *locks[2];  /* the classes' names: [0] held, [1] wanted (the same for a
				  recursion) */
	const char *held_site; /* where the held lock was taken */
	struct kstack stack;   /* where the task was (its shadow call stack, ref/kernel.h) */
	const char *syscall;   /* ... in this syscall */
	char title[96], token[160];
};
const struct lockdep_prediction *lockdep_prediction(void);

/* After a run that made a report and found nothing else: the report as the run's
 * finding (finding_begin()), in ref/report.c's style. The report is made in
 * lockdep_bug() (ref/lockdep.c): where `snafu record` and gdb stop. */
void lockdep_finding(void);

#endif
