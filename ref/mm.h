/* The address space: mm_struct, VMAs, page tables, pages (include/linux/mm.h).
 *
 * Simplifications (each also in the README):
 *  - one mm shared by every task (threads); no fork, so a private page is shared only
 *    by a get_user_pages() reference, and a write-protect fault reuses it when its count
 *    says it is the mapping's alone (do_wp_page); swap is a page kept by a not-present
 *    PTE (_PAGE_ANON), so a swapped-out page comes back with its contents (and is never
 *    in the swap cache of another mm); no LRU pagevec holds a reference;
 *  - a fault drops page_table_lock where 2.6.11 allocates or looks a page up
 *    (do_anonymous_page()'s write, do_wp_page()'s copy, do_no_page()) and checks the PTE
 *    again after, as 2.6.11 does; pte_alloc_map() and do_swap_page() keep it (they
 *    allocate nothing the model waits for);
 *  - user mappings live in a 64 MiB window at TASK_UNMAPPED_BASE, placed first-fit
 *    bottom-up; adjacent VMAs are never merged (vma_merge is not modelled);
 *  - the LRU lists are not modelled: kswapd looks at the page a program names (the op
 *    `reclaim`), one shrink_list() pass per op;
 *  - MAP_SHARED mappings without a file are /dev/zero, i.e. shmem objects: each mmap()
 *    gets its own inode whose pages outlive the PTEs until its last VMA goes;
 *  - files: a run has the files its program declares (at most NR_FILES, of at most
 *    FILE_MAX_PAGES pages), open from its start as fd 1 up, kept with the mm (the model
 *    has one process);
 *    the page cache is the disk (no writeback, no eviction of a page-cache page, no
 *    truncate), a page read in on its first fault holds the file's bytes;
 *  - page tables are one flat level of PTEs for the window.
 */
#ifndef SNAFU_MM_H
#define SNAFU_MM_H

#include "filemap.h"
#include "rwsem.h"

#include <stdatomic.h>

#define PAGE_SHIFT    12
#define PAGE_SIZE     (1UL << PAGE_SHIFT)
#define PAGE_MASK     (~(PAGE_SIZE - 1))
#define PAGE_ALIGN(a) (((a) + PAGE_SIZE - 1) & PAGE_MASK)

#define TASK_SIZE          0xC0000000UL
#define TASK_UNMAPPED_BASE 0x40000000UL
#define MMAP_WINDOW        (64UL << 20)
#define MMAP_PAGES         (MMAP_WINDOW >> PAGE_SHIFT)
#define PT_SHIFT           22   /* a page table maps 4 MiB */
#define MAX_MAP_COUNT      64   /* the model's limit; Linux allows 65536 */
#define SHMEM_MAX_PAGES    1024 /* largest shared mapping: 4 MiB */

#define PROT_NONE  0x0
#define PROT_READ  0x1
#define PROT_WRITE 0x2
#define PROT_EXEC  0x4

#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_ANONYMOUS 0x20

#define VM_READ   0x0001
#define VM_WRITE  0x0002
#define VM_EXEC   0x0004
#define VM_SHARED 0x0008
/* what mprotect() may grant (-EACCES beyond it); VM_MAYSHARE: a MAP_SHARED mapping */
#define VM_MAYREAD  0x0010
#define VM_MAYWRITE 0x0020
#define VM_MAYEXEC  0x0040
#define VM_MAYSHARE 0x0080
#define VM_LOCKED   0x2000 /* mlock(): try_to_unmap_one() leaves its pages alone */
#define VM_IO       0x4000

struct inode;

struct page {
	unsigned char data[PAGE_SIZE];
	/* PG_referenced: mark_page_accessed() sets it, page_referenced() clears it; a page
	 * flag, set and cleared atomically (SetPageReferenced is set_bit), with no lock */
	_Atomic bool referenced;
	/* page_count(), atomic_t in 2.6.11: one for the page cache (a shmem page), one for
	 * each PTE that maps it (a private page's swap entry counts as its PTE), one for
	 * each reference get_user_pages() hands out (get_page(); page_cache_release()
	 * drops it). The ZERO_PAGE is PageReserved: never counted. */
	_Atomic int _count;
	struct inode *mapping; /* the shmem inode whose page cache holds it; NULL: anonymous */
	unsigned long index;   /* its offset in mapping, in pages (a page-cache page's) */
	/* taken out of its page cache (its inode went): mapping NULL, as in Linux, and yet
	 * no anonymous page */
	bool removed;
	struct page *live_prev, *live_next; /* the live pages' list (ref/memory.c) */
};

