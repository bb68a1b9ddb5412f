/* The kernels snafu can run, as data. See ../shared/REFERENCE.md for the sources. */
#include "kernels.h"

#include <string.h>

const struct kernel_config kernels[] = {
	{
		.name = "2.6.11-rc4",
		.summary = "unfixed: futex_wait/CMP_REQUEUE get_user() and get_mempolicy "
			   "put_user() under mmap_sem",
		.futex_read = FUTEX_READ_GET_USER,
		.mempolicy_up_read_first = false,
	},
	{
		.name = "olof-rfc",
		.summary = "Olof Johansson's RFC (2005-02-22): check_user_page_readable() loop, "
			   "mempolicy reordered",
		.futex_read = FUTEX_READ_CHECK_PAGE,
		.mempolicy_up_read_first = true,
	},
	{
		.name = "2.6.11",
		.summary = "merged fix: get_futex_value_locked() with faults disabled, drop "
			   "mmap_sem and retry; mempolicy fixed",
		.futex_read = FUTEX_READ_LOCKED_RETRY,
		.mempolicy_up_read_first = true,
	},
};
const int nkernels = sizeof(kernels) / sizeof(kernels[0]);

const struct kernel_config *kcfg = &kernels[0];

const struct kernel_config *kernel_by_name(const char *name)
{
	for (int i = 0; i < nkernels; i++)
		if (!strcmp(kernels[i].name, name))
			return &kernels[i];
	return NULL;
}
