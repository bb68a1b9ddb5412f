/* mm/vmscan.c, 2.6.11: shrink_list() for one page, which is what the op `reclaim` is.
 *
 * kswapd asks page_referenced() first: a page referenced since the last pass (the PTE's
 * young bit, or PG_referenced from mark_page_accessed()) is activated and stays mapped.
 * Only a later pass that finds it unreferenced calls try_to_unmap(), which still refuses
 * a VM_LOCKED page or one made young in between. So a page in use needs two passes, and
 * it goes only if nobody touches it between the first pass and the unmap. Simplified:
 * no LRU lists (the program names the page), no add_to_swap() or writeback: an
 * anonymous page's PTE keeps it as its swap entry.
 */
#include "mm.h"

int shrink_page(struct mm_struct *mm, unsigned long address)
{
	kframe_as("shrink_list"); /* mm/vmscan.c, shrink_list() */
	sim_trace(EV_NOTE, "kswapd", "kswapd: shrink_list", (long)address, 0);
	if (page_referenced(mm, address))
		return PAGE_ACTIVATE; /* goto activate_locked */
	return try_to_unmap_one(mm, address);
}
