/* kernel/futex.c of 2.6.30: the fault logic without attempt counters, and keys taken for
 * writing where the op writes.
 *
 * Source: v2.6.30's kernel/futex.c as stored in keystargchy/linux-2.6.30 (89a003f5df12, a
 * board's tree whose Makefile says 2.6.30), which holds Darren Hart's e4dc5b7a36a4
 * ("futex: clean up fault logic", 2.6.30-rc1) and Thomas Gleixner's 64d1304a64 ("futex:
 * setup writeable mapping for futex ops which modify user space data").
 *
 * Against 2.6.28 (ref/futex-2.6.28.c):
 * - get_futex_key(uaddr, fshared, key, rw): get_user_pages_fast(address, 1, rw ==
 *   VERIFY_WRITE, &page), so FUTEX_WAKE_OP's second word (VERIFY_WRITE) is faulted in
 *   writable, COW broken, before its key is made; the others are VERIFY_READ, as 2.6.28.
 *   A private key checks access_ok(rw, ...), an address range check on x86 whatever rw
 *   says ("On x86 it does _NOT_", d0725992c8a6's message).
 * - A fault on the word drops the locks, reads it with get_user() and, if that worked,
 *   goes round again: from retry_private (the same key and buckets) for a private
 *   futex, from retry (new keys) for a shared one. No attempt is counted, and
 *   futex_handle_fault() is gone.
 * - futex_wake_op()'s retry_private label comes after double_lock_hb(), not before: a
 *   private FUTEX_WAKE_OP whose operation faults unlocks both buckets, reads the word,
 *   and goes round again without them, so the operation, the wake-ups and the final
 *   double_unlock_hb() run on locks it does not hold. futex_wait() and futex_requeue()
 *   have the label before their lock. 2.6.31.3 (jz47xx/linux-2.6.31.3, 3609b4ebb0b6)
 *   still has it after; 2.6.32.9 (rabeeh/linux-2.6.32.9, c04795236fe2) has it before;
 *   the commit between is not known here.
 * Everything else is 2.6.28's, and so is what the model leaves out (lock_page(), PI,
 * requeue-PI, the bitset, key reference counts).
 *
 * The kernel that runs these: 2.6.30.
 */
#include "futex_int.h"

#define FUT_OFF_INODE    1
#define FUT_OFF_MMSHARED 2

/* include/asm-x86/uaccess.h */
#define VERIFY_READ  0
#define VERIFY_WRITE 1

#undef KFUNC
#define KFUNC "get_futex_key"

static int get_futex_key_2_6_30(unsigned long uaddr, struct rw_semaphore *fshared,
				struct futex_key *key, int rw)
{
	kframe(); /* kernel/futex.c, get_futex_key() */
	unsigned long address = uaddr - uaddr % PAGE_SIZE;
	struct mm_struct *mm = current->mm;
	struct page *page;
	int err;

	key->offset = (int)(uaddr % PAGE_SIZE);
	if (unlikely((uaddr % sizeof(uint32_t)) != 0))
		return -EINVAL;

	if (!fshared) {
		if (unlikely(!access_ok(uaddr, sizeof(uint32_t)))) /* access_ok(rw, ...) */
			return -EFAULT;
		key->ptr = mm->id;
		key->word = address;
		return 0;
	}

again:
	err = get_user_pages_fast(address, 1, rw == VERIFY_WRITE, &page);
	if (err < 0)
		return err;

	if (!page_has_mapping(page)) {
		put_page(page);
		goto again;
	}

	if (PageAnon(page)) {
		key->offset |= FUT_OFF_MMSHARED;
		key->ptr = mm->id;
		key->word = address;
	} else {
		key->offset |= FUT_OFF_INODE;
		key->ptr = page->mapping->i_ino;
		key->word = page->index;
	}
	put_page(page);
	return 0;
}

/* Both keys (uaddr2's for rw2) and their buckets of futex_wake_op() and futex_requeue() */
static int futex_two_keys(unsigned long uaddr1, unsigned long uaddr2, struct rw_semaphore *fshared,
			  int rw2, struct futex_key *key1, struct futex_key *key2,
			  struct futex_hash_bucket **bh1, struct futex_hash_bucket **bh2)
{
	int ret = get_futex_key_2_6_30(uaddr1, fshared, key1, VERIFY_READ);

	if (unlikely(ret != 0))
		return ret;
	ret = get_futex_key_2_6_30(uaddr2, fshared, key2, rw2);
	if (unlikely(ret != 0))
		return ret;
	*bh1 = hash_futex(key1);
	*bh2 = hash_futex(key2);
	return 0;
}

#undef KFUNC
#define KFUNC "futex_wake"

