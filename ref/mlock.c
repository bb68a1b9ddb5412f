/* mm/mlock.c, 2.6.11: sys_mlock().
 *
 * Under mmap_sem for write, do_mlock() walks the VMAs of [start, start+len): each one
 * gets VM_LOCKED (mlock_fixup(), splitting it at the range's ends), and
 * make_pages_present() faults its pages in through get_user_pages() (mm/memory.c),
 * with mmap_sem still held: those faults go straight to handle_mm_fault(), never
 * through do_page_fault(), so they take no second mmap_sem. A hole in the range gives
 * -ENOMEM, after the VMAs before it are locked. try_to_unmap_one() (mm/rmap.c) refuses
 * a VM_LOCKED page.
 * Simplified: the caller may always lock (can_do_mlock() and RLIMIT_MEMLOCK pass, as
 * for root); locked_vm is not counted.
 */
#include "mm.h"

static int mlock_fixup(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
		       unsigned long end, unsigned long newflags)
{
	kframe(); /* mm/mlock.c, mlock_fixup() */
	int ret = 0;

	if (newflags == vma->vm_flags)
		goto out;
	ret = split_at(mm, start);
	if (!ret)
		ret = split_at(mm, end);
	if (ret)
		goto out;
	/* vm_flags is protected by mmap_sem held for write; a page try_to_unmap_one()
	 * takes just before this comes back in make_pages_present() */
	vm_flags_reset(mm, find_vma(mm, start), newflags);
	if ((newflags & VM_LOCKED) && !(newflags & VM_IO))
		ret = make_pages_present(start, end);
out:
	if (ret == -ENOMEM)
		ret = -EAGAIN;
	return ret;
}

static int do_mlock(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	kframe(); /* mm/mlock.c, do_mlock() */
	unsigned long nstart, end, tmp;
	struct vm_area_struct *vma;
	int error;

	len = PAGE_ALIGN(len);
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	vma = find_vma(mm, start);
	if (!vma || vma->vm_start > start)
		return -ENOMEM;
	for (nstart = start;;) {
		unsigned long newflags = vma->vm_flags | VM_LOCKED;
		if (vma->vm_end >= end) {
			error = mlock_fixup(mm, vma, nstart, end, newflags);
			break;
		}
		tmp = vma->vm_end;
		error = mlock_fixup(mm, vma, nstart, tmp, newflags);
		if (error)
			break;
		nstart = tmp;
		vma = find_vma(mm, nstart); /* vma->vm_next: the split may have moved it */
		if (!vma || vma->vm_start != nstart) {
			error = -ENOMEM;
			break;
		}
	}
	return error;
}

long sys_mlock(unsigned long start, unsigned long len)
{
	struct mm_struct *mm = current->mm;
	int error;

	down_write(&mm->mmap_sem);
	len = PAGE_ALIGN(len + (start & ~PAGE_MASK));
	start &= PAGE_MASK;
	error = do_mlock(mm, start, len);
	up_write(&mm->mmap_sem);
	return error;
}
