/* sim: the machine the reference kernel runs on, as ref/ sees it.
 *
 * Two implementations. sim/sched.c (with fiber.c and trace.c): every simulated task
 * is a fiber in one OS thread; at each sim_point() the scheduler asks the schedule
 * stream whether another task runs next; blocking, waking, a virtual clock, the step
 * budget and the trace live here. sim/native.c: every task is a real thread, with a
 * hung-task watchdog. The sim knows locks only as spinning words (sim_spin); the kernel
 * tells it what a task waits for only through the hang callback.
 */
#ifndef SNAFU_SIM_H
#define SNAFU_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_TASKS    8
#define SIM_MAX_PREEMPTS 16

enum sim_state { SIM_RUNNABLE, SIM_BLOCKED, SIM_DONE };

/* One decision of the schedule stream: when task `task` reaches the `point`-th
 * scheduling point (1-based) of its `op`-th operation (1-based; see sim_op_begin()),
 * switch to task `to`. With op 0, `point` counts from the start of the task instead. */
struct sim_preempt {
	uint8_t task;
	uint16_t op;
	uint16_t point;
	uint8_t to; /* the task to switch to, or SIM_TO_TIMER */
};
/* `to timer`: fire the earliest pending timer now (the clock jumps to it) and switch to
 * the task it wakes, as a timer interrupt may at any point; without one pending the
 * preemption does not fire. */
#define SIM_TO_TIMER 0

/* What became of one preemption of the schedule (sim_config.pre_status). The simulator
 * fills it in; real threads (sim/native.c) follow no schedule and leave it zeroed. */
struct sim_preempt_status {
	bool fired;        /* it switched to its task */
	bool reached;      /* its task began the op (op 0: always) */
	bool op_ended;     /* the op is over (the task began the next, or ended) */
	bool shadowed;     /* the point came, but an earlier preemption switched there */
	uint8_t to_state;  /* the point came, but `to` could not run: its sim_state + 1 */
	bool no_timer;     /* the point came, but `to timer` found no timer pending */
	uint16_t points;   /* the points the op (op 0: the task) passed, at most 65535 */
	uint16_t task_ops; /* the operations the task began */
};

/* A PCT schedule (Burckhardt et al., "A Randomized Scheduler with Probabilistic
 * Guarantees of Finding Bugs", ASPLOS 2010), in place of the preemption list: every task
 * has a priority, and at every scheduling point the highest-priority runnable task runs;
 * at the scheduling point numbered change[j] (sim_steps()), the task that runs drops to
 * priority j + 1, below every initial one. A switch is made only where a preemption
 * could name it (point 1..SIM_PCT_MAX_POINT of an op), at most `max` times; each goes to
 * out[] as the preemption that makes it, so the same run replays from those alone. When
 * a task blocks or ends, the lowest-numbered runnable task runs, as without a schedule,
 * until its next scheduling point. */
#define SIM_PCT_MAX_POINT 32
struct sim_pct {
	int nchange;
	uint8_t prio[SIM_MAX_TASKS + 1]; /* by task id: above nchange, distinct */
	uint32_t change[SIM_MAX_PREEMPTS];
	struct sim_preempt *out; /* room for max */
	int max;
	int *nout;
};

struct sim_fiber;

/* A spinlock word. Fibers: a spinner sleeps in the simulator until the unlock, which
 * costs no virtual time, exactly like spinning on another CPU. Native: a real spin. */
struct sim_spin {
	_Atomic int locked;
};

struct sim_task {
	int id; /* 1-based, also the scheduling order */
	enum sim_state state;
	uint32_t points;    /* scheduling points passed */
	uint16_t op;        /* operations begun (sim_op_begin) */
	uint16_t op_points; /* scheduling points passed in the current operation */
	uint64_t op_step;   /* the run's scheduling points when the current operation began */
	uint64_t timer_at;  /* virtual time a timed sleep ends; SIM_NO_DEADLINE: none */
	bool timed_out;
	struct sim_spin *spinning_on; /* fibers: the spinlock this task waits for */
	struct sim_spin *trying;      /* at its spin_lock point: the spinlock it tries next */
	void (*fn)(struct sim_task *);
	struct sim_fiber *fiber;
};

