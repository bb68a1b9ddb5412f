/* arch/i386/mm/fault.c, 2.6.11: do_page_fault. */
#include "mm.h"
#include "kernels.h"

/* force_sig_info(SIGSEGV): the model records it; the user op that faulted ends. */
static void force_sigsegv(struct task_struct *tsk, unsigned long address)
{
	tsk->segv++;
	sim_trace(EV_SIGNAL, "SIGSEGV", tsk->comm, (long)address, 0);
}

/* force_sig_info(SIGBUS): a user-mode access beyond the end of a mapped file */
static void force_sigbus(struct task_struct *tsk, unsigned long address)
{
	tsk->sigbus++;
	sim_trace(EV_SIGNAL, "SIGBUS", tsk->comm, (long)address, 0);
}

/* Every kernel access to user memory in the model goes through uaccess.c, and each has
 * an exception-table entry, so search_exception_tables() always finds the fixup. */
static bool search_exception_tables(void)
{
	return true;
}

/* error_code as the i386 hardware pushes it: PF_PROT, PF_WRITE, PF_USER. */
enum fault_result do_page_fault(unsigned long address, unsigned long error_code)
{
	kframe(); /* arch/i386/mm/fault.c, do_page_fault() */
	struct task_struct *tsk = current;
	struct mm_struct *mm = tsk->mm;
	struct vm_area_struct *vma;
	bool write = error_code & PF_WRITE, user_mode = error_code & PF_USER;
	bool locked = false; /* whether this fault took mmap_sem */

	sched_point("do_page_fault");
	sim_trace(EV_FAULT, "do_page_fault", write ? "write" : "read", (long)address, write);

	/* In atomic context (or with no mm) don't take any locks: the fixup makes
	 * __copy_from_user_inatomic() fail instead of sleeping. */
	if (in_atomic() || !mm)
		goto bad_area_nosemaphore;

	/* The pf-mmap-sem kernel: a task that holds mmap_sem already faults under it. */
	locked = !(kcfg->pf_mmap_sem && (tsk->flags & PF_MMAP_SEM));
	if (locked && !down_read_trylock(&mm->mmap_sem)) {
		if (!user_mode && !search_exception_tables())
			goto bad_area_nosemaphore;
		/* The deadlock: this reader queues behind a waiting writer even when
		 * this very task already holds mmap_sem for read. */
		down_read(&mm->mmap_sem);
	}

	vma = find_vma(mm, address);
	if (!vma)
		goto bad_area;
	if (vma->vm_start > address)
		goto bad_area; /* no VM_GROWSDOWN stacks in the model */
	if (write) {
		if (!(vma->vm_flags & VM_WRITE))
			goto bad_area;
	} else {
		if (error_code & PF_PROT)
			goto bad_area; /* read, present: a protection fault */
		/* 2.6.11: VM_READ | VM_EXEC; 2.6.19 on, VM_WRITE too ("make PROT_WRITE
		 * imply PROT_READ", arch/i386/mm/fault.c of 2.6.20) */
		if (!(vma->vm_flags &
		      (VM_READ | VM_EXEC | (kcfg->mm->read_fault_write_only ? VM_WRITE : 0))))
			goto bad_area;
	}
	if (handle_mm_fault(mm, vma, address, write) == VM_FAULT_SIGBUS)
		goto do_sigbus;
	if (locked)
		up_read(&mm->mmap_sem);
	return FAULT_HANDLED;

do_sigbus: /* filemap_nopage() beyond the end of the file */
	if (locked)
		up_read(&mm->mmap_sem);
	/* "Kernel mode? Handle exceptions or die" */
	if (!user_mode)
		goto no_context;
	force_sigbus(tsk, address);
	return FAULT_SIGBUS;

bad_area:
	if (locked)
		up_read(&mm->mmap_sem);
bad_area_nosemaphore:
	if (user_mode) {
		force_sigsegv(tsk, address);
		return FAULT_SIGSEGV;
	}
no_context: /* fixup_exception() */
	if (search_exception_tables())
		return FAULT_FIXUP;
	kernel_bug("BUG: unable to handle kernel paging request", "oops--do_page_fault",
		   "at virtual address %08lx", address);
}
