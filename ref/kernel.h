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
#include "kstack.h"

/* errnos, i386 values */
#define EPERM       1
#define EINTR       4
#define EIO         5
#define EBADF       9
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
	int segv;   /* SIGSEGVs from user-mode faults */
	int sigbus; /* SIGBUSes: user-mode faults beyond the end of a mapped file */
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
	struct kstack kstack;   /* the kernel functions it is in, for the Call Trace */
};

#define PF_MMAP_SEM 0x1 /* the proposal in the LWN article: "I hold mmap_sem" */

static inline struct task_struct *get_current(void)
{
	return (struct task_struct *)sim_current();
}
#define current get_current()

/* --- the shadow call stack, for the reports' Call Trace (ref/report.c) ---
 *
 * A model function that stands for a kernel function says so on entry: kframe() with the
 * function's own name when it is the kernel's, kframe_as("name") with 2.6.11's name when
 * the model's differs (rwsem_down_read() is down_read(), get_user_u32() get_user()). The
 * frame is pushed there and popped when the function returns, by any return, through
 * the cleanup attribute: a store and an increment on entry, a decrement on return, no
 * branch and no allocation. The fuzzer runs the model some 50,000 times a second and
 * counts its edges: the two helpers leave out UBSan's null and bounds checks, which
 * would add branches, and the pop finds the task again through current rather than keep
 * it in a register across the function. A function that ends the run (kernel_bug())
 * never returns: the report has read the stack by then, and prog_run() clears every task
 * before the next run.
 * The syscall the task is in is its outermost frame: the entry (prog/exec.c,
 * sys_enter()) names it in task_struct.syscall, so the sys_* functions of ref/ push no
 * frame of their own. Helpers of the model that stand for no kernel function, or for
 * code that 2.6.11 has inline in its caller (rwsem_wait() is __down_read()'s loop), push
 * nothing. Nor do kernel functions that no report can find a task in (no sleep, no
 * check, no lock taken below them: get_futex_key(), wake_up_process(), the inatomic
 * read), and where the only report is the function's own, the frame is pushed in that
 * branch (__might_sleep(), _spin_unlock()). A report sees a task asleep (schedule(), a
 * spinlock's spin) or the reporting task itself, never one preempted at a point. */
#define KFRAME_INLINE static inline __attribute__((always_inline, no_sanitize("undefined")))
KFRAME_INLINE const char *kframe_push(const char *name)
{
	struct kstack *ks = &get_current()->kstack;

	ks->frame[ks->depth++ % KSTACK_DEPTH] = name;
	return name;
}
KFRAME_INLINE void kframe_pop(const char *const *name)
{
	(void)name;
	get_current()->kstack.depth--;
}
#define kframe_as(name) \
	const char *const __kframe __attribute__((cleanup(kframe_pop), unused)) = kframe_push(name)
#define kframe() kframe_as(KFUNC)

/* The kernel function the code stands for: the name kframe() pushes and that the lock,
 * uaccess and assertion macros (spin_lock(), down_read(), get_user(), might_sleep(), ...)
 * record as their caller. The C function's own name, unless a file says otherwise around
 * a function whose name is not the kernel's: ref/futex-2.6.11.c's futex_wait_2_6_11() is
 * 2.6.11's futex_wait(), and is compiled under `#define KFUNC "futex_wait"`. */
#define KFUNC __func__

/* Where each frame is in 2.6.11's source: the one table of it, for the source column of
 * `snafu replay --trace` (kframe_source() in ref/report.c; docs/triage.md). A line for
 * every name the model pushes (kframe(), kframe_as()) and every syscall the entry names
 * (prog/ops.c's .syscall: the outermost frame), checked against the 2.6.11 tree
 * (Antonio-Zhou/Linux-2.6.11); tests/test_trace.sh fails on a name pushed without a line
 * here, and on a line nobody pushes.
 *   KSRC(name, file)         the function of that name, in that file
 *   KSRC_AS(name, file, fn)  the frame stands for fn in that file: down_read() and the
 *                            rest are inlines of include/linux/rwsem.h around
 *                            lib/rwsem-spinlock.c's __down_read() and the rest (ref/rwsem.c
 *                            follows rwsem-spinlock.c), which hold what the model's
 *                            functions do: the wait_lock, the queue, the sleep
 *   KSRC_MACRO(name, file)   a macro of that file whose code is in its caller (get_user()
 *                            calls arch/i386/lib/getuser.S's __get_user_4 from there,
 *                            put_user() is inline asm): an event in it is its caller's */
