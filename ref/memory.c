/* mm/memory.c, 2.6.11: page tables, the fault paths (handle_mm_fault, do_anonymous_page,
 * do_wp_page, do_swap_page, shmem's do_no_page), zapping, and protection changes
 * (change_protection is mm/mprotect.c's). Every PTE change happens under
 * mm->page_table_lock, as in 2.6.11, through the helpers in ref/mm.h that assert it;
 * mark_page_accessed and the page references are mm/swap.c's and include/linux/mm.h's.
 * get_user_pages() is each release's own (ref/memory-RELEASE.c, struct mm_paths). */
#include "mm.h"
#include "kernels.h"

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
	memset(mm->file_spec, 0, sizeof(mm->file_spec)); /* no files until files_open() */
	/* Every run starts from a booted kernel, whose ZERO_PAGE holds zeros: a forced write
	 * an earlier run of this process put there (get_user_pages()' race before 2.6.13)
	 * must not reach this one, whose reads of it would then differ from a replay's. */
	if (empty_zero_page_written) {
		memset(empty_zero_page.data, 0, sizeof(empty_zero_page.data));
		empty_zero_page_written = false;
	}
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
bool empty_zero_page_written;

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
 * and poisoned meanwhile, so ASan still reports any use of a freed page. The live ones
 * are listed, so that mmput() takes back a page a task still held a reference to when
 * the run ended (a hung task's). Faults allocate without page_table_lock: the pool has
 * a lock of its own, raw, as the page allocator's zone lock is nothing the model's
 * schedules or reports show. */
static struct page **page_pool;
static size_t pool_len, pool_cap;
/* the live pages, linked through the pages themselves: a run allocates nothing for
 * them (an allocation inside a run reaches ASan's clock, which gdb's recorder cannot
 * record) */
static struct page live_pages = {.live_next = &live_pages, .live_prev = &live_pages};
static struct sim_spin pool_lock;

/* alloc_zeroed_user_highpage(): a page with a count of one, for the PTE (or the page
 * cache) the caller puts it in */
struct page *alloc_zeroed_page(void)
{
	struct page *p;

	sim_spin_lock(&pool_lock);
	if (pool_len) {
		p = page_pool[--pool_len];
		ASAN_UNPOISON_MEMORY_REGION(p, sizeof(*p));
		memset(p, 0, sizeof(*p));
	} else {
		p = calloc(1, sizeof(*p));
		if (!p)
			abort();
	}
	p->live_next = &live_pages;
	p->live_prev = live_pages.live_prev;
	p->live_prev->live_next = p;
	live_pages.live_prev = p;
	p->_count = 1;
	sim_spin_unlock(&pool_lock);
	return p;
}

/* __free_page(), called with pool_lock held */
static void free_page_locked(struct page *p)
{
	p->live_prev->live_next = p->live_next;
	p->live_next->live_prev = p->live_prev;
	if (pool_len == pool_cap) {
		pool_cap = pool_cap ? 2 * pool_cap : 1024;
		page_pool = realloc(page_pool, pool_cap * sizeof(*page_pool));
		if (!page_pool)
			abort();
	}
	ASAN_POISON_MEMORY_REGION(p, sizeof(*p));
	page_pool[pool_len++] = p;
}

void get_page(struct page *page)
{
	if (page != ZERO_PAGE(0))
		page->_count++;
}

/* put_page(): the last reference frees it (__page_cache_release()) */
void put_page(struct page *page)
{
	if (page == ZERO_PAGE(0) || --page->_count > 0)
		return;
	sim_spin_lock(&pool_lock);
	free_page_locked(page);
	sim_spin_unlock(&pool_lock);
}

int page_count(const struct page *page)
{
	return page->_count;
}

/* find_get_page(), and on a miss a page read in (for a file, page_cache_read() and
 * ->readpage(): the model's disk is the page cache, so the file's bytes are FILL) or
 * allocated (shmem, zeroed), added to the page cache, with a reference for the caller.
 * Called without page_table_lock: two faults may add at once, and the one that loses
 * gives its page back (2.6.11 finds the page added meanwhile under the mapping's
 * tree_lock, shmem under info->lock; here a compare-and-swap stands for either). *READ:
 * this call added it (a major fault, for a file). */
struct page *find_or_read_page(struct inode *inode, unsigned long pgoff, int fill, bool *read)
{
	struct page *page = inode->pages[pgoff], *none = NULL;

	/* for snafu explore: when a fault adds the page decides what mincore() sees
	 * (search/footprint.c, RB_PCACHE); which fault adds it, nothing: each gets it */
	sim_touch(SIM_TOUCH_PCACHE);
	*read = false;
	if (!page) {
		page = alloc_zeroed_page(); /* the page cache's reference */
		if (fill)                   /* (zeroed already) */
			memset(page->data, fill, PAGE_SIZE);
		page->mapping = inode;
		page->index = pgoff;
		if (!atomic_compare_exchange_strong(&inode->pages[pgoff], &none, page)) {
			put_page(page);
			page = none;
		} else
			*read = true;
	}
	get_page(page);
	return page;
}

static struct page *shmem_getpage(struct inode *inode, unsigned long pgoff)
{
	bool read;

	return find_or_read_page(inode, pgoff, 0, &read);
}

struct page *page_seen_at(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	pte_t *pte = pte_offset(mm, addr);

	if (pte && pte->page)
		return pte->page;
	if (vma->vm_file) {
		unsigned long idx = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
		sim_touch(SIM_TOUCH_PCACHE_RD);
		if (idx < vma->vm_file->npages)
			return vma->vm_file->pages[idx];
	}
	return NULL;
}

/* pte_same(): the entry is still the one a fault saw before it dropped the lock */
struct pte_snapshot {
	struct page *page;
	unsigned flags;
};
static struct pte_snapshot pte_read(const pte_t *pte)
{
	return (struct pte_snapshot){pte->page, pte->flags};
}
static bool pte_same(const pte_t *pte, struct pte_snapshot old)
{
	return pte->page == old.page && pte->flags == old.flags;
}
static bool pte_none(const pte_t *pte)
{
	return !pte->page && !pte->flags;
}

/* do_anonymous_page: a read maps the ZERO_PAGE read-only; a write gets a zeroed page of
 * its own, writable where the VMA is, referenced (SetPageReferenced). From 2.6.24 a
 * read gets one too, made as a write's is ("Allocate our own private page."; Nick
 * Piggin's 557ed1fa2620 "remove ZERO_PAGE"; a13ea5b75964 brought it back in 2.6.32):
 * the kernels whose mm_paths say anon_read_fault_allocates. Each of the fault
 * paths below is entered with page_table_lock held (2.6.11 mm/memory.c: "We hold the mm
 * semaphore and the page_table_lock on entry") and sets the PTE under it. A write drops
 * it to allocate, and backs out if another fault set the PTE meanwhile: VM_FAULT_MINOR
 * all the same, so its caller cannot tell that it did nothing. */
static int do_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte,
			     bool write)
{
	kframe(); /* mm/memory.c, do_anonymous_page() */
	if (!write && !kcfg->mm->anon_read_fault_allocates) {
		set_pte(mm, pte, ZERO_PAGE(0),
			pte_flags_for(vma->vm_flags) & ~(unsigned)_PAGE_RW); /* wrprotect */
		return VM_FAULT_MINOR;
	}
	spin_unlock(&mm->page_table_lock);
	struct page *page = alloc_zeroed_page();
	spin_lock(&mm->page_table_lock);
	if (!pte_none(pte)) {
		page_cache_release(page);
		return VM_FAULT_MINOR;
	}
	set_pte(mm, pte, page, maybe_mkwrite(pte_flags_for(vma->vm_flags), vma) | _PAGE_ANON);
	page->referenced = true;
	return VM_FAULT_MINOR;
}

