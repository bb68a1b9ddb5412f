/* mm/mempolicy.c, 2.6.11: sys_get_mempolicy.
 *
 * Simplified: every VMA and task has the default policy (set_mempolicy and mbind are
 * not modelled), the node mask is one word with node 0 set, and MPOL_F_NODE is refused
 * with -EINVAL. What matters is kept: with MPOL_F_ADDR the unfixed kernel copies to
 * user memory while holding mmap_sem for read.
 */
#include "mempolicy.h"
#include "mm.h"
#include "uaccess.h"

#define MAX_NUMNODES 32

/* copy_nodes_to_user: the user's mask may be longer than ours; the rest is zeroed. */
static long copy_nodes_to_user(unsigned long mask, unsigned long maxnode, uint32_t nodes)
{
	unsigned long copy = (MAX_NUMNODES + 7) / 8;

	if (maxnode == 0)
		return 0;
	if (copy > (maxnode + 7) / 8)
		copy = (maxnode + 7) / 8;
	return copy_to_user(mask, &nodes, copy) ? -EFAULT : 0;
}

long sys_get_mempolicy(unsigned long policy, unsigned long nmask, unsigned long maxnode,
		       unsigned long addr, unsigned long flags)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = NULL;
	long err, pval = MPOL_DEFAULT;
	uint32_t nodes = 1; /* get_zonemask(): node 0 */

	if (flags & ~(unsigned long)(MPOL_F_NODE | MPOL_F_ADDR))
		return -EINVAL;
	if (flags & MPOL_F_NODE)
		return -EINVAL; /* not modelled */
	if (nmask != 0 && maxnode < MAX_NUMNODES)
		return -EINVAL;
	if (flags & MPOL_F_ADDR) {
		down_read(&mm->mmap_sem);
		vma = find_extend_vma(mm, addr);
		if (!vma) {
			up_read(&mm->mmap_sem);
			return -EFAULT;
		}
		/* vma->vm_policy would be consulted here; every VMA has the default */
	} else if (addr) {
		return -EINVAL;
	}

	if (vma && kcfg->mempolicy_up_read_first) {
		/* Olof's fix: release mmap_sem before touching user memory */
		up_read(&mm->mmap_sem);
		vma = NULL;
	}

	err = -EFAULT;
	if (policy && put_user((uint32_t)pval, policy))
		goto out;
	err = 0;
	if (nmask)
		err = copy_nodes_to_user(nmask, maxnode, nodes);
out:
	if (vma)
		up_read(&mm->mmap_sem);
	return err;
}
