/* kernel/futex.c of 2.6.11-rc4: futex_wait() and futex_requeue() before any mmap_sem fix.
 *
 * Source: tag v2.6.11-rc4 (the lines Olof Johansson's "[PATCH/RFC] Futex mmap_sem
 * deadlock" removes show its futex code; docs/kernel-facts.md).
 *
 * Against the release before (2.6.10-rc2, Hidetoshi Seto's read-before-queue_me, in
 * ref/futex-2.6.10-seto.c): Andrew Morton's revert-futex_wait-fix put futex_wait back
 * in its old order, queue_me() first, then get_user() of the word, so that a waker who
 * changes the word after the read finds the waiter queued. Both paths read the word with
 * get_user() while holding mmap_sem for read: a fault there takes mmap_sem a second
 * time, which deadlocks behind a queued writer (the bug of 2005). futex_requeue counts
 * the bucket's waiters (nqueued) to see a FUTEX_CMP_REQUEUE race without the locks.
 *
 * The kernels that run these: 2.6.11-rc4, and the designs built on it (rwsem-lockdepth,
 * pf-mmap-sem, rwsem-reader-pref); 2.6.10-seto runs this futex_requeue; olof-rfc runs
 * both after its fault-in loop (__futex_wait_2_6_11_rc4(), __futex_requeue_2_6_11_rc4()).
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_requeue"

/* The rest of futex_requeue(), with mmap_sem held. */
int __futex_requeue_2_6_11_rc4(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
			       int nr_requeue, const int *valp)
{
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	struct mm_struct *mm = current->mm;
	uint32_t curval = 0;
	unsigned int nqueued;
	int ret;

	ret = futex_requeue_keys(uaddr1, uaddr2, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

	nqueued = futex_requeue_nqueued(bh1, valp);
	if (likely(valp != NULL) && get_user(curval, uaddr1) != 0) {
		/* 2.6.11-rc4: a fault here takes mmap_sem for read a second time */
		ret = -EFAULT;
		goto out;
	}
	return futex_requeue_compare(uaddr1, &key1, &key2, bh1, bh2, nr_wake, nr_requeue, valp,
				     curval, nqueued);

out:
	up_read(&mm->mmap_sem);
	return ret;
}

int futex_requeue_2_6_11_rc4(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
			     int nr_requeue, const int *valp)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct mm_struct *mm = current->mm;

	down_read(&mm->mmap_sem);
	return __futex_requeue_2_6_11_rc4(uaddr1, uaddr2, nr_wake, nr_requeue, valp);
}

#undef KFUNC
#define KFUNC "futex_wait"

/* The rest of futex_wait(), with mmap_sem held. */
int __futex_wait_2_6_11_rc4(struct futex_q *q, unsigned long uaddr, int val, int64_t time)
{
	struct mm_struct *mm = current->mm;
	uint32_t curval;
	int ret;

	ret = futex_wait_key(uaddr, q); /* get_futex_key(uaddr, &q.key) */
	if (unlikely(ret != 0))
		goto out_release_sem;

	queue_me(q);

	/* Access the page AFTER the futex is queued: a wake between the read and the
	 * sleep finds us queued. */
	if (get_user(curval, uaddr) != 0) {
		/* 2.6.11-rc4 (and olof-rfc, which made sure the page was there): a fault
		 * here takes mmap_sem for read a second time */
		return futex_wait_unqueue(q, -EFAULT);
	}
	return futex_wait_compare(q, uaddr, val, curval, time);

out_release_sem:
	up_read(&mm->mmap_sem);
	return ret;
}

/* q: the kernel's `struct futex_q q;` on this function's stack; do_futex() passes the
 * model's stand-in (futex_q_get()), which is dead once this returns. */
int futex_wait_2_6_11_rc4(struct futex_q *q, unsigned long uaddr, int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct mm_struct *mm = current->mm;

	down_read(&mm->mmap_sem);
	return __futex_wait_2_6_11_rc4(q, uaddr, val, time);
}

const struct futex_paths futex_paths_2_6_11_rc4 = {
    .release = "2.6.11-rc4",
    .read = FUTEX_READ_GET_USER,
    FUTEX_PATH(wait, futex_wait_2_6_11_rc4),
    FUTEX_PATH(requeue, futex_requeue_2_6_11_rc4),
};