/* page_mapcount(): the present PTEs that map page (the model has one mm). */
static int page_mapcount(struct mm_struct *mm, const struct page *page)
{
	int n = 0;

	for (int i = 0; i < mm->map_count; i++)
		for (unsigned long a = mm->mmap[i].vm_start; a < mm->mmap[i].vm_end;
		     a += PAGE_SIZE) {
			const pte_t *pte = pte_offset(mm, a);
			n += pte->page == page && (pte->flags & _PAGE_PRESENT);
		}
	return n;
}

/* can_share_swap_page() (mm/swapfile.c): the page is the mapping's alone; never the
 * ZERO_PAGE (PageReserved). 2.6.11 asks for a count of one (the model has no swap cache,
 * whose reference 2.6.11 allows for): a reference get_user_pages() holds makes the page
 * look shared. From c475a8ab625d on (struct mm_paths, cow_counts_mappings) one PTE
 * mapping the page is enough (page_mapcount() + page_swapcount() == 1; the model's
 * swapped page stands for its entry, so a present one has no swap references left). */
static bool can_share_swap_page(struct mm_struct *mm, const struct page *page)
{
	if (page == ZERO_PAGE(0))
		return false;
	if (kcfg->mm->cow_counts_mappings)
		return page_mapcount(mm, page) == 1;
	return page_count(page) == 1;
}

