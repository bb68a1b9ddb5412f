/* mm/rmap.c, 2.6.11: try_to_unmap_one(), kswapd's way of taking a page from a process.
 *
 * It holds only mm->page_table_lock, never mmap_sem: a page can vanish from under a
 * task that holds mmap_sem for read and has just checked that the page is there
 * (Olof's RFC checks exactly that). Simplified: the page is chosen by the program
 * (the op `reclaim`), not by the LRU; the referenced ("young") bit is not modelled;
 * the anon_vma walk that finds the mapping is replaced by the address.
 */
#include "mm.h"

int try_to_unmap_one(struct mm_struct *mm, unsigned long address)
{
	int ret = SWAP_AGAIN;

	sim_trace(EV_NOTE, "kswapd", "kswapd: try_to_unmap_one", (long)address, 0);
	spin_lock(&mm->page_table_lock);
	pte_t *pte = pte_offset(mm, address);
	if (!pte || !(pte->flags & _PAGE_PRESENT))
		goto out_unmap;
	/* "If the page is mlock()d, we cannot swap it out." */
	struct vm_area_struct *vma = find_vma(mm, address);
	if (vma && vma->vm_start <= address && (vma->vm_flags & VM_LOCKED)) {
		ret = SWAP_FAIL;
		goto out_unmap;
	}
	if (pte->flags & _PAGE_ANON) {
		/* to swap: the PTE keeps the page as its swap entry, not present */
		pte->flags &= ~(unsigned)(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER);
	} else {
		/* shmem: the page stays in the inode's page cache */
		pte->flags = 0;
		pte->page = NULL;
	}
	ret = SWAP_SUCCESS;
out_unmap:
	spin_unlock(&mm->page_table_lock);
	return ret;
}
