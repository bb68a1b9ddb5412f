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
#define FUTEX_WAKE_OP     5 /* 2.6.14 on */
/* include/linux/futex.h of 2.6.22: a process-private futex, keyed by (mm, address)
 * without mmap_sem; ORed into the command. Before 2.6.22 do_futex()'s switch (op) has
 * no case for it: -ENOSYS. */
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CMD_MASK     ~FUTEX_PRIVATE_FLAG

/* FUTEX_WAKE_OP's encoded operation (include/linux/futex.h, 2.6.14): op in bits 28-31
 * (FUTEX_OP_OPARG_SHIFT: oparg is a shift count), cmp in bits 24-27, oparg in bits
 * 12-23 and cmparg in bits 0-11, both signed */
#define FUTEX_OP_SET         0 /* *(int *)UADDR2 = OPARG; */
#define FUTEX_OP_ADD         1 /* *(int *)UADDR2 += OPARG; */
#define FUTEX_OP_OR          2 /* *(int *)UADDR2 |= OPARG; */
#define FUTEX_OP_ANDN        3 /* *(int *)UADDR2 &= ~OPARG; */
#define FUTEX_OP_XOR         4 /* *(int *)UADDR2 ^= OPARG; */
#define FUTEX_OP_OPARG_SHIFT 8 /* Use (1 << OPARG) instead of OPARG.  */
#define FUTEX_OP_CMP_EQ      0 /* if (oldval == CMPARG) wake */
#define FUTEX_OP_CMP_NE      1
#define FUTEX_OP_CMP_LT      2
#define FUTEX_OP_CMP_LE      3
#define FUTEX_OP_CMP_GT      4
#define FUTEX_OP_CMP_GE      5
#define FUTEX_OP(op, oparg, cmp, cmparg)                                 \
	(int)(((uint32_t)(op)&0xf) << 28 | ((uint32_t)(cmp)&0xf) << 24 | \
	      ((uint32_t)(oparg)&0xfff) << 12 | ((uint32_t)(cmparg)&0xfff))

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
