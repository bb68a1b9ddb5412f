/* The integrity oracle (docs/oracles.md, "integrity"): a file's page cache holds what
 * MAP_SHARED writes put there and nothing else, the ZERO_PAGE holds zeros, and a forced
 * write that returned success is at its address afterwards. The kernel's writes on a
 * task's behalf (access_process_vm()) tell it where they went; it keeps the first that
 * broke the contract, and judges when the run ended well. On real threads it does
 * nothing. */
#ifndef SNAFU_INTEGRITY_H
#define SNAFU_INTEGRITY_H

#include "mm.h"

void integrity_reset(void);
/* access_process_vm() wrote bytes at addr into page, which get_user_pages() found
 * through vma (the caller still holds mmap_sem and the page's reference) */
void integrity_forced_write(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			    struct page *page, int bytes);
/* the run ended well: a finding (finding_begin()) if a write broke the contract */
bool integrity_judge(void);

#endif
