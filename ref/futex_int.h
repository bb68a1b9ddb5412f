/* What kernel/futex.c's releases share: ref/futex.c (the helpers every release has,
 * futex_wake, do_futex) and the files that hold each release's own futex_wait and
 * futex_requeue (ref/futex-2.6.11-rc4.c, ref/futex-olof-rfc.c, ref/futex-2.6.11.c,
 * ref/futex-2.6.12-jj.c, ref/futex-2.6.10-seto.c; docs/kernel-facts.md, "Where a
 * release's futex code lives"). Internal to those files: the rest of the model sees
 * ref/futex.h.
 *
 * A release's functions are named for it (futex_wait_2_6_11()) and stand for the kernel's
 * futex_wait(): each is compiled under `#define KFUNC "futex_wait"` (ref/kernel.h), so
 * that its frame and the sites its locks and user accesses record are the kernel's
 * names, as the traces and reports have always shown them. */
#ifndef SNAFU_FUTEX_INT_H
#define SNAFU_FUTEX_INT_H

#include "futex.h"
#include "futex_oracle.h"
#include "mm.h"
#include "uaccess.h"

/* struct futex_key: ref/futex_oracle.h */

/* What a futex_q is to the model's checks (none of it is the kernel's): its waiter's
 * futex_wait runs (live), wake_futex() has cleared its lock_ptr, after which "the waiting
 * task can free the futex_q ... without taking any locks" (released), or that futex_wait
 * has returned and its stack frame is gone (dead). A waker that touches one that is not
 * live is a finding (futex_q_touch()). */
enum futex_q_state { FQ_LIVE, FQ_RELEASED, FQ_DEAD };

struct futex_q {
	struct list_head list;
	struct task_struct *_Atomic waiter; /* the wait queue: set by add_wait_queue() */
	spinlock_t *_Atomic lock_ptr;       /* NULL once woken; read without the lock */
	struct futex_key key;
	/* the model's bookkeeping: the bucket whose chain holds q->list (NULL: none), whose
	 * lock every list operation asserts; the state above, who released it and when
	 * (task, op, point), and when its futex_wait returned */
	struct futex_hash_bucket *chain;
	enum futex_q_state state;
	int owner, released_by;
	uint16_t released_op, released_point, returned_op, returned_point;
};

struct futex_hash_bucket {
	spinlock_t lock;
	unsigned int nqueued;
	struct list_head chain;
};

/* 2.6.11 holds the lock of the bucket whose chain q->list is on at every list_add,
 * list_del and list_move of it (kernel/futex.c: queue_me(), unqueue_me(), wake_futex()
 * "The hash bucket lock must be held when this is called.", futex_requeue()). The four
 * helpers below are the only writers of q->list, and each asserts it; like an inline
 * function's WARN, a finding names the caller (lock-assert--bh_lock--wake_futex). */
static inline void assert_bucket_locked(struct futex_hash_bucket *bh, const char *caller)
{
	lock_assert_held(&bh->lock, bh->lock.name, &bh->lock, false, caller);
}

static inline void assert_chain_locked(const struct futex_q *q, const char *caller)
{
	if (q->chain)
		assert_bucket_locked(q->chain, caller);
}

/* list_add_tail() onto bh's chain: queue_me(), 2.6.12-jj's __queue_me() */
static inline void futex_chain_add_from(struct futex_q *q, struct futex_hash_bucket *bh,
					const char *caller)
{
	assert_bucket_locked(bh, caller);
	list_add_tail(&q->list, &bh->chain);
	q->chain = bh;
}
#define futex_chain_add(q, bh) futex_chain_add_from((q), (bh), KFUNC)

/* list_del(): unqueue_me(), the waiter taking itself off */
static inline void futex_chain_del_from(struct futex_q *q, const char *caller)
{
	assert_chain_locked(q, caller);
	list_del(&q->list);
	q->chain = NULL;
}
#define futex_chain_del(q) futex_chain_del_from((q), KFUNC)

/* list_del_init(): wake_futex(); the waiter reads list_empty() without the lock */
static inline void futex_chain_del_init_from(struct futex_q *q, const char *caller)
{
	assert_chain_locked(q, caller);
	list_del_init(&q->list);
	q->chain = NULL;
}
#define futex_chain_del_init(q) futex_chain_del_init_from((q), KFUNC)

/* list_move_tail() onto bh2's chain: futex_requeue(), which holds both locks */
static inline void futex_chain_move_from(struct futex_q *q, struct futex_hash_bucket *bh2,
					 const char *caller)
{
	assert_chain_locked(q, caller);
	assert_bucket_locked(bh2, caller);
	list_move_tail(&q->list, &bh2->chain);
	q->chain = bh2;
}
#define futex_chain_move(q, bh2) futex_chain_move_from((q), (bh2), KFUNC)

/* kernel/futex.c's helpers, the same in every release here (ref/futex.c) */
struct futex_hash_bucket *hash_futex(const struct futex_key *key);
int get_futex_key(unsigned long uaddr, struct futex_key *key); /* mmap_sem held */
int get_futex_value_locked(uint32_t *dest, unsigned long from);
void queue_me(struct futex_q *q);
int unqueue_me(struct futex_q *q);
void lock_two_buckets(struct futex_hash_bucket *bh1, struct futex_hash_bucket *bh2);
/* FUTEX_WAKE_OP's parts (2.6.14 on): futex_atomic_op_inuser() (include/asm-i386/futex.h)
 * and the walk of one chain (ref/futex.c says what each returns) */
