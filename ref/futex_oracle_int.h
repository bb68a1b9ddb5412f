/* The futex oracles' books, shared by the hooks that keep them (ref/futex_oracle.c) and the
 * judgement that reads them at the end of a run (ref/futex_oracle_judge.c); inside ref/
 * only. */
#ifndef SNAFU_FUTEX_ORACLE_INT_H
#define SNAFU_FUTEX_ORACLE_INT_H

#include "futex_oracle.h"
#include "kernels.h"

#ifdef SNAFU_NATIVE
#define fo_off() true /* real threads: the hooks would race; no oracles there */
#else
#define fo_off() false
#endif

#define FO_MAX_WAKES  64 /* wake calls kept per run; later ones are not judged */
#define FO_MAX_QUEUES 64 /* queue_me() calls kept, to name them in a wrong-result report */

enum fo_read { FO_UNREAD, FO_MATCH, FO_MISMATCH };

/* Where a task was: its op and scheduling point (`snafu replay --trace` numbers them so). */
struct fo_when {
	uint16_t op, point;
};

/* One task's futex_wait: the one in progress, or its last. */
struct fo_wait {
	bool active; /* in futex_wait */
	unsigned serial;
	unsigned long uaddr;
	int val;
	const void *q;
	struct futex_key key;  /* now: a requeue changes it */
	struct futex_key ckey; /* the contract's key, as the round began (contract_key()) */
	bool queued;           /* on a bucket list now */
	bool round_queued;     /* queued at some moment of this round */
	enum fo_read read;     /* this round's read */
	uint32_t curval;
	int woken_by; /* the wake record that woke it in this round; -1: none */
	bool asleep;
	struct fo_when queued_at, read_at, slept_at;
	long ret; /* what its futex_wait returned, once it has (interleaving coverage) */
};

/* A futex_wait as one wake call saw it. */
struct fo_ref {
	int task;
	unsigned serial;
	int val;
	enum fo_read read; /* woken: its read in that round, so far */
	uint32_t curval;
	bool read_after; /* woken before it read the word */
	bool absorbed;   /* woken, and its read did not match */
	bool returned;   /* woken: its futex_wait returned ret */
	long ret;
	uint32_t now; /* missed: what the word held at the wake */
	struct fo_when queued_at, read_at;
};

/* One wake call: FUTEX_WAKE, or a requeue's wake half. */
struct fo_wake {
	int task;
	const char *op;
	unsigned long uaddr;
	struct futex_key key, ckey; /* the kernel's and the contract's */
	int budget;
	struct fo_when at;
	long ret;
	int nwoken, nmoved, npassed, nmissed, nrekeyed;
	struct fo_ref woken[SIM_MAX_TASKS], passed[SIM_MAX_TASKS], missed[SIM_MAX_TASKS],
	    rekeyed[SIM_MAX_TASKS];
};

struct fo_queue {
	int task;
	const void *bucket;
	unsigned long uaddr;
	struct fo_when at;
};

/* The first futex_wait that a wake call woke and that returned anything but 0. */
struct fo_woken_ret {
	bool seen;
	int task;
	unsigned long uaddr;
	int val;
	long ret;
	int wake; /* the wake record that woke it */
	struct fo_when at;
};

/* The first FUTEX_CMP_REQUEUE that returned -EAGAIN from the nqueued test. */
struct fo_eagain {
	bool seen;
	int task;
	unsigned long uaddr;
	int val;
	uint32_t curval, now;
	bool now_ok; /* a VMA covered uaddr1 at the time: `now` is the word */
	unsigned then_nq, now_nq;
	int first_queue, last_queue; /* fo.queues[first..last) went into that bucket, maybe */
	const void *bucket;
	struct fo_when at;
};

struct fo_books {
	unsigned serials;
	struct fo_wait wait[SIM_MAX_TASKS + 1];
	bool private_call[SIM_MAX_TASKS + 1]; /* each task's futex call: FUTEX_PRIVATE_FLAG */
	int nwakes;
	struct fo_wake *cur; /* the wake call walking a bucket now (under its lock) */
	int nqueues;
	/* FUTEX_CMP_REQUEUE: the bucket each task sampled, and how many queue_me() calls
	 * had been logged then */
	const void *cmp_bucket[SIM_MAX_TASKS + 1];
	unsigned cmp_nq[SIM_MAX_TASKS + 1];
	int cmp_queues[SIM_MAX_TASKS + 1];
	struct fo_eagain eagain;
	struct fo_woken_ret woken_ret;
	/* interleaving coverage: the last futex event, and whose */
	uint32_t last_ev;
	int last_task;
	/* last: used up to nwakes and nqueues, each record written whole when it is made,
	 * so that a run resets only what comes before them (wakes[] is 77 KB) */
	struct fo_wake wakes[FO_MAX_WAKES];
	struct fo_queue queues[FO_MAX_QUEUES];
};
extern struct fo_books fo;

/* The oracles watch the model; ThreadSanitizer is to judge the model alone. */
#define FO_BEGIN()              \
	do {                    \
		if (fo_off())   \
			return; \
		sim_hw_begin(); \
	} while (0)
#define FO_END() sim_hw_end()

static inline int me(void)
{
	return current->pid;
}

static inline struct fo_when now_at(void)
{
	struct task_struct *t = current;

	return (struct fo_when){.op = t->sim.op, .point = t->sim.op_points};
}

static inline bool same_key(const struct futex_key *a, const struct futex_key *b)
{
	return a->word == b->word && a->ptr == b->ptr && a->offset == b->offset;
}

static inline struct fo_wait *wait_of_q(const void *q)
{
	for (int t = 1; t <= SIM_MAX_TASKS; t++)
		if (fo.wait[t].active && fo.wait[t].q == q)
			return &fo.wait[t];
	return NULL;
}

static inline struct fo_ref *woken_ref(const struct fo_wait *w)
{
	if (w->woken_by < 0)
		return NULL;
	struct fo_wake *r = &fo.wakes[w->woken_by];
	int t = (int)(w - fo.wait);
	for (int i = 0; i < r->nwoken; i++)
		if (r->woken[i].task == t && r->woken[i].serial == w->serial)
			return &r->woken[i];
	return NULL;
}

/* a futex_wait return value, as a small class (interleaving coverage) */
static inline uint32_t ret_class(long ret)
{
	return ret == 0              ? 0
	       : ret == -EWOULDBLOCK ? 1
	       : ret == -ETIMEDOUT   ? 2
	       : ret == -EINTR       ? 3
				     : 4;
}

#endif
