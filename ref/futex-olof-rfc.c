/* kernel/futex.c of Olof Johansson's RFC: futex_wait() and futex_requeue() fault the
 * page of the word in before they read it.
 *
 * Source: "[PATCH/RFC] Futex mmap_sem deadlock", Olof Johansson, LKML 2005-02-22,
 * message-id not known here (a reply: https://lkml.org/lkml/2005/2/23/34); the seed
 * patch (../shared/seeds/).
 *
 * Against 2.6.11-rc4 (ref/futex-2.6.11-rc4.c): after down_read(), until
 * check_user_page_readable() says the page is there, drop mmap_sem, fault the page in
 * with get_user() and take mmap_sem again. The rest is 2.6.11-rc4's, get_user() under
 * mmap_sem included, so these functions run its code after the loop
 * (__futex_wait_2_6_11_rc4(), __futex_requeue_2_6_11_rc4()).
 */
#include "futex_int.h"

/* Olof's RFC: until the page is readable, drop mmap_sem, fault it in with get_user()
 * and retake mmap_sem. Returns with mmap_sem held, or -EFAULT without it. The patch
 * has this loop inline in futex_wait() and futex_requeue(): `site` names the caller
 * as the holder of the retaken mmap_sem. */
static int olof_fault_in_page(unsigned long uaddr, const char *site)
{
	struct mm_struct *mm = current->mm;
	uint32_t curval;

	while (!check_user_page_readable(mm, uaddr)) {
		up_read(&mm->mmap_sem);
		/* Fault in the page through get_user() but discard result */
		if (get_user(curval, uaddr) != 0)
			return -EFAULT;
		rwsem_down_read(&mm->mmap_sem, site);
	}
	return 0;
}

#undef KFUNC
#define KFUNC "futex_requeue"

static int futex_requeue_olof_rfc(unsigned long uaddr1, unsigned long uaddr2, int nr_wake,
				  int nr_requeue, const int *valp)
{
	kframe(); /* kernel/futex.c, futex_requeue() */
	struct mm_struct *mm = current->mm;

	down_read(&mm->mmap_sem);
	if (olof_fault_in_page(uaddr1, KFUNC))
		return -EFAULT;
	return __futex_requeue_2_6_11_rc4(uaddr1, uaddr2, nr_wake, nr_requeue, valp);
}

#undef KFUNC
#define KFUNC "futex_wait"

static int futex_wait_olof_rfc(struct futex_q *q, unsigned long uaddr, int val, int64_t time)
{
	kframe(); /* kernel/futex.c, futex_wait() */
	struct mm_struct *mm = current->mm;

	down_read(&mm->mmap_sem);
	if (olof_fault_in_page(uaddr, KFUNC))
		return -EFAULT;
	return __futex_wait_2_6_11_rc4(q, uaddr, val, time);
}

const struct futex_paths futex_paths_olof_rfc = {
    .release = "olof-rfc",
    .read = FUTEX_READ_CHECK_PAGE,
    FUTEX_PATH(wait, futex_wait_olof_rfc),
    FUTEX_PATH(requeue, futex_requeue_olof_rfc),
};
