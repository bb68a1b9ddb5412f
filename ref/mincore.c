/* mm/mincore.c, 2.6.11: sys_mincore().
 *
 * The whole walk runs under mmap_sem for read, and mincore_vma() copies each piece of
 * the result to user memory with copy_to_user() inside it: a fault on the result
 * vector takes mmap_sem again, the same deadlock as futex_wait's, fixed only in
 * 2.6.20 (CVE-2006-4814, commit 2f77d107050a). As in 2.6.11, only file-backed VMAs
 * are answered (here: shmem, i.e. MAP_SHARED /dev/zero); anonymous memory gives
 * -ENOMEM. Checked against mm/mincore.c of the 2.6.9 tree (dduval/kernel-rhel4),
 * unchanged up to 2.6.11.
 */
#include "mm.h"
#include "uaccess.h"

/* In core: in the page cache (shmem pages are always up to date). */
static unsigned char mincore_page(struct vm_area_struct *vma, unsigned long pgoff)
{
	return pgoff < vma->vm_file->npages && vma->vm_file->pages[pgoff] != NULL;
}

static long mincore_vma(struct vm_area_struct *vma, unsigned long start, unsigned long end,
			unsigned long vec)
{
	kframe();                     /* mm/mincore.c, mincore_vma() */
	unsigned char tmp[PAGE_SIZE]; /* __get_free_page(GFP_KERNEL) */
	long i, remaining;

	if (!vma->vm_file)
		return -ENOMEM;
	start = ((start - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	if (end > vma->vm_end)
		end = vma->vm_end;
	end = ((end - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;

	/* (end - start) is # of pages, and also # of bytes in vec */
	remaining = (long)(end - start);
	for (i = 0; remaining > 0; remaining -= (long)PAGE_SIZE, i++) {
		long j = 0, thispiece = remaining < (long)PAGE_SIZE ? remaining : (long)PAGE_SIZE;
		while (j < thispiece)
			tmp[j++] = mincore_page(vma, start++);
		if (copy_to_user(vec + PAGE_SIZE * (unsigned long)i, tmp, (unsigned long)thispiece))
			return -EFAULT;
	}
	return 0;
}

long sys_mincore(unsigned long start, unsigned long len, unsigned long vec)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long end, index = 0;
	long error, unmapped_error = 0;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (start >= TASK_SIZE)
		return -ENOMEM;
	len = PAGE_ALIGN(len);
	if (len > TASK_SIZE - start)
		return -EINVAL;
	end = start + len;

	/* check the output buffer whilst holding the lock */
	error = -EFAULT;
	down_read(&mm->mmap_sem);
	if (vec > TASK_SIZE || (len >> PAGE_SHIFT) > TASK_SIZE - vec) /* access_ok() */
		goto out;

	/* holes in [start, end) are skipped, but give -ENOMEM at the end */
	error = 0;
	vma = find_vma(mm, start);
	while (vma) {
		if (start < vma->vm_start) {
			unmapped_error = -ENOMEM;
			start = vma->vm_start;
		}
		if (end <= vma->vm_end) {
			if (start < end) {
				error = mincore_vma(vma, start, end, vec + index);
				if (error)
					goto out;
			}
			error = unmapped_error;
			goto out;
		}
		error = mincore_vma(vma, start, vma->vm_end, vec + index);
		if (error)
			goto out;
		index += (vma->vm_end - start) >> PAGE_SHIFT;
		start = vma->vm_end;
		vma = vma_next(mm, vma);
	}
	/* we found a hole in the area queried if we arrive here */
	error = -ENOMEM;
out:
	up_read(&mm->mmap_sem);
	return error;
}