/* The shared page of zeros a read fault on private anonymous memory maps read-only
 * (do_anonymous_page): never written, never freed, on no LRU list, so kswapd never sees
 * it; a write to it is a write-protect fault that gives the task a page of its own. */
extern struct page empty_zero_page;
#define ZERO_PAGE(addr) (&empty_zero_page)
/* Whether this run wrote into the ZERO_PAGE (a bug the model lets happen, as 2.6.11's
 * get_user_pages() race does): mm_alloc() zeroes it again before the next run. Set by
 * every write of page data (ref/uaccess.c, ref/ptrace.c) through page_data_written(). */
extern bool empty_zero_page_written;
static inline void page_data_written(const struct page *page)
{
	if (page == ZERO_PAGE(0))
		__atomic_store_n(&empty_zero_page_written, true, __ATOMIC_RELAXED);
}

/* PageAnon(): a page of private anonymous memory or a COW copy. Linux's page->mapping
 * of such a page is its anon_vma (with PAGE_MAPPING_ANON), never NULL; the model's is
 * NULL, and the ZERO_PAGE and a page taken out of its page cache, whose mapping is NULL
 * in Linux too, are no anonymous pages. page_has_mapping(): whether Linux's
 * page->mapping is set. */
static inline bool PageAnon(const struct page *page)
{
	return !page->mapping && !page->removed && page != ZERO_PAGE(0);
}
static inline bool page_has_mapping(const struct page *page)
{
	return page->mapping || PageAnon(page);
}

/* The shmem object behind a MAP_SHARED /dev/zero mapping, or one of the run's files
 * (ref/filemap.c). */
struct inode {
	unsigned long i_ino;          /* stable id: futex keys hash on it, never on addresses */
	int i_mmap_count;             /* VMAs that map it, and one for a file's open file */
	unsigned long npages;         /* i_size in pages: a fault beyond it is SIGBUS (a file's) */
	int file;                     /* 0: shmem; else fd N's file, whose pages are read in with */
	int16_t fill;                 /* its bytes (struct file_spec) */
	bool readonly;                /* opened without FMODE_WRITE */
	struct page *_Atomic pages[]; /* the page cache, by page offset */
};

struct vm_area_struct {
	unsigned long vm_start, vm_end; /* [start, end) */
	unsigned long vm_flags;
	unsigned long vm_pgoff; /* offset in the inode, in pages */
	struct inode *vm_file;  /* NULL for private anonymous memory */
};

#define _PAGE_PRESENT  0x1
#define _PAGE_RW       0x2
#define _PAGE_USER     0x4  /* readable from user mode; PROT_NONE PTEs lack it */
#define _PAGE_ANON     0x8  /* a private page; not present but with a page: swapped out */
#define _PAGE_ACCESSED 0x20 /* "young": set by every access through the MMU */

/* Both fields are atomic: Olof's check_user_page_readable() reads them with no lock,
 * as the MMU does; every write holds page_table_lock and clears flags before page.
 * Writes go through the helpers after struct mm_struct. */
typedef struct {
	struct page *_Atomic page;
	_Atomic unsigned flags;
} pte_t;

struct mm_struct {
	unsigned long id;
	struct rw_semaphore mmap_sem;
	spinlock_t page_table_lock;
	struct vm_area_struct mmap[MAX_MAP_COUNT]; /* sorted by address */
	int map_count;
	pte_t *pte; /* MMAP_PAGES entries for the window */
	/* which 4 MiB blocks of the window have a page table (i386: one per 4 MiB): set
	 * by the first fault in the block (pte_alloc_map), kept until exit (free_pgtables()
	 * at munmap is not modelled) */
	uint16_t pt_blocks;
	unsigned long next_ino;
	/* the run's open files, by fd - 1 (ref/filemap.c): as the program declares them,
	 * and their inodes, made on first use */
	struct file_spec file_spec[NR_FILES];
	struct inode *files[NR_FILES];
};

