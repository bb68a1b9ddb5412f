/* mm/memory.c, 2.6.11: page tables, the fault paths (handle_mm_fault, do_anonymous_page,
 * do_wp_page, do_swap_page, shmem's do_no_page), get_user_pages, zapping, and protection
 * changes (change_protection is mm/mprotect.c's). Every PTE change happens under
 * mm->page_table_lock, as in 2.6.11, through the helpers in ref/mm.h that assert it;
 * mark_page_accessed is mm/swap.c's. */
#include "mm.h"

#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(addr, size)   ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

static pte_t pte_table[MMAP_PAGES]; /* one mm at a time; kept clean by exit_mmap */
static struct mm_struct the_mm;

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = &the_mm;

	mm->id = 1;
	init_rwsem(&mm->mmap_sem, "&mm->mmap_sem");
	mm->mmap_sem.sets_pf_mmap_sem = true;
	spin_lock_init(&mm->page_table_lock, "&mm->page_table_lock");
	mm->map_count = 0;
	mm->pte = pte_table;
	mm->pt_blocks = 0;
	mm->next_ino = 1;
	return mm;
}

pte_t *pte_offset(struct mm_struct *mm, unsigned long addr)
{
	if (addr < TASK_UNMAPPED_BASE || addr >= TASK_UNMAPPED_BASE + MMAP_WINDOW)
		return NULL;
	return &mm->pte[(addr - TASK_UNMAPPED_BASE) >> PAGE_SHIFT];
}

/* protection_map[] (mm/mmap.c, i386's PAGE_* in include/asm-i386/pgtable.h): a shared
 * writable mapping's PTEs are writable (PAGE_SHARED); a private one's never are
 * (PAGE_COPY, PAGE_READONLY): its write access comes from a write fault (maybe_mkwrite).
 * A new PTE is young (_PAGE_ACCESSED is in every PAGE_*). PROT_NONE: present for the
 * kernel, not for the user. */
unsigned pte_flags_for(unsigned long vm_flags)
{
	unsigned f = _PAGE_PRESENT | _PAGE_ACCESSED;

	if (vm_flags & (VM_READ | VM_WRITE | VM_EXEC))
		f |= _PAGE_USER;
	if ((vm_flags & VM_WRITE) && (vm_flags & VM_SHARED))
		f |= _PAGE_RW;
	return f;
}

static unsigned maybe_mkwrite(unsigned flags, struct vm_area_struct *vma)
{
	return vma->vm_flags & VM_WRITE ? flags | _PAGE_RW : flags;
}

struct page empty_zero_page;

_Static_assert((MMAP_WINDOW >> PT_SHIFT) <= 16, "mm->pt_blocks has a bit per page table");

/* The bit of mm->pt_blocks for the page table that maps addr. */
static uint16_t pt_block(unsigned long addr)
{
	return (uint16_t)(1u << ((addr - TASK_UNMAPPED_BASE) >> PT_SHIFT));
}

/* mm/swap.c. Without LRU lists, a second call does not activate: it stays referenced. */
void mark_page_accessed(struct page *page)
{
	if (page != ZERO_PAGE(0))
		page->referenced = true;
}

/* Free pages are kept for reuse (the fuzzer frees and allocates thousands a second)
 * and poisoned meanwhile, so ASan still reports any use of a freed page. */
static struct page **page_pool;
static size_t pool_len, pool_cap;

static struct page *alloc_zeroed_page(void)
{
	struct page *p;

	if (pool_len) {
		p = page_pool[--pool_len];
		ASAN_UNPOISON_MEMORY_REGION(p, sizeof(*p));
		memset(p, 0, sizeof(*p));
		return p;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	return p;
}

static void free_page(struct page *p)
{
	if (pool_len == pool_cap) {
		pool_cap = pool_cap ? 2 * pool_cap : 1024;
		page_pool = realloc(page_pool, pool_cap * sizeof(*page_pool));
		if (!page_pool)
			abort();
	}
	ASAN_POISON_MEMORY_REGION(p, sizeof(*p));
	page_pool[pool_len++] = p;
}

/* shmem_getpage: the page at pgoff of a shmem inode, allocated on first use. */
static struct page *shmem_getpage(struct inode *inode, unsigned long pgoff)
{
	if (!inode->pages[pgoff])
		inode->pages[pgoff] = alloc_zeroed_page();
	return inode->pages[pgoff];
}

/* do_anonymous_page: a read maps the ZERO_PAGE read-only; a write gets a zeroed page of
 * its own, writable where the VMA is, referenced (SetPageReferenced). Each of the fault
 * paths below sets the PTE under page_table_lock (2.6.11 mm/memory.c: "We hold the mm
 * semaphore and the page_table_lock on entry", retaken after an allocation). */
static void do_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte,
			      bool write)
{
	kframe(); /* mm/memory.c, do_anonymous_page() */
	if (!write) {
		set_pte(mm, pte, ZERO_PAGE(0),
			pte_flags_for(vma->vm_flags) & ~(unsigned)_PAGE_RW); /* wrprotect */
		return;
	}
	set_pte(mm, pte, alloc_zeroed_page(),
		maybe_mkwrite(pte_flags_for(vma->vm_flags), vma) | _PAGE_ANON);
	pte->page->referenced = true;
}

