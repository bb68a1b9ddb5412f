/* kernel/futex.c of 2.6.22: private futexes, and mmap_sem only where a key needs a VMA.
 *
 * Source: torvalds/linux kernel/futex.c at bd197234b0a6 (2.6.22-rc), whose
 * PROCESS_PRIVATE futexes are Eric Dumazet's (2007). do_futex() takes the command from
 * op & FUTEX_CMD_MASK and passes every path fshared: NULL for FUTEX_PRIVATE_FLAG,
 * &current->mm->mmap_sem otherwise (ref/futex.c, do_futex()).
 *
 * Against 2.6.18 (ref/futex-2.6.18.c):
 * - get_futex_key(uaddr, fshared, key): a private futex's key is (mm, address) after
 *   access_ok() alone, with no VMA looked up and no lock; a shared futex's key in a
 *   private mapping carries FUT_OFF_MMSHARED (bit 1 of offset), so a private and a
 *   shared call on one word have different keys and never meet.
 * - futex_wait(), futex_wake(), futex_requeue() and futex_wake_op() take mmap_sem
 *   (`if (fshared) down_read(fshared)`) only for a shared futex. A private futex_wait()
 *   reads the word under the bucket lock with page faults disabled, as 2.6.12 on do,
 *   and a fault there drops the lock and faults the page in with get_user(), holding
 *   nothing: do_page_fault() takes mmap_sem for itself.
 * - futex_handle_fault(address, fshared, attempt) takes mmap_sem for read itself when
 *   its caller holds none (a private futex).
 * - futex_wait() returns -ERESTARTSYS for a signal (ref/futex.c, futex_wait_queued(),
 *   says what the model's signal makes of it).
 * Everything else is 2.6.18's: futex_requeue() changes only the key of a waiter whose
 * two keys share a bucket; futex_handle_fault() faults the word in for writing.
 *
 * Left out, as in the earlier releases: PI futexes and FUTEX_FD, key reference counts
 * (get_futex_key_refs(), drop_futex_key_refs(): the model's mm and inodes outlive
 * every waiter), and the plist's priorities: every task here has the same
 * (MAX_RT_PRIO, "the others are woken last, in FIFO order"), so the chain is FIFO as a
 * list is.
 *
 * The kernel that runs these: 2.6.22.
 */
#include "futex_int.h"

/* include/linux/futex.h of 2.6.22: which kind a key is, in bits 0-1 of its offset */
#define FUT_OFF_INODE    1 /* the model's 2.6.11 key already sets it: offset++ */
#define FUT_OFF_MMSHARED 2

#undef KFUNC
#define KFUNC "get_futex_key"

/* fshared NULL: a PROCESS_PRIVATE futex ("we dont even have to find the underlying
 * vma"); else the caller holds it for read, and the key is 2.6.11's (ref/futex.c),
 * FUT_OFF_MMSHARED added for a private mapping. */
static int get_futex_key_2_6_22(unsigned long uaddr, struct rw_semaphore *fshared,
				struct futex_key *key)
{
	unsigned long address = uaddr - uaddr % PAGE_SIZE;
	int ret;

	if (!fshared) {
		key->offset = (int)(uaddr % PAGE_SIZE);
		if (unlikely((uaddr % sizeof(uint32_t)) != 0))
			return -EINVAL;
		if (unlikely(!access_ok(uaddr, sizeof(uint32_t)))) /* VERIFY_WRITE */
			return -EFAULT;
		key->ptr = current->mm->id; /* key->private.mm */
		key->word = address;        /* key->private.address */
		return 0;
	}
	ret = get_futex_key(uaddr, key);
	if (ret == 0 && !(key->offset & FUT_OFF_INODE))
		key->offset |= FUT_OFF_MMSHARED; /* reference taken on mm */
	return ret;
}

/* Both keys of futex_wake_op() and futex_requeue() (ret != 0: no such futex) and their
 * buckets, as ref/futex.c's futex_requeue_keys() does for the releases before */
static int futex_two_keys(unsigned long uaddr1, unsigned long uaddr2, struct rw_semaphore *fshared,
			  struct futex_key *key1, struct futex_key *key2,
			  struct futex_hash_bucket **bh1, struct futex_hash_bucket **bh2)
{
	int ret;

	ret = get_futex_key_2_6_22(uaddr1, fshared, key1);
	if (unlikely(ret != 0))
		return ret;
	ret = get_futex_key_2_6_22(uaddr2, fshared, key2);
	if (unlikely(ret != 0))
		return ret;

	*bh1 = hash_futex(key1);
	*bh2 = hash_futex(key2);
	return 0;
}

#undef KFUNC
#define KFUNC "futex_handle_fault"