struct mm_struct *mm_alloc(void);
void mmput(struct mm_struct *mm); /* exit_mmap: tear everything down */
/* What the address space holds at the end of a run, as runs that differ only in the
 * order of independent steps share it (snafu explore --check-reduction): the VMAs, and
 * for each mapped page its PTE (less the young bit, which the MMU's walks set in any
 * order), which page it maps (the ZERO_PAGE, a page-cache page by its file or shmem
 * inode and offset, an anonymous page by the first address that maps it), its count and
 * a hash of its data; the ZERO_PAGE's data. */
uint64_t mm_state_digest(const struct mm_struct *mm);

/* PTE writes, each through the helper 2.6.11 names (include/asm-i386/pgtable-2level.h,
 * pgtable.h, include/asm-generic/pgtable.h), which asserts page_table_lock. The MMU and
 * check_user_page_readable() read PTEs with no lock and the fields are atomics, so
 * ThreadSanitizer cannot see a writer that forgot the lock: only the assertion can.
 * Linux's are macros, no frame of their own, so a finding names the caller (set_pte()
 * in do_no_page(): lock-assert--page_table_lock--do_no_page). mm is the model's: the
 * lock to assert. Each asserts before its arguments are evaluated: a finding ends the
 * run, and must not leak the page a caller allocates in them (do_wp_page()). */
static inline void pte_assert_locked(struct mm_struct *mm, const char *caller)
{
	lock_assert_held(&mm->page_table_lock, mm->page_table_lock.name, &mm->page_table_lock,
			 false, caller);
	/* for snafu explore: a page_table_lock section without it only read the page
	 * tables and took page references, which commute */
	sim_touch(SIM_TOUCH_PTE);
}

/* The stores themselves, asserting nothing: only the macros below call them, and
 * mmput(), where no task is left. */
static inline void __set_pte(pte_t *ptep, struct page *page, unsigned flags)
{
	ptep->page = page;
	ptep->flags = flags;
}
static inline void __pte_clear(pte_t *ptep)
{
	ptep->flags = 0;
	ptep->page = NULL;
}
static inline void __ptep_set_access_flags(pte_t *ptep, unsigned bits)
{
	atomic_fetch_or(&ptep->flags, bits);
}
static inline int __ptep_clear_flush_young(pte_t *ptep)
{
	return (atomic_fetch_and(&ptep->flags, ~(unsigned)_PAGE_ACCESSED) & _PAGE_ACCESSED) != 0;
}

/* set_pte(): the page, then the flags: a lockless reader that sees _PAGE_PRESENT finds
 * the page. Also 2.6.11's ptep_establish() (do_wp_page()'s break_cow()): set_pte() and
 * a TLB flush, and the model has no TLB. */
#define set_pte(mm, ptep, page, flags) \
	(pte_assert_locked((mm), KFUNC), __set_pte((ptep), (page), (flags)))
/* pte_clear() (ptep_get_and_clear() in zap_pte_range()): the flags, then the page. */
#define pte_clear(mm, ptep) (pte_assert_locked((mm), KFUNC), __pte_clear(ptep))
/* ptep_set_access_flags() (handle_pte_fault(), do_wp_page()'s reuse): 2.6.11 passes the
 * old entry made young or writable; the model passes the bits to add, set atomically,
 * as the MMU may set _PAGE_ACCESSED meanwhile. */
#define ptep_set_access_flags(mm, ptep, bits) \
	(pte_assert_locked((mm), KFUNC), __ptep_set_access_flags((ptep), (bits)))
/* ptep_clear_flush_young() (page_referenced_one(), try_to_unmap_one()): clears
 * _PAGE_ACCESSED atomically (test_and_clear_bit()); whether it was set. */