/* Why sim_run() returned. */
enum sim_result {
	SIM_OK,       /* every task finished (or sleeps interruptibly forever) */
	SIM_HANG,     /* the hang callback said the sleeping tasks can never run */
	SIM_LIVELOCK, /* step budget exhausted */
	SIM_STOPPED,  /* a checker called sim_stop() with a finding */
	/* never from sim_run(): prog_run()'s verdict for a run that ended as SIM_OK but in
	 * which lockdep predicted a deadlock (ref/lockdep.c) */
	SIM_PREDICTED,
	/* never from sim_run(): the run ended as SIM_OK, and an oracle that judges the end
	 * of a run found it wrong (prog_run(), docs/oracles.md) */
	SIM_ORACLE,
};

/* Trace events: what the interleaving table and the digest are made of. */
enum sim_event {
	EV_POINT,   /* plain scheduling point */
	EV_SYSCALL, /* syscall entry: fn = sys_*, obj = detail */
	EV_SYSRET,  /* syscall exit: arg = return value */
	EV_LOCK,    /* acquired: fn = down_read..., obj = lock name */
	EV_TRYFAIL, /* trylock failed */
	EV_UNLOCK,
	EV_SLEEP,   /* goes to sleep */
	EV_WAKE,    /* woken (task = the woken one, arg = waker id) */
	EV_UACCESS, /* user access from the kernel: fn = get_user..., arg = address */
	EV_FAULT,   /* page fault: arg = address, arg2 = write */
	EV_USER,    /* user-mode op (load/store): fn = op, arg = address */
	EV_SIGNAL,  /* signal delivered or sent */
	EV_PREEMPT, /* the schedule switched tasks: arg = to */
	EV_TIMER,   /* the virtual clock fired a timer */
	EV_NOTE,    /* free text in obj */
};

struct sim_trace_ev {
	uint8_t task;
	uint8_t kind;
	uint16_t op, point; /* the task's operation and the point within it */
	uint32_t step;      /* sim_steps() then: a PCT change point there switches before it */
	const char *fn;
	const char *obj;
	long arg, arg2;
};

struct sim_config {
	const struct sim_preempt *preempts;
	int npreempts;
	const struct sim_pct *pct; /* non-NULL: this schedule instead of the preemptions */
	uint64_t step_budget;      /* total scheduling points before a livelock finding */
	bool trace;                /* record events for the report */
	bool no_digest;            /* skip the trace digest (the fuzzer has no use for it) */
	/* raise SIGTRAP at this scheduling point (sim_steps(), 1-based), for a debugger:
	 * snafu replay --stop-at-step=N; 0: never. The simulator only (sim/native.c
	 * ignores it). */
	uint64_t stop_at_step;
	/* NULL, or one entry per preemption: filled in by sim_run() (the simulator only) */
	struct sim_preempt_status *pre_status;
	/* Called when no task can run and no timer is pending. Returns true if that is
	 * a hang worth reporting (a task sleeps uninterruptibly), false if the tasks
	 * merely sleep interruptibly forever, which user space may do. */
	bool (*on_hang)(void *ctx);
	void *ctx;
	/* real threads only (sim/native.c); the simulator ignores them */
	uint64_t wall_limit_ms; /* stop looping programs after this long; 0: never */
	uint64_t hang_ms;       /* a task blocked this long is hung (khungtaskd); 0: 2000 */
	uint64_t chaos_seed;    /* 0: no perturbation; else seeded yields and short sleeps */
	/* called about every progress_ms of wall time while the threads run; 0: never */
	uint64_t progress_ms;
	void (*progress)(void *ctx, uint64_t now_ms);
};

void sim_init(const struct sim_config *cfg);
struct sim_task *sim_spawn(struct sim_task *t, void (*fn)(struct sim_task *));
enum sim_result sim_run(void);

/* --- called from task context --- */
#ifdef SNAFU_NATIVE
#define SIM_TLS _Thread_local /* sim/native.c: every task is a thread */
#else
#define SIM_TLS
#endif
extern SIM_TLS struct sim_task *sim_cur;
static inline struct sim_task *sim_current(void)
{
	return sim_cur;
}
void sim_point(const char *site);
/* the schedule search (search/run.c): called at every scheduling point with the task that
 * reached it; who else could run there is sim_task()'s to tell. It decides in place of
 * the schedule stream: SIM_HOOK_CONTINUE (t runs on), a task id to switch to, or
 * SIM_TO_TIMER. NULL (the default): never. The simulator only. A global, not a
 * sim_config field, so that prog/exec.c, which the fuzzer's coverage sees, need not
 * pass it on: a change there moves what the fuzzer finds when (docs/evaluate.md). */
#define SIM_HOOK_CONTINUE (-1)
extern int (*sim_point_hook)(const struct sim_task *t);
/* ... and how often each task went to sleep or was made runnable again (by task id; the
 * simulator only): a hidden wake-up, such as a spinlock's unlock, shows there. */
