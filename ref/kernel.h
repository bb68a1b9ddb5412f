/* Basic kernel vocabulary for the reference kernel: errnos, lists, tasks, current.
 *
 * The model is a user-space program: "kernel" and "user" memory are both ordinary
 * memory of this process, and user memory is reached only through the modelled page
 * tables (ref/memory.c). Kernel objects keep their Linux names.
 */
#ifndef SNAFU_KERNEL_H
#define SNAFU_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sim/sim.h"

/* errnos, i386 values */
#define EPERM       1
#define EINTR       4
#define EAGAIN      11
#define EWOULDBLOCK EAGAIN
#define ENOMEM      12
#define EACCES      13
#define EFAULT      14
#define EINVAL      22
#define ENOSYS      38
#define ETIMEDOUT   110

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define unlikely(x)                     __builtin_expect(!!(x), 0)
#define likely(x)                       __builtin_expect(!!(x), 1)

/* --- include/linux/list.h --- */
struct list_head {
	struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}
static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l->prev = l;
}
static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	__list_add(n, h->prev, h);
}
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = e->prev = NULL; /* like LIST_POISON: a use after list_del crashes */
}
static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}
static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_add_tail(e, h);
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_for_each_entry_safe(pos, n, head, member, type) \
	for (pos = list_entry((head)->next, type, member),   \
	    n = list_entry(pos->member.next, type, member);  \
	     &pos->member != (head); pos = n, n = list_entry(n->member.next, type, member))

/* --- include/linux/sched.h --- */
#define TASK_RUNNING         0
#define TASK_INTERRUPTIBLE   1
#define TASK_UNINTERRUPTIBLE 2

#define MAX_SCHEDULE_TIMEOUT INT64_MAX
#define MAX_HELD_LOCKS       8

/* What lockdep keeps (ref/lockdep.c): the locks a task holds, and where it took them. */
struct held_lock {
	const void *lock;
	const char *name; /* "&mm->mmap_sem" */
	const char *site; /* the function that took it */
	bool read;
	uint8_t class_id; /* ref/lockdep.c's class; 0xff: none (lockdep off) */
	uint8_t ld_read;  /* lockdep's read: LD_WRITE, LD_READ, LD_READ_RECURSIVE */
	bool trylock;
	bool spin; /* a spinlock_t (spin_acquired()): lockdep's instance rule looks at it */
};

struct mm_struct;

struct task_struct {
	struct sim_task sim; /* the fiber and scheduler state; first member */
	int pid;
	char comm[8];
	_Atomic long state; /* TASK_RUNNING, TASK_INTERRUPTIBLE, TASK_UNINTERRUPTIBLE */
	int preempt_count;
	struct mm_struct *mm;
	_Atomic bool sigpending;
	int signals_delivered;
	int segv; /* SIGSEGVs from user-mode faults */
	struct held_lock held[MAX_HELD_LOCKS];
	int nheld;
	/* what the task sleeps on, for the hung-task report */
	const void *blocked_on;
	const char *blocked_name;
	const char *blocked_site;
	const char *blocked_fn; /* down_read, down_write, spin_lock, futex_wait */
	const char *syscall;    /* the syscall it is in, or NULL in user mode */
	unsigned long flags;    /* PF_MMAP_SEM */
	int mmap_sem_depth;     /* how often it holds mmap_sem, for PF_MMAP_SEM */
};

#define PF_MMAP_SEM 0x1 /* the proposal in the LWN article: "I hold mmap_sem" */

static inline struct task_struct *get_current(void)
{
	return (struct task_struct *)sim_current();
}
#define current get_current()

/* --- preempt count and atomic context --- */
static inline void inc_preempt_count(void)
{
	current->preempt_count++;
}
static inline void dec_preempt_count(void)
{
	current->preempt_count--;
}
static inline bool in_atomic(void)
{
	return current->preempt_count != 0;
}

/* A finding: sleeping with the preempt count raised ("scheduling while atomic"). */
void __might_sleep(const char *site);
#define might_sleep() __might_sleep(__func__)

/* kernel/sched.c */
void schedule(void);
int64_t schedule_timeout(int64_t timeout);
void wake_up_process(struct task_struct *p);
/* sim_touch(): for snafu explore, what other tasks write (wake_up_process(), send_sig()) */
static inline void set_current_state(long state)
{
	sim_touch(SIM_TOUCH_TASK(current->pid));
	current->state = state;
}
static inline bool signal_pending(struct task_struct *p)
{
	sim_touch(SIM_TOUCH_TASK(p->pid));
	return p->sigpending;
}
void send_sig(struct task_struct *p);

/* A read the kernel makes without a lock on purpose (with a barrier in the real code),
 * as Linux's data_race() marks them: ThreadSanitizer is told not to judge it. */
#define data_race(expr)                   \
	({                                \
		sim_hw_begin();           \
		__auto_type __v = (expr); \
		sim_hw_end();             \
		__v;                      \
	})

/* A scheduling point, named for the trace. */
#define sched_point(site) sim_point(site)

/* Report a kernel bug (BUG/oops or a checker) and end the run. */
void kernel_bug(const char *title, const char *token, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
/* A primitive broke its own contract (ref/rwsem.c, ref/futex.c, docs/assertions.md):
 * "BUG: WHAT contract broken", token WHAT-contract--RULE. */
void contract_bug(const char *what, const char *rule, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* lockdep, and what a task sleeps on for the hung-task report: ref/lockdep.c */
#include "lockdep.h"
void set_blocked_on(const void *lock, const char *name, const char *fn, const char *site);
void clear_blocked_on(void);

#endif
