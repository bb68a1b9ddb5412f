/* mm/filemap.c, 2.6.11, for the run's files: filemap_nopage(), the ->nopage() of a file
 * mapping, and the files themselves (fs/open.c's fget() of an fd the program opened
 * before it started).
 *
 * Every run has NR_FILES files of FILE_PAGES pages, open from the start as fd 1 to
 * NR_FILES: 1 and 2 for reading and writing (O_RDWR: FMODE_READ | FMODE_WRITE), the last
 * for reading only (O_RDONLY, as a program's text or a library is). Byte k of page i of
 * file N holds file_byte(N, i) whatever k: a page read in shows which file and page it
 * came from. Simplified: the page cache is the disk (a page-cache page is never written
 * back or evicted: kswapd only unmaps it), no readahead, no truncate, no i_size change,
 * and a page is up to date as soon as it is in the cache (no lock_page() wait).
 */
#include "mm.h"

#include <stdlib.h>

/* what page i of file n holds on disk */
static int file_byte(int n, unsigned long i)
{
	return 0x10 * n + (int)i;
}

struct inode *fget(struct mm_struct *mm, long fd)
{
	if (fd < 1 || fd > NR_FILES)
		return NULL;
	struct inode **f = &mm->files[fd - 1];
	if (!*f) { /* opened before the program started: made on first use */
		*f = calloc(1, sizeof(**f) + FILE_PAGES * sizeof((*f)->pages[0]));
		if (!*f)
			abort();
		(*f)->i_ino = 1000 + (unsigned long)fd; /* apart from shmem's, stable */
		(*f)->i_mmap_count = 1;                 /* the open file's reference */
		(*f)->npages = FILE_PAGES;
		(*f)->file = (int)fd;
		(*f)->readonly = fd == NR_FILES;
	}
	return *f;
}

/* filemap_nopage(): beyond i_size NULL ("outside_data_content": NOPAGE_SIGBUS, as the
 * mapping is not shared with the kernel's own); else the page-cache page, read in on a
 * miss (*TYPE VM_FAULT_MAJOR, as find_get_page() missing makes it) and marked accessed,
 * with the caller's reference. No page_table_lock: do_no_page() dropped it. */
struct page *filemap_nopage(struct inode *inode, unsigned long pgoff, int *type)
{
	kframe(); /* mm/filemap.c, filemap_nopage() */
	bool read;

	if (pgoff >= inode->npages)
		return NULL;
	struct page *page = find_or_read_page(inode, pgoff, file_byte(inode->file, pgoff), &read);
	*type = read ? VM_FAULT_MAJOR : VM_FAULT_MINOR;
	return page;
}

/* The run is over and its VMAs are gone (mmput()): each file's inode goes; its pages
 * are the live pages mmput() takes back. */
void files_put(struct mm_struct *mm)
{
	for (int i = 0; i < NR_FILES; i++) {
		free(mm->files[i]);
		mm->files[i] = NULL;
	}
}
