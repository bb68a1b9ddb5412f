/* kernel/futex.c of 2.6.28: futex keys from the page, and no mmap_sem in the futex paths.
 *
 * Source: Peter Zijlstra's series (LKML 2008-09-26, <20080926173219.885155151@twins.
 * programming.kicks-ass.net>, "futex: get_user_pages() and mmap_sem", merged for 2.6.28):
 * 1/4 torvalds/linux 38d47c1b7075 "futex: rely on get_user_pages() for shared futexes",
 * 2/4 "futex: reduce mmap_sem usage", 3/4 "futex: use fast_gup()", 4/4 "futex: cleanup
 * fshared" (the stored copies of 2/4 to 4/4 are the posted patches; 1/4 is read at its
 * commit). do_futex() passes fshared as 2.6.22 does (ref/futex.c); 2.6.28's is an int,
 * the model's the pointer it was, and only whether it is NULL matters.
 *
 * Against 2.6.22 (ref/futex-2.6.22.c):
 * - get_futex_key(): a shared futex's key comes from the page, not the VMA. It takes
 *   the page with get_user_pages_fast(address, 1, 0, &page) (no mmap_sem, unless the
 *   walk falls back: ref/memory-2.6.28.c), retries while the page has no mapping
 *   ("if (!page->mapping) ... goto again"), and keys an anonymous page (PageAnon) on
 *   (mm, address) with FUT_OFF_MMSHARED, any other on (inode, page->index).
 *   So the key of a word in a private file mapping changes when COW gives it an
 *   anonymous page: a waiter keyed on the file's page is not found by a waker that
 *   comes after the COW. KOSAKI Motohiro's 7485d0d3758e ("futexes: Remove rw parameter
 *   from get_futex_key()", 2.6.33) fixed it by taking the page for writing, and a
 *   ZERO_PAGE loop with it (as 9ea71503a8ed's message tells).
 * - No path takes mmap_sem: a fault on the word is handled with get_user() holding
 *   nothing (do_page_fault() takes mmap_sem), and futex_handle_fault() takes it itself.
 * Everything else is 2.6.22's.
 *
 * Left out, as in 2.6.22 (PI futexes, FUTEX_FD, key reference counts, the plist's
 * priorities), and lock_page() around the key. What it guards here is page->mapping,
 * which the model changes in one place, when a shmem object's last VMA goes and its
 * pages leave the page cache (mapping NULL, as remove_from_page_cache() leaves it): that
 * is one step, and the key's test of page->mapping and its use of it are one step (no
 * scheduling point between), so the two cannot interleave, as lock_page() makes sure;
 * and the model's fault paths are 2.6.13's, which lock no page. Also
 * FUTEX_WAIT_BITSET and the bitset (2.6.25): the model's ops wake any waiter, as
 * FUTEX_BITSET_MATCH_ANY does.
 *
 * The kernel that runs these: 2.6.28.
 */
#include "futex_int.h"

#define FUT_OFF_INODE    1
#define FUT_OFF_MMSHARED 2

#undef KFUNC
#define KFUNC "get_futex_key"

static int get_futex_key_2_6_28(unsigned long uaddr, struct rw_semaphore *fshared,
				struct futex_key *key)
{
	kframe(); /* kernel/futex.c, get_futex_key() */
	unsigned long address = uaddr - uaddr % PAGE_SIZE;
	struct mm_struct *mm = current->mm;
	struct page *page;
	int err;

	key->offset = (int)(uaddr % PAGE_SIZE);
	if (unlikely((uaddr % sizeof(uint32_t)) != 0))
		return -EINVAL;

	/* "PROCESS_PRIVATE futexes are fast." */
	if (!fshared) {
		if (unlikely(!access_ok(uaddr, sizeof(uint32_t)))) /* VERIFY_WRITE */
			return -EFAULT;
		key->ptr = mm->id; /* key->private.mm */
		key->word = address;
		return 0;
	}

again:
	err = get_user_pages_fast(address, 1, 0, &page);
	if (err < 0)
		return err;

	if (!page_has_mapping(page)) {
		put_page(page);
		goto again;
	}

	/* "Private mappings are handled in a simple way." */
	if (PageAnon(page)) {
		key->offset |= FUT_OFF_MMSHARED; /* ref taken on mm */
		key->ptr = mm->id;
		key->word = address;
	} else {
		key->offset |= FUT_OFF_INODE; /* inode-based key */
		key->ptr = page->mapping->i_ino;
		key->word = page->index;
	}
	put_page(page);
	return 0;
}

/* Both keys and buckets of futex_wake_op() and futex_requeue(), as 2.6.22's */
static int futex_two_keys(unsigned long uaddr1, unsigned long uaddr2, struct rw_semaphore *fshared,
			  struct futex_key *key1, struct futex_key *key2,
			  struct futex_hash_bucket **bh1, struct futex_hash_bucket **bh2)
{
	int ret = get_futex_key_2_6_28(uaddr1, fshared, key1);

	if (unlikely(ret != 0))
		return ret;
	ret = get_futex_key_2_6_28(uaddr2, fshared, key2);
	if (unlikely(ret != 0))
		return ret;
	*bh1 = hash_futex(key1);
	*bh2 = hash_futex(key2);
	return 0;
}