#define ptep_clear_flush_young(mm, ptep) \
	(pte_assert_locked((mm), KFUNC), __ptep_clear_flush_young(ptep))

/* Changes to the VMA list (mm->mmap[], map_count) and to a linked VMA's fields, each
 * through a helper (ref/mmap.c) that asserts mmap_sem held for write (2.6.11 mm/mmap.c:
 * "The caller must hold down_write(current->mm->mmap_sem)"); as for the PTEs, a finding
 * names the caller. exit_mmap() (mmput()) takes no mmap_sem: no task is left. */
/* __vma_link() (by vma_link() and __insert_vm_struct()): a copy of vma, placed by its
 * address; returns it. The caller checked map_count. */
struct vm_area_struct *__vma_link_from(struct mm_struct *mm, const struct vm_area_struct *vma,
				       const char *caller);
#define __vma_link(mm, vma) __vma_link_from((mm), (vma), KFUNC)
/* vma_adjust(): vma's new range and offset, then insert (if any) linked. vma is stale
 * after an insert (the array moves). */
void vma_adjust_from(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long pgoff, const struct vm_area_struct *insert,
		     const char *caller);
#define vma_adjust(mm, vma, start, end, pgoff, insert) \
	vma_adjust_from((mm), (vma), (start), (end), (pgoff), (insert), KFUNC)
/* detach_vmas_to_be_unmapped(): off the list goes every VMA inside [start, end) (the
 * caller split at both ends), its inode reference dropped. */
void detach_vmas_to_be_unmapped_from(struct mm_struct *mm, unsigned long start, unsigned long end,
				     const char *caller);
#define detach_vmas_to_be_unmapped(mm, start, end) \
	detach_vmas_to_be_unmapped_from((mm), (start), (end), KFUNC)
/* vma->vm_flags = flags (mprotect_fixup(), mlock_fixup(); 2.6.11 assigns it in place,
 * the helper's name is Linux 6.3's, which asserts the same). */
void vm_flags_reset_from(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long flags,
			 const char *caller);
#define vm_flags_reset(mm, vma, flags) vm_flags_reset_from((mm), (vma), (flags), KFUNC)

/* mm/mmap.c */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
struct vm_area_struct *find_extend_vma(struct mm_struct *mm, unsigned long addr);
long do_mmap_pgoff(struct mm_struct *mm, struct inode *file, unsigned long len, unsigned long prot,
		   unsigned long flags);
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len);
long sys_mmap2(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags,
	       long fd, unsigned long pgoff);
/* ref/filemap.c: files_open() the n files a program declares, as fd 1 to n, before the
 * run; fget() of the run's file fd (NULL: no such file); filemap_nopage() the page at
 * pgoff, read in on first use, with a reference for the caller; NULL beyond the end of
 * the file (NOPAGE_SIGBUS) */
void files_open(struct mm_struct *mm, const struct file_spec *spec, int n);
struct inode *fget(struct mm_struct *mm, long fd);
struct page *filemap_nopage(struct inode *inode, unsigned long pgoff, int *type);
void files_put(struct mm_struct *mm); /* the run's end: the files go */
/* ref/memory.c, for ref/filemap.c */
struct page *alloc_zeroed_page(void);
struct page *find_or_read_page(struct inode *inode, unsigned long pgoff, int fill, bool *read);
long sys_munmap(unsigned long addr, unsigned long len);
unsigned long calc_vm_prot_bits(unsigned long prot);
int split_at(struct mm_struct *mm, unsigned long addr); /* split_vma() at addr, if inside */

/* mm/memory.c */
pte_t *pte_offset(struct mm_struct *mm, unsigned long addr); /* NULL outside the window */
/* What a fault returns (include/linux/mm.h, 2.6.11's values). VM_FAULT_WRITE is
 * 2.6.13's ("Special case for get_user_pages"): do_wp_page() broke COW, or found it
 * need not; only kernels whose mm_paths say so set it, and only __handle_mm_fault()'s
 * callers see it (handle_mm_fault() masks it, as 2.6.13's inline wrapper does). */
