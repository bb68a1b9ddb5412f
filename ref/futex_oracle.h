/* The futex oracles (ref/futex_oracle.c, docs/oracles.md): what ref/futex.c tells them
 * as it runs, and their judgement at the end of a run.
 *
 * The hooks only keep books: no scheduling point, no trace event, no lock, so a run
 * takes the same steps and has the same digest with or without them. They are called
 * from futex.c at the places named below, with the bucket lock held where the kernel
 * holds it; on real threads (snafu-native) they do nothing.
 */
#ifndef SNAFU_FUTEX_ORACLE_H
#define SNAFU_FUTEX_ORACLE_H

#include "kernel.h"

/* A futex key names the futex word independently of the virtual address where possible:
 * (mm, address) for private mappings, (inode, page offset) for shared ones. Bit 0 of
 * offset says which. The "ptr" half is a stable id, not a pointer, so hashing is the
 * same on every run and in every build. (kernel/futex.c's union futex_key; here so
 * that the oracles can compare keys.) */
struct futex_key {
	unsigned long word; /* private: page-aligned uaddr; shared: pgoff */
	unsigned long ptr;  /* private: mm->id; shared: inode->i_ino */
	int offset;
};

/* A run begins (futex_init()): forget the last one. */
void fo_reset(void);

/* A futex call begins (do_futex()): process-private (FUTEX_PRIVATE_FLAG) or not. */
void fo_call_begin(bool private);
/* futex_wait(uaddr, val) begins (once, before its retry label). */
void fo_wait_begin(unsigned long uaddr, int val);
/* A round of futex_wait: the key is known; the waiter q is not queued, has read nothing.
 * Called again after each retry. */
void fo_wait_round(const void *q, const struct futex_key *key);
/* q was put on the list of the bucket `bucket` (queue_me(), or 2.6.12-jj's __queue_me()). */
void fo_queued(const void *q, const void *bucket);
/* futex_wait read curval, the value it compares with val (not the fault-in reads). */
void fo_read(uint32_t curval);
/* futex_wait is about to sleep (schedule_timeout), and has woken from it. */
void fo_asleep(void);
void fo_awake(void);
/* unqueue_me(q) found q still queued and took it off (it was not woken). */
void fo_unqueued(const void *q);
/* futex_wait returns ret. */
void fo_wait_end(long ret);

/* A waker on key (FUTEX_WAKE, FUTEX_REQUEUE or FUTEX_CMP_REQUEUE at uaddr) begins its
 * walk of the bucket, holding the bucket lock; it may wake `budget` waiters. */
void fo_wake_begin(const char *op, unsigned long uaddr, const struct futex_key *key, int budget);
/* wake_futex(q): the waker woke q. */
void fo_woken(const void *q);
/* futex_requeue moved q to key2. */
void fo_requeued(const void *q, const struct futex_key *key2);
/* The walk is over (the bucket lock still held); the call returns ret. */
void fo_wake_end(long ret);

/* FUTEX_CMP_REQUEUE before the 2.6.12 fix: it samples bucket's nqueued (nqueued), ... */
void fo_cmp_sample(const void *bucket, unsigned nqueued);
/* ... reads *uaddr1 (curval), then, under the bucket locks, finds nqueued changed (now)
 * and returns -EAGAIN. val: the caller's value. */
void fo_cmp_eagain(unsigned long uaddr1, int val, uint32_t curval, unsigned now);

/* The end of a run, whatever its verdict: count the fates of the waiters each wake call
 * woke, passed over or missed as interleaving coverage (sim/icov.h), if it is on. */
void futex_oracles_features(void);

/* The end of a run with no other finding: report a lost wake-up (lost) or a wrong
 * result (result), the oracles asked for, into `finding`. True if there was one. */
bool futex_oracles_judge(bool lost, bool result);

/* ---- read-only views of what the oracles recorded, for tools (snafu trace) ----
 *
 * They read the books the hooks kept, after a run, and pick what futex_oracles_judge()
 * picks (the same walk, in the same order), without a report or a side effect. */

/* A place in a task's run: its op and scheduling point (op.point, as `snafu replay
 * --trace` numbers them; 0.0 when not recorded). */
struct fo_view_at {
	int task;
	unsigned op, point;
};

/* The lost wake-up: the wake call, the waiter it spent its wake-up on (absorbed), and the
 * sleeper it passed over (absorbed) or missed (missed), still asleep at the end. */
struct fo_lost_view {
	bool missed; /* else absorbed */
	/* the wake call */
	struct fo_view_at wake; /* the waker, where it walked the chain */
	int wake_record;        /* its index in the oracle's wake records (fo.wakes[] for gdb) */
	const char *call;       /* "FUTEX_WAKE", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE" */
	unsigned long uaddr;
	int budget; /* how many it may wake */
	long ret;
	int nwoken, woken[SIM_MAX_TASKS]; /* the tasks it woke, in order */
	/* absorbed: the waiter the wake-up was spent on; queued_at and read_at are its */
	struct fo_view_at spent_queued, spent_read;
	int spent_val;
	uint32_t spent_curval; /* what it read: not its val */
	bool spent_read_after; /* woken before it read the word */
	bool spent_returned;   /* its futex_wait returned spent_ret */
	long spent_ret;
	/* the sleeper passed over or missed: its futex_wait's val, its read, where it read,
	 * queued and went to sleep (asleep since then, to the end of the run) */
	struct fo_view_at sleeper_read, sleeper_queued, sleeper_slept;
	int sleeper_val;
	uint32_t sleeper_curval;
	uint32_t word_at_wake; /* missed: what the word held at the wake */
};
/* The lost wake-up futex_oracles_judge() reports at the end of this run, into V; false
 * when the run has none (whatever the oracles asked for). */
bool futex_oracle_lost(struct fo_lost_view *v);

/* The wrong result: the FUTEX_CMP_REQUEUE that returned -EAGAIN with the word equal to
 * val, and the queue_me() calls into its bucket during the call (the nqueued moves). */
#define FO_VIEW_MAX_QUEUERS 8
struct fo_eagain_view {
	struct fo_view_at call; /* the caller, where it found nqueued moved */
	unsigned long uaddr;
	int val;
	uint32_t curval, now; /* its read, and the word when it returned */
	unsigned then_nq, now_nq;
	int nqueuers;
	struct fo_view_at queuers[FO_VIEW_MAX_QUEUERS]; /* where each queue_me() queued */
	unsigned long queuer_uaddr[FO_VIEW_MAX_QUEUERS];
};
/* The wrong result futex_oracles_judge() reports at the end of this run, into V; false
 * when there is none. */
bool futex_oracle_wrong_result(struct fo_eagain_view *v);

/* FUTEX_WAKE_OP's contract (ref/wake_op_oracle.c): a run begins (wo_reset()); a call
 * begins with its addresses and encoded operation (do_futex()); futex_atomic_op_inuser()
 * did the operation, the word held old before it; the call returns ret. wo_judge(): at
 * the run's end, a finding (finding_begin()) if a call broke the contract. */
void wo_reset(void);
void wo_begin(unsigned long uaddr1, unsigned long uaddr2, int op);
void wo_applied(uint32_t old);
void wo_end(long ret);
bool wo_judge(void);

#endif