static int futex_wake_2_6_30(unsigned long uaddr, struct rw_semaphore *fshared, int nr_wake)
{
	kframe(); /* kernel/futex.c, futex_wake() */
	struct futex_hash_bucket *bh;
	struct futex_key key;
	int ret;

	ret = get_futex_key_2_6_30(uaddr, fshared, &key, VERIFY_READ);
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

static int futex_wake_op_2_6_30(unsigned long uaddr1, struct rw_semaphore *fshared,
				unsigned long uaddr2, int nr_wake, int nr_wake2, int op)
{
	kframe(); /* kernel/futex.c, futex_wake_op() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret, op_ret;

retry:
	ret = futex_two_keys(uaddr1, uaddr2, fshared, VERIFY_WRITE, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		return ret;

	lock_two_buckets(bh1, bh2); /* double_lock_hb() */
retry_private:
	op_ret = futex_atomic_op_inuser(op, uaddr2);
	if (unlikely(op_ret < 0)) {
		uint32_t dummy;

		unlock_two_buckets(bh1, bh2); /* double_unlock_hb() */

		if (unlikely(op_ret != -EFAULT))
			return op_ret;

		ret = get_user(dummy, uaddr2);
		if (ret)
			return ret;

		if (!fshared)
			goto retry_private; /* the buckets' locks are not taken again */
		goto retry;
	}

	ret = futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr1, bh1, &key1, nr_wake, 0);
	if (op_ret > 0)
		ret += futex_wake_chain(KFUNC, "FUTEX_WAKE_OP", uaddr2, bh2, &key2, nr_wake2, 0);

	unlock_two_buckets(bh1, bh2); /* double_unlock_hb() */
	return ret;
}

#undef KFUNC
#define KFUNC "futex_requeue"

static int futex_requeue_2_6_30(unsigned long uaddr1, struct rw_semaphore *fshared,
				unsigned long uaddr2, int nr_wake, int nr_requeue,
				const int *cmpval)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct futex_key key1, key2;
	struct futex_hash_bucket *bh1, *bh2;
	int ret;

retry:
	ret = futex_two_keys(uaddr1, uaddr2, fshared, VERIFY_READ, &key1, &key2, &bh1, &bh2);
	if (unlikely(ret != 0))
		return ret;

retry_private:
	lock_two_buckets(bh1, bh2); /* double_lock_hb() */

	if (likely(cmpval != NULL)) {
		uint32_t curval;

		ret = get_futex_value_locked(&curval, uaddr1);
		if (unlikely(ret)) {
			unlock_two_buckets(bh1, bh2);

			ret = get_user(curval, uaddr1);
			if (ret)
				return ret;

			if (!fshared)
				goto retry_private;
			goto retry;
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

static int futex_wait_2_6_30(struct futex_q *q, unsigned long uaddr, struct rw_semaphore *fshared,
			     int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct futex_hash_bucket *bh;
	uint32_t uval;
	int ret;

retry:
	ret = get_futex_key_2_6_30(uaddr, fshared, &q->key, VERIFY_READ);
	if (unlikely(ret != 0))
		return ret;

retry_private:
	fo_wait_round(q, &q->key);
	/* queue_lock(); "Access the page AFTER the hash-bucket is locked." */
	bh = hash_futex(&q->key);
	q->waiter = NULL;
	q->lock_ptr = &bh->lock;
	spin_lock(&bh->lock);
	ret = get_futex_value_locked(&uval, uaddr);
	if (unlikely(ret)) {
		spin_unlock(&bh->lock); /* queue_unlock() */

		ret = get_user(uval, uaddr);
		if (ret)
			return ret;

		if (!fshared)
			goto retry_private;
		goto retry;
	}
	fo_read(uval);
	if (unlikely((int)uval != val)) {
		spin_unlock(&bh->lock); /* queue_unlock() */
		return -EWOULDBLOCK;
	}
	futex_chain_add(q, bh); /* queue_me() */
	fo_queued(q, bh);
	spin_unlock(&bh->lock);
	return futex_wait_queued(q, uaddr, time);
}

const struct futex_paths futex_paths_2_6_30 = {
    .release = "2.6.30",
    .read = FUTEX_READ_BUCKET_LOCKED,
    .key_from_page = true,
    .wake_op_key2_write = true,
    FUTEX_PATH_FSHARED(wait, futex_wait_2_6_30),
    FUTEX_PATH_FSHARED(wake, futex_wake_2_6_30),
    FUTEX_PATH_FSHARED(requeue, futex_requeue_2_6_30),
    FUTEX_PATH_FSHARED(wake_op, futex_wake_op_2_6_30),
};
