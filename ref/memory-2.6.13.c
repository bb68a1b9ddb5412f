/* mm/memory.c of 2.6.13: get_user_pages() after the fix for Robin Holt's race.
 *
 * Source: torvalds/linux f33ea7f404e592e4563b12101b7a4d17da6558d7 ("[PATCH] fix
 * get_user_pages bug", Nick Piggin <42F09B41.3050409@yahoo.com.au>, after Hugh
 * Dickins's VM_FAULT_WRITE <Pine.LNX.4.61.0508031223590.13845@goblin.wat.veritas.com>),
 * and a68d2ebc1581a3aec57bd032651e013fa609f530 ("Fix up recent get_user_pages()
 * handling", Linus Torvalds <Pine.LNX.4.58.0508030902380.3341@g5.osdl.org>), which
 * tests the bit instead of switching on it; both in 2.6.13-rc6.
 *
 * Against 2.6.11 (ref/memory-2.6.11.c): the page is looked up as a write, and faulted
 * for one, until a fault says VM_FAULT_WRITE, which only do_wp_page() says, when it
 * broke COW or found the page the task's own ("The VM_FAULT_WRITE bit tells us that
 * do_wp_page has broken COW when necessary, even if maybe_mkwrite decided not to set
 * pte_write. We can thus safely do subsequent page lookups as if they were reads.").
 * A fault that backed out says only VM_FAULT_MINOR, and the loop goes round again.
 * do_wp_page()'s side is in ref/memory.c (vm_fault_write).
 *
 * The kernel that runs it: 2.6.13. Simplified as 2.6.11's.
 */
#include "kernels.h"
#include "mm.h"

#undef KFUNC
#define KFUNC "get_user_pages"

static int get_user_pages_2_6_13(struct task_struct *tsk, struct mm_struct *mm, unsigned long start,
				 int len, int write, int force, struct page **pages,
				 struct vm_area_struct **vmas)
{
	kframe(); /* mm/memory.c, get_user_pages() */
	int i = 0;
	unsigned long flags = write ? (VM_WRITE | VM_MAYWRITE) : (VM_READ | VM_MAYREAD);

	(void)tsk;
	flags &= force ? (VM_MAYREAD | VM_MAYWRITE) : (VM_READ | VM_WRITE);
	do {
		struct vm_area_struct *vma = find_extend_vma(mm, start);

		if (!vma || (vma->vm_flags & VM_IO) || !(flags & vma->vm_flags))
			return i ? i : -EFAULT;
		spin_lock(&mm->page_table_lock);
		do {
			int write_access = write;
			struct page *page;

			while (!(page = follow_page(mm, start, write_access))) {
				int ret;

				if (!write && untouched_anonymous_page(mm, vma, start)) {
					page = ZERO_PAGE(start);
					break;
				}
				spin_unlock(&mm->page_table_lock);
				ret = __handle_mm_fault(mm, vma, start, write_access);
				if (ret & VM_FAULT_WRITE)
					write_access = 0;
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
				page_cache_get(page);
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

const struct mm_paths mm_paths_2_6_13 = {
    .release = "2.6.13",
    .get_user_pages = get_user_pages_2_6_13,
    .get_user_pages_fn = "get_user_pages_2_6_13",
    .vm_fault_write = true,
};

/* 2.6.17 and 2.6.18: the same get_user_pages(); do_wp_page() reuses a page one PTE
 * maps, however many references it has (struct mm_paths, cow_counts_mappings) */
const struct mm_paths mm_paths_2_6_17 = {
    .release = "2.6.17",
    .get_user_pages = get_user_pages_2_6_13,
    .get_user_pages_fn = "get_user_pages_2_6_13",
    .vm_fault_write = true,
    .cow_counts_mappings = true,
};

/* 2.6.20: the same get_user_pages(), mincore() fixed (ref/mincore.c), and a user read
 * of a write-only mapping allowed (ref/fault.c) */
const struct mm_paths mm_paths_2_6_20 = {
    .release = "2.6.20",
    .get_user_pages = get_user_pages_2_6_13,
    .get_user_pages_fn = "get_user_pages_2_6_13",
    .vm_fault_write = true,
    .mincore_copy_unlocked = true,
    .read_fault_write_only = true,
    .cow_counts_mappings = true,
};
