/* mm/mmap.c, 2.6.11: VMAs (find_vma, split_vma), do_mmap_pgoff and do_munmap, and the
 * system calls mmap2 and munmap, each under mmap_sem held for write (mprotect is in
 * ref/mprotect.c). The VMA list changes only through the helpers below, which assert
 * that (ref/mm.h). */
#include "mm.h"

#include <stdlib.h>
#include <string.h>

/* The first VMA with vm_end > addr, or NULL: a binary search of the sorted array (2.6.11
 * walks its rbtree; mlock and mprotect call this once a VMA, often). */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	int lo = 0, hi = mm->map_count;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (mm->mmap[mid].vm_end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < mm->map_count ? &mm->mmap[lo] : NULL;
}

struct vm_area_struct *vma_next(struct mm_struct *mm, struct vm_area_struct *vma)
{
	return vma + 1 < mm->mmap + mm->map_count ? vma + 1 : NULL;
}

/* The VMA containing addr. No VM_GROWSDOWN stacks are modelled, so nothing extends. */
struct vm_area_struct *find_extend_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
}

/* include/linux/mman.h */
unsigned long calc_vm_prot_bits(unsigned long prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

/* First fit, bottom-up from TASK_UNMAPPED_BASE. */
static unsigned long get_unmapped_area(struct mm_struct *mm, unsigned long len)
{
	unsigned long addr = TASK_UNMAPPED_BASE;

	for (int i = 0; i < mm->map_count; i++) {
		if (mm->mmap[i].vm_start >= addr + len)
			break;
		if (mm->mmap[i].vm_end > addr)
			addr = mm->mmap[i].vm_end;
	}
	if (addr + len > TASK_UNMAPPED_BASE + MMAP_WINDOW)
		return 0;
	return addr;
}

static void assert_mmap_sem_write(struct mm_struct *mm, const char *caller)
{
	lock_assert_held(&mm->mmap_sem, mm->mmap_sem.name, NULL, true, caller);
}

struct vm_area_struct *__vma_link_from(struct mm_struct *mm, const struct vm_area_struct *vma,
				       const char *caller)
{
	int at = 0;

	assert_mmap_sem_write(mm, caller);
	while (at < mm->map_count && mm->mmap[at].vm_start < vma->vm_start)
		at++;
	memmove(&mm->mmap[at + 1], &mm->mmap[at],
		sizeof(mm->mmap[0]) * (size_t)(mm->map_count - at));
	mm->map_count++;
	mm->mmap[at] = *vma;
	return &mm->mmap[at];
}

void vma_adjust_from(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long pgoff, const struct vm_area_struct *insert,
		     const char *caller)
{
	assert_mmap_sem_write(mm, caller);
	vma->vm_start = start;
	vma->vm_end = end;
	vma->vm_pgoff = pgoff;
	if (insert)
		__vma_link_from(mm, insert, caller); /* __insert_vm_struct() */
}

void detach_vmas_to_be_unmapped_from(struct mm_struct *mm, unsigned long start, unsigned long end,
				     const char *caller)
{
	int j = 0;

	assert_mmap_sem_write(mm, caller);
	for (int i = 0; i < mm->map_count; i++) {
		struct vm_area_struct *v = &mm->mmap[i];
		if (v->vm_start >= start && v->vm_end <= end) {
			vma_put_file(v);
			continue;
		}
		mm->mmap[j++] = *v;
	}
	mm->map_count = j;
}

void vm_flags_reset_from(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long flags,
			 const char *caller)
{
	assert_mmap_sem_write(mm, caller);
	vma->vm_flags = flags;
}

/* split_vma: cut the VMA at index i at addr; both halves keep the flags and file. Its
 * callers (do_munmap, mprotect_fixup, mlock_fixup) hold mmap_sem for write, as every
 * change to the VMAs in 2.6.11 (mm/mmap.c: do_mmap_pgoff(), "The caller must hold
 * down_write(current->mm->mmap_sem)"): vma_adjust() asserts it. */
static int split_vma(struct mm_struct *mm, int i, unsigned long addr)
{
	kframe(); /* mm/mmap.c, split_vma() */
	if (mm->map_count == MAX_MAP_COUNT)
		return -ENOMEM;
	struct vm_area_struct *vma = &mm->mmap[i], new = *vma;

	new.vm_end = addr; /* new_below: "copy all, and then fixup" */
	vma_adjust(mm, vma, addr, vma->vm_end,
		   vma->vm_pgoff + ((addr - new.vm_start) >> PAGE_SHIFT), &new);
	if (new.vm_file)
		new.vm_file->i_mmap_count++; /* get_file() */
	return 0;
}

/* Split so that no VMA straddles addr (mprotect, mlock). */
int split_at(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *v = find_vma(mm, addr);

	if (v && v->vm_start < addr)
		return split_vma(mm, (int)(v - mm->mmap), addr);
	return 0;
}

long do_mmap_pgoff(struct mm_struct *mm, struct inode *file, unsigned long len, unsigned long prot,
		   unsigned long flags)
{
	kframe(); /* mm/mmap.c, do_mmap_pgoff() */
	if (!len)
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (mm->map_count == MAX_MAP_COUNT)
		return -ENOMEM;
	if (!file && (flags & MAP_SHARED) && (len >> PAGE_SHIFT) > SHMEM_MAX_PAGES)
		return -ENOMEM;

	/* do_mmap_pgoff: the MAY bits always; MAP_SHARED adds VM_SHARED and VM_MAYSHARE. A
	 * file opened without FMODE_WRITE: no shared writable mapping ("if ((prot &
	 * PROT_WRITE) && !(file->f_mode & FMODE_WRITE)) return -EACCES;"), and a shared one
	 * loses VM_MAYWRITE and VM_SHARED ("if (!(file->f_mode & FMODE_WRITE)) vm_flags &=
	 * ~(VM_MAYWRITE | VM_SHARED);"): it can never be written, by mprotect or a forced
	 * write. /dev/zero and anonymous memory are open for both. */
	unsigned long vm_flags = calc_vm_prot_bits(prot) | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	if (flags & MAP_SHARED) {
		if (file && file->readonly && (prot & PROT_WRITE))
			return -EACCES;
		vm_flags |= VM_SHARED | VM_MAYSHARE;
		if (file && file->readonly)
			vm_flags &= ~(unsigned long)(VM_MAYWRITE | VM_SHARED);
	}
	unsigned long addr = get_unmapped_area(mm, len);
	if (!addr)
		return -ENOMEM;

	struct vm_area_struct vma = {.vm_start = addr, .vm_end = addr + len, .vm_flags = vm_flags};
	if (file) {
		file->i_mmap_count++; /* get_file() */
		vma.vm_file = file;
	} else if (flags & MAP_SHARED) {
		/* shmem_zero_setup: a fresh shmem object for this /dev/zero mapping */
		struct inode *inode =
		    calloc(1, sizeof(*inode) + (len >> PAGE_SHIFT) * sizeof(inode->pages[0]));
		if (!inode)
			abort();
		inode->i_ino = mm->next_ino++;
		inode->i_mmap_count = 1;
		inode->npages = len >> PAGE_SHIFT;
		vma.vm_file = inode;
	}
	__vma_link(mm, &vma); /* vma_link() */
	return (long)addr;
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	kframe(); /* mm/mmap.c, do_munmap() */
	if ((start & ~PAGE_MASK) || start > TASK_SIZE || len > TASK_SIZE - start)
		return -EINVAL;
	len = PAGE_ALIGN(len);
	if (len == 0)
		return -EINVAL;
	unsigned long end = start + len;

	int err = split_at(mm, start);
	if (!err)
		err = split_at(mm, end);
	if (err)
		return err;
	/* unmap_region: PTEs first, while the VMAs still say which pages are private */
	zap_page_range(mm, start, end);
	detach_vmas_to_be_unmapped(mm, start, end);
	return 0;
}

/* arch/i386/kernel/sys_i386.c: fd is one of the run's files (ref/filemap.c), or -1 with
 * MAP_ANONYMOUS; a MAP_SHARED mapping without a file is /dev/zero's. pgoff: from the
 * start only (the op maps files from their first page). */
long sys_mmap2(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags,
	       long fd, unsigned long pgoff)
{
	struct mm_struct *mm = current->mm;
	struct inode *file = NULL;
	long ret;

	(void)addr; /* a hint only; MAP_FIXED is not modelled */
	if (pgoff)
		return -EINVAL; /* not modelled */
	if (!(flags & MAP_ANONYMOUS) && fd >= 0) {
		file = fget(mm, fd);
		if (!file)
			return -EBADF;
	}
	/* for snafu explore: so a new mapping replaces none, and touches no PTE */
	sim_touch_range(0, 0);
	down_write(&mm->mmap_sem);
	ret = do_mmap_pgoff(mm, file, len, prot, flags);
	up_write(&mm->mmap_sem);
	return ret;
}

long sys_munmap(unsigned long addr, unsigned long len)
{
	struct mm_struct *mm = current->mm;
	int ret;

	/* for snafu explore: the PTEs it may zap are those of [addr, addr + len) */
	sim_touch_range(addr, addr + PAGE_ALIGN(len));
	down_write(&mm->mmap_sem);
	ret = do_munmap(mm, addr, len);
	up_write(&mm->mmap_sem);
	return ret;
}
