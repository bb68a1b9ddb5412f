/* mm/mincore.c, 2.6.11: sys_mincore(); 2.6.20's at the end of the file, for the kernels
 * whose mm paths say mincore_copy_unlocked (ref/kernels.h).
 *
 * The whole walk runs under mmap_sem for read, and mincore_vma() copies each piece of
 * the result to user memory with copy_to_user() inside it: a fault on the result
 * vector takes mmap_sem again, the same deadlock as futex_wait's, fixed only in
 * 2.6.20 (CVE-2006-4814, commit 2f77d107050a). As in 2.6.11, only file-backed VMAs
 * are answered (here: shmem, i.e. MAP_SHARED /dev/zero); anonymous memory gives
 * -ENOMEM. Checked against mm/mincore.c of the 2.6.9 tree (dduval/kernel-rhel4),
 * unchanged up to 2.6.11.
 */
#include "kernels.h"
#include "mm.h"
#include "uaccess.h"

/* In core: in the page cache (shmem pages are always up to date). */
static unsigned char mincore_page(struct vm_area_struct *vma, unsigned long pgoff)
{
	sim_touch(SIM_TOUCH_PCACHE_RD); /* for snafu explore */
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

#undef KFUNC
#define KFUNC "sys_mincore" /* the release's sys_mincore(), under its kernel name */

static long sys_mincore_2_6_11(unsigned long start, unsigned long len, unsigned long vec)
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

/* ---- mm/mincore.c of 2.6.20: Linus Torvalds's "Fix incorrect user space access locking
 * in mincore()" (2f77d107050a, CVE-2006-4814) and his "Fix up mincore() semantics"
 * (4fb23e439ce0, after Hugh Dickins: a hole is -ENOMEM, a failed allocation -EAGAIN).
 * Each chunk of at most PAGE_SIZE answers is found under mmap_sem into a kernel page,
 * and copied to the user after up_read(): a fault on the vector takes mmap_sem with
 * nothing held. Anonymous memory is still -ENOMEM ("our stupid historical lack of
 * support for anonymous mappings"). The loop asks do_mincore() for min(pages,
 * PAGE_SIZE) answers as later trees have it (2f77d107050a's own line says max). ---- */

#undef KFUNC
#define KFUNC __func__

/* A chunk of sys_mincore(), with mmap_sem held: how many pages it answered into vec,
 * a kernel buffer, or -ENOMEM */
static long do_mincore(unsigned long addr, unsigned char *vec, unsigned long pages)
{
	struct vm_area_struct *vma = find_vma(current->mm, addr);
	unsigned long i, nr, pgoff;

	/* nothing above us, or an unmapped hole in the address space */
	if (!vma || addr < vma->vm_start)
		return -ENOMEM;
	if (!vma->vm_file)
		return -ENOMEM;
	nr = (vma->vm_end - addr) >> PAGE_SHIFT;
	if (nr > pages)
		nr = pages;
	pgoff = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	for (i = 0; i < nr; i++, pgoff++)
		vec[i] = mincore_page(vma, pgoff);
	return (long)nr;
}

#undef KFUNC
#define KFUNC "sys_mincore"

static long sys_mincore_2_6_20(unsigned long start, unsigned long len, unsigned long vec)
{
	unsigned char tmp[PAGE_SIZE]; /* __get_free_page(GFP_USER) */
	unsigned long pages;
	long retval;

	if (start & ~PAGE_MASK)
		return -EINVAL;
	if (!access_ok(start, len)) /* VERIFY_READ */
		return -ENOMEM;
	pages = len >> PAGE_SHIFT;
	pages += (len & ~PAGE_MASK) != 0;
	if (!access_ok(vec, pages)) /* VERIFY_WRITE */
		return -EFAULT;

	retval = 0;
	while (pages) {
		down_read(&current->mm->mmap_sem);
		retval = do_mincore(start, tmp, pages < PAGE_SIZE ? pages : PAGE_SIZE);
		up_read(&current->mm->mmap_sem);

		if (retval <= 0)
			break;
		if (copy_to_user(vec, tmp, (unsigned long)retval)) {
			retval = -EFAULT;
			break;
		}
		pages -= (unsigned long)retval;
		vec += (unsigned long)retval;
		start += (unsigned long)retval << PAGE_SHIFT;
		retval = 0;
	}
	return retval;
}

#undef KFUNC
#define KFUNC __func__

long sys_mincore(unsigned long start, unsigned long len, unsigned long vec)
{
	return kcfg->mm->mincore_copy_unlocked ? sys_mincore_2_6_20(start, len, vec)
					       : sys_mincore_2_6_11(start, len, vec);
}