int futex_atomic_op_inuser(int encoded_op, unsigned long uaddr);
int futex_wake_chain(const char *fn, const char *name, unsigned long uaddr,
		     struct futex_hash_bucket *bh, const struct futex_key *key, int nr, int ret);
void unlock_two_buckets(struct futex_hash_bucket *bh1, struct futex_hash_bucket *bh2);

/* The parts of futex_wait() and futex_requeue() that every release here has the same
 * (ref/futex.c), called with mmap_sem held:
 *   futex_wait_key()       get_futex_key() of the word into q->key (ret != 0: no such
 *                          futex); the oracles told that a round of waiting begins
 *   futex_wait_sleep()     from "Now the futex is queued and we have checked the data"
 *                          to the end: drop mmap_sem, then futex_wait_queued()
 *   futex_wait_queued()    the rest, with no mmap_sem held: sleep, unqueue_me()
 *   futex_wait_unqueue()   its out_unqueue: unqueue_me() (0 if a waker got q first,
 *                          else ret), drop mmap_sem
 *   futex_wait_compare()   queued q, read the word (curval): compare with val, then
 *                          sleep, or unqueue with -EWOULDBLOCK
 *   futex_requeue_keys()   both keys (ret != 0: no such futex) and their buckets
 *   futex_requeue_nqueued() in the releases that count nqueued (2.6.11-rc4 to 2.6.11),
 *                          bh1->nqueued, read without the locks before the word
 *   futex_requeue_compare() in those releases, from the compare of the word read without
 *                          the locks (curval; valp NULL: FUTEX_REQUEUE, none) to the end:
 *                          take both bucket locks, -EAGAIN if nqueued changed, the walk,
 *                          unlock, drop mmap_sem
 *   futex_requeue_waiters() with both bucket locks held, the walk of bh1's chain: wake
 *                          nr_wake waiters on key1, move up to nr_requeue more to key2;
 *                          returns how many (cmp: FUTEX_CMP_REQUEUE) */
int futex_wait_key(unsigned long uaddr, struct futex_q *q);
int futex_wait_sleep(struct futex_q *q, unsigned long uaddr, int64_t time);
int futex_wait_queued(struct futex_q *q, unsigned long uaddr, int64_t time);
int futex_wait_unqueue(struct futex_q *q, int ret);
int futex_wait_compare(struct futex_q *q, unsigned long uaddr, int val, uint32_t curval,
		       int64_t time);
int futex_requeue_keys(unsigned long uaddr1, unsigned long uaddr2, struct futex_key *key1,
		       struct futex_key *key2, struct futex_hash_bucket **bh1,
		       struct futex_hash_bucket **bh2);
unsigned int futex_requeue_nqueued(struct futex_hash_bucket *bh1, const int *valp);
int futex_requeue_compare(unsigned long uaddr1, const struct futex_key *key1,
			  const struct futex_key *key2, struct futex_hash_bucket *bh1,
			  struct futex_hash_bucket *bh2, int nr_wake, int nr_requeue,
			  const int *valp, uint32_t curval, unsigned int nqueued);
/* How the walk treats a waiter to requeue whose two keys share a bucket: moves it to
 * the chain's tail like any other (2.6.11 to 2.6.17), or leaves it where it is with its
 * new key (2.6.18) */
enum requeue_walk { REQUEUE_MOVES, REQUEUE_SAME_BUCKET_STAYS };
int futex_requeue_waiters(unsigned long uaddr1, const struct futex_key *key1,
			  const struct futex_key *key2, struct futex_hash_bucket *bh1,
			  struct futex_hash_bucket *bh2, int nr_wake, int nr_requeue, bool cmp,
			  enum requeue_walk walk);
/* 2.6.12-jj's futex_wait and futex_requeue, which 2.6.13 to 2.6.17 run too */
int futex_wait_2_6_12_jj(struct futex_q *q, unsigned long uaddr, int val, int64_t time);
int futex_requeue_2_6_12_jj(unsigned long uaddr1, unsigned long uaddr2, int nr_wake, int nr_requeue,
			    const int *valp);
/* 2.6.18's futex_requeue, which the test-only kernel test-wake-op-retry runs too */
int futex_requeue_2_6_18(unsigned long uaddr1, unsigned long uaddr2, int nr_wake, int nr_requeue,
			 const int *valp);

/* 2.6.11-rc4's futex_wait() and futex_requeue() (ref/futex-2.6.11-rc4.c): 2.6.10-seto
 * runs its futex_requeue; olof-rfc's run their rest after down_read() (__*) after its
 * fault-in loop. */
int futex_wait_2_6_11_rc4(struct futex_q *q, unsigned long uaddr, int val, int64_t time);
int futex_requeue_2_6_11_rc4(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
			     int nr_requeue, const int *valp);
int __futex_wait_2_6_11_rc4(struct futex_q *q, unsigned long uaddr, int val, int64_t time);
int __futex_requeue_2_6_11_rc4(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
			       int nr_requeue, const int *valp);

#endif
