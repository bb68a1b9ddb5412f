/* The named kernel variants. A kernel is data: a set of switches read by the model at
 * the places where the variants differ. One binary runs every kernel. */
#ifndef SNAFU_KERNELS_H
#define SNAFU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How futex_wait and FUTEX_CMP_REQUEUE read the user's futex word: what tests and docs
 * ask of a kernel's futex paths (struct futex_paths). */
enum futex_read {
	FUTEX_READ_GET_USER,      /* 2.6.11-rc4: get_user() with mmap_sem held */
	FUTEX_READ_CHECK_PAGE,    /* olof-rfc: fault the page in first, then get_user() */
	FUTEX_READ_LOCKED_RETRY,  /* 2.6.11: get_futex_value_locked(), drop mmap_sem, retry */
	FUTEX_READ_BUCKET_LOCKED, /* 2.6.12-jj: read under the hash-bucket lock, queue on match */
};

/* A release's futex_wait and futex_requeue (kernel/futex.c): the code of each is in a file
 * named for the release, ref/futex-RELEASE.c, which defines its futex_paths_RELEASE
 * (docs/kernel-facts.md, "Where a release's futex code lives"); do_futex() runs the
 * kernel's. `read`, `wait_reads_first` and `key_from_page` describe that code, for tests
 * and docs; the model's kernel code reads none of them. */
struct futex_q;
struct rw_semaphore;
struct futex_paths {
	const char *release; /* the release (or patch) whose code it is */
	enum futex_read read;
	/* futex_wait reads and compares the word before queue_me(), not after: Hidetoshi
	 * Seto's futex_wait-fix.patch (2.6.10-rc1-mm5, in 2.6.10-rc2, reverted: Jamie
	 * Lokier, "Futex queue_me/get_user ordering", LKML 2004-11-14). Only with
	 * FUTEX_READ_GET_USER, the way futex_wait read the word then. */
	bool wait_reads_first;
	/* get_futex_key() makes a shared key from the page get_user_pages_fast() returns,
	 * not from the VMA (2.6.28 on: 38d47c1b7075): a word whose VMA cannot be read is
	 * -EFAULT, not -EACCES. The futex oracles read it too: where keys come from the VMA,
	 * the contract's key is the kernel's (ref/futex_oracle.c, contract_key()). */
	bool key_from_page;
	/* futex_wake_op() takes the second word's key for writing (get_futex_key(uaddr2,
	 * fshared, &key2, VERIFY_WRITE): 2.6.30, e4dc5b7a36a4), a get_user_pages_fast()
	 * that faults it in writable */
	bool wake_op_key2_write;
	/* q: the waiter's futex_q; time: ticks of the virtual clock, MAX_SCHEDULE_TIMEOUT
	 * for none */
	int (*wait)(struct futex_q *q, unsigned long uaddr, int val, int64_t time);
	/* valp: FUTEX_CMP_REQUEUE's expected value, NULL for FUTEX_REQUEUE */
	int (*requeue)(unsigned long uaddr1, unsigned long uaddr2, int nr_wake, int nr_requeue,
		       const int *valp);
	/* FUTEX_WAKE_OP (2.6.14 on; NULL before: -ENOSYS, as do_futex()'s default) */
	int (*wake_op)(unsigned long uaddr1, unsigned long uaddr2, int nr_wake, int nr_wake2,
		       int op);
	/* 2.6.22 on, the paths take fshared as the release's own do: &mm->mmap_sem for a
	 * shared futex, NULL for a process-private one (FUTEX_PRIVATE_FLAG), which takes
	 * no mmap_sem; futex_wake is the release's too. A release has these four or the
	 * three above, never both; with these, do_futex() reads the command from
	 * op & FUTEX_CMD_MASK. */
	int (*wait_fshared)(struct futex_q *q, unsigned long uaddr, struct rw_semaphore *fshared,
			    int val, int64_t time);
	int (*wake_fshared)(unsigned long uaddr, struct rw_semaphore *fshared, int nr_wake);
	int (*requeue_fshared)(unsigned long uaddr1, struct rw_semaphore *fshared,
			       unsigned long uaddr2, int nr_wake, int nr_requeue, const int *valp);
	int (*wake_op_fshared)(unsigned long uaddr1, struct rw_semaphore *fshared,
			       unsigned long uaddr2, int nr_wake, int nr_wake2, int op);
	/* the C names of the paths, for a debugger (snafu record's breakpoints): reports
	 * name the kernel's function, futex_wait, not the release's (wake_fn: NULL for
	 * ref/futex.c's futex_wake) */
	const char *wait_fn, *requeue_fn, *wake_op_fn, *wake_fn;
};
/* A path of struct futex_paths and its C name: FUTEX_PATH(wait, futex_wait_2_6_11);
 * FUTEX_PATH_FSHARED(wait, futex_wait_2_6_22) for the paths that take fshared. */
#define FUTEX_PATH(path, fn)         .path = fn, .path##_fn = #fn
#define FUTEX_PATH_FSHARED(path, fn) .path##_fshared = fn, .path##_fn = #fn
extern const struct futex_paths futex_paths_2_6_10_seto, futex_paths_2_6_11_rc4,
    futex_paths_olof_rfc, futex_paths_2_6_11, futex_paths_2_6_12_jj, futex_paths_2_6_14,
    futex_paths_2_6_17, futex_paths_2_6_18, futex_paths_2_6_22, futex_paths_2_6_28,
    futex_paths_2_6_30, futex_paths_test_wake_op_retry;

/* A release's get_user_pages() (mm/memory.c), in ref/memory-RELEASE.c, and what of the
 * fault paths changed with it: 2.6.13's fix for Robin Holt's race ("get_user_pages() with
 * write=1 and force=1 gets read-only pages", linux-mm 2005-07-30) changed both. */