#undef KFUNC
#define KFUNC "futex_handle_fault"

/* "Fault handling.": no caller holds mmap_sem any more, so it takes it */
static int futex_handle_fault(unsigned long address, int attempt)
{
	kframe(); /* kernel/futex.c, futex_handle_fault() */
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int ret = -EFAULT;

	if (attempt > 2)
		return ret;

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
	up_read(&mm->mmap_sem);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wake"

static int futex_wake_2_6_28(unsigned long uaddr, struct rw_semaphore *fshared, int nr_wake)
{
	kframe(); /* kernel/futex.c, futex_wake() */
	struct futex_hash_bucket *bh;
	struct futex_key key;
	int ret;

	ret = get_futex_key_2_6_28(uaddr, fshared, &key);
	if (unlikely(ret != 0))
		return ret;

	bh = hash_futex(&key);
	spin_lock(&bh->lock);
	ret = futex_wake_chain(KFUNC, "FUTEX_WAKE", uaddr, bh, &key, nr_wake, 0);
	spin_unlock(&bh->lock);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wake_op"

static int futex_wake_op_2_6_28(unsigned long uaddr1, struct rw_semaphore *fshared,
				unsigned long uaddr2, int nr_wake, int nr_wake2, int op)
{
	kframe(); /* kernel/futex.c, futex_wake_op() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret, op_ret, attempt = 0;

retryfull:
	ret = futex_two_keys(uaddr1, uaddr2, fshared, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		return ret;

retry:
	lock_two_buckets(bh1, bh2); /* double_lock_hb() */

	op_ret = futex_atomic_op_inuser(op, uaddr2);
	if (unlikely(op_ret < 0)) {
		uint32_t dummy;

		unlock_two_buckets(bh1, bh2);

		if (unlikely(op_ret != -EFAULT))
			return op_ret;

		/* "if get_user below is not enough, we need to handle the fault ourselves,
		 * while still holding the mmap_sem" (the comment outlived the lock) */
		if (attempt++) {
			ret = futex_handle_fault(uaddr2, attempt);
			if (ret)
				return ret;
			goto retry;
		}

		ret = get_user(dummy, uaddr2);
		if (ret)
			return ret;
		goto retryfull;
	}

	ret = futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr1, bh1, &key1, nr_wake, 0);
	if (op_ret > 0)
		ret += futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr2, bh2, &key2, nr_wake2, 0);

	unlock_two_buckets(bh1, bh2);
	return ret;
}

#undef KFUNC
#define KFUNC "futex_requeue"

static int futex_requeue_2_6_28(unsigned long uaddr1, struct rw_semaphore *fshared,
				unsigned long uaddr2, int nr_wake, int nr_requeue,
				const int *cmpval)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret;

retry:
	ret = futex_two_keys(uaddr1, uaddr2, fshared, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		return ret;

	lock_two_buckets(bh1, bh2); /* double_lock_hb() */

	if (likely(cmpval != NULL)) {
		uint32_t curval;

		ret = get_futex_value_locked(&curval, uaddr1);
		if (unlikely(ret)) {
			unlock_two_buckets(bh1, bh2);
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
	return ret;
}

#undef KFUNC
#define KFUNC "futex_wait"

static int futex_wait_2_6_28(struct futex_q *q, unsigned long uaddr, struct rw_semaphore *fshared,
			     int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct futex_hash_bucket *bh;
	uint32_t uval;
	int ret;

retry:
	ret = get_futex_key_2_6_28(uaddr, fshared, &q->key);
	if (unlikely(ret != 0))
		return ret;
	fo_wait_round(q, &q->key);

	/* queue_lock(); "Access the page AFTER the futex is queued" under the bucket
	 * lock, with page faults disabled; queue_me() only if *uaddr contained val */
	bh = hash_futex(&q->key);
	q->waiter = NULL;
	q->lock_ptr = &bh->lock;
	spin_lock(&bh->lock);
	ret = get_futex_value_locked(&uval, uaddr);
	if (unlikely(ret)) {
		spin_unlock(&bh->lock); /* queue_unlock() */
		ret = get_user(uval, uaddr);
		if (!ret)
			goto retry;
		return ret;
	}
	fo_read(uval);
	if ((int)uval != val) {
		spin_unlock(&bh->lock); /* out_unlock_release_sem: queue_unlock() */
		return -EWOULDBLOCK;
	}
	futex_chain_add(q, bh); /* queue_me() */
	fo_queued(q, bh);
	spin_unlock(&bh->lock);
	return futex_wait_queued(q, uaddr, time);
}

const struct futex_paths futex_paths_2_6_28 = {
    .release = "2.6.28",
    .read = FUTEX_READ_BUCKET_LOCKED,
    .key_from_page = true,
    FUTEX_PATH_FSHARED(wait, futex_wait_2_6_28),
    FUTEX_PATH_FSHARED(wake, futex_wake_2_6_28),
    FUTEX_PATH_FSHARED(requeue, futex_requeue_2_6_28),
    FUTEX_PATH_FSHARED(wake_op, futex_wake_op_2_6_28),
};
