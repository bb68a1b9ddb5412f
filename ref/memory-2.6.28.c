/* mm/memory.c's get_user_pages() and arch/x86/mm/gup.c's get_user_pages_fast() as 2.6.28
 * has them, for 2.6.28's futex keys (ref/futex-2.6.28.c).
 *
 * get_user_pages() against 2.6.13's (ref/memory-2.6.13.c), for what the model has:
 * - the ZERO_PAGE for an untouched page only where use_zero_page() says so (FOLL_ANON):
 *   not in a VM_LOCKED or VM_SHARED VMA, nor one with a ->fault method (a file's); and
 *   follow_page() returns it where there is no page table yet ("When core dumping an
 *   enormous anonymous area that nobody has touched so far, we don't want to allocate
 *   page tables"), as 2.6.11's untouched_anonymous_page() did, and since 2.6.26 for a
 *   none PTE in a page table too (no_page()). FOLL_ANON went in 2.6.31 (Hugh Dickins,
 *   "mm: FOLL_DUMP replace FOLL_ANON");
 * - after VM_FAULT_WRITE the lookups go on as reads only in a VMA without VM_WRITE
 *   ("But only do so when looping for pte_write is futile": Hugh Dickins, linux-mm
 *   2008-06-18 <Pine.LNX.4.64.0806182209320.16252@blonde.site>, against 2.6.26-rc6,
 *   after Robin Holt found a forced write's page COWed again by the user's write).
 * 2.6.28's do_anonymous_page() gives a read fault a page of its own (ref/memory.c,
 * anon_read_fault_allocates), so the ZERO_PAGE is never mapped: FOLL_ANON's is the only
 * one a caller sees.
 *
 * get_user_pages_fast(): Nick Piggin's lockless walk (2.6.27, "x86: lockless
 * get_user_pages_fast()"), which 2.6.28's get_futex_key() calls ("futex: use
 * fast_gup()", Peter Zijlstra, LKML 2008-09-26 <20080926173219.885155151@twins.
 * programming.kicks-ass.net>). With interrupts off it reads the PTE and takes a
 * reference to its page if the PTE is present, user and (for a write) writable; else it
 * falls back to get_user_pages() under mmap_sem for read. Interrupts off hold off the
 * TLB-flush IPI that zap_pte_range()'s caller sends before freeing a page, so the page
 * the walk found cannot be freed before get_page(): in the model the PTE read and the
 * get_page() are one step, after a scheduling point, with nothing between them (the
 * PTE may change the moment after, as it may in Linux). The model's page tables are
 * never freed (mm.h), so that half of what interrupts off protect has nothing to do.
 *
 * The kernel that runs them: 2.6.28. Its fault paths stay 2.6.13's (mm.h), but for
 * do_anonymous_page()'s read.
 */
#include "kernels.h"
#include "mm.h"

#undef KFUNC
#define KFUNC "get_user_pages"

/* use_zero_page() (mm/memory.c, 2.6.24 to 2.6.30): FOLL_ANON's VMA. The model's VMAs
 * with a file are the ones with ->fault (a file's, shmem's); VM_SHARED anonymous memory
 * is shmem in the model, so has a file. */
static bool use_zero_page(const struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_LOCKED | VM_SHARED))
		return false;
	return !vma->vm_file;
}

/* follow_page()'s way to its ZERO_PAGE: no page table under addr (no_page_table:), or a
 * none PTE in one (no_page:, "Fall through to ZERO_PAGE handling": Linus Torvalds's
 * 89f5b7da2a6b "Reinstate ZERO_PAGE optimization in 'get_user_pages()' and fix XIP",
 * 2.6.26 and 2.6.25.8); not a swapped-out page's PTE */
static bool no_page(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	pte_t *pte = pte_offset(mm, addr);

	return untouched_anonymous_page(mm, vma, addr) || (pte && !pte->page && !pte->flags);
}