#define KFRAME_SOURCES(KSRC, KSRC_AS, KSRC_MACRO)                                 \
	/* the syscalls (task_struct.syscall) */                                  \
	KSRC(sys_mmap2, "arch/i386/kernel/sys_i386.c")                            \
	KSRC(sys_munmap, "mm/mmap.c")                                             \
	KSRC(sys_mprotect, "mm/mprotect.c")                                       \
	KSRC(sys_futex, "kernel/futex.c")                                         \
	KSRC(sys_get_mempolicy, "mm/mempolicy.c")                                 \
	KSRC(sys_tgkill, "kernel/signal.c")                                       \
	KSRC(sys_nanosleep, "kernel/timer.c")                                     \
	KSRC(sys_madvise, "mm/madvise.c")                                         \
	KSRC(sys_mincore, "mm/mincore.c")                                         \
	KSRC(sys_mlock, "mm/mlock.c")                                             \
	KSRC(sys_ptrace, "arch/i386/kernel/ptrace.c")                             \
	/* kernel/ */                                                             \
	KSRC(do_futex, "kernel/futex.c")                                          \
	KSRC(futex_wait, "kernel/futex.c")                                        \
	KSRC(futex_wake, "kernel/futex.c")                                        \
	KSRC(futex_requeue, "kernel/futex.c")                                     \
	KSRC(futex_wake_op, "kernel/futex.c")                                     \
	KSRC(futex_handle_fault, "kernel/futex.c")                                \
	KSRC(get_futex_key, "kernel/futex.c")                                     \
	KSRC(queue_me, "kernel/futex.c")                                          \
	KSRC(unqueue_me, "kernel/futex.c")                                        \
	KSRC(wake_futex, "kernel/futex.c")                                        \
	KSRC(schedule, "kernel/sched.c")                                          \
	KSRC(__might_sleep, "kernel/sched.c")                                     \
	KSRC(schedule_timeout, "kernel/timer.c")                                  \
	KSRC(access_process_vm, "kernel/ptrace.c")                                \
	KSRC(_spin_lock, "kernel/spinlock.c")                                     \
	KSRC(_spin_unlock, "kernel/spinlock.c")                                   \
	/* lib/ */                                                                \
	KSRC_AS(down_read, "lib/rwsem-spinlock.c", __down_read)                   \
	KSRC_AS(down_write, "lib/rwsem-spinlock.c", __down_write)                 \
	KSRC_AS(down_read_trylock, "lib/rwsem-spinlock.c", __down_read_trylock)   \
	KSRC_AS(down_write_trylock, "lib/rwsem-spinlock.c", __down_write_trylock) \
	KSRC_AS(up_read, "lib/rwsem-spinlock.c", __up_read)                       \
	KSRC_AS(up_write, "lib/rwsem-spinlock.c", __up_write)                     \
	KSRC_AS(downgrade_write, "lib/rwsem-spinlock.c", __downgrade_write)       \
	KSRC(__rwsem_do_wake, "lib/rwsem-spinlock.c")                             \
	/* arch/i386/ and include/asm-i386/ */                                    \
	KSRC(do_page_fault, "arch/i386/mm/fault.c")                               \
	KSRC_MACRO(get_user, "include/asm-i386/uaccess.h")                        \
	KSRC_MACRO(put_user, "include/asm-i386/uaccess.h")                        \
	KSRC(copy_to_user, "arch/i386/lib/usercopy.c")                            \
	/* 2.6.27 on (2.6.28's futex keys): arch/x86 merged i386 and x86_64 */    \
	KSRC(get_user_pages_fast, "arch/x86/mm/gup.c")                            \
	KSRC(clear_user, "arch/i386/lib/usercopy.c")                              \
	/* mm/ */                                                                 \
	KSRC(handle_mm_fault, "mm/memory.c")                                      \
	KSRC(handle_pte_fault, "mm/memory.c")                                     \
	KSRC(do_anonymous_page, "mm/memory.c")                                    \
	KSRC(do_wp_page, "mm/memory.c")                                           \
	KSRC(do_swap_page, "mm/memory.c")                                         \
	KSRC(do_no_page, "mm/memory.c")                                           \
	KSRC(filemap_nopage, "mm/filemap.c")                                      \
	KSRC(get_user_pages, "mm/memory.c")                                       \
	KSRC(make_pages_present, "mm/memory.c")                                   \
	KSRC(zap_pte_range, "mm/memory.c")                                        \
	KSRC(zap_page_range, "mm/memory.c")                                       \
	KSRC(do_mmap_pgoff, "mm/mmap.c")                                          \
	KSRC(do_munmap, "mm/mmap.c")                                              \
	KSRC(split_vma, "mm/mmap.c")                                              \
	KSRC(mprotect_fixup, "mm/mprotect.c")                                     \
	KSRC(change_protection, "mm/mprotect.c")                                  \
	KSRC(lookup_node, "mm/mempolicy.c")                                       \
	KSRC(copy_nodes_to_user, "mm/mempolicy.c")                                \
	KSRC(mincore_vma, "mm/mincore.c")                                         \
	KSRC(do_mlock, "mm/mlock.c")                                              \
	KSRC(mlock_fixup, "mm/mlock.c")                                           \
	KSRC(madvise_dontneed, "mm/madvise.c")                                    \
	KSRC(page_referenced, "mm/rmap.c")                                        \
	KSRC(try_to_unmap_one, "mm/rmap.c")                                       \
	KSRC(shrink_list, "mm/vmscan.c")

/* The 2.6.11 source of an event, "kernel/futex.c:futex_wait", from the two innermost
 * frames of the task it happened in (INNER; OUTER, the one around it, for a macro's
 * caller), as sim/trace.h keeps them; "-" for none (user mode, the timer); "?NAME" for a
 * name KFRAME_SOURCES lacks. ref/report.c. */
const char *kframe_source(const char *inner, const char *outer, char *buf, size_t len);
/* The Call Trace of a stack and the syscall it is in, innermost first, into buf (""
 * when both are empty); call_trace_text() of a task (or none). ref/report.c. */
void kstack_text(const struct kstack *ks, const char *syscall, char *buf, size_t len);
void call_trace_text(const struct task_struct *t, char *buf, size_t len);

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
#define might_sleep() __might_sleep(KFUNC)

/* kernel/sched.c */
void schedule(void);
int64_t schedule_timeout(int64_t timeout);
void wake_up_process(struct task_struct *p);
/* sim_touch(): for snafu explore, what other tasks write (wake_up_process(), send_sig()) */
static inline void set_current_state(long state)
{
	sim_touch_task(current, pid);
	current->state = state;
}
static inline bool signal_pending(struct task_struct *p)
{
	sim_touch_task(p, pid);
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
