/* mm/mempolicy.c, 2.6.11: sys_get_mempolicy().
 *
 * Every flag 2.6.11 takes, in its order of checks: MPOL_F_ADDR looks the VMA up under
 * mmap_sem for read (find_vma_intersection: -EFAULT in a hole); MPOL_F_NODE with it asks
 * lookup_node(), which faults the page in with get_user_pages() under that lock, and
 * without it is -EINVAL (no task has an interleave policy). Then the policy is written
 * to user memory with put_user() and the node mask with copy_nodes_to_user(), which
 * clear_user()s the tail the user asked for beyond the kernel's MAX_NUMNODES bits.
 * 2.6.11 drops mmap_sem before those writes; 2.6.11-rc4 writes while holding it, so a
 * write fault there (a page not present, or a read-only private page after a read)
 * takes mmap_sem again: the deadlock of the mempolicy half of the fix.
 * Simplified: every task and VMA has the default policy (set_mempolicy and mbind are not
 * modelled): its mask is empty (get_zonemask), every page is on node 0; MAX_NUMNODES is
 * 32 (a NUMA i386 has 16, x86-64 64: the op asks for 64 bits either way).
 */
#include "mempolicy.h"
#include "mm.h"
#include "uaccess.h"

#define MAX_NUMNODES 32
#define NODES_BYTES  (MAX_NUMNODES / 8) /* sizeof(DECLARE_BITMAP(nodes, MAX_NUMNODES)) */

/* lookup_node: the node of the page at addr, faulted in if need be (page_to_nid()), and
 * the reference get_user_pages() took dropped again (put_page()). */
static long lookup_node(struct mm_struct *mm, unsigned long addr)
{
	kframe(); /* mm/mempolicy.c, lookup_node() */
	struct page *p;
	long err = get_user_pages(current, mm, addr & PAGE_MASK, 1, 0, 0, &p, NULL);

	if (err >= 0) {
		err = 0; /* page_to_nid(): node 0 */
		put_page(p);
	}
	return err;
}

static long copy_nodes_to_user(unsigned long mask, unsigned long maxnode)
{
	kframe(); /* mm/mempolicy.c, copy_nodes_to_user() */
	unsigned long copy = ((maxnode - 1 + 63) & ~63UL) / 8; /* ALIGN(maxnode-1, 64)/8 */
	const uint8_t nodes[NODES_BYTES] = {0};                /* MPOL_DEFAULT: none */

	if (copy > NODES_BYTES) {
		if (copy > PAGE_SIZE)
			return -EINVAL;
		if (clear_user(mask + NODES_BYTES, copy - NODES_BYTES))
			return -EFAULT;
		copy = NODES_BYTES;
	}
	return copy_to_user(mask, nodes, copy) ? -EFAULT : 0;
}

long sys_get_mempolicy(unsigned long policy, unsigned long nmask, unsigned long maxnode,
		       unsigned long addr, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = NULL;
	long err, pval;

	if (flags & ~(unsigned long)(MPOL_F_NODE | MPOL_F_ADDR))
		return -EINVAL;
	if (nmask != 0 && maxnode < MAX_NUMNODES)
		return -EINVAL;
	if (flags & MPOL_F_ADDR) {
		down_read(&mm->mmap_sem);
		vma = find_vma(mm, addr); /* find_vma_intersection(mm, addr, addr + 1) */
		if (!vma || addr + 1 <= vma->vm_start) {
			up_read(&mm->mmap_sem);
			return -EFAULT;
		}
		/* vma->vm_policy would be consulted here; every VMA has the default */
	} else if (addr) {
		return -EINVAL;
	}

	if (flags & MPOL_F_NODE) {
		if (!(flags & MPOL_F_ADDR)) {
			err = -EINVAL; /* the default policy is not the task's interleave */
			goto out;
		}
		err = lookup_node(mm, addr);
		if (err < 0)
			goto out;
		pval = err;
	} else {
		pval = MPOL_DEFAULT;
	}

	if (vma && kcfg->mempolicy_up_read_first) {
		/* the 2.6.11 fix: release mmap_sem before touching user memory */
		up_read(&mm->mmap_sem);
		vma = NULL;
	}

	err = -EFAULT;
	if (policy && put_user((uint32_t)pval, policy))
		goto out;
	err = 0;
	if (nmask)
		err = copy_nodes_to_user(nmask, maxnode);
out:
	if (vma)
		up_read(&mm->mmap_sem);
	return err;
}
