/* mm/mempolicy.c, 2.6.11: sys_get_mempolicy() with every flag it takes. */
#ifndef SNAFU_MEMPOLICY_H
#define SNAFU_MEMPOLICY_H

#include "kernels.h"

#define MPOL_DEFAULT 0
#define MPOL_F_NODE  (1 << 0)
#define MPOL_F_ADDR  (1 << 1)

long sys_get_mempolicy(unsigned long policy, unsigned long nmask, unsigned long maxnode,
		       unsigned long addr, unsigned long flags);

#endif
