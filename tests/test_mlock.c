/* mlock (mm/mlock.c, 2.6.11) and what it does to kswapd (mm/rmap.c): checked with text
 * programs on every listed kernel (mlock is the same on all of them; what it faults in
 * is not).
 *  - the range gets VM_LOCKED and its pages are faulted in under mmap_sem for write, so
 *    reclaim gives SWAP_FAIL there, while the rest of the mapping can still go;
 *  - a hole gives -ENOMEM after the VMA before it is locked;
 *  - a PROT_NONE mapping gives -EFAULT (get_user_pages() finds no VM_READ), locked all
 *    the same;
 *  - read-only anonymous memory in a block nobody touched is not faulted in (2.6.11's
 *    get_user_pages() takes ZERO_PAGE there), so there is nothing to reclaim; a read
 *    fault maps the ZERO_PAGE, which kswapd never sees. From 2.6.24 (2.6.28 here) a
 *    locked VMA gets no ZERO_PAGE and a read fault a page of its own: both are there.
 */
#include "harness.h"

#include "../ref/kernels.h"
#include "../ref/mm.h"

#include <string.h>

static void check(const struct run_result *r, const char *kn, int op, long want, const char *what)
{
	CHECK(r->ran[op] && r->ret[op] == want, "[%s] op %d (%s): got %ld, want %ld", kn, op, what,
	      r->ret[op], want);
}

static void test_mlock(void)
{
	/* each page kswapd looks at was referenced when it was faulted in: its first pass
	 * only clears that (PAGE_ACTIVATE), the second decides */
	const char *text = "task 1\n"
			   "  mmap m pages=3 prot=rw\n"   /* 0 */
			   "  mlock m+4096 pages=1\n"     /* 1 */
			   "  reclaim m+4096\n"           /* 2: referenced */
			   "  reclaim m+4096\n"           /* 3: locked */
			   "  store m val=5\n"            /* 4 */
			   "  reclaim m\n"                /* 5: referenced */
			   "  reclaim m\n"                /* 6: not locked */
			   "  mmap x pages=2 prot=rw\n"   /* 7 */
			   "  munmap x+4096 pages=1\n"    /* 8: a hole after x's first page */
			   "  mlock x pages=2\n"          /* 9 */
			   "  reclaim x\n"                /* 10 */
			   "  reclaim x\n"                /* 11: locked before the hole */
			   "  mmap z pages=1 prot=none\n" /* 12 */
			   "  mlock z\n"                  /* 13 */
			   "  mlock m pages=3\n";         /* 14: over the three VMAs mlock made */
	const char *untouched = "task 1\n"
				"  mmap r pages=2 prot=r\n" /* 0 */
				"  mlock r\n"               /* 1 */
				"  reclaim r\n"             /* 2: no page */
				"  load r\n"                /* 3: the ZERO_PAGE now */
				"  reclaim r\n"             /* 4: which kswapd never sees */
				"  reclaim r+4096\n";       /* 5: still nothing there */
	struct run_result r;

	for_each_kernel (kc) {
		const char *kn = kc->name;
		run_text(text, kn, &r);
		CHECK(r.result == SIM_OK, "[%s] verdict %s", kn, r.verdict);
		check(&r, kn, 1, 0, "mlock of the middle page");
		check(&r, kn, 2, PAGE_ACTIVATE, "first pass over the locked page");
		check(&r, kn, 3, SWAP_FAIL, "second pass: VM_LOCKED");
		check(&r, kn, 5, PAGE_ACTIVATE, "first pass over the page below it");
		check(&r, kn, 6, SWAP_SUCCESS, "second pass: unmapped");
		check(&r, kn, 9, -ENOMEM, "mlock over a hole");
		check(&r, kn, 10, PAGE_ACTIVATE, "the page before the hole was faulted in");
		check(&r, kn, 11, SWAP_FAIL, "and locked");
		check(&r, kn, 13, -EFAULT, "mlock of PROT_NONE");
		check(&r, kn, 14, 0, "mlock over three adjacent VMAs");
		run_text(untouched, kn, &r);
		check(&r, kn, 1, 0, "mlock of untouched read-only memory");
		if (kc->mm->anon_read_fault_allocates) {
			/* 2.6.24 on: use_zero_page() takes no ZERO_PAGE in a VM_LOCKED VMA, and
			 * a read fault gives a page of its own, referenced */
			check(&r, kn, 2, PAGE_ACTIVATE, "mlock faulted the page in");
			check(&r, kn, 4, PAGE_ACTIVATE, "the load referenced it again");
			check(&r, kn, 5, PAGE_ACTIVATE, "mlock faulted the whole locked range in");
			continue;
		}
		check(&r, kn, 2, SWAP_AGAIN, "nothing was faulted in to reclaim");
		check(&r, kn, 4, SWAP_AGAIN, "a read maps the ZERO_PAGE, not a page of its own");
		check(&r, kn, 5, SWAP_AGAIN, "the load faulted one page, not the locked range");
	}
}

int main(void)
{
	test_mlock();
	return harness_exit();
}
