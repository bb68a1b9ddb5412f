/* kernel/futex.c of Jakub Jelinek's patch, merged for 2.6.12: FUTEX_WAIT "atomic again".
 *
 * Source: Jakub Jelinek's patch <20050318165326.GB32746@devserv.devel.redhat.com>, acked
 * by Ingo Molnar <20050318170005.GA27077@elte.hu>, merged between 2.6.11 and 2.6.12-rc2
 * (commit not known here).
 *
 * Against 2.6.11 (ref/futex-2.6.11.c): futex_wait takes the bucket lock (queue_lock()),
 * reads the word under it with faults disabled, and queues (__queue_me()) only if the
 * value matches, so no wake-up is absorbed; futex_requeue reads the word under both
 * bucket locks. Nothing reads the word without the bucket lock any more, so nqueued is
 * gone. A read that would have faulted still drops the locks and mmap_sem, faults the
 * page in with get_user() and starts over, as in 2.6.11.
 *
 * The kernels that run these: 2.6.12-jj, 2.6.13, and 2.6.14 and 2.6.17 beside their
 * FUTEX_WAKE_OP (ref/futex-2.6.14.c, ref/futex-2.6.17.c).
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_requeue"

int futex_requeue_2_6_12_jj(unsigned long uaddr1, unsigned long uaddr2, int nr_wake, int nr_requeue,
			    const int *valp)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	struct mm_struct *mm = current->mm;
	int ret;

retry:
	down_read(&mm->mmap_sem);

	ret = futex_requeue_keys(uaddr1, uaddr2, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

	/* take both bucket locks, then read the word with faults off */
	lock_two_buckets(bh1, bh2);
	if (likely(valp != NULL)) {
		uint32_t curval;

		ret = get_futex_value_locked(&curval, uaddr1);
		if (unlikely(ret)) {
			unlock_two_buckets(bh1, bh2);
			up_read(&mm->mmap_sem);
			ret = get_user(curval, uaddr1);
			if (!ret)
				goto retry;
			return ret;
		}
		if ((int)curval != *valp) {
			ret = -EAGAIN;
			goto out_unlock;
		}
	}
	ret = futex_requeue_waiters(uaddr1, &key1, &key2, bh1, bh2, nr_wake, nr_requeue,
				    valp != NULL, REQUEUE_MOVES);

out_unlock:
	unlock_two_buckets(bh1, bh2);
out:
	up_read(&mm->mmap_sem);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wait"

/* q: the kernel's `struct futex_q q;` on this function's stack; do_futex() passes the
 * model's stand-in (futex_q_get()), which is dead once this returns. */
int futex_wait_2_6_12_jj(struct futex_q *q, unsigned long uaddr, int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct mm_struct *mm = current->mm;
	uint32_t curval;
	int ret;
	struct futex_hash_bucket *bh;

retry:
	down_read(&mm->mmap_sem);

	ret = futex_wait_key(uaddr, q); /* get_futex_key(uaddr, &q.key) */
	if (unlikely(ret != 0))
		goto out_release_sem;

	/* queue_lock(); read with faults off under the bucket lock; __queue_me() only if
	 * the value matches. No absorbed wake-ups. */
	bh = hash_futex(&q->key);
	q->waiter = NULL;
	q->lock_ptr = &bh->lock;
	spin_lock(&bh->lock);
	ret = get_futex_value_locked(&curval, uaddr);
	if (unlikely(ret)) {
		spin_unlock(&bh->lock);
		up_read(&mm->mmap_sem);
		ret = get_user(curval, uaddr);
		if (!ret)
			goto retry;
		return ret;
	}
	fo_read(curval);
	if ((int)curval != val) {
		spin_unlock(&bh->lock);
		ret = -EWOULDBLOCK;
		goto out_release_sem;
	}
	futex_chain_add(q, bh); /* __queue_me() */
	fo_queued(q, bh);
	spin_unlock(&bh->lock);
	return futex_wait_sleep(q, uaddr, time);

out_release_sem:
	up_read(&mm->mmap_sem);
	return ret;
}

const struct futex_paths futex_paths_2_6_12_jj = {
    .release = "2.6.12-jj",
    .read = FUTEX_READ_BUCKET_LOCKED,
    FUTEX_PATH(wait, futex_wait_2_6_12_jj),
    FUTEX_PATH(requeue, futex_requeue_2_6_12_jj),
};
