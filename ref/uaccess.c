/* The MMU and the user-access functions (include/asm-i386/uaccess.h and
 * arch/i386/lib/usercopy.c, 2.6.11).
 *
 * An access walks the PTE; if it is absent or forbids the access, the "hardware" raises
 * a page fault and, when do_page_fault() handled it, re-executes the access, which may
 * fault again if another task changed the mapping in between, just like real hardware.
 * Byte copies go page by page.
 */
#include "uaccess.h"
#include "mm.h"

#include <stdio.h>
#include <string.h>

bool access_ok(unsigned long addr, unsigned long size)
{
	return addr <= TASK_SIZE && size <= TASK_SIZE - addr;
}

/* A store through a PTE that maps the ZERO_PAGE. The kernel never maps it writable
 * (2.6.11 mm/memory.c: do_anonymous_page() maps it with pte_wrprotect(), do_wp_page()
 * copies it: "if (old_page == ZERO_PAGE(address))"), so the store would write the one
 * page every untouched anonymous page of every process reads: memory corruption, and
 * one process's data in all the others. A checker, like the held-lock assertions
 * (docs/assertions.md): it needs no schedule, only a store that gets there. */
static void zero_page_store(unsigned long uaddr, const char *access)
{
	char token[64];

	snprintf(token, sizeof(token), "zero-page-write--%s", access);
	kernel_bug("BUG: store into the ZERO_PAGE", token,
		   "%s to 0x%lx went through a writable PTE that maps the ZERO_PAGE: every "
		   "untouched anonymous page now reads what it wrote",
		   access, uaddr);
}

/* The MMU's walk for an access at uaddr: the PTE that allows it, young, with the raw
 * page_table_lock held (the model's stand-in for the TLB shootdown that keeps a page
 * from being freed under an access on real threads; no scheduling point and no trace:
 * invisible to the simulator, where the lock is never held across a point). A PTE that
 * is absent or forbids the access raises a page fault and, where do_page_fault()
 * handled it, the access is executed again; NULL where it did not. access names a
 * store for the ZERO_PAGE check (NULL for a read). */
static pte_t *mmu_walk(unsigned long uaddr, const char *access, bool user_mode)
{
	bool write = access != NULL;
	struct mm_struct *mm = current->mm;

	for (;;) {
		pte_t *pte = mm ? pte_offset(mm, uaddr) : NULL;
		unsigned need = _PAGE_PRESENT | _PAGE_USER | (write ? _PAGE_RW : 0);
		if (pte)
			sim_spin_lock(&mm->page_table_lock.raw);
		if (!pte || (pte->flags & need) != need) {
			if (pte)
				sim_spin_unlock(&mm->page_table_lock.raw);
			unsigned long error_code =
			    (write ? PF_WRITE : 0) | (user_mode ? PF_USER : 0);
			/* the P bit of the error code: the page was there for the hardware.
			 * A PROT_NONE PTE is not (i386's PAGE_NONE is _PAGE_PROTNONE without
			 * _PAGE_PRESENT, include/asm-i386/pgtable.h); the model's has
			 * _PAGE_PRESENT for pte_present() and no _PAGE_USER */
			if (pte && (pte->flags & _PAGE_PRESENT) && (pte->flags & _PAGE_USER))
				error_code |= PF_PROT;
			if (do_page_fault(uaddr, error_code) != FAULT_HANDLED)
				return NULL;
			sim_touch(SIM_TOUCH_RETRY); /* for snafu explore: no event says so */
			continue;                   /* re-execute the access */
		}
		/* the MMU sets the young bit, under no lock: hardware, not the kernel (2.6.11
		 * mm/rmap.c, page_referenced_one(), clears it with ptep_clear_flush_young()) */
		pte->flags |= _PAGE_ACCESSED;
		if (write && pte->page == ZERO_PAGE(uaddr)) {
			sim_spin_unlock(&mm->page_table_lock.raw);
			zero_page_store(uaddr, access);
		}
		return pte;
	}
}

/* Copy n bytes between kernel buffer buf and user address uaddr. Returns the number of
 * bytes NOT copied (0 on success), like __copy_to_user(). access names a store for the
 * ZERO_PAGE check (NULL for a read). */
static unsigned long mmu_copy(unsigned long uaddr, void *buf, unsigned long n, const char *access,
			      bool user_mode)
{
	bool write = access != NULL;
	struct mm_struct *mm = current->mm;
	unsigned char *p = buf;

	while (n) {
		unsigned long chunk = PAGE_SIZE - (uaddr & ~PAGE_MASK);
		if (chunk > n)
			chunk = n;
		pte_t *pte = mmu_walk(uaddr, access, user_mode);
		if (!pte)
			return n;
		unsigned char *mem = pte->page->data + (uaddr & ~PAGE_MASK);
		sim_hw_begin();
		if (write && memcmp(mem, p, chunk)) {
			sim_touch(SIM_TOUCH_STORED); /* for snafu explore: the value is no event */
			page_data_written(pte->page);
			memcpy(mem, p, chunk);
		} else if (!write)
			memcpy(p, mem, chunk);
		sim_hw_end();
		sim_spin_unlock(&mm->page_table_lock.raw);
		uaddr += chunk;
		p += chunk;
		n -= chunk;
	}
	return 0;
}

