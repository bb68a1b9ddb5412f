/* mm/rmap.c, 2.6.11: page_referenced() and try_to_unmap_one(), kswapd's view of a page
 * mapped by a process.
 *
 * Both hold only mm->page_table_lock, never mmap_sem: a page can vanish from under a
 * task that holds mmap_sem for read and has just checked that the page is there (Olof's
 * RFC checks exactly that). Simplified: the page is found by its address in the one mm
 * (the anon_vma or i_mmap walk and vma_address() are replaced by it); the swap token is
 * not modelled.
 */
#include "kernels.h"
#include "mm.h"

#include <stdatomic.h>

/* A page kswapd can see at address: a present PTE mapping a page on the LRU (not the
 * ZERO_PAGE, which is on no list and has no reverse mapping). */
static pte_t *lru_page_pte(struct mm_struct *mm, unsigned long address)
{
	pte_t *pte = pte_offset(mm, address);

	if (!pte || !(pte->flags & _PAGE_PRESENT) || pte->page == ZERO_PAGE(address))
		return NULL;
	return pte;
}

/* page_referenced: TestClearPageReferenced, plus page_referenced_one()'s
 * ptep_clear_flush_young() on the one PTE that maps it. */
int page_referenced(struct mm_struct *mm, unsigned long address)
{
	kframe(); /* mm/rmap.c, page_referenced() */
	int referenced = 0;

	spin_lock(&mm->page_table_lock);
	pte_t *pte = lru_page_pte(mm, address);
	if (pte) {
		referenced += atomic_exchange(&pte->page->referenced, false); /* TestClear */
		/* under page_referenced_one()'s page_table_lock */
		referenced += ptep_clear_flush_young(mm, pte);
	}
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

int try_to_unmap_one(struct mm_struct *mm, unsigned long address)
{
	kframe(); /* mm/rmap.c, try_to_unmap_one() */
	int ret = SWAP_AGAIN;

	sim_trace(EV_NOTE, "kswapd", "kswapd: try_to_unmap_one", (long)address, 0);
	spin_lock(&mm->page_table_lock);
	pte_t *pte = lru_page_pte(mm, address);
	if (!pte)
		goto out_unmap;
	/* "If the page is mlock()d, we cannot swap it out. If it's recently referenced
	 * (perhaps page_referenced skipped over this mm) then we should reactivate it." */
	struct vm_area_struct *vma = find_vma(mm, address);
	/* every PTE change below under try_to_unmap_one()'s page_table_lock ("to protect
	 * us from page faults"). Young is cleared for a VM_LOCKED page too, where 2.6.11's
	 * || tests VM_LOCKED first and leaves it young. */
	int young = ptep_clear_flush_young(mm, pte);
	if ((vma && vma->vm_start <= address && (vma->vm_flags & VM_LOCKED)) || young) {
		ret = SWAP_FAIL;
		goto out_unmap;
	}
	/* "Don't pull an anonymous page out from under get_user_pages.": 2.6.11 refuses a
	 * swap-cache page whose count is more than its mappings, the swap cache and
	 * shrink_list()'s own (page_count(page) != page_mapcount(page) + 2). The model has
	 * no swap cache and kswapd holds nothing: a private page whose count is more than
	 * its PTE's. Gone with c475a8ab625d (struct mm_paths, cow_counts_mappings), whose
	 * do_wp_page() no longer copies a page for its count. */
	if ((pte->flags & _PAGE_ANON) && !kcfg->mm->cow_counts_mappings &&
	    page_count(pte->page) != 1) {
		ret = SWAP_FAIL;
		goto out_unmap;
	}
	if (pte->flags & _PAGE_ANON) {
		/* to swap: set_pte(swp_entry_to_pte()); the page stands for the entry */
		set_pte(mm, pte, pte->page,
			pte->flags & ~(unsigned)(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER));
	} else {
		/* shmem: the page stays in the inode's page cache; the PTE's reference goes
		 * (page_remove_rmap(), page_cache_release()) */
		struct page *page = pte->page;
		pte_clear(mm, pte);
		page_cache_release(page);
	}
	ret = SWAP_SUCCESS;
out_unmap:
	spin_unlock(&mm->page_table_lock);
	return ret;
}
