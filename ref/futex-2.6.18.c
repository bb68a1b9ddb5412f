/* kernel/futex.c of 2.6.18: futex_handle_fault(), FUTEX_WAKE_OP's write fault handled.
 *
 * Source: kernel/futex.c of v2.6.18.8 as stored in bronson/linux-2.6.18.8-ovz-xen
 * (80395f196a21; its OpenVZ changes touch the PI code only), whose futex_handle_fault()
 * came with the PI futexes (c87e2837be82, "[PATCH] pi-futex: futex_lock_pi/
 * futex_unlock_pi support", 2.6.18-rc1) and was mended after John Stultz's report
 * ("[BUG] futex_handle_fault always fails", LKML 2006-08-07,
 * <1154986798.5343.26.camel@localhost.localdomain>): `attempt > 2`, and ret = -EFAULT
 * where it fails. PI futexes are left out: ops the model does not have.
 *
 * Against 2.6.17 (ref/futex-2.6.17.c): futex_wake_op()'s second fault goes to
 * futex_handle_fault(), which faults the word in for writing with handle_mm_fault()
 * under mmap_sem (find_vma(), VM_WRITE), and the operation is tried again without
 * dropping it; a third attempt is -EFAULT. So a present, read-only word is written (its
 * COW broken) and the wake-ups happen. futex_requeue() no longer moves a waiter whose
 * keys hash to the same bucket ("If key1 and key2 hash to the same bucket, no need to
 * requeue": it changes its key only, and the "stop if key1 == key2" test is gone);
 * double_lock_hb() takes the buckets as lock_two_buckets() does. futex_wait is
 * 2.6.12-jj's.
 *
 * The kernel that runs these: 2.6.18.
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_handle_fault"

/* Fault handling. Called with current->mm->mmap_sem held. */
static int futex_handle_fault(unsigned long address, int attempt)
{
	kframe(); /* kernel/futex.c, futex_handle_fault() */
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	if (attempt > 2 || !(vma = find_vma(mm, address)) || vma->vm_start > address ||
	    !(vma->vm_flags & VM_WRITE))
		return -EFAULT;
	switch (handle_mm_fault(mm, vma, address, true)) {
	case VM_FAULT_MINOR:
	case VM_FAULT_MAJOR:
		return 0;
	default:
		return -EFAULT;
	}
}

#undef KFUNC
#define KFUNC "futex_requeue"

int futex_requeue_2_6_18(unsigned long uaddr1, unsigned long uaddr2, int nr_wake, int nr_requeue,
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

	lock_two_buckets(bh1, bh2); /* double_lock_hb() */
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
				    valp != NULL, REQUEUE_SAME_BUCKET_STAYS);

out_unlock:
	unlock_two_buckets(bh1, bh2);
out:
	up_read(&mm->mmap_sem);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wake_op"

static int futex_wake_op_2_6_18(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
				int nr_wake2, int op)
{
	kframe(); /* kernel/futex.c, futex_wake_op() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	struct mm_struct *mm = current->mm;
	int ret, op_ret, attempt = 0;

retryfull:
	down_read(&mm->mmap_sem);

	ret = futex_requeue_keys(uaddr1, uaddr2, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

retry:
	lock_two_buckets(bh1, bh2);

	op_ret = futex_atomic_op_inuser(op, uaddr2);
	if (unlikely(op_ret < 0)) {
		uint32_t dummy;

		unlock_two_buckets(bh1, bh2);

		if (unlikely(op_ret != -EFAULT)) {
			ret = op_ret;
			goto out;
		}

		/* "if get_user below is not enough, we need to handle the fault ourselves,
		 * while still holding the mmap_sem" */
		if (attempt++) {
			if (futex_handle_fault(uaddr2, attempt)) {
				ret = -EFAULT;
				goto out;
			}
			goto retry;
		}

		/* If we would have faulted, release mmap_sem, fault it in and start all
		 * over again. */
		up_read(&mm->mmap_sem);
		ret = get_user(dummy, uaddr2);
		if (ret)
			return ret;
		goto retryfull;
	}

	ret = futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr1, bh1, &key1, nr_wake, ret);
	if (op_ret > 0)
		ret += futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr2, bh2, &key2, nr_wake2, 0);

	unlock_two_buckets(bh1, bh2);
out:
	up_read(&mm->mmap_sem);
	return ret;
}

const struct futex_paths futex_paths_2_6_18 = {
    .release = "2.6.18",
    .read = FUTEX_READ_BUCKET_LOCKED,
    FUTEX_PATH(wait, futex_wait_2_6_12_jj),
    FUTEX_PATH(requeue, futex_requeue_2_6_18),
    FUTEX_PATH(wake_op, futex_wake_op_2_6_18),
};
