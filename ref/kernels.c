/* The kernels snafu can run, as data. See ../shared/REFERENCE.md for the sources, and
 * docs/kernel-facts.md for what each kernel is and where it comes from. */
#include "kernels.h"

#include <string.h>

const struct kernel_config kernels[] = {
    {
	.name = "2.6.11-rc4",
	.summary = "unfixed: futex_wait/CMP_REQUEUE get_user() and get_mempolicy "
		   "put_user() under mmap_sem",
	.source = "tag v2.6.11-rc4 (the lines olof-rfc's patch removes show its futex and "
		  "mempolicy code)",
	.futex = &futex_paths_2_6_11_rc4,
	.mm = &mm_paths_2_6_11,
	.mempolicy_up_read_first = false,
    },
    {
	.name = "olof-rfc",
	.summary = "Olof Johansson's RFC (2005-02-22): check_user_page_readable() loop, "
		   "mempolicy reordered",
	/* the seed patch (../shared/seeds/); lkml.org's copy of the thread was found by
	 * a reply's page, not by the RFC's message-id */
	.source = "\"[PATCH/RFC] Futex mmap_sem deadlock\", Olof Johansson, LKML 2005-02-22, "
		  "message-id not known here (a reply: https://lkml.org/lkml/2005/2/23/34)",
	.futex = &futex_paths_olof_rfc,
	.mm = &mm_paths_2_6_11,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.11",
	.summary = "merged fix: get_futex_value_locked() with faults disabled, drop "
		   "mmap_sem and retry; mempolicy fixed",
	.source = "tag v2.6.11, with \"Fix possible futex mmap_sem deadlock\" (2.6.11-rc5): "
		  "Olof Johansson's final patch <20050223191254.GA5608@austin.ibm.com>, "
		  "after Linus Torvalds <Pine.LNX.4.58.0502231356580.18997@ppc970.osdl.org>",
	.futex = &futex_paths_2_6_11,
	.mm = &mm_paths_2_6_11,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "rwsem-lockdepth",
	.summary = "2.6.11-rc4 with rwsems that count read depth per task: a reader "
		   "holding it re-enters without queueing",
	.source = "a design, no patch known here: the rwsem \"lock depth\" that LWN's \"FUTEX + "
		  "rwsem = SNAFU\" "
		  "(2005-02-23) lists among the fixes",
	.futex = &futex_paths_2_6_11_rc4,
	.mm = &mm_paths_2_6_11,
	.rwsem = RWSEM_LOCKDEPTH,
    },
    {
	.name = "pf-mmap-sem",
	.summary = "2.6.11-rc4 with PF_MMAP_SEM: do_page_fault takes no mmap_sem when "
		   "the task already holds it",
	.source = "a design, no patch known here: PF_MMAP_SEM, which LWN's \"FUTEX + rwsem = "
		  "SNAFU\" (2005-02-23) "
		  "lists among the fixes",
	.futex = &futex_paths_2_6_11_rc4,
	.mm = &mm_paths_2_6_11,
	.pf_mmap_sem = true,
    },
    {
	.name = "rwsem-reader-pref",
	.summary = "2.6.11-rc4 with reader-preferring rwsems (readers pass waiting "
		   "writers, as rwlocks do)",
	.source = "a design, no patch known here: Linus Torvalds's argument in the olof-rfc "
		  "thread, message-id not "
		  "known here; David Howells's answer that rwsems are fair on purpose "
		  "<5109.1109157889@redhat.com>",
	.futex = &futex_paths_2_6_11_rc4,
	.mm = &mm_paths_2_6_11,
	.rwsem = RWSEM_READER_PREF,
    },
    {
	.name = "2.6.12-jj",
	.summary = "Jakub Jelinek's follow-up: FUTEX_WAIT reads the word under the "
		   "bucket lock and queues only on a match; no nqueued",
	.source = "Jakub Jelinek's patch <20050318165326.GB32746@devserv.devel.redhat.com>, "
		  "acked by Ingo Molnar <20050318170005.GA27077@elte.hu>, merged between 2.6.11 "
		  "and 2.6.12-rc2 (commit not known here)",
	.futex = &futex_paths_2_6_12_jj,
	.mm = &mm_paths_2_6_11,
	.mempolicy_up_read_first = true,
    },
    {
	/* The futex_wait of 2.6.10-rc2: Seto's reordering (futex_wait-fix.patch, from
	 * 2.6.10-rc1-mm5), reverted by Andrew Morton's revert-futex_wait-fix (LKML
	 * 2004-11-14, <20041114184456.6bfd07d3.akpm@osdl.org>) after Jamie Lokier showed it
	 * loses wake-ups (<20041114090023.GA478@mail.shareable.org>). Everything else is as
	 * before the mmap_sem fix: get_user() under mmap_sem, nqueued, mempolicy unfixed. */
	.name = "2.6.10-seto",
	.summary = "Hidetoshi Seto's futex_wait-fix (2.6.10-rc2, reverted): read the word, "
		   "then queue_me(); otherwise 2.6.11-rc4",
	.source = "futex_wait-fix.patch (\"futex_wait hang fix\"), Hidetoshi Seto, in "
		  "2.6.10-rc1-mm5 and 2.6.10-rc2 (message-id not known here), reverted by Andrew "
		  "Morton's revert-futex_wait-fix <20041114184456.6bfd07d3.akpm@osdl.org>",
	.futex = &futex_paths_2_6_10_seto,
	.mm = &mm_paths_2_6_11,
	.mempolicy_up_read_first = false,
    },
    {
	/* 2.6.13's futex_wait and futex_requeue are 2.6.12-jj's (Jakub Jelinek's patch
	 * was merged for 2.6.12); its get_user_pages() and do_wp_page() are Nick Piggin's
	 * fix as Linus Torvalds fixed it up (ref/memory-2.6.13.c). */
	.name = "2.6.13",
	.summary = "the get_user_pages() race fixed: do_wp_page() says VM_FAULT_WRITE, and a "
		   "forced write is looked up as a write until it does",
	.source = "tag v2.6.13: torvalds/linux f33ea7f404e5 \"[PATCH] fix get_user_pages bug\" "
		  "(Nick Piggin <42F09B41.3050409@yahoo.com.au>) and a68d2ebc1581 \"Fix up recent "
		  "get_user_pages() handling\" (Linus Torvalds "
		  "<Pine.LNX.4.58.0508030902380.3341@g5.osdl.org>); futex paths as 2.6.12-jj",
	.futex = &futex_paths_2_6_12_jj,
	.mm = &mm_paths_2_6_13,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.14",
	.summary = "FUTEX_WAKE_OP, whose second fault is -EFAULT without a try "
		   "(attempt >= 2): a present read-only word fails",
	.source = "torvalds/linux 4732efbeb997 \"[PATCH] FUTEX_WAKE_OP: pthread_cond_signal() "
		  "speedup\" (Jakub Jelinek); futex_wait and futex_requeue as 2.6.12-jj, "
		  "get_user_pages() as 2.6.13",
	.futex = &futex_paths_2_6_14,
	.mm = &mm_paths_2_6_13,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.17",
	.summary = "FUTEX_WAKE_OP passes -ENOSYS on; its second fault is still -EFAULT",
	.source = "torvalds/linux kernel/futex.c at 0771dfefc9e5 \"[PATCH] lightweight robust "
		  "futexes: core\" (Ingo Molnar <20060215225654.GC5599@elte.hu>), the robust "
		  "list left out",
	.futex = &futex_paths_2_6_17,
	.mm = &mm_paths_2_6_17,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.18",
	.summary = "futex_handle_fault(): FUTEX_WAKE_OP faults the word in for writing under "
		   "mmap_sem; requeue within a bucket changes the key only",
	.source = "v2.6.18.8 kernel/futex.c (stored: bronson/linux-2.6.18.8-ovz-xen 80395f196a21): "
		  "futex_handle_fault() of c87e2837be82, mended after John Stultz "
		  "<1154986798.5343.26.camel@localhost.localdomain>; PI futexes left out",
	.futex = &futex_paths_2_6_18,
	.mm = &mm_paths_2_6_17,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.22",
	.summary = "FUTEX_PRIVATE_FLAG: a private futex's key is (mm, address), and its "
		   "paths take no mmap_sem; futex_handle_fault() takes it itself",
	.source = "torvalds/linux kernel/futex.c at bd197234b0a6 (2.6.22-rc): the PROCESS_PRIVATE "
		  "futexes of Eric Dumazet (message-id not known here); PI futexes and "
		  "FUTEX_FD left out; get_user_pages() as 2.6.13, mincore() as 2.6.20 "
		  "(2f77d107050a, 4fb23e439ce0)",
	.futex = &futex_paths_2_6_22,
	.mm = &mm_paths_2_6_20,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.28",
	.summary = "a shared futex's key from its page (get_user_pages_fast(), no mmap_sem): "
		   "an anonymous page's is (mm, address), a file page's (inode, index)",
	.source = "Peter Zijlstra's series <20080926173219.885155151@twins.programming."
		  "kicks-ass.net>: torvalds/linux 38d47c1b7075 and the posted \"reduce "
		  "mmap_sem usage\", \"use fast_gup()\", \"cleanup fshared\"; "
		  "get_user_pages() with FOLL_ANON, do_anonymous_page() without the ZERO_PAGE "
		  "(557ed1fa2620); PI futexes left out",
	.futex = &futex_paths_2_6_28,
	.mm = &mm_paths_2_6_28,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "2.6.30",
	.summary = "the fault logic without attempt counters (get_user() and go round "
		   "again); FUTEX_WAKE_OP's second key taken for writing",
	.source = "tag v2.6.30's kernel/futex.c (stored: keystargchy/linux-2.6.30 89a003f5df12): "
		  "Darren Hart's e4dc5b7a36a4 \"futex: clean up fault logic\", Thomas "
		  "Gleixner's 64d1304a64 \"futex: setup writeable mapping for futex ops which "
		  "modify user space data\"; mm as 2.6.28; PI and requeue-PI left out",
	.futex = &futex_paths_2_6_30,
	.mm = &mm_paths_2_6_28,
	.mempolicy_up_read_first = true,
    },
    {
	.name = "test-futex-wake-unlocked",
	.summary =
	    "TEST ONLY: 2.6.11 with futex_wake reading the bucket's nqueued without its lock",
	.source = "none: a race planted in 2.6.11 for ThreadSanitizer (docs/threads.md)",
	.futex = &futex_paths_2_6_11,
	.mm = &mm_paths_2_6_11,
	.mempolicy_up_read_first = true,
	.test_only = true,
	.test_futex_wake_unlocked = true,
    },
    {
	.name = "test-wake-op-retry",
	.summary = "TEST ONLY: 2.6.18 with FUTEX_WAKE_OP's fault handled as 2.6.30 handles it "
		   "(get_user() and retry): a present read-only word loops for ever",
	.source = "none: torvalds/linux e4dc5b7a36a4's futex_wake_op() fault logic on 2.6.18, "
		  "to show the livelock report (ref/futex-test-wake-op-retry.c)",
	.futex = &futex_paths_test_wake_op_retry,
	.mm = &mm_paths_2_6_13,
	.mempolicy_up_read_first = true,
	.test_only = true,
    },
    {.name = NULL},
};

const struct kernel_config *kcfg = &kernels[0];

const struct kernel_config *kernel_by_name(const char *name)
{
	for (const struct kernel_config *k = kernels; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

const struct kernel_config *kernel_next(const struct kernel_config *k)
{
	for (k = k ? k + 1 : kernels; k->name; k++)
		if (!k->test_only)
			return k;
	return NULL;
}

int kernel_count(void)
{
	int n = 0;

	for_each_kernel (k)
		n++;
	return n;
}

const char *kernel_fn(const struct kernel_config *k, const char *fn)
{
	if (!strcmp(fn, "futex_wait"))
		return k->futex->wait_fn;
	if (!strcmp(fn, "futex_requeue"))
		return k->futex->requeue_fn;
	if (!strcmp(fn, "futex_wake_op") && k->futex->wake_op_fn)
		return k->futex->wake_op_fn;
	if (!strcmp(fn, "futex_wake") && k->futex->wake_fn)
		return k->futex->wake_fn;
	if (!strcmp(fn, "get_user_pages"))
		return k->mm->get_user_pages_fn;
	return fn;
}