int get_user_u32(uint32_t *val, unsigned long uaddr, const char *caller)
{
	kframe_as("get_user"); /* include/asm-i386/uaccess.h, get_user() */
	sched_point("get_user");
	might_fault("get_user", caller);
	sim_trace(EV_UACCESS, "get_user", NULL, (long)uaddr, 0);
	if (!access_ok(uaddr, 4) || mmu_copy(uaddr, val, 4, NULL, false)) {
		*val = 0;
		return -EFAULT;
	}
	return 0;
}

int put_user_u32(uint32_t val, unsigned long uaddr, const char *caller)
{
	kframe_as("put_user"); /* include/asm-i386/uaccess.h, put_user() */
	sched_point("put_user");
	might_fault("put_user", caller);
	sim_trace(EV_UACCESS, "put_user", NULL, (long)uaddr, 0);
	if (!access_ok(uaddr, 4) || mmu_copy(uaddr, &val, 4, "put_user", false))
		return -EFAULT;
	return 0;
}

unsigned long _copy_to_user(unsigned long to, const void *from, unsigned long n, const char *caller)
{
	kframe_as("copy_to_user"); /* arch/i386/lib/usercopy.c, copy_to_user() */
	might_sleep();
	sched_point("copy_to_user");
	might_fault("copy_to_user", caller);
	sim_trace(EV_UACCESS, "copy_to_user", NULL, (long)to, (long)n);
	if (!access_ok(to, n))
		return n;
	return mmu_copy(to, (void *)from, n, "copy_to_user", false);
}

/* arch/i386/lib/usercopy.c: zero user memory, faulting like any user write. */
unsigned long _clear_user(unsigned long to, unsigned long n, const char *caller)
{
	kframe_as("clear_user"); /* arch/i386/lib/usercopy.c, clear_user() */
	static const unsigned char zeros[PAGE_SIZE];
	unsigned long left = 0;

	might_sleep();
	sched_point("clear_user");
	might_fault("clear_user", caller);
	sim_trace(EV_UACCESS, "clear_user", NULL, (long)to, (long)n);
	if (!access_ok(to, n))
		return n;
	for (unsigned long done = 0; done < n && !left; done += PAGE_SIZE) {
		unsigned long chunk = n - done < PAGE_SIZE ? n - done : PAGE_SIZE;
		left = mmu_copy(to + done, (void *)zeros, chunk, "clear_user", false);
		if (left)
			left += n - done - chunk;
	}
	return left;
}

/* No might_sleep(): the caller has raised the preempt count, so a fault takes the
 * bad_area_nosemaphore path and this returns non-zero instead of sleeping. */
unsigned long __copy_from_user_inatomic(void *to, unsigned long from, unsigned long n)
{
	sched_point("__copy_from_user_inatomic");
	sim_trace(EV_UACCESS, "__copy_from_user_inatomic", NULL, (long)from, (long)n);
	return mmu_copy(from, to, n, NULL, false);
}

int __futex_rmw_inatomic(unsigned long uaddr, uint32_t (*apply)(uint32_t old, int arg), int arg,
			 uint32_t *oldval)
{
	struct mm_struct *mm = current->mm;

	sched_point("futex_atomic_op_inuser");
	sim_trace(EV_UACCESS, "futex_atomic_op_inuser", NULL, (long)uaddr, 0);
	pte_t *pte = mmu_walk(uaddr, "futex_atomic_op_inuser", false);
	if (!pte)
		return -EFAULT;
	uint32_t *word = (uint32_t *)(pte->page->data + (uaddr & ~PAGE_MASK));
	sim_hw_begin();
	uint32_t old = *word, new = apply(old, arg);
	if (new != old) {
		sim_touch(SIM_TOUCH_STORED); /* for snafu explore: the value is no event */
		page_data_written(pte->page);
		*word = new;
	}
	sim_hw_end();
	sim_spin_unlock(&mm->page_table_lock.raw);
	*oldval = old;
	return 0;
}

int user_load(unsigned long uaddr, uint32_t *val)
{
	sched_point("user load");
	sim_trace(EV_USER, "load", NULL, (long)uaddr, 0);
	*val = 0;
	return mmu_copy(uaddr, val, 4, NULL, true) ? -EFAULT : 0;
}

int user_store(unsigned long uaddr, uint32_t val)
{
	sched_point("user store");
	sim_trace(EV_USER, "store", NULL, (long)uaddr, (long)val);
	return mmu_copy(uaddr, &val, 4, "user_store", true) ? -EFAULT : 0;
}