/* do_wp_page: a write to a present, read-only private page. The ZERO_PAGE is copied
 * into a new zeroed page; any other page is this mm's alone (no fork), so
 * can_share_swap_page() lets the task reuse it: the PTE just becomes writable. */
static void do_wp_page(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte)
{
	kframe(); /* mm/memory.c, do_wp_page() */
	if (pte->page == ZERO_PAGE(0)) {
		/* break_cow(): ptep_establish(), set_pte() here */
		set_pte(mm, pte, alloc_zeroed_page(),
			maybe_mkwrite(pte_flags_for(vma->vm_flags), vma) | _PAGE_ANON);
		return;
	}
	ptep_set_access_flags(mm, pte, maybe_mkwrite(_PAGE_ACCESSED, vma));
}

/* do_swap_page: the page comes back (the model keeps it in the PTE), accessed, mapped
 * read-only unless this is a write (exclusive in the model, so made writable at once). */
static void do_swap_page(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte, bool write)
{
	kframe(); /* mm/memory.c, do_swap_page() */
	unsigned flags = pte_flags_for(vma->vm_flags) | _PAGE_ANON;

	mark_page_accessed(pte->page);
	if (write)
		flags = maybe_mkwrite(flags, vma);
	set_pte(mm, pte, pte->page, flags);
}

/* do_no_page -> shmem_nopage: the page cache's page. */
static void do_no_page(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		       pte_t *pte)
{
	kframe(); /* mm/memory.c, do_no_page() */
	struct page *page =
	    shmem_getpage(vma->vm_file, ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff);

	mark_page_accessed(page);
	set_pte(mm, pte, page, pte_flags_for(vma->vm_flags));
}

/* handle_pte_fault, 2.6.11: a missing PTE is a new page (shmem's do_no_page, or
 * do_anonymous_page), a swapped one do_swap_page, a write to a present read-only one
 * do_wp_page; anything else only makes the PTE young. Entered with page_table_lock held
 * (2.6.11's releases it; this returns with it held). */
void handle_pte_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		      bool write)
{
	kframe(); /* mm/memory.c, handle_pte_fault() */
	pte_t *pte = pte_offset(mm, addr);

	if (!(pte->flags & _PAGE_PRESENT)) {
		if (vma->vm_file)
			do_no_page(mm, vma, addr, pte);
		else if (pte->page)
			do_swap_page(mm, vma, pte, write);
		else
			do_anonymous_page(mm, vma, pte, write);
	} else if (write && !(pte->flags & _PAGE_RW)) {
		do_wp_page(mm, vma, pte);
	} else {
		/* for snafu explore: this fault changes nothing another fault or access
		 * could see but the young bit (a present PTE has its page table already) */
		sim_touch(SIM_TOUCH_YOUNG);
		ptep_set_access_flags(mm, pte, _PAGE_ACCESSED); /* pte_mkyoung */
	}
}

/* handle_mm_fault, 2.6.11: the page table (pte_alloc_map) and handle_pte_fault, under
 * page_table_lock. The caller checked the VMA's permissions (do_page_fault,
 * get_user_pages). */
int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		    bool write)
{
	kframe(); /* mm/memory.c, handle_mm_fault() */
	spin_lock(&mm->page_table_lock);
	mm->pt_blocks |= pt_block(addr); /* pte_alloc_map */
	handle_pte_fault(mm, vma, addr, write);
	spin_unlock(&mm->page_table_lock);
	return 0;
}

/* untouched_anonymous_page: anonymous memory with no page table under addr yet. */
static bool untouched_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma,
				     unsigned long addr)
{
	return !vma->vm_file && !(mm->pt_blocks & pt_block(addr));
}

/* __follow_page: the page mapped at addr, if the PTE allows the access (the user's read
 * for READ, a write for WRITE); marks it accessed. No lock of its own. */
static struct page *__follow_page(struct mm_struct *mm, unsigned long addr, bool read, bool write)
{
	pte_t *pte = pte_offset(mm, addr);

	if (!pte || !(pte->flags & _PAGE_PRESENT) || (write && !(pte->flags & _PAGE_RW)) ||
	    (read && !(pte->flags & _PAGE_USER)))
		return NULL;
	mark_page_accessed(pte->page);
	return pte->page;
}

static bool follow_page(struct mm_struct *mm, unsigned long addr, bool write)
{
	return __follow_page(mm, addr, false, write) != NULL;
}

/* get_user_pages, 2.6.11, without pages[] or vmas[] (make_pages_present's use): fault in
 * len pages from start with handle_mm_fault() directly, the caller holding mmap_sem.
 * Returns the pages done, or -EFAULT when the first is not accessible. */
