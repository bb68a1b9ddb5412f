/* The named kernel variants. A kernel is data: a set of switches read by the model at
 * the places where the variants differ. One binary runs every kernel. */
#ifndef SNAFU_KERNELS_H
#define SNAFU_KERNELS_H

#include <stdbool.h>

/* How futex_wait and FUTEX_CMP_REQUEUE read the user's futex word. */
enum futex_read {
	FUTEX_READ_GET_USER,	 /* 2.6.11-rc4: get_user() with mmap_sem held */
	FUTEX_READ_CHECK_PAGE,	 /* olof-rfc: fault the page in first, then get_user() */
	FUTEX_READ_LOCKED_RETRY, /* 2.6.11: get_futex_value_locked(), drop mmap_sem, retry */
};

struct kernel_config {
	const char *name;
	const char *summary;
	enum futex_read futex_read;
	/* mempolicy half of the fix: sys_get_mempolicy drops mmap_sem before copying out */
	bool mempolicy_up_read_first;
};

extern const struct kernel_config kernels[];
extern const int nkernels;
const struct kernel_config *kernel_by_name(const char *name);

/* The kernel the model runs now (set before each run). */
extern const struct kernel_config *kcfg;

#endif