#define VM_FAULT_OOM    (-1)
#define VM_FAULT_SIGBUS 0
#define VM_FAULT_MINOR  1
#define VM_FAULT_MAJOR  2
#define VM_FAULT_WRITE  0x10
int __handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		      bool write);
int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		    bool write);
/* the caller holds page_table_lock (and tests/test_assert.c calls them without it);
 * returns with it held, though a path in it may drop and retake it */
int handle_pte_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		     bool write);
/* Page references (include/linux/mm.h, mm/swap.c): no-ops on the ZERO_PAGE; the last
 * put frees a page. */
void get_page(struct page *page);
void put_page(struct page *page);
#define page_cache_get(page)     get_page(page)
#define page_cache_release(page) put_page(page)
int page_count(const struct page *page);
void zap_pte_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void zap_page_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void change_protection(struct mm_struct *mm, unsigned long start, unsigned long end,
		       unsigned long vm_flags);
int check_user_page_readable(struct mm_struct *mm, unsigned long addr);
/* get_user_pages(): the kernel's release's (struct mm_paths, ref/kernels.h); the caller
 * holds mmap_sem. pages[]: a reference to each page (put_page() it); vmas[]: its VMA. */
int get_user_pages(struct task_struct *tsk, struct mm_struct *mm, unsigned long start, int len,
		   int write, int force, struct page **pages, struct vm_area_struct **vmas);
/* get_user_pages_fast() (arch/x86/mm/gup.c, 2.6.27 on; ref/memory-2.6.28.c): the caller
 * holds no mmap_sem; the page table walk takes none, falling back to get_user_pages()
 * under it. nr_pages is 1 in the model (its only caller is get_futex_key()). */
int get_user_pages_fast(unsigned long start, int nr_pages, int write, struct page **pages);
/* for the releases' get_user_pages() (ref/memory-RELEASE.c): follow_page() (the page
 * mapped at addr if its PTE allows a write, or any present one; marks it accessed; the
 * caller holds page_table_lock) and untouched_anonymous_page() */
struct page *follow_page(struct mm_struct *mm, unsigned long addr, int write);
/* The page a user access at addr through vma finds without a fault: the PTE's
 * (present, or swapped out and kept), else a file VMA's page-cache page; NULL: none yet
 * (it reads as zeros). No lock: for the oracles. */
struct page *page_seen_at(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr);
int untouched_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr);
int make_pages_present(unsigned long addr, unsigned long end);
unsigned pte_flags_for(unsigned long vm_flags); /* vm_page_prot: protection_map[] */
void mark_page_accessed(struct page *page);
void vma_put_file(struct vm_area_struct *vma);

/* mm/rmap.c and mm/vmscan.c: kswapd's side of page reclaim */
int page_referenced(struct mm_struct *mm, unsigned long address);
int try_to_unmap_one(struct mm_struct *mm, unsigned long address);
int shrink_page(struct mm_struct *mm, unsigned long address); /* one shrink_list() pass */
#define SWAP_SUCCESS  0
#define SWAP_AGAIN    1
#define SWAP_FAIL     2
#define PAGE_ACTIVATE 3 /* shrink_page(): referenced, so activated and left mapped */

/* mm/mlock.c and mm/mprotect.c */
long sys_mlock(unsigned long start, unsigned long len);
long sys_mprotect(unsigned long start, unsigned long len, unsigned long prot);

/* mm/madvise.c and mm/mincore.c */
#define MADV_DONTNEED 4
long sys_madvise(unsigned long start, unsigned long len_in, int behavior);
long sys_mincore(unsigned long start, unsigned long len, unsigned long vec);
struct vm_area_struct *vma_next(struct mm_struct *mm, struct vm_area_struct *vma);

/* arch/i386/mm/fault.c */
#define PF_PROT  0x1 /* the PTE was present: a protection fault */
#define PF_WRITE 0x2
#define PF_USER  0x4
enum fault_result { FAULT_HANDLED, FAULT_FIXUP, FAULT_SIGSEGV, FAULT_SIGBUS };
enum fault_result do_page_fault(unsigned long address, unsigned long error_code);

#endif
