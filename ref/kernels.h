/* The named kernel variants. A kernel is data: a set of switches read by the model at
 * the places where the variants differ. One binary runs every kernel. */
#ifndef SNAFU_KERNELS_H
#define SNAFU_KERNELS_H

#include <stdbool.h>

/* How futex_wait and FUTEX_CMP_REQUEUE read the user's futex word. */
enum futex_read {
	FUTEX_READ_GET_USER,      /* 2.6.11-rc4: get_user() with mmap_sem held */
	FUTEX_READ_CHECK_PAGE,    /* olof-rfc: fault the page in first, then get_user() */
	FUTEX_READ_LOCKED_RETRY,  /* 2.6.11: get_futex_value_locked(), drop mmap_sem, retry */
	FUTEX_READ_BUCKET_LOCKED, /* 2.6.12-jj: read under the hash-bucket lock, queue on match */
};

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
	enum futex_read futex_read;
	/* futex_wait reads and compares the word before queue_me(), not after: Hidetoshi
	 * Seto's futex_wait-fix.patch (2.6.10-rc1-mm5, in 2.6.10-rc2, reverted: Jamie
	 * Lokier, "Futex queue_me/get_user ordering", LKML 2004-11-14). Read only with
	 * FUTEX_READ_GET_USER, the way futex_wait read the word then. */
	bool futex_wait_read_first;
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

/* The listed kernel after k (NULL: the first listed one); NULL after the last. */
const struct kernel_config *kernel_next(const struct kernel_config *k);
/* How many kernels are listed. */
int kernel_count(void);
/* for_each_kernel(k) { ... }: k runs over the listed kernels, in table order. */
#define for_each_kernel(k) \
	for (const struct kernel_config *k = kernel_next(NULL); k; k = kernel_next(k))

/* The kernel the model runs now (set before each run). */
extern const struct kernel_config *kcfg;

#endif