struct task_struct;
struct mm_struct;
struct page;
struct vm_area_struct;
struct mm_paths {
	const char *release;
	int (*get_user_pages)(struct task_struct *tsk, struct mm_struct *mm, unsigned long start,
			      int len, int write, int force, struct page **pages,
			      struct vm_area_struct **vmas);
	const char *get_user_pages_fn; /* its C name, as struct futex_paths has them */
	/* do_wp_page() reuses only an anonymous page, and says VM_FAULT_WRITE when it broke
	 * COW or needed not (2.6.13) */
	bool vm_fault_write;
	/* sys_mincore() answers into a kernel page under mmap_sem and copies it out after
	 * up_read(), and a hole is -ENOMEM at once (2.6.20: 2f77d107050a, CVE-2006-4814;
	 * 4fb23e439ce0) */
	bool mincore_copy_unlocked;
	/* do_anonymous_page() gives a read fault a zeroed page of its own, not the ZERO_PAGE
	 * (2.6.24 to 2.6.31: 557ed1fa2620 "remove ZERO_PAGE") */
	bool anon_read_fault_allocates;
	/* do_page_fault(): a read of a not-present page needs VM_READ, VM_EXEC or VM_WRITE,
	 * so a write-only mapping reads (2.6.19: Jason Baron's "make PROT_WRITE imply
	 * PROT_READ"; in 2.6.20's arch/i386/mm/fault.c, not in 2.6.18.8's) */
	bool read_fault_write_only;
	/* can_share_swap_page() asks whether one PTE maps an anonymous page
	 * (page_mapcount() plus its swap references), not whether one reference holds it
	 * (page_count()), and try_to_unmap_one() no longer refuses a page that
	 * get_user_pages() holds: Hugh Dickins's "can_share_swap_page: use page_mapcount"
	 * (c475a8ab625d, LKML 2005-06-06 <Pine.LNX.4.61.0506062058090.5000@goblin.wat.
	 * veritas.com>), in 2.6.18.8's mm/swapfile.c and, as reuse_swap_page(), 2.6.30's.
	 * Which release first had it is not established here: 2.6.13 and 2.6.14 keep
	 * 2.6.11's test, 2.6.17 has it as 2.6.18 does. */
	bool cow_counts_mappings;
};
extern const struct mm_paths mm_paths_2_6_11, mm_paths_2_6_13, mm_paths_2_6_17, mm_paths_2_6_20,
    mm_paths_2_6_28;

/* Who an rwsem admits (lib/rwsem-spinlock.c and the alternatives argued in 2005). */
enum rwsem_policy {
	RWSEM_FAIR,        /* 2.6.11: anything waiting queues every newcomer, readers too */
	RWSEM_LOCKDEPTH,   /* a task already holding it for read takes it again at once */
	RWSEM_READER_PREF, /* readers enter whenever no writer is active, like rwlocks */
};

struct kernel_config {
	const char *name;
	const char *summary;
	/* Where it comes from, for `snafu kernels`: a release's tag; a patch's name,
	 * author and LKML message-id (a commit where there is one); a design that was only
	 * discussed, who discussed it. What the sources (docs/kernel-facts.md,
	 * docs/oracles.md) do not establish it says is not known, never a guess. */
	const char *source;
	/* the release whose futex_wait and futex_requeue it runs */
	const struct futex_paths *futex;
	/* the release whose get_user_pages() it runs */
	const struct mm_paths *mm;
	/* mempolicy half of the fix: sys_get_mempolicy drops mmap_sem before copying out */
	bool mempolicy_up_read_first;
	enum rwsem_policy rwsem;
	/* PF_MMAP_SEM: a task holding mmap_sem is flagged; do_page_fault then takes no lock */
	bool pf_mmap_sem;
	/* Test-only kernels are not listed or evaluated: they break the model on purpose to
	 * show that ThreadSanitizer notices (futex_wake reading nqueued without the bucket
	 * lock). */
	bool test_only;
	bool test_futex_wake_unlocked;
};

/* Every kernel, test-only ones included, in any order; the array ends with an entry whose
 * name is NULL. The listed kernels are the entries without test_only, wherever they
 * are: `snafu kernels` prints them, and they are the ones tested, evaluated and checked
 * (replay --check). kernel_by_name() finds test-only ones too. */
extern const struct kernel_config kernels[];
const struct kernel_config *kernel_by_name(const char *name);
/* The C function the kernel K runs for the kernel function FN ("futex_wait": K's
 * release's, futex_wait_2_6_11; get_user_pages likewise); FN itself for any other. */
const char *kernel_fn(const struct kernel_config *k, const char *fn);

/* The listed kernel after k (NULL: the first listed one); NULL after the last. */
const struct kernel_config *kernel_next(const struct kernel_config *k);
/* How many kernels are listed. */
int kernel_count(void);
/* for_each_kernel(k) { ... }: k runs over the listed kernels, in table order. */
#define for_each_kernel(k) \
	for (const struct kernel_config *k = kernel_next(NULL); k; k = kernel_next(k))

/* FUTEX_PRIVATE_FLAG (2.6.22 on): the kernel's futex paths take fshared. A kernel
 * without it refuses the flag as do_futex()'s switch (op) refuses any unknown command:
 * -ENOSYS. */
static inline bool kernel_private_futexes(const struct kernel_config *k)
{
	return k->futex->wait_fshared != NULL;
}

/* FUTEX_WAKE_OP (2.6.14 on): the kernel's futex paths have one, with fshared or without. */
static inline bool kernel_wake_op(const struct kernel_config *k)
{
	return k->futex->wake_op || k->futex->wake_op_fshared;
}

/* The kernel the model runs now (set before each run). */
extern const struct kernel_config *kcfg;

#endif
