/* mm/mprotect.c, 2.6.11: sys_mprotect().
 *
 * VMA by VMA under mmap_sem for write: mprotect_fixup() splits at the range's ends, sets
 * vm_flags and rewrites the present PTEs (change_protection(), which keeps a private
 * mapping's PTEs read-only: write access comes back by write-protect faults). A hole
 * ends the walk with -ENOMEM, the VMAs before it already changed. -EACCES where the new
 * protection asks for more than the VMA's VM_MAY* bits allow: a shared mapping of a
 * file opened read-only (ref/filemap.c), which has no VM_MAYWRITE.
 * Not modelled: PROT_GROWSDOWN/UP, PROT_SEM (the op has three prot bits),
 * READ_IMPLIES_EXEC, vma_merge() and VM_ACCOUNT.
 */
#include "mm.h"

static int mprotect_fixup(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
			  unsigned long end, unsigned long newflags)
{
	kframe(); /* mm/mprotect.c, mprotect_fixup() */
	int error;

	if (newflags == vma->vm_flags)
		return 0;
	error = split_at(mm, start);
	if (!error)
		error = split_at(mm, end);
	if (error)
		return error;
	/* "vm_flags and vm_page_prot are protected by the mmap_sem held in write mode." (the
	 * split may have moved vma) */
	vm_flags_reset(mm, find_vma(mm, start), newflags);
	change_protection(mm, start, end, newflags);
	return 0;
}

long sys_mprotect(unsigned long start, unsigned long len, unsigned long prot)
{
	struct mm_struct *mm = current->mm;
	unsigned long vm_flags, nstart, end, tmp;
	struct vm_area_struct *vma;
	int error;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	len = PAGE_ALIGN(len);
	end = start + len;
	if (end < start)
		return -ENOMEM;
	if (prot & ~(unsigned long)(PROT_READ | PROT_WRITE | PROT_EXEC))
		return -EINVAL;
	if (end == start)
		return 0;
	vm_flags = calc_vm_prot_bits(prot);

	down_write(&mm->mmap_sem);
	vma = find_vma(mm, start);
	error = -ENOMEM;
	if (!vma || vma->vm_start > start)
		goto out;
	for (nstart = start;;) {
		unsigned long newflags =
		    vm_flags | (vma->vm_flags & ~(unsigned long)(VM_READ | VM_WRITE | VM_EXEC));
		/* a VM_x bit without its VM_MAYx bit (four bits higher) */
		if ((newflags & ~(newflags >> 4)) & 0xf) {
			error = -EACCES;
			goto out;
		}
		tmp = vma->vm_end < end ? vma->vm_end : end;
		error = mprotect_fixup(mm, vma, nstart, tmp, newflags);
		if (error)
			goto out;
		nstart = tmp;
		if (nstart >= end)
			goto out;
		vma = find_vma(mm, nstart); /* prev->vm_next */
		if (!vma || vma->vm_start != nstart) {
			error = -ENOMEM;
			goto out;
		}
	}
out:
	up_write(&mm->mmap_sem);
	return error;
}