/* Fault handling. If fshared is non NULL, current->mm->mmap_sem is already held. */
static int futex_handle_fault(unsigned long address, struct rw_semaphore *fshared, int attempt)
{
	kframe(); /* kernel/futex.c, futex_handle_fault() */
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int ret = -EFAULT;

	if (attempt > 2)
		return ret;

	if (!fshared)
		down_read(&mm->mmap_sem);
	vma = find_vma(mm, address);
	if (vma && address >= vma->vm_start && (vma->vm_flags & VM_WRITE)) {
		switch (handle_mm_fault(mm, vma, address, true)) {
		case VM_FAULT_MINOR:
		case VM_FAULT_MAJOR:
			ret = 0;
			break;
		}
	}
	if (!fshared)
		up_read(&mm->mmap_sem);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wake"

static int futex_wake_2_6_22(unsigned long uaddr, struct rw_semaphore *fshared, int nr_wake)
{
	kframe(); /* kernel/futex.c, futex_wake() */
	struct futex_hash_bucket *bh;
	struct futex_key key;
	int ret;

	if (fshared)
		down_read(fshared);

	ret = get_futex_key_2_6_22(uaddr, fshared, &key);
	if (unlikely(ret != 0))
		goto out;

	bh = hash_futex(&key);
	spin_lock(&bh->lock);
	ret = futex_wake_chain(KFUNC, "FUTEX_WAKE", uaddr, bh, &key, nr_wake, 0);
	spin_unlock(&bh->lock);
out:
	if (fshared)
		up_read(fshared);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wake_op"

static int futex_wake_op_2_6_22(unsigned long uaddr1, struct rw_semaphore *fshared,
				unsigned long uaddr2, int nr_wake, int nr_wake2, int op)
{
	kframe(); /* kernel/futex.c, futex_wake_op() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret, op_ret, attempt = 0;

retryfull:
	if (fshared)
		down_read(fshared);

	ret = futex_two_keys(uaddr1, uaddr2, fshared, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

retry:
	lock_two_buckets(bh1, bh2); /* double_lock_hb() */

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
			ret = futex_handle_fault(uaddr2, fshared, attempt);
			if (ret)
				goto out;
			goto retry;
		}

		/* If we would have faulted, release mmap_sem, fault it in and start all
		 * over again. */
		if (fshared)
			up_read(fshared);
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
	if (fshared)
		up_read(fshared);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_requeue"

static int futex_requeue_2_6_22(unsigned long uaddr1, struct rw_semaphore *fshared,
				unsigned long uaddr2, int nr_wake, int nr_requeue,
				const int *cmpval)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret;

retry:
	if (fshared)
		down_read(fshared);

	ret = futex_two_keys(uaddr1, uaddr2, fshared, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		goto out;

	lock_two_buckets(bh1, bh2); /* double_lock_hb() */

	if (likely(cmpval != NULL)) {
		uint32_t curval;

		ret = get_futex_value_locked(&curval, uaddr1);
		if (unlikely(ret)) {
			unlock_two_buckets(bh1, bh2);
			/* If we would have faulted, release mmap_sem, fault it in and start
			 * all over again. */
			if (fshared)
				up_read(fshared);
			ret = get_user(curval, uaddr1);
			if (!ret)
				goto retry;
			return ret;
		}
		if ((int)curval != *cmpval) {
			ret = -EAGAIN;
			goto out_unlock;
		}
	}
	ret = futex_requeue_waiters(uaddr1, &key1, &key2, bh1, bh2, nr_wake, nr_requeue,
				    cmpval != NULL, REQUEUE_SAME_BUCKET_STAYS);

out_unlock:
	unlock_two_buckets(bh1, bh2);
out:
	if (fshared)
		up_read(fshared);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wait"

/* q: the kernel's `struct futex_q q;` (do_futex() passes the model's stand-in) */
static int futex_wait_2_6_22(struct futex_q *q, unsigned long uaddr, struct rw_semaphore *fshared,
			     int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct futex_hash_bucket *bh;
	uint32_t uval;
	int ret;

retry:
	if (fshared)
		down_read(fshared);

	ret = get_futex_key_2_6_22(uaddr, fshared, &q->key);
	if (unlikely(ret != 0))
		goto out_release_sem;
	fo_wait_round(q, &q->key);

	/* queue_lock(); "Access the page AFTER the futex is queued" under the bucket
	 * lock, with page faults disabled; __queue_me() only if *uaddr contained val */
	bh = hash_futex(&q->key);
	q->waiter = NULL;
	q->lock_ptr = &bh->lock;
	spin_lock(&bh->lock);
	ret = get_futex_value_locked(&uval, uaddr);
	if (unlikely(ret)) {
		spin_unlock(&bh->lock); /* queue_unlock() */
		/* If we would have faulted, release mmap_sem, fault it in and start all
		 * over again. */
		if (fshared)
			up_read(fshared);
		ret = get_user(uval, uaddr);
		if (!ret)
			goto retry;
		return ret;
	}
	fo_read(uval);
	ret = -EWOULDBLOCK;
	if ((int)uval != val) {
		spin_unlock(&bh->lock); /* out_unlock_release_sem: queue_unlock() */
		goto out_release_sem;
	}
	futex_chain_add(q, bh); /* __queue_me() */
	fo_queued(q, bh);
	spin_unlock(&bh->lock);

	/* Now the futex is queued and we have checked the data, we don't want to hold
	 * mmap_sem while we sleep. */
	if (fshared)
		up_read(fshared);
	return futex_wait_queued(q, uaddr, time);

out_release_sem:
	if (fshared)
		up_read(fshared);
	return ret;
}

const struct futex_paths futex_paths_2_6_22 = {
    .release = "2.6.22",
    .read = FUTEX_READ_BUCKET_LOCKED,
    FUTEX_PATH_FSHARED(wait, futex_wait_2_6_22),
    FUTEX_PATH_FSHARED(wake, futex_wake_2_6_22),
    FUTEX_PATH_FSHARED(requeue, futex_requeue_2_6_22),
    FUTEX_PATH_FSHARED(wake_op, futex_wake_op_2_6_22),
};
