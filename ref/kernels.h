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
	enum futex_read futex_read;
	/* mempolicy half of the fix: sys_get_mempolicy drops mmap_sem before copying out */
	bool mempolicy_up_read_first;
	enum rwsem_policy rwsem;
	/* PF_MMAP_SEM: a task holding mmap_sem is flagged; do_page_fault then takes no lock */
	bool pf_mmap_sem;
	/* Test-only kernels are not listed or evaluated: they break the model on purpose to
	 * show that ThreadSanitizer notices (futex_wake without the hash-bucket lock). */
	bool test_only;
	bool test_futex_wake_unlocked;
};

extern const struct kernel_config kernels[];
extern const int nkernels;
const struct kernel_config *kernel_by_name(const char *name);

/* The kernel the model runs now (set before each run). */
extern const struct kernel_config *kcfg;

#endif