extern uint32_t sim_moves[SIM_MAX_TASKS + 1];

/* What a step touched that its trace events do not show (lockless reads, the futex
 * oracles' books), for snafu explore's partial-order reduction (docs/explore.md, "The
 * footprint"): the model ORs SIM_TOUCH_* bits in, explore reads and clears them at every
 * scheduling point. Nothing reads them in a fuzzer or a replay. */
#define SIM_TOUCH_WAKES     (1u << 0)  /* the oracles' wake-call log (written) */
#define SIM_TOUCH_QUEUES    (1u << 1)  /* queue_me()'s counts and log (written) */
#define SIM_TOUCH_QUEUES_RD (1u << 2)  /* ... read without the bucket lock */
#define SIM_TOUCH_PAGES_RD  (1u << 3)  /* the oracles peeked at futex words */
#define SIM_TOUCH_RECS_RD   (1u << 4)  /* read every task's futex_wait record */
#define SIM_TOUCH_TASKS_RD  (1u << 5)  /* read other tasks' futex_q without the lock */
#define SIM_TOUCH_RETRY     (1u << 6)  /* a user access faulted, and runs again now */
#define SIM_TOUCH_YOUNG     (1u << 7)  /* a fault found its page mapped: made it young only */
#define SIM_TOUCH_STORED    (1u << 24) /* a user access changed user memory */
#define SIM_TOUCH_RANGE     (1u << 25) /* the op touches only sim_touched_pages[]' pages */
#define SIM_TOUCH_PTE       (1u << 26) /* a page table entry written (ref/mm.h's helpers) */
#define SIM_TOUCH_PTBL      (1u << 27) /* a page table made (mm->pt_blocks written) */
#define SIM_TOUCH_PTBL_RD   (1u << 28) /* ... whether there is one, read */
#define SIM_TOUCH_PCACHE    (1u << 29) /* a page found or added in a page cache by a fault */
#define SIM_TOUCH_PCACHE_RD (1u << 30) /* ... whether the cache holds a page, read */
#define SIM_TOUCH_REC(id)   (1u << (8 + (((id)-1) & 7))) /* task id's futex_wait record */
/* task id's state that other tasks write: its sleep state word, a pending signal, its
 * futex_q (list, lock_ptr), an rwsem waiter's task field */
#define SIM_TOUCH_TASK(id) (1u << (16 + (((id)-1) & 7)))
#ifdef SNAFU_NATIVE
/* real threads: nobody explores them */
#define sim_touch(what)                 ((void)0)
#define sim_touch_task_at(base, offset) ((void)(base))
#define sim_touch_rec(id)               ((void)(id))
#define sim_touch_rec_self()            ((void)0)
#else
/* Not inline, and what a mark needs read inside: sim/ has no coverage instrumentation,
 * so the marks add no edge to what the fuzzer sees in ref/ and prog/ (a shift, or a
 * task's id loaded there, would bring UBSan's checks), and the fuzzer's joint search
 * (fuzz/joint.c) has them for its partial-order reduction. */
extern uint32_t sim_touched[SIM_MAX_TASKS + 1]; /* by the task that touched (0: none) */
void sim_touch(uint32_t what);                  /* constants only: SIM_TOUCH_WAKES, ... */
/* SIM_TOUCH_TASK(id) for the task id (an int) at BASE + OFFSET: sim_touch_task() */
void sim_touch_task_at(const void *base, size_t offset);
void sim_touch_rec(int id);    /* SIM_TOUCH_REC(id), for an id computed with no load */
void sim_touch_rec_self(void); /* SIM_TOUCH_REC() of the running task */
#endif
/* The bucket of a user page among snafu explore's 64 page resources (a collision only
 * adds a dependency). */
static inline int sim_page_bucket(unsigned long addr)
{
	return (int)((addr >> 12) * 0x9e3779b97f4a7c15ULL >> 58);
}
/* The buckets of user pages LO..HI (page numbers); more than 17 pages, all of them. */
static inline uint64_t sim_page_buckets(unsigned long lo, unsigned long hi)
{
	uint64_t m = 0;

	if (hi - lo > 16)
		return ~(uint64_t)0;
	for (unsigned long pg = lo; pg <= hi; pg++)
		m |= (uint64_t)1 << sim_page_bucket(pg << 12);
	return m;
}
/* sim_touch_range(start, end): the op the task is in touches no user page, page table
 * entry or page-cache page outside [start, end) (SIM_TOUCH_RANGE, sim_touched_pages[]:
 * their buckets, sim_page_buckets()) */
