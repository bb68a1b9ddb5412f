/* A test-only kernel's futex_wake_op: 2.6.18's, whose fault is handled the way 2.6.30
 * handles it, to show what snafu reports when a retry loop never ends.
 *
 * Source of the fault logic: torvalds/linux e4dc5b7a36a4 "futex: clean up fault logic"
 * (Darren Hart, 2.6.30-rc1), kernel/futex.c futex_wake_op(): on -EFAULT, drop the
 * bucket locks, `get_user(dummy, uaddr2)`, and if that read succeeds, retry; no attempt
 * counter. A word whose PTE is present and readable but not writable (the ZERO_PAGE
 * after a read, a page a read fault swapped in) is read without a fault, and the
 * operation faults again, for ever: Thomas Gleixner's d0725992c8a6 "futex: Fix the
 * write access fault problem for real" (2.6.31) made it fault_in_user_writeable().
 *
 * Not a release: 2.6.30 took its keys without mmap_sem (get_user_pages_fast(), 2.6.28),
 * and this keeps 2.6.18's mmap_sem, dropped around the get_user() as 2.6.18 drops it.
 * It is test-only (never listed or evaluated) until 2.6.30 is a kernel of its own:
 * tests/test_report.sh replays a case on it.
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_wake_op"

static int futex_wake_op_retry(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
			       int nr_wake2, int op)
{
	kframe(); /* kernel/futex.c, futex_wake_op() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	struct mm_struct *mm = current->mm;
	int ret, op_ret;

retry:
	down_read(&mm->mmap_sem);

	ret = futex_requeue_keys(uaddr1, uaddr2, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

	lock_two_buckets(bh1, bh2); /* double_lock_hb() */
	op_ret = futex_atomic_op_inuser(op, uaddr2);
	if (unlikely(op_ret < 0)) {
		uint32_t dummy;

		unlock_two_buckets(bh1, bh2);
		if (unlikely(op_ret != -EFAULT)) {
			ret = op_ret;
			goto out;
		}
		up_read(&mm->mmap_sem);
		ret = get_user(dummy, uaddr2);
		if (ret)
			return ret;
		goto retry;
	}

	ret = futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr1, bh1, &key1, nr_wake, ret);
	if (op_ret > 0)
		ret += futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr2, bh2, &key2, nr_wake2, 0);

	unlock_two_buckets(bh1, bh2);
out:
	up_read(&mm->mmap_sem);
	return ret;
}

const struct futex_paths futex_paths_test_wake_op_retry = {
    .release = "test-wake-op-retry",
    .read = FUTEX_READ_BUCKET_LOCKED,
    FUTEX_PATH(wait, futex_wait_2_6_12_jj),
    FUTEX_PATH(requeue, futex_requeue_2_6_18),
    FUTEX_PATH(wake_op, futex_wake_op_retry),
};