int get_user_pages(struct mm_struct *mm, unsigned long start, int len, bool write)
{
	kframe();                                         /* mm/memory.c, get_user_pages() */
	unsigned long flags = write ? VM_WRITE : VM_READ; /* force = 0 */
	int i = 0;

	do {
		struct vm_area_struct *vma = find_extend_vma(mm, start);
		if (!vma || (vma->vm_flags & VM_IO) || !(flags & vma->vm_flags))
			return i ? i : -EFAULT;
		spin_lock(&mm->page_table_lock);
		do {
			while (!follow_page(mm, start, write)) {
				/* a read of anonymous memory nobody touched: ZERO_PAGE, no fault */
				if (!write && untouched_anonymous_page(mm, vma, start))
					break;
				spin_unlock(&mm->page_table_lock);
				handle_mm_fault(mm, vma, start, write);
				spin_lock(&mm->page_table_lock);
			}
			i++;
			start += PAGE_SIZE;
			len--;
		} while (len && start < vma->vm_end);
		spin_unlock(&mm->page_table_lock);
	} while (len);
	return i;
}

int make_pages_present(unsigned long addr, unsigned long end)
{
	kframe(); /* mm/memory.c, make_pages_present() */
	struct vm_area_struct *vma = find_vma(current->mm, addr);

	if (!vma)
		return -1;
	bool write = (vma->vm_flags & VM_WRITE) != 0;
	int len = (int)((end + PAGE_SIZE - 1) / PAGE_SIZE - addr / PAGE_SIZE);
	int ret = get_user_pages(current->mm, addr, len, write);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -1;
}

/* zap_pte_range: clear the PTEs of [start, end) and free private pages, swapped out or
 * not (shmem pages stay with the inode). Called under page_table_lock (2.6.11
 * mm/memory.c, unmap_vmas(): "Called under page_table_lock"). */
void zap_pte_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	kframe(); /* mm/memory.c, zap_pte_range() */
	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pte_t *pte = pte_offset(mm, a);
		if (!pte || !pte->page)
			continue;
		struct page *page = pte->page;
		bool anon = pte->flags & _PAGE_ANON;
		pte_clear(mm, pte);
		if (anon)
			free_page(page);
	}
}

/* zap_page_range: unmap_vmas() -> zap_pte_range() under page_table_lock. */
void zap_page_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	kframe(); /* mm/memory.c, zap_page_range() */
	spin_lock(&mm->page_table_lock);
	zap_pte_range(mm, start, end);
	spin_unlock(&mm->page_table_lock);
}

void change_protection(struct mm_struct *mm, unsigned long start, unsigned long end,
		       unsigned long vm_flags)
{
	kframe(); /* mm/mprotect.c, change_protection() */
	spin_lock(&mm->page_table_lock);
	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pte_t *pte = pte_offset(mm, a);
		if (!pte || !(pte->flags & _PAGE_PRESENT))
			continue;
		/* change_pte_range(), under the lock change_protection() took (2.6.11
		 * mm/mprotect.c): set_pte(pte_modify()), which keeps young */
		set_pte(mm, pte, pte->page,
			pte_flags_for(vm_flags) | (pte->flags & (_PAGE_ANON | _PAGE_ACCESSED)));
	}
	spin_unlock(&mm->page_table_lock);
}

/* As in 2.6.11 (__follow_page(mm, addr, 1, 0)), a bare page-table walk with no lock:
 * Olof's patch uses it to ask whether get_user() would fault. It marks the page
 * accessed, which page_referenced() counts, but leaves the PTE's young bit alone. */
int check_user_page_readable(struct mm_struct *mm, unsigned long addr)
{
	sched_point("check_user_page_readable");
	sim_touch(SIM_TOUCH_PAGES_RD); /* for snafu explore: a walk no event shows */
	return __follow_page(mm, addr, true, false) != NULL;
}

static void free_inode_if_unmapped(struct inode *inode)
{
	if (--inode->i_mmap_count > 0)
		return;
	for (unsigned long i = 0; i < inode->npages; i++)
		if (inode->pages[i])
			free_page(inode->pages[i]);
	free(inode);
}

/* exit_mmap without the locking: the run is over, every task is gone or abandoned, and
 * there is no current task to assert anything of, so __pte_clear() and a bare map_count
 * (2.6.11's exit_mmap() holds page_table_lock while it unmaps, and no mmap_sem: the mm
 * has no users left). */
void mmput(struct mm_struct *mm)
{
	for (int i = 0; i < mm->map_count; i++) {
		struct vm_area_struct *vma = &mm->mmap[i];
		for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE) {
			pte_t *pte = pte_offset(mm, a);
			if (pte->page && (pte->flags & _PAGE_ANON))
				free_page(pte->page);
			__pte_clear(pte);
		}
		if (vma->vm_file)
			free_inode_if_unmapped(vma->vm_file);
	}
	mm->map_count = 0;
}

/* Called by mmap.c when a VMA that maps an inode goes away. */
void vma_put_file(struct vm_area_struct *vma)
{
	if (vma->vm_file)
		free_inode_if_unmapped(vma->vm_file);
}