/* do_wp_page: a write to a present, read-only page. Reused when can_share_swap_page()
 * says the page is the mapping's alone (the lock_page() it takes first never fails
 * here: nothing else locks pages), the PTE made writable where the VMA is. Otherwise
 * copied (the ZERO_PAGE into a zeroed page): a reference to the old page, page_table_lock
 * dropped for the allocation and the copy, and the copy mapped only if the PTE is still
 * the one it copied (pte_same()); VM_FAULT_MINOR whichever happened. 2.6.13 (kernels
 * whose mm_paths set vm_fault_write: f33ea7f404e5 "fix get_user_pages bug") reuses only
 * an anonymous page (PageAnon) and adds VM_FAULT_WRITE when the PTE it leaves maps a
 * page of the task's own. */
static int do_wp_page(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte)
{
	kframe(); /* mm/memory.c, do_wp_page() */
	struct page *old_page = pte->page, *new_page;
	struct pte_snapshot orig = pte_read(pte);
	int write_bit = kcfg->mm->vm_fault_write ? VM_FAULT_WRITE : 0, ret = VM_FAULT_MINOR;

	if ((!write_bit || !old_page->mapping) && can_share_swap_page(mm, old_page)) {
		ptep_set_access_flags(mm, pte, maybe_mkwrite(_PAGE_ACCESSED, vma));
		return VM_FAULT_MINOR | write_bit;
	}
	page_cache_get(old_page);
	spin_unlock(&mm->page_table_lock);
	new_page = alloc_zeroed_page();
	if (old_page != ZERO_PAGE(0)) {
		sim_hw_begin(); /* copy_user_highpage(): the page may be written meanwhile */
		memcpy(new_page->data, old_page->data, PAGE_SIZE);
		sim_hw_end();
	}
	spin_lock(&mm->page_table_lock);
	if (pte_same(pte, orig)) {
		/* break_cow(): ptep_establish(), set_pte() here */
		set_pte(mm, pte, new_page,
			maybe_mkwrite(pte_flags_for(vma->vm_flags), vma) | _PAGE_ANON);
		new_page = old_page; /* "Free the old page.." (its PTE's reference) */
		ret |= write_bit;
	}
	page_cache_release(new_page);
	page_cache_release(old_page);
	return ret;
}

/* do_swap_page: the page comes back (the model keeps it in the PTE), accessed, mapped
 * read-only unless this is a write (exclusive in the model, so made writable at once). */
static int do_swap_page(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte, bool write)
{
	kframe(); /* mm/memory.c, do_swap_page() */
	unsigned flags = pte_flags_for(vma->vm_flags) | _PAGE_ANON;

	mark_page_accessed(pte->page);
	if (write)
		flags = maybe_mkwrite(flags, vma);
	set_pte(mm, pte, pte->page, flags);
	return VM_FAULT_MINOR;
}

/* do_no_page -> ->nopage() (shmem_nopage(), or a file's filemap_nopage()): the page
 * cache's page, looked up with page_table_lock dropped. A write to a mapping without VM_SHARED
 * copies it there and then (the early COW: a private page of the task's). Relocked, it maps the
 * page only if the PTE is still none ("Only go through if we didn't race with anybody else...");
 * otherwise it gives the page back and returns what ->nopage() said, VM_FAULT_MINOR, as it would on
 * success. The PTE keeps the page's reference (page_add_file_rmap()). */
