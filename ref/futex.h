/* kernel/futex.c, 2.6.11 */
#ifndef SNAFU_FUTEX_H
#define SNAFU_FUTEX_H

#include "kernels.h"
#include "spinlock.h"

#define FUTEX_WAIT        0
#define FUTEX_WAKE        1
#define FUTEX_FD          2
#define FUTEX_REQUEUE     3
#define FUTEX_CMP_REQUEUE 4

void futex_init(void);
/* timeout in ticks of the virtual clock, MAX_SCHEDULE_TIMEOUT for none */
long do_futex(unsigned long uaddr, int op, int val, int64_t timeout, unsigned long uaddr2, int val2,
	      int val3);

/* Tests only (tests/test_assert.c): reach a waiter's futex_q, to break the rules of the
 * bucket lock on purpose. */
struct futex_q;
/* The first waiter queued on the futex at uaddr (found under mmap_sem and the bucket
 * lock, both dropped again), or NULL. */
struct futex_q *futex_test_first_waiter(unsigned long uaddr);
/* The lock of the bucket the futex at uaddr hashes to (NULL: no such futex). */
spinlock_t *futex_test_bucket_lock(unsigned long uaddr);
/* wake_futex(q), with whatever locks the caller holds. */
void futex_test_wake(struct futex_q *q);
/* q->lock_ptr = lock: a requeue that moved q and left lock_ptr behind, say. */
void futex_test_set_lock_ptr(struct futex_q *q, spinlock_t *lock);
/* q, woken, back on its bucket's chain: a wake_futex() that forgot list_del_init(). */
void futex_test_relist(struct futex_q *q);
/* The helpers every change of a futex_q's chain goes through, called directly, under
 * whatever locks the caller holds: add to the chain of the bucket whose lock is LOCK;
 * list_del(); list_del_init(); move to LOCK's bucket. */
void futex_test_chain_add(struct futex_q *q, spinlock_t *lock);
void futex_test_chain_del(struct futex_q *q);
void futex_test_chain_del_init(struct futex_q *q);
void futex_test_chain_move(struct futex_q *q, spinlock_t *lock);

#endif
