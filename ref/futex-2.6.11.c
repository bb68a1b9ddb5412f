/* kernel/futex.c of 2.6.11: the merged fix, "Fix possible futex mmap_sem deadlock".
 *
 * Source: tag v2.6.11, with "Fix possible futex mmap_sem deadlock" (2.6.11-rc5): Olof
 * Johansson's final patch <20050223191254.GA5608@austin.ibm.com>, after Linus Torvalds
 * <Pine.LNX.4.58.0502231356580.18997@ppc970.osdl.org>.
 *
 * Against 2.6.11-rc4 (ref/futex-2.6.11-rc4.c; olof-rfc's fault-in loop was not merged):
 * futex_wait and futex_requeue read the word with get_futex_value_locked(), page faults
 * disabled, so a fault cannot take mmap_sem again; a read that would have faulted drops
 * mmap_sem, faults the page in with a plain get_user() and starts over (retry:).
 * futex_wait still queues before it reads, and futex_requeue still counts nqueued.
 *
 * The kernels that run these: 2.6.11, and the test-only test-futex-wake-unlocked.
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_requeue"

static int futex_requeue_2_6_11(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
				int nr_requeue, const int *valp)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret;
	unsigned int nqueued;
	uint32_t curval = 0;
	struct mm_struct *mm = current->mm;

retry:
	down_read(&mm->mmap_sem);

	ret = futex_requeue_keys(uaddr1, uaddr2, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

	nqueued = futex_requeue_nqueued(bh1, valp);
	if (likely(valp != NULL)) {
		ret = get_futex_value_locked(&curval, uaddr1);
		if (unlikely(ret)) {
			/* would have faulted: drop mmap_sem, fault it in, start over */
			up_read(&mm->mmap_sem);
			ret = get_user(curval, uaddr1);
			if (!ret)
				goto retry;
			return ret;
		}
	}
	return futex_requeue_compare(uaddr1, &key1, &key2, bh1, bh2, nr_wake, nr_requeue, valp,
				     curval, nqueued);

out:
	up_read(&mm->mmap_sem);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wait"

/* q: 2.6.11's `struct futex_q q;` on this function's stack; do_futex() passes the
 * model's stand-in (futex_q_get()), which is dead once this returns. */
static int futex_wait_2_6_11(struct futex_q *q, unsigned long uaddr, int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct mm_struct *mm = current->mm;
	uint32_t curval;
	int ret;

retry:
	down_read(&mm->mmap_sem);

	ret = futex_wait_key(uaddr, q); /* get_futex_key(uaddr, &q.key) */
	if (unlikely(ret != 0))
		goto out_release_sem;

	queue_me(q);

	/* Access the page AFTER the futex is queued: a wake between the read and the
	 * sleep finds us queued. */
	ret = get_futex_value_locked(&curval, uaddr);
	if (unlikely(ret)) {
		/* would have faulted: release mmap_sem, fault it in, start over */
		up_read(&mm->mmap_sem);
		if (!unqueue_me(q)) /* There's a chance we got woken already */
			return 0;
		ret = get_user(curval, uaddr);
		if (!ret)
			goto retry;
		return ret;
	}
	return futex_wait_compare(q, uaddr, val, curval, time);

out_release_sem:
	up_read(&mm->mmap_sem);
	return ret;
}

const struct futex_paths futex_paths_2_6_11 = {
    .release = "2.6.11",
    .read = FUTEX_READ_LOCKED_RETRY,
    FUTEX_PATH(wait, futex_wait_2_6_11),
    FUTEX_PATH(requeue, futex_requeue_2_6_11),
};
