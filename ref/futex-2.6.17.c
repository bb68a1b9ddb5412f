/* kernel/futex.c of 2.6.17: FUTEX_WAKE_OP's errors passed on.
 *
 * Source: torvalds/linux kernel/futex.c at 0771dfefc9e5 ("[PATCH] lightweight robust
 * futexes: core", Ingo Molnar, 2.6.17-rc1), the robust-list code left out: it adds a
 * system call the model does not have and changes no path here.
 *
 * Against 2.6.14 (ref/futex-2.6.14.c): futex_wake_op() returns an error of
 * futex_atomic_op_inuser() other than -EFAULT as it is ("if (unlikely(op_ret !=
 * -EFAULT))"), so a refused encoding gives -ENOSYS, once. The second fault still goes
 * to -EFAULT without handle_mm_fault() (`attempt >= 2`): a read-only word still fails.
 * futex_wait and futex_requeue are 2.6.12-jj's.
 *
 * The kernel that runs these: 2.6.17.
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_wake_op"

static int futex_wake_op_2_6_17(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
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
			struct vm_area_struct *vma;

			ret = -EFAULT;
			if (attempt >= 2 || !(vma = find_vma(mm, uaddr2)) ||
			    vma->vm_start > uaddr2 || !(vma->vm_flags & VM_WRITE))
				goto out;
			switch (handle_mm_fault(mm, vma, uaddr2, true)) {
			case VM_FAULT_MINOR:
			case VM_FAULT_MAJOR:
				break;
			default:
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

const struct futex_paths futex_paths_2_6_17 = {
    .release = "2.6.17",
    .read = FUTEX_READ_BUCKET_LOCKED,
    FUTEX_PATH(wait, futex_wait_2_6_12_jj),
    FUTEX_PATH(requeue, futex_requeue_2_6_12_jj),
    FUTEX_PATH(wake_op, futex_wake_op_2_6_17),
};