static int get_user_pages_2_6_28(struct task_struct *tsk, struct mm_struct *mm, unsigned long start,
				 int len, int write, int force, struct page **pages,
				 struct vm_area_struct **vmas)
{
	kframe(); /* mm/memory.c, get_user_pages() (__get_user_pages()) */
	int i = 0;
	unsigned long flags = write ? (VM_WRITE | VM_MAYWRITE) : (VM_READ | VM_MAYREAD);

	(void)tsk;
	flags &= force ? (VM_MAYREAD | VM_MAYWRITE) : (VM_READ | VM_WRITE);
	do {
		struct vm_area_struct *vma = find_extend_vma(mm, start);

		if (!vma || (vma->vm_flags & VM_IO) || !(flags & vma->vm_flags))
			return i ? i : -EFAULT;
		bool foll_anon = !write && use_zero_page(vma);

		spin_lock(&mm->page_table_lock); /* follow_page()'s pte_offset_map_lock() */
		do {
			int foll_write = write;
			struct page *page;

			while (!(page = follow_page(mm, start, foll_write))) {
				int ret;

				if (foll_anon && no_page(mm, vma, start)) {
					page = ZERO_PAGE(start); /* no_page_table: FOLL_ANON */
					break;
				}
				spin_unlock(&mm->page_table_lock);
				ret = __handle_mm_fault(mm, vma, start, foll_write);
				if ((ret & VM_FAULT_WRITE) && !(vma->vm_flags & VM_WRITE))
					foll_write = 0;
				switch (ret & ~VM_FAULT_WRITE) {
				case VM_FAULT_MINOR:
				case VM_FAULT_MAJOR:
					break;
				case VM_FAULT_SIGBUS:
					return i ? i : -EFAULT;
				case VM_FAULT_OOM:
					return i ? i : -ENOMEM;
				}
				spin_lock(&mm->page_table_lock);
			}
			if (pages) {
				pages[i] = page;
				page_cache_get(page); /* FOLL_GET */
			}
			if (vmas)
				vmas[i] = vma;
			i++;
			start += PAGE_SIZE;
			len--;
		} while (len && start < vma->vm_end);
		spin_unlock(&mm->page_table_lock);
	} while (len);
	return i;
}

#undef KFUNC
#define KFUNC "get_user_pages_fast"

int get_user_pages_fast(unsigned long start, int nr_pages, int write, struct page **pages)
{
	kframe(); /* arch/x86/mm/gup.c, get_user_pages_fast() */
	struct mm_struct *mm = current->mm;
	unsigned mask = _PAGE_PRESENT | _PAGE_USER | (write ? _PAGE_RW : 0);
	int ret;

	start &= PAGE_MASK;
	/* local_irq_disable(); the walk: gup_pte_range()'s gup_get_pte() and get_page() */
	sched_point("get_user_pages_fast");
	sim_touch(SIM_TOUCH_PAGES_RD); /* for snafu explore: a walk no event shows */
	pte_t *ptep = pte_offset(mm, start);
	if (ptep && nr_pages == 1) {
		unsigned flags = ptep->flags;
		struct page *page = ptep->page;

		if ((flags & mask) == mask && page) {
			get_page(page);
			pages[0] = page;
			return 1; /* local_irq_enable() */
		}
	}
	/* slow_irqon: "Try to get the remaining pages with get_user_pages" */
	down_read(&mm->mmap_sem);
	ret = get_user_pages(current, mm, start, nr_pages, write, 0, pages, NULL);
	up_read(&mm->mmap_sem);
	return ret;
}

const struct mm_paths mm_paths_2_6_28 = {
    .release = "2.6.28",
    .get_user_pages = get_user_pages_2_6_28,
    .get_user_pages_fn = "get_user_pages_2_6_28",
    .vm_fault_write = true,
    .mincore_copy_unlocked = true,
    .anon_read_fault_allocates = true,
    .read_fault_write_only = true,
    .cow_counts_mappings = true,
};