static int do_no_page(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		      pte_t *pte, bool write)
{
	kframe(); /* mm/memory.c, do_no_page() */
	unsigned anon = 0;
	unsigned long pgoff = ((addr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	int ret = VM_FAULT_MINOR; /* ->nopage()'s type */
	struct page *new_page;

	spin_unlock(&mm->page_table_lock);
	if (vma->vm_file->file) {
		new_page = filemap_nopage(vma->vm_file, pgoff, &ret);
		if (!new_page) { /* NOPAGE_SIGBUS: beyond the end of the file */
			spin_lock(&mm->page_table_lock);
			return VM_FAULT_SIGBUS;
		}
	} else
		new_page = shmem_getpage(vma->vm_file, pgoff);
	mark_page_accessed(new_page);
	if (write && !(vma->vm_flags & VM_SHARED)) {
		struct page *page = alloc_zeroed_page();
		sim_hw_begin(); /* copy_user_highpage() */
		memcpy(page->data, new_page->data, PAGE_SIZE);
		sim_hw_end();
		page_cache_release(new_page);
		new_page = page;
		anon = _PAGE_ANON;
	}
	spin_lock(&mm->page_table_lock);
	if (!pte_none(pte)) { /* "One of our sibling threads was faster, back out." */
		page_cache_release(new_page);
		return ret;
	}
	unsigned flags = pte_flags_for(vma->vm_flags) | anon;
	set_pte(mm, pte, new_page, write ? maybe_mkwrite(flags, vma) : flags);
	return ret;
}

/* handle_pte_fault, 2.6.11: a missing PTE is a new page (shmem's do_no_page, or
 * do_anonymous_page), a swapped one do_swap_page, a write to a present read-only one
 * do_wp_page; anything else only makes the PTE young. A swapped PTE goes to
 * do_swap_page() whatever the VMA ("if (pte_none(entry)) return do_no_page(...); ...
 * return do_swap_page(...)"): a shared VMA holds one too, a private copy a forced write
 * made there (do_wp_page()) that kswapd then swapped out. Entered with page_table_lock
 * held (2.6.11's releases it; this returns with it held). */
int handle_pte_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		     bool write)
{
	kframe(); /* mm/memory.c, handle_pte_fault() */
	pte_t *pte = pte_offset(mm, addr);

	if (!(pte->flags & _PAGE_PRESENT)) {
		if (pte->page)
			return do_swap_page(mm, vma, pte, write);
		if (vma->vm_file)
			return do_no_page(mm, vma, addr, pte, write);
		return do_anonymous_page(mm, vma, pte, write);
	}
	if (write && !(pte->flags & _PAGE_RW))
		return do_wp_page(mm, vma, pte);
	/* for snafu explore: this fault changes nothing another fault or access could see
	 * but the young bit (a present PTE has its page table already) */
	sim_touch(SIM_TOUCH_YOUNG);
	ptep_set_access_flags(mm, pte, _PAGE_ACCESSED); /* pte_mkyoung */
	return VM_FAULT_MINOR;
}

/* handle_mm_fault, 2.6.11: the page table (pte_alloc_map) and handle_pte_fault, under
 * page_table_lock. The caller checked the VMA's permissions (do_page_fault,
 * get_user_pages). 2.6.13 calls this __handle_mm_fault() and has handle_mm_fault() mask
 * VM_FAULT_WRITE for every caller but get_user_pages(); the frame keeps 2.6.11's name. */
int __handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		      bool write)
{
	kframe_as("handle_mm_fault"); /* mm/memory.c, handle_mm_fault() */
	spin_lock(&mm->page_table_lock);
	/* for snafu explore: a new page table changes what untouched_anonymous_page() says
	 * of every address it maps */
	if (!(mm->pt_blocks & pt_block(addr)))
		sim_touch(SIM_TOUCH_PTBL);
	mm->pt_blocks |= pt_block(addr); /* pte_alloc_map */
	int ret = handle_pte_fault(mm, vma, addr, write);
	spin_unlock(&mm->page_table_lock);
	return ret;
}

int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
		    bool write)
{
	return __handle_mm_fault(mm, vma, addr, write) & ~VM_FAULT_WRITE;
}

/* untouched_anonymous_page: anonymous memory with no page table under addr yet (2.6.11
 * also says no for a VMA with a nopage method: here, a file's). */
int untouched_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	sim_touch(SIM_TOUCH_PTBL_RD); /* for snafu explore */
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

struct page *follow_page(struct mm_struct *mm, unsigned long addr, int write)
{
	return __follow_page(mm, addr, false, write);
}

int get_user_pages(struct task_struct *tsk, struct mm_struct *mm, unsigned long start, int len,
		   int write, int force, struct page **pages, struct vm_area_struct **vmas)
{
	return kcfg->mm->get_user_pages(tsk, mm, start, len, write, force, pages, vmas);
}

int make_pages_present(unsigned long addr, unsigned long end)
{
	kframe(); /* mm/memory.c, make_pages_present() */
	struct vm_area_struct *vma = find_vma(current->mm, addr);

	if (!vma)
		return -1;
	bool write = (vma->vm_flags & VM_WRITE) != 0;
	int len = (int)((end + PAGE_SIZE - 1) / PAGE_SIZE - addr / PAGE_SIZE);
	int ret = get_user_pages(current, current->mm, addr, len, write, 0, NULL, NULL);
	if (ret < 0)
		return ret;
	return ret == len ? 0 : -1;
}

