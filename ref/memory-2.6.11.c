/* mm/memory.c of 2.6.11: get_user_pages(), with the race Robin Holt reported
 * ("get_user_pages() with write=1 and force=1 gets read-only pages", linux-mm
 * 2005-07-30, <20050730205319.GA1233@lnx-holt.americas.sgi.com>).
 *
 * Source: tag v2.6.11, mm/memory.c, get_user_pages(). After a fault for a write, the
 * page is looked up again as a write only without force (lookup_write = write &&
 * !force): a forced write into a mapping without VM_WRITE leaves a read-only PTE
 * (maybe_mkwrite()), and looking it up as a write would loop for ever. But a fault
 * returns VM_FAULT_MINOR also when it backed out because another fault set the PTE
 * first (do_anonymous_page(), do_no_page(), do_wp_page()): the page that fault mapped
 * read-only (the ZERO_PAGE, a page-cache page) is then accepted for the write.
 *
 * The kernels that run it: every kernel but 2.6.13.
 * Simplified: no gate area (the vsyscall page), no hugetlb VMAs, no cond_resched_lock()
 * (the model's kernel does not preempt), and get_page_map() always finds the page
 * (pfn_valid()).
 */
#include "kernels.h"
#include "mm.h"

#undef KFUNC
#define KFUNC "get_user_pages"

static int get_user_pages_2_6_11(struct task_struct *tsk, struct mm_struct *mm, unsigned long start,
				 int len, int write, int force, struct page **pages,
				 struct vm_area_struct **vmas)
{
	kframe(); /* mm/memory.c, get_user_pages() */
	int i = 0;
	/* one bit is left: write and force VM_MAYWRITE, write VM_WRITE, force
	 * VM_MAYREAD, neither VM_READ */
	unsigned long flags = write ? (VM_WRITE | VM_MAYWRITE) : (VM_READ | VM_MAYREAD);

	(void)tsk; /* its min_flt and maj_flt: not modelled */
	flags &= force ? (VM_MAYREAD | VM_MAYWRITE) : (VM_READ | VM_WRITE);
	do {
		struct vm_area_struct *vma = find_extend_vma(mm, start);

		if (!vma || (vma->vm_flags & VM_IO) || !(flags & vma->vm_flags))
			return i ? i : -EFAULT;
		spin_lock(&mm->page_table_lock);
		do {
			struct page *map;
			int lookup_write = write;

			while (!(map = follow_page(mm, start, lookup_write))) {
				/* a read of anonymous memory nobody touched: the ZERO_PAGE,
				 * no fault and no page table */
				if (!lookup_write && untouched_anonymous_page(mm, vma, start)) {
					map = ZERO_PAGE(start);
					break;
				}
				spin_unlock(&mm->page_table_lock);
				switch (handle_mm_fault(mm, vma, start, write)) {
				case VM_FAULT_MINOR:
				case VM_FAULT_MAJOR:
					break;
				case VM_FAULT_SIGBUS:
					return i ? i : -EFAULT;
				case VM_FAULT_OOM:
					return i ? i : -ENOMEM;
				}
				/* "Now that we have performed a write fault and surely no
				 * longer have a shared page we shouldn't write, we shouldn't
				 * ignore an unwritable page in the page table if we are
				 * forcing write access." */
				lookup_write = write && !force;
				spin_lock(&mm->page_table_lock);
			}
			if (pages) {
				pages[i] = map; /* get_page_map() */
				page_cache_get(map);
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

const struct mm_paths mm_paths_2_6_11 = {
    .release = "2.6.11",
    .get_user_pages = get_user_pages_2_6_11,
    .get_user_pages_fn = "get_user_pages_2_6_11",
};
