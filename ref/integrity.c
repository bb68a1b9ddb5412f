/* The integrity oracle; see integrity.h. What it checks at each forced write, in order:
 *  - zero-page: the write went into the ZERO_PAGE, which every untouched anonymous page
 *    of every process reads (2.6.11 maps it only read-only: do_anonymous_page());
 *  - page-cache: the write went into a page of an inode's page cache through a mapping
 *    that does not share that inode (a private mapping: the write belongs in a copy);
 *  - lost-write: the page written is not the one the address maps now, so the task
 *    will never read what the write returned success for.
 * The report names the write (task, op, the call trace), the page, the VMA and the PTE.
 */
#include "integrity.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

static struct {
	bool found;
	char token[96], title[96], body[2048];
} integ;

void integrity_reset(void)
{
	integ.found = false;
}

#ifdef SNAFU_NATIVE
void integrity_forced_write(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			    struct page *page, int bytes)
{
	(void)mm, (void)vma, (void)addr, (void)page, (void)bytes;
}
#else
static const char *page_name(const struct page *page, char *buf, size_t len)
{
	if (page == ZERO_PAGE(0))
		snprintf(buf, len, "the ZERO_PAGE");
	else if (page->mapping && page->mapping->file)
		snprintf(buf, len, "a page-cache page of file %d, opened %s (inode %lu, count %d)",
			 page->mapping->file, page->mapping->readonly ? "read-only" : "read-write",
			 page->mapping->i_ino, page_count(page));
	else if (page->mapping)
		snprintf(buf, len, "a page-cache page of inode %lu (count %d)",
			 page->mapping->i_ino, page_count(page));
	else
		snprintf(buf, len, "an anonymous page (count %d)", page_count(page));
	return buf;
}

static const char *pte_name(const pte_t *pte, const struct page *written, char *buf, size_t len)
{
	char pg[96];
	unsigned f = pte ? pte->flags : 0;

	if (!pte || !pte->page) {
		snprintf(buf, len, "none");
		return buf;
	}
	snprintf(buf, len, "%s%s%s%s%s -> %s%s", f & _PAGE_PRESENT ? "present" : "not present",
		 f & _PAGE_RW ? ", writable" : ", read-only", f & _PAGE_USER ? ", user" : "",
		 f & _PAGE_ANON ? ", anon" : "", f & _PAGE_ACCESSED ? ", young" : "",
		 pte->page == written ? "the page written: " : "",
		 page_name(pte->page, pg, sizeof(pg)));
	return buf;
}

static void record(const char *kind, const char *what, struct mm_struct *mm,
		   struct vm_area_struct *vma, unsigned long addr, struct page *page, int bytes)
{
	struct task_struct *t = current;
	char pg[96], pt[192], trace[1024];
	size_t n = 0;

	if (integ.found)
		return;
	integ.found = true;
	snprintf(integ.token, sizeof(integ.token), "integrity--%s--access_process_vm", kind);
	snprintf(integ.title, sizeof(integ.title), "memory integrity: %s", what);
	call_trace_text(t, trace, sizeof(trace));
	n += (size_t)snprintf(integ.body + n, sizeof(integ.body) - n,
			      "%s (pid %d) wrote %d byte%s at 0x%lx with force (%s), into %s\n"
			      "  the VMA: 0x%lx-0x%lx, %s%s%s%s%s\n"
			      "  the PTE at 0x%lx now: %s\n",
			      t->comm, t->pid, bytes, bytes == 1 ? "" : "s", addr,
			      t->syscall ? t->syscall : "-", page_name(page, pg, sizeof(pg)),
			      vma->vm_start, vma->vm_end,
			      vma->vm_flags & VM_SHARED ? "shared" : "private",
			      vma->vm_flags & VM_READ ? ", VM_READ" : "",
			      vma->vm_flags & VM_WRITE ? ", VM_WRITE" : "",
			      vma->vm_flags & VM_MAYWRITE ? ", VM_MAYWRITE" : "",
			      !vma->vm_file        ? ", anonymous"
			      : vma->vm_file->file ? ", a file's"
						   : ", /dev/zero's",
			      addr, pte_name(pte_offset(mm, addr), page, pt, sizeof(pt)));
	if (n < sizeof(integ.body))
		snprintf(integ.body + n, sizeof(integ.body) - n, "%s", trace);
}

void integrity_forced_write(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr,
			    struct page *page, int bytes)
{
	if (page == ZERO_PAGE(addr))
		record("zero-page",
		       "a forced write reached the ZERO_PAGE, which every untouched "
		       "anonymous page reads",
		       mm, vma, addr, page, bytes);
	else if (page->mapping && (!(vma->vm_flags & VM_SHARED) || vma->vm_file != page->mapping))
		record("page-cache",
		       "a forced write through a private mapping reached the page cache", mm, vma,
		       addr, page, bytes);
	else if (page_seen_at(mm, vma, addr) != page)
		record("lost-write", "a forced write that returned success is not at its address",
		       mm, vma, addr, page, bytes);
}
#endif

bool integrity_judge(void)
{
	if (!integ.found)
		return false;
	finding_begin(integ.title, integ.token);
	finding_printf("%s", integ.body);
	return true;
}
