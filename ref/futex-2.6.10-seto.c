/* kernel/futex.c of 2.6.10-rc2: Hidetoshi Seto's futex_wait-fix, reverted.
 *
 * Source: futex_wait-fix.patch ("futex_wait hang fix"), Hidetoshi Seto, in 2.6.10-rc1-mm5
 * and 2.6.10-rc2 (message-id not known here), reverted by Andrew Morton's
 * revert-futex_wait-fix <20041114184456.6bfd07d3.akpm@osdl.org> after Jamie Lokier showed
 * it loses wake-ups (<20041114090023.GA478@mail.shareable.org>).
 *
 * Against the futex_wait before it (queue_me(), then get_user(): the order 2.6.11-rc4
 * has again, ref/futex-2.6.11-rc4.c): get_user() and the compare first, queue_me() only
 * on a match. Everything else is as before the mmap_sem fix: get_user() under mmap_sem,
 * nqueued, and 2.6.11-rc4's futex_requeue, which this release runs.
 *
 * The kernel that runs this: 2.6.10-seto.
 */
#include "futex_int.h"

#undef KFUNC
#define KFUNC "futex_wait"

/* q: the kernel's `struct futex_q q;` on this function's stack; do_futex() passes the
 * model's stand-in (futex_q_get()), which is dead once this returns. */
static int futex_wait_2_6_10_seto(struct futex_q *q, unsigned long uaddr, int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct mm_struct *mm = current->mm;
	uint32_t curval;
	int ret;

	down_read(&mm->mmap_sem);

	ret = futex_wait_key(uaddr, q); /* get_futex_key(uaddr, &q.key) */
	if (unlikely(ret != 0))
		goto out_release_sem;

	/* 2.6.10-rc2: Hidetoshi Seto's futex_wait-fix.patch (2.6.10-rc1-mm5; undone by
	 * Andrew Morton's revert-futex_wait-fix, LKML 2004-11-14): get_user() and the
	 * compare first, queue_me() only on a match. A waker that changes the word
	 * and calls FUTEX_WAKE between the two does not find this waiter, which then
	 * queues and sleeps (Jamie Lokier, "Futex queue_me/get_user ordering"). */
	if (get_user(curval, uaddr) != 0) {
		ret = -EFAULT;
		goto out_release_sem;
	}
	fo_read(curval);
	if ((int)curval != val) {
		ret = -EWOULDBLOCK;
		goto out_release_sem;
	}
	queue_me(q);
	return futex_wait_sleep(q, uaddr, time);

out_release_sem:
	up_read(&mm->mmap_sem);
	return ret;
}

const struct futex_paths futex_paths_2_6_10_seto = {
    .release = "2.6.10-seto",
    .read = FUTEX_READ_GET_USER,
    .wait_reads_first = true,
    FUTEX_PATH(wait, futex_wait_2_6_10_seto),
    FUTEX_PATH(requeue, futex_requeue_2_6_11_rc4),
};
