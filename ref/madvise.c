/* mm/madvise.c, 2.6.11: sys_madvise() with MADV_DONTNEED only.
 *
 * Locking as in the 2.6.9-2.6.11 trees: mmap_sem for write for every advice (the move
 * to down_read for some advice came later). MADV_DONTNEED zaps the PTEs: private
 * pages are thrown away (the next touch gets a zero page), shmem pages stay in the
 * page cache. Other advice values return -EINVAL here (not modelled).
 */
#include "mm.h"

/* An mlock()ed VMA keeps its pages: -EINVAL (as for hugetlb, not modelled). */
static long madvise_dontneed(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
			     unsigned long end)
{
	kframe(); /* mm/madvise.c, madvise_dontneed() */
	if (vma->vm_flags & VM_LOCKED)
		return -EINVAL;
	/* no VMA changes (only 2.6.11's madvise_behavior() sets vm_flags, for advice not
	 * modelled); the PTEs go under page_table_lock, asserted in zap_pte_range() */
	zap_page_range(mm, start, end);
	return 0;
}

long sys_madvise(unsigned long start, unsigned long len_in, int behavior)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long end, len;
	int unmapped_error = 0;
	long error = -EINVAL;

	/* for snafu explore: the PTEs it may zap are those of [start, end), end as below */
	sim_touch_range(start, start + PAGE_ALIGN(len_in));
	down_write(&mm->mmap_sem);
	if (behavior != MADV_DONTNEED)
		goto out;
	if (start & ~PAGE_MASK)
		goto out;
	len = PAGE_ALIGN(len_in);
	if (len_in && !len) /* rounded up from a small negative to zero */
		goto out;
	end = start + len;
	if (end < start)
		goto out;
	error = 0;
	if (end == start)
		goto out;

	/* unmapped holes in [start, end) are skipped, but give -ENOMEM at the end */
	vma = find_vma(mm, start);
	for (;;) {
		error = -ENOMEM;
		if (!vma)
			goto out;
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
		}
		if (end <= vma->vm_end) {
			if (start < end) {
				error = madvise_dontneed(mm, vma, start, end);
				if (error)
					goto out;
			}
			error = unmapped_error;
			goto out;
		}
		error = madvise_dontneed(mm, vma, start, vma->vm_end);
		if (error)
			goto out;
		start = vma->vm_end;
		vma = vma_next(mm, vma);
	}
out:
	up_write(&mm->mmap_sem);
	return error;
}
