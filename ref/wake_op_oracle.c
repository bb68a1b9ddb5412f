/* The wrong-result oracle's FUTEX_WAKE_OP contract (docs/oracles.md), as futex(2) states
 * it: the operation is done once, atomically, on the word at uaddr2, then the waiters are
 * woken; the call fails with -ENOSYS for an operation or comparison it has no name for,
 * and with -EFAULT only where "a required pointer argument ... did not point to a valid
 * user-space address". A word that user mode can write (its VMA has VM_WRITE, within its
 * file) is valid, whatever its PTE says: a kernel that fails there, or returns success
 * without doing the operation, or does it twice, breaks the contract.
 *
 * The judgement of -EFAULT holds only where no writer held or took mmap_sem during the
 * call (no mmap, munmap or mprotect overlapped it, which could have made the address
 * invalid for a while: a call that overlaps one may see the VMAs before it), and looks
 * at the VMAs as the call ends. The hooks keep books only, as ref/futex_oracle.h's do.
 */
#include "futex_oracle.h"
#include "mm.h"
#include "report.h"

#include <string.h>

#ifdef SNAFU_NATIVE
#define wo_off() true /* real threads: no oracles there (ref/futex_oracle.c) */
#else
#define wo_off() false
#endif

struct wo_call {
	bool active;
	unsigned long uaddr1, uaddr2;
	int op;                /* the encoded operation */
	unsigned long writers; /* mmap_sem's writers when it began */
	bool writer_in;        /* and whether one held it then */
	int applied;           /* futex_atomic_op_inuser() did the operation */
	uint32_t old;          /* the word before it, the first time */
};

static struct {
	struct wo_call call[SIM_MAX_TASKS + 1];
	bool seen; /* a call broke the contract: the first one, below */
	struct wo_call bad;
	long ret;
	int task;
	uint16_t op_at, point_at;
	bool can_write, can_read;
} wo;

void wo_reset(void)
{
	memset(&wo, 0, sizeof(wo));
}

void wo_begin(unsigned long uaddr1, unsigned long uaddr2, int op)
{
	if (wo_off())
		return;
	sim_hw_begin();
	wo.call[current->pid] = (struct wo_call){.active = true,
						 .uaddr1 = uaddr1,
						 .uaddr2 = uaddr2,
						 .op = op,
						 .writers = current->mm->mmap_sem.writers,
						 .writer_in = current->mm->mmap_sem.activity < 0};
	sim_hw_end();
}

void wo_applied(uint32_t old)
{
	if (wo_off())
		return;
	struct wo_call *c = &wo.call[current->pid];
	sim_hw_begin();
	if (c->active && !c->applied++)
		c->old = old;
	sim_hw_end();
}

/* What user mode may do at addr now: the VMA that holds it allows it, and a file's page
 * is within the file (else the fault is SIGBUS). */
static bool user_may(struct mm_struct *mm, unsigned long addr, unsigned long vm_flag)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	if (!vma || vma->vm_start > addr || !(vma->vm_flags & vm_flag))
		return false;
	return !vma->vm_file || !vma->vm_file->file ||
	       ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff < vma->vm_file->npages;
}

void wo_end(long ret)
{
	if (wo_off())
		return;
	struct wo_call *c = &wo.call[current->pid];
	struct mm_struct *mm = current->mm;
	if (!c->active)
		return;
	c->active = false;
	sim_hw_begin();
	bool calm = mm->mmap_sem.writers == c->writers && !c->writer_in, aligned = !(c->uaddr2 & 3);
	bool can_write = calm && aligned && user_may(mm, c->uaddr2, VM_WRITE) &&
			 user_may(mm, c->uaddr2, VM_READ);
	bool can_read = calm && !(c->uaddr1 & 3) && user_may(mm, c->uaddr1, VM_READ);
	bool wrong = c->applied > 1 || (ret >= 0 && !c->applied) ||
		     (ret == -EFAULT && can_write && can_read);
	if (wrong && !wo.seen) {
		wo.seen = true;
		wo.bad = *c;
		wo.ret = ret;
		wo.task = current->pid;
		wo.op_at = current->sim.op;
		wo.point_at = current->sim.op_points;
		wo.can_write = can_write;
		wo.can_read = can_read;
	}
	sim_hw_end();
}

bool wo_judge(void)
{
	if (wo_off() || !wo.seen)
		return false;
	const struct wo_call *c = &wo.bad;
	struct task_struct *t = (struct task_struct *)sim_task(wo.task);
	finding_begin("wrong result from FUTEX_WAKE_OP", "wrong-result--futex_wake_op");
	finding_printf("(op.point: a task's op and scheduling point, as `snafu replay --trace` "
		       "numbers them)\n");
	finding_printf("%s FUTEX_WAKE_OP(0x%lx, 0x%lx, op 0x%08x) returned %ld at %u.%u\n",
		       t ? t->comm : "a task", c->uaddr1, c->uaddr2, (unsigned)c->op, wo.ret,
		       wo.op_at, wo.point_at);
	if (c->applied > 1)
		finding_printf("  it did the operation on the word at 0x%lx %d times (the word "
			       "held %u before the first)\n",
			       c->uaddr2, c->applied, c->old);
	else if (wo.ret >= 0)
		finding_printf("  without doing the operation on the word at 0x%lx\n", c->uaddr2);
	else
		finding_printf(
		    "  though user mode could write the word at 0x%lx and read the "
		    "one at 0x%lx (their VMAs allow it, and no task held or took mmap_sem "
		    "for write during the call)\n",
		    c->uaddr2, c->uaddr1);
	finding_printf("\nFUTEX_WAKE_OP does the operation once, atomically, then wakes; it "
		       "fails with -EFAULT only for an address user mode cannot use, and with "
		       "-ENOSYS for an encoding it refuses\n");
	return true;
}