/* zap_pte_range: clear the PTEs of [start, end), each dropping its reference: a private
 * page goes, swapped out or not, unless get_user_pages() holds one too; a shmem page
 * stays with the inode. Called under page_table_lock (2.6.11 mm/memory.c, unmap_vmas():
 * "Called under page_table_lock"). */
void zap_pte_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	kframe(); /* mm/memory.c, zap_pte_range() */
	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pte_t *pte = pte_offset(mm, a);
		if (!pte || !pte->page)
			continue;
		struct page *page = pte->page;
		pte_clear(mm, pte);
		page_cache_release(page); /* tlb_remove_page() */
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

/* The inode's last VMA went (the model has no other opener): its page cache goes with
 * it, each page when its last reference does; a page someone still holds (a
 * get_user_pages() reference) is out of the page cache, its mapping NULL, as
 * truncate_inode_pages()' remove_from_page_cache() leaves it. */
static void free_inode_if_unmapped(struct inode *inode)
{
	if (--inode->i_mmap_count > 0)
		return;
	sim_touch(SIM_TOUCH_PCACHE); /* for snafu explore: the cache goes (RB_PCACHE) */
	for (unsigned long i = 0; i < inode->npages; i++) {
		struct page *page = inode->pages[i];
		if (page) {
			page->mapping = NULL;
			page->removed = true;
			page_cache_release(page);
		}
	}
	free(inode);
}

static uint64_t page_data_hash(const struct page *page)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < PAGE_SIZE; i += 8) {
		uint64_t w;
		memcpy(&w, page->data + i, 8);
		h = sim_hash_mix(h, w);
	}
	return h;
}

uint64_t mm_state_digest(const struct mm_struct *mm)
{
	uint64_t h = sim_hash_mix(0xcbf29ce484222325ULL, page_data_hash(&empty_zero_page));

	for (int i = 0; i < mm->map_count; i++) {
		const struct vm_area_struct *vma = &mm->mmap[i];
		h = sim_hash_mix(sim_hash_mix(sim_hash_mix(h, vma->vm_start), vma->vm_end),
				 vma->vm_flags);
		for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE) {
			const pte_t *pte = &mm->pte[(a - TASK_UNMAPPED_BASE) >> PAGE_SHIFT];
			const struct page *page = pte->page;
			h = sim_hash_mix(h, pte->flags & ~(unsigned)_PAGE_ACCESSED);
			if (!page)
				continue;
			uint64_t which = 1;  /* the ZERO_PAGE */
			if (page->mapping) { /* a file's by its number, shmem's by its inode */
				const struct inode *ino = page->mapping;
				uint64_t id = ino->file ? (uint64_t)ino->file : 1000 + ino->i_ino;
				which = id << 32 | page->index;
			} else if (page != ZERO_PAGE(a)) {
				which = a; /* the first address that maps it */
				for (int j = 0; j <= i && which == a; j++)
					for (unsigned long b = mm->mmap[j].vm_start;
					     b < mm->mmap[j].vm_end && b < a; b += PAGE_SIZE)
						if (mm->pte[(b - TASK_UNMAPPED_BASE) >> PAGE_SHIFT]
							.page == page) {
							which = b;
							break;
						}
			}
			h = sim_hash_mix(
			    sim_hash_mix(sim_hash_mix(h, which), (uint64_t)page_count(page)),
			    page_data_hash(page));
		}
	}
	return h;
}

/* exit_mmap without the locking: the run is over, every task is gone or abandoned, and
 * there is no current task to assert anything of, so __pte_clear() and a bare map_count
 * (2.6.11's exit_mmap() holds page_table_lock while it unmaps, and no mmap_sem: the mm
 * has no users left). A task that never finished may still hold page references: every
 * page still live goes back to the pool. */
void mmput(struct mm_struct *mm)
{
	for (int i = 0; i < mm->map_count; i++) {
		struct vm_area_struct *vma = &mm->mmap[i];
		for (unsigned long a = vma->vm_start; a < vma->vm_end; a += PAGE_SIZE)
			__pte_clear(pte_offset(mm, a));
		if (vma->vm_file && --vma->vm_file->i_mmap_count == 0)
			free(vma->vm_file);
	}
	mm->map_count = 0;
	files_put(mm);
	while (live_pages.live_next != &live_pages)
		free_page_locked(live_pages.live_next);
}

/* Called by mmap.c when a VMA that maps an inode goes away. */
void vma_put_file(struct vm_area_struct *vma)
{
	if (vma->vm_file)
		free_inode_if_unmapped(vma->vm_file);
}
