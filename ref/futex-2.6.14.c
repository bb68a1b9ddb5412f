/* kernel/futex.c of 2.6.14: FUTEX_WAKE_OP.
 *
 * Source: torvalds/linux 4732efbeb997 "[PATCH] FUTEX_WAKE_OP: pthread_cond_signal()
 * speedup" (Jakub Jelinek, 2005-09-06), with include/asm-i386/futex.h's
 * futex_atomic_op_inuser() (ref/futex.c).
 *
 * Against 2.6.13 (whose futex_wait and futex_requeue are 2.6.12-jj's,
 * ref/futex-2.6.12-jj.c, unchanged here): futex_wake_op() takes both keys under
 * mmap_sem, both bucket locks, does the operation on the word at uaddr2 with page faults
 * disabled, wakes nr_wake waiters on uaddr1 and, if the comparison of the old value
 * holds, nr_wake2 on uaddr2. A fault drops the locks and mmap_sem, faults the word in
 * with a get_user() (a read) and starts over; a second fault was meant to be handled
 * under mmap_sem with handle_mm_fault(write), but `attempt` is 2 by then and the test
 * `attempt >= 2` sends every second fault to -EFAULT: a word whose PTE is present but
 * read-only (the ZERO_PAGE after a read, a private file page, a page swapped in by a
 * read) cannot be written, and FUTEX_WAKE_OP fails with -EFAULT having woken no one
 * (John Stultz, "[BUG] futex_handle_fault always fails", LKML 2006-08-07,
 * <1154986798.5343.26.camel@localhost.localdomain>: "the logic was first introduced
 * ... in 4732efbeb997"). And every op_ret < 0 is taken for a fault: an encoding
 * futex_atomic_op_inuser() refuses (-ENOSYS) goes round once more (a refused comparison
 * after the write: the operation is done twice) and ends in -EFAULT.
 *
 * The kernel that runs these: 2.6.14.
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_wake_op"

static int futex_wake_op_2_6_14(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
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

const struct futex_paths futex_paths_2_6_14 = {
    .release = "2.6.14",
    .read = FUTEX_READ_BUCKET_LOCKED,
    FUTEX_PATH(wait, futex_wait_2_6_12_jj),
    FUTEX_PATH(requeue, futex_requeue_2_6_12_jj),
    FUTEX_PATH(wake_op, futex_wake_op_2_6_14),
};
