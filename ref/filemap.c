/* mm/filemap.c, 2.6.11, for the run's files: filemap_nopage(), the ->nopage() of a file
 * mapping, and the files themselves (fs/open.c's fget() of an fd the program opened
 * before it started).
 *
 * A program declares up to NR_FILES files (prog/text.c, `file NAME pages=N fill=B ro`),
 * open from the start as fd 1 up: read-write (O_RDWR: FMODE_READ | FMODE_WRITE), or
 * read-only (O_RDONLY, as a program's text or a library is). Every byte of a file is its
 * fill, or by default page i of fd N holds 0x10 * N + i: a page read in shows which file
 * and page it came from. Simplified: the page cache is the disk (a page-cache page is
 * never written back or evicted: kswapd only unmaps it), no readahead, no truncate, no
 * i_size change, and a page is up to date as soon as it is in the cache (no lock_page()
 * wait).
 */
#include "mm.h"

#include <stdlib.h>
#include <string.h>

int file_spec_byte(const struct file_spec *f, int fd, unsigned long pgoff)
{
	return f->fill == FILE_PATTERN ? (0x10 * fd + (int)pgoff) & 0xff : f->fill;
}

void files_open(struct mm_struct *mm, const struct file_spec *spec, int n)
{
	memset(mm->file_spec, 0, sizeof(mm->file_spec));
	for (int i = 0; i < n && i < NR_FILES; i++)
		mm->file_spec[i] = spec[i];
}

struct inode *fget(struct mm_struct *mm, long fd)
{
	if (fd < 1 || fd > NR_FILES || !mm->file_spec[fd - 1].pages)
		return NULL;
	const struct file_spec *spec = &mm->file_spec[fd - 1];
	struct inode **f = &mm->files[fd - 1];
	if (!*f) { /* opened before the program started: made on first use */
		*f = calloc(1, sizeof(**f) + spec->pages * sizeof((*f)->pages[0]));
		if (!*f)
			abort();
		(*f)->i_ino = 1000 + (unsigned long)fd; /* apart from shmem's, stable */
		(*f)->i_mmap_count = 1;                 /* the open file's reference */
		(*f)->npages = spec->pages;
		(*f)->file = (int)fd;
		(*f)->fill = spec->fill;
		(*f)->readonly = spec->readonly;
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
	struct file_spec spec = {.fill = inode->fill};
	struct page *page =
	    find_or_read_page(inode, pgoff, file_spec_byte(&spec, inode->file, pgoff), &read);
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
