/* kernel/ptrace.c and arch/i386/kernel/ptrace.c, 2.6.11: a debugger's PTRACE_PEEKDATA
 * and PTRACE_POKEDATA, through access_process_vm(), which calls get_user_pages() with
 * force = 1 under the target's mmap_sem for read: a debugger reads and writes what the
 * target may not (a breakpoint in read-only text).
 *
 * Simplified: the task that runs the op stands for a debugger attached to a stopped
 * thread of the program, whose mm it reaches (get_task_mm()); the other threads run on,
 * as they do under a real debugger. The debugger's own memory is not modelled: PEEKDATA's
 * put_user() of the word to the debugger's buffer always succeeds (the op keeps the word).
 * ptrace_check_attach() and the big kernel lock sys_ptrace() takes are left out: no
 * other path of the model takes them.
 */
#include "integrity.h"
#include "mm.h"
#include "ptrace.h"

#include <string.h>

/* Bytes done; 0 when the first page was not there ("ignore errors, just check how much
 * was sucessfully transfered"). The copy holds mmap_sem and a reference to the page, no
 * page_table_lock. */
static int access_process_vm(struct mm_struct *mm, unsigned long addr, void *buf, int len,
			     int write)
{
	kframe(); /* kernel/ptrace.c, access_process_vm() */
	unsigned char *p = buf;

	down_read(&mm->mmap_sem);
	while (len) {
		struct page *page;
		struct vm_area_struct *vma;
		int ret = get_user_pages(current, mm, addr, 1, write, 1, &page, &vma);
		if (ret <= 0)
			break;
		int offset = (int)(addr & ~PAGE_MASK);
		int bytes = len < (int)PAGE_SIZE - offset ? len : (int)PAGE_SIZE - offset;
		unsigned char *maddr = page->data + offset; /* kmap() */
		sim_hw_begin();
		if (write && memcmp(maddr, p, (size_t)bytes)) {
			sim_touch(SIM_TOUCH_STORED); /* for snafu explore: the value is no event */
			page_data_written(page);
			memcpy(maddr, p, (size_t)bytes); /* copy_to_user_page() */
		} else if (!write) {
			memcpy(p, maddr, (size_t)bytes); /* copy_from_user_page() */
		}
		sim_hw_end();
		if (write) /* set_page_dirty_lock(): the model has no writeback */
			integrity_forced_write(mm, vma, addr, page, bytes);
		page_cache_release(page);
		len -= bytes;
		p += bytes;
		addr += (unsigned long)bytes;
	}
	up_read(&mm->mmap_sem);
	return (int)(p - (unsigned char *)buf);
}

long sys_ptrace(long request, unsigned long addr, uint32_t *data)
{
	struct mm_struct *mm = current->mm;

	switch (request) {
	case PTRACE_PEEKDATA: /* "when I and D space are separate, these will need to be fixed" */
		if (access_process_vm(mm, addr, data, sizeof(*data), 0) != sizeof(*data))
			return -EIO;
		return 0; /* put_user(tmp, (unsigned long __user *)data) */
	case PTRACE_POKEDATA:
		if (access_process_vm(mm, addr, data, sizeof(*data), 1) == sizeof(*data))
			return 0;
		return -EIO;
	}
	return -EIO;
}