#ifdef SNAFU_NATIVE
#define sim_touch_range(start, end) ((void)(start), (void)(end))
#else
extern uint64_t sim_touched_pages[SIM_MAX_TASKS + 1];
void sim_touch_range(unsigned long start, unsigned long end);
#endif
/* sim_touch_task(q, owner): SIM_TOUCH_TASK(q->owner), with q->owner read in sim/ */
#define sim_touch_task(ptr, field) sim_touch_task_at((ptr), offsetof(__typeof__(*(ptr)), field))

/* Sleeping and waking, the way the kernel does it: the sleeper sets its state word,
 * checks its condition, then sleeps while the word is not 0 (TASK_RUNNING); a waker
 * sets the word to 0 and calls sim_wake(). deadline: virtual ticks, 0 for none.
 * Returns true if the deadline passed first. */
#define SIM_NO_DEADLINE UINT64_MAX /* a sleep without a timer (time 0 is a deadline) */
bool sim_sleep(_Atomic long *state, uint64_t deadline);

/* The spinning itself (struct sim_spin above). */
bool sim_spin_trylock(struct sim_spin *s);
void sim_spin_lock(struct sim_spin *s); /* wait until it is ours */
void sim_spin_unlock(struct sim_spin *s);
/* The spinlock the current task tries just after its next scheduling point (NULL: none),
 * for snafu explore: switching to a task whose try must fail is no choice. */
void sim_spin_next(struct sim_spin *s);

/* User memory is hardware: plain concurrent accesses to it are the user program's
 * races, not the model's; ThreadSanitizer is told to look away. */
void sim_hw_begin(void);
void sim_hw_end(void);
void sim_op_begin(void);       /* the task starts its next operation (a syscall or user access) */
bool sim_should_stop(void);    /* real threads: time is up, stop looping (simulator: false) */
bool sim_tasks_left(void);     /* real threads: sim_run() left tasks running (simulator: false) */
uint64_t sim_hung_since(void); /* after SIM_HANG: when the longest-blocked task blocked */
/* fibers only, below sim_sleep(): */
void sim_block(void);                    /* sleep until sim_wake() */
bool sim_block_until(uint64_t deadline); /* ... or the deadline; true if timed out */
void sim_wake(struct sim_task *t);
void sim_stop(enum sim_result why) __attribute__((noreturn));
uint64_t sim_now(void);
uint64_t sim_steps(void);
/* The scheduling point from which the tasks took turns, past the run's step budget
 * (sim_point(): no schedule decides from there on); 0 when they never did */
uint64_t sim_turns_from(void);

/* --stop-at-step: not inlined, so a debugger can also `break sim_step_trap`; raises
 * SIGTRAP (without a debugger the process dies of it). */
void sim_step_trap(uint64_t step, const char *site);

/* The scheduler's last decisions, for snafu record and the gdb helpers
 * (repro/snafu-gdb.py): one store per switch. The simulator only. */
struct sim_decision {
	uint64_t step;      /* sim_steps() when it was taken; 0: none yet */
	int from, to;       /* task ids; from 0: the scheduler's first pick */
	uint16_t op, point; /* from's op.point when it was preempted */
	const char *why;    /* "preempt", "blocked", "done", "timer", "start" */
	const char *site;   /* the scheduling point of a preemption */
};
extern struct sim_decision sim_last_preempt, sim_last_switch;

/* --- tasks, for reports --- */
int sim_ntasks(void);
struct sim_task *sim_task(int id);

/* --- trace --- */
/* sim_traced: sim_digesting, or interleaving coverage on (sim/icov.h) */
extern bool sim_tracing, sim_digesting, sim_traced;
void sim_trace_record(int kind, const char *fn, const char *obj, long arg, long arg2);
/* Inline so that the fuzzer, which keeps neither log nor digest, pays one test per event. */
static inline void sim_trace(int kind, const char *fn, const char *obj, long arg, long arg2)
{
	if (sim_traced)
		sim_trace_record(kind, fn, obj, arg, arg2);
}
void sim_trace_reset(void);
uint64_t sim_digest(void);
/* One step of the digests' FNV-1a over 64-bit words: the trace digest's, snafu
 * explore's end states, the address space's (mm_state_digest()) */
static inline uint64_t sim_hash_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL; /* FNV-1a 64 prime */
}
const struct sim_trace_ev *sim_trace_events(int *n, int *dropped);

#endif
