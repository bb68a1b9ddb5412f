/* Page reclaim, madvise(MADV_DONTNEED) and mincore (mm/rmap.c, mm/madvise.c, mm/mincore.c,
 * 2.6.11), and the switches of the kernels argued for in 2005 (REFERENCE.md "Timeline":
 * rwsem lock depth, reader-preferring rwsems, PF_MMAP_SEM, Jelinek's FUTEX_WAIT).
 *
 * Locking facts are checked with hand-written task bodies (a task lets the others run by
 * napping: the virtual clock fires a timer only when no task can run); what a user program
 * sees is checked with text programs on every listed kernel of kernels[], with what each
 * must do derived from its switches (struct kernel_config). A futex_wait with a
 * timeout reads a word back: -ETIMEDOUT means the word held the value, -EWOULDBLOCK that it
 * did not.
 */
#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/report.h"
#include "../ref/uaccess.h"

#include <string.h>

#define P    PAGE_SIZE
#define PRIV (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW   (PROT_READ | PROT_WRITE)

/* order, note() and nap(), find_event(), count_events(), CHECK_RET: tests/harness.h */
static unsigned long addr1, addr2; /* set up by task 1 for the others */

/* The kernels where a reader holding mmap_sem never queues behind a writer when it asks
 * again, whether by down_read() (lock depth, reader preference) or by faulting
 * (PF_MMAP_SEM, and both rwsem kernels through down_read_trylock()). */
static bool reenters(const struct kernel_config *k)
{
	return k->rwsem != RWSEM_FAIR || k->pf_mmap_sem;
}

static enum sim_result run(const struct kernel_config *k, int n, const task_fn *fns)
{
	order[0] = 0;
	kcfg = k;
	return run_tasks(n, fns, NULL, 0);
}

static void check_order(const char *kernel, const char *want)
{
	CHECK(!strcmp(order, want), "[%s] order\n  got:  %s\n  want: %s", kernel, order, want);
}

static void check_sem_free(const char *kernel)
{
	struct mm_struct *mm = harness_mm();

	CHECK(mm->mmap_sem.activity == 0 && list_empty(&mm->mmap_sem.wait_list),
	      "[%s] mmap_sem not free after the run (activity %d)", kernel, mm->mmap_sem.activity);
}

/* Run the task bodies on kernel k: they run to the end, in the order `want`, and leave
 * mmap_sem free. */
static void check_run(const struct kernel_config *k, int n, const task_fn *fns, const char *want)
{
	CHECK_EQ(run(k, n, fns), SIM_OK, k->name);
	check_order(k->name, want);
	check_sem_free(k->name);
}

/* down_read_trylock() calls, granted or not */
static int ntrylocks(void)
{
	return count_events(EV_LOCK, "down_read_trylock") +
	       count_events(EV_TRYFAIL, "down_read_trylock");
}

/* Events of one task that name mm->mmap_sem (taking, failing, releasing, sleeping on it). */
static int mmap_sem_events(int task)
{
	int n, dropped, c = 0;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);

	for (int i = 0; i < n; i++)
		if (ev[i].task == task && ev[i].obj && !strcmp(ev[i].obj, "&mm->mmap_sem"))
			c++;
	return c;
}

/* The head waiter on mmap_sem is task `pid`, waiting for `flags`. */
static bool mmap_sem_head_waits(int pid, unsigned flags)
{
	struct rw_semaphore *sem = &current->mm->mmap_sem;

	if (list_empty(&sem->wait_list))
		return false;
	struct rwsem_waiter *w = list_entry(sem->wait_list.next, struct rwsem_waiter, list);
	return w->task && w->task->pid == pid && w->flags == flags;
}

static void check_ok(const struct run_result *r, const char *kernel)
{
	CHECK(r->result == SIM_OK && !strcmp(r->verdict, "ok"), "[%s] verdict %s", kernel,
	      r->verdict);
	CHECK_EQ(r->segv, 0, kernel);
}

/* ---------------------------------------------------------------------------------------
 * 1. Reclaim: try_to_unmap_one() (mm/rmap.c, 2.6.11)
 */

/* T1 holds mmap_sem for write and naps; T2 (kswapd) reclaims T1's private and shmem pages
 * meanwhile, then touches them: the faults wait for the writer and bring the contents back. */
static void reclaim_writer_t1(void)
{
	addr1 = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	addr2 = (unsigned long)sys_mmap2(0, P, RW, MAP_SHARED, -1, 0);
	CHECK_EQ(user_store(addr1, 5), 0, "store to the private page");
	CHECK_EQ(user_store(addr2, 6), 0, "store to the shmem page");
	down_write(&current->mm->mmap_sem);
	note("down_write");
	nap(1);
	note("up_write");
	up_write(&current->mm->mmap_sem);
}

static void reclaim_kswapd_t2(void)
{
	struct mm_struct *mm = current->mm;
	pte_t *priv = pte_offset(mm, addr1), *shm = pte_offset(mm, addr2);
	struct page *page = priv->page;
	uint32_t v = 0;

	/* both pages were just written: young, and referenced (do_anonymous_page's
	 * SetPageReferenced, shmem_nopage's mark_page_accessed) */
	CHECK_EQ(try_to_unmap_one(mm, addr1), SWAP_FAIL, "a young page is refused");
	CHECK(!(priv->flags & _PAGE_ACCESSED), "and its young bit cleared");
	CHECK(page_referenced(mm, addr1) == 1 && page_referenced(mm, addr2) == 2,
	      "page_referenced counts PG_referenced and the young bit");
	CHECK_EQ(page_referenced(mm, addr1), 0, "and clears both");
	page_referenced(mm, addr2);
	CHECK_EQ(try_to_unmap_one(mm, addr1), SWAP_SUCCESS, "reclaim of the private page");
	CHECK_EQ(try_to_unmap_one(mm, addr2), SWAP_SUCCESS, "reclaim of the shmem page");
	CHECK_EQ(mm->mmap_sem.activity, -1, "T1 still holds mmap_sem for write");
	CHECK_EQ(mmap_sem_events(2), 0, "reclaim never touched mmap_sem");
	note("reclaim");
	CHECK(!(priv->flags & _PAGE_PRESENT) && priv->page == page && (priv->flags & _PAGE_ANON),
	      "private page: PTE not present, page kept as its swap entry (flags %x)", priv->flags);
	CHECK(!shm->page && !shm->flags, "shmem PTE cleared (flags %x)", shm->flags);
	CHECK(mm->mmap[1].vm_file && mm->mmap[1].vm_file->pages[0], "shmem page in the cache");
	CHECK_EQ(try_to_unmap_one(mm, addr1), SWAP_AGAIN, "reclaim of a not-present PTE");
	CHECK_EQ(try_to_unmap_one(mm, 0), SWAP_AGAIN, "reclaim of NULL");

	int f0 = count_events(EV_FAULT, NULL);
	CHECK_EQ(user_load(addr1, &v), 0, "load of the swapped-out page");
	note("load");
	CHECK_EQ(v, 5, "swapped-out page comes back with its contents");
	CHECK_EQ(user_load(addr2, &v), 0, "load of the reclaimed shmem page");
	CHECK_EQ(v, 6, "shmem page comes back from the page cache");
	CHECK_EQ(count_events(EV_FAULT, NULL), f0 + 2, "each load faulted once");
	CHECK(priv->page == page, "the same page, swapped back in");
	CHECK_EQ(current->segv, 0, "no SIGSEGV");
}

static void test_reclaim_takes_no_mmap_sem(void)
{
	task_fn fns[] = {reclaim_writer_t1, reclaim_kswapd_t2};

	/* the faults in T2's loads, not the reclaim, waited for the writer */
	for_each_kernel (k)
		check_run(k, 2, fns, "T1:down_write T2:reclaim T1:up_write T2:load");
}

/* Reclaim's effects from a program: a page in use takes two passes (the first finds it
 * referenced and only activates it: 3), contents survive (swap / page cache), an absent
 * page or an address outside every mapping gives SWAP_AGAIN (1) and no harm, and a swap-in
 * by a read maps the page read-only again (the next write is a write-protect fault). */
static void test_reclaim_effects(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=2 prot=rw\n"            /* 0 */
			   "  store m val=5\n"                     /* 1 */
			   "  store m+4096 val=6\n"                /* 2 */
			   "  reclaim m\n"                         /* 3 */
			   "  reclaim m\n"                         /* 4 */
			   "  reclaim m\n"                         /* 5 */
			   "  futex_wait m val=5 timeout=1\n"      /* 6: swaps m in */
			   "  reclaim m each-page\n"               /* 7 */
			   "  reclaim m each-page\n"               /* 8 */
			   "  load m+4096\n"                       /* 9 */
			   "  futex_wait m+4096 val=6 timeout=1\n" /* 10 */
			   "  mmap s pages=2 prot=rw shared\n"     /* 11 */
			   "  store s val=7\n"                     /* 12 */
			   "  reclaim s\n"                         /* 13 */
			   "  reclaim s\n"                         /* 14 */
			   "  reclaim s+4096\n"                    /* 15 */
			   "  futex_wait s val=7 timeout=1\n"      /* 16 */
			   "  reclaim null\n"                      /* 17 */
			   "  reclaim m+409600\n"                  /* 18: page 100, no VMA */
			   "  load m\n"                            /* 19 */
			   "  store m val=8\n"                     /* 20 */
			   "  futex_wait m val=8 timeout=1\n";     /* 21 */
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		check_ok(&r, kn);
		CHECK_RET(&r, 3, PAGE_ACTIVATE, kn, "first pass over a written private page");
		CHECK_RET(&r, 4, SWAP_SUCCESS, kn, "second pass: to swap");
		CHECK_RET(&r, 5, SWAP_AGAIN, kn, "reclaim again: not present");
		CHECK_RET(&r, 6, -ETIMEDOUT, kn, "the word still holds 5");
		CHECK_RET(&r, 7, PAGE_ACTIVATE, kn, "each-page, first pass: referenced");
		CHECK_RET(&r, 8, SWAP_SUCCESS, kn, "each-page, second pass: unmapped");
		CHECK_RET(&r, 9, 0, kn, "load of the swapped-out page");
		CHECK_RET(&r, 10, -ETIMEDOUT, kn, "the word still holds 6");
		CHECK_RET(&r, 13, PAGE_ACTIVATE, kn, "first pass over a present shmem page");
		CHECK_RET(&r, 14, SWAP_SUCCESS, kn, "second pass: out of the PTE");
		CHECK_RET(&r, 15, SWAP_AGAIN, kn, "reclaim of a never-touched page");
		CHECK_RET(&r, 16, -ETIMEDOUT, kn, "the shmem word still holds 7");
		CHECK_RET(&r, 17, SWAP_AGAIN, kn, "reclaim of NULL");
		CHECK_RET(&r, 18, SWAP_AGAIN, kn, "reclaim outside every VMA");
		CHECK_RET(&r, 19, 0, kn, "load after all that");
		CHECK_RET(&r, 20, 0, kn, "store to the page swapped in by a read");
		CHECK_RET(&r, 21, -ETIMEDOUT, kn, "it took the store");
		/* m+4096: the store's fault and the load's after the reclaim; m: the store after
		 * the read swap-in is a write-protect fault */
		int n = 0, wp = 0;
		for (int i = find_event(0, 1, 0, EV_FAULT, NULL); i >= 0;
		     i = find_event(i + 1, 1, 0, EV_FAULT, NULL)) {
			int nev, dropped;
			const struct sim_trace_ev *ev = sim_trace_events(&nev, &dropped);
			n += ev[i].arg == r.ret[0] + 4096;
			wp += ev[i].arg == r.ret[0] && ev[i].arg2;
		}
		CHECK_EQ(n, 2, "faults at m+4096");
		CHECK_EQ(wp, 2, "write faults at m: the first store and the one after the swap-in");
	}
}

/* ---------------------------------------------------------------------------------------
 * 2. madvise(MADV_DONTNEED) (mm/madvise.c, 2.6.11)
 */

/* sys_madvise takes mmap_sem for write: T2's call queues while T1 reads and returns only
 * after T1's up_read. */
static void madvise_reader_t1(void)
{
	addr1 = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	CHECK_EQ(user_store(addr1, 5), 0, "store");
	down_read(&current->mm->mmap_sem);
	note("down_read");
	nap(1);
	CHECK(mmap_sem_head_waits(2, RWSEM_WAITING_FOR_WRITE), "T2 queued for write");
	note("up_read");
	up_read(&current->mm->mmap_sem);
}

static void madvise_t2(void)
{
	uint32_t v = 1;

	CHECK_EQ(sys_madvise(addr1, P, MADV_DONTNEED), 0, "madvise");
	note("madvise");
	CHECK_EQ(user_load(addr1, &v), 0, "load");
	CHECK_EQ(v, 0, "the private page was thrown away");
	CHECK_EQ(sys_madvise(addr1, 0, MADV_DONTNEED), 0, "len 0");
	CHECK_EQ(sys_madvise(addr1, (unsigned long)-1, MADV_DONTNEED), -EINVAL,
		 "len rounds up to 0");
	CHECK_EQ(sys_madvise(addr1 + 2, P, MADV_DONTNEED), -EINVAL, "misaligned start");
}

static void test_madvise_takes_mmap_sem_for_write(void)
{
	task_fn fns[] = {madvise_reader_t1, madvise_t2};

	for_each_kernel (k)
		check_run(k, 2, fns, "T1:down_read T1:up_read T2:madvise");
}

/* MADV_DONTNEED zaps only the range: private pages come back zeroed (a swapped-out one
 * too), shmem pages keep their contents; a range over two adjacent VMAs is fine. */
static void test_madvise_effects(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=3 prot=rw\n"            /* 0 */
			   "  store m val=5\n"                     /* 1 */
			   "  store m+4096 val=6\n"                /* 2 */
			   "  store m+8192 val=7\n"                /* 3 */
			   "  madvise m+4096 pages=1\n"            /* 4 */
			   "  futex_wait m val=5 timeout=1\n"      /* 5 */
			   "  futex_wait m+4096 val=0 timeout=1\n" /* 6 */
			   "  futex_wait m+8192 val=7 timeout=1\n" /* 7 */
			   "  mmap s pages=1 prot=rw shared\n"     /* 8: lands at m+3 pages */
			   "  store s val=5\n"                     /* 9 */
			   "  madvise s pages=1\n"                 /* 10 */
			   "  futex_wait s val=5 timeout=1\n"      /* 11 */
			   "  store m+8192 val=9\n"                /* 12 */
			   "  reclaim m+8192\n"                    /* 13 */
			   "  reclaim m+8192\n"                    /* 14 */
			   "  madvise m pages=4\n"                 /* 15: m and s */
			   "  futex_wait m+8192 val=0 timeout=1\n" /* 16 */
			   "  futex_wait s val=5 timeout=1\n"      /* 17 */
			   "  futex_wait m val=0 timeout=1\n";     /* 18 */
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		check_ok(&r, kn);
		CHECK_RET(&r, 4, 0, kn, "madvise of the middle page");
		CHECK_RET(&r, 5, -ETIMEDOUT, kn, "page below kept 5");
		CHECK_RET(&r, 6, -ETIMEDOUT, kn, "the middle page reads 0 again");
		CHECK_RET(&r, 7, -ETIMEDOUT, kn, "page above kept 7");
		CHECK(r.ret[8] == r.ret[0] + 3 * 4096, "[%s] s is adjacent to m", kn);
		CHECK_RET(&r, 10, 0, kn, "madvise of the shmem page");
		CHECK_RET(&r, 11, -ETIMEDOUT, kn, "the shmem page kept 5");
		CHECK_RET(&r, 13, PAGE_ACTIVATE, kn, "reclaim: referenced");
		CHECK_RET(&r, 14, SWAP_SUCCESS, kn, "reclaim again: to swap");
		CHECK_RET(&r, 15, 0, kn, "madvise over two adjacent VMAs");
		CHECK_RET(&r, 16, -ETIMEDOUT, kn, "the swapped-out page was thrown away too");
		CHECK_RET(&r, 17, -ETIMEDOUT, kn, "the shmem page still holds 5");
		CHECK_RET(&r, 18, -ETIMEDOUT, kn, "the first page reads 0");
	}
}

/* madvise's errors: -EINVAL for a misaligned start (nothing zapped), -ENOMEM for a range
 * with a hole (the mapped parts are zapped all the same, as 2.6.11 does) or none mapped. */
static void test_madvise_errors(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=3 prot=rw\n"            /* 0 */
			   "  store m val=5\n"                     /* 1 */
			   "  store m+8192 val=7\n"                /* 2 */
			   "  madvise m+2 pages=1\n"               /* 3 */
			   "  futex_wait m val=5 timeout=1\n"      /* 4 */
			   "  munmap m+4096 pages=1\n"             /* 5 */
			   "  madvise m pages=3\n"                 /* 6 */
			   "  futex_wait m val=0 timeout=1\n"      /* 7 */
			   "  futex_wait m+8192 val=0 timeout=1\n" /* 8 */
			   "  madvise m+4096 pages=1\n"            /* 9 */
			   "  munmap m pages=3\n"                  /* 10 */
			   "  madvise m pages=1\n"                 /* 11 */
			   "  madvise null pages=1\n";             /* 12 */
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		check_ok(&r, kn);
		CHECK_RET(&r, 3, -EINVAL, kn, "misaligned start");
		CHECK_RET(&r, 4, -ETIMEDOUT, kn, "nothing zapped");
		CHECK_RET(&r, 5, 0, kn, "munmap of the middle page");
		CHECK_RET(&r, 6, -ENOMEM, kn, "range with a hole");
		CHECK_RET(&r, 7, -ETIMEDOUT, kn, "below the hole: zapped");
		CHECK_RET(&r, 8, -ETIMEDOUT, kn, "above the hole: zapped");
		CHECK_RET(&r, 9, -ENOMEM, kn, "the hole alone");
		CHECK_RET(&r, 11, -ENOMEM, kn, "nothing mapped");
		CHECK_RET(&r, 12, -ENOMEM, kn, "NULL");
	}
}

/* ---------------------------------------------------------------------------------------
 * 3. mincore (mm/mincore.c, 2.6.11)
 */

/* T1 sets up a 2-page shmem mapping (page 0 touched) and a present result vector. */
static void mincore_setup(void)
{
	addr1 = (unsigned long)sys_mmap2(0, 2 * P, RW, MAP_SHARED, -1, 0);
	addr2 = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	CHECK_EQ(user_store(addr1, 1), 0, "touch shmem page 0");
	CHECK_EQ(user_store(addr2, 0x07070707), 0, "fill the vector");
}

static void mincore_reader_t1(void)
{
	mincore_setup();
	down_read(&current->mm->mmap_sem);
	note("down_read");
	nap(1);
	note("up_read");
	up_read(&current->mm->mmap_sem);
}

static void mincore_writer_t1(void)
{
	mincore_setup();
	down_write(&current->mm->mmap_sem);
	note("down_write");
	nap(1);
	CHECK(mmap_sem_head_waits(2, RWSEM_WAITING_FOR_READ), "T2 queued for read");
	note("up_write");
	up_write(&current->mm->mmap_sem);
}

static void mincore_t2(void)
{
	uint32_t v = 0;

	CHECK_EQ(sys_mincore(addr1, 2 * P, addr2), 0, "mincore");
	note("mincore");
	CHECK_EQ(get_user(v, addr2), 0, "read the vector");
	CHECK_EQ(v, 0x07070001, "vec {1, 0}, the rest untouched");
}

/* mincore takes mmap_sem for read: it runs beside a reader, and waits for a writer. */
static void test_mincore_takes_mmap_sem_for_read(void)
{
	task_fn readers[] = {mincore_reader_t1, mincore_t2};
	task_fn writer[] = {mincore_writer_t1, mincore_t2};

	for_each_kernel (k) {
		check_run(k, 2, readers, "T1:down_read T2:mincore T1:up_read");
		check_run(k, 2, writer, "T1:down_write T1:up_write T2:mincore");
	}
}

/* The result vector is written with copy_to_user() between mincore's down_read and
 * up_read; an absent vector page faults right there, with mmap_sem held. From 2.6.20
 * the copy comes after up_read(), and the fault takes mmap_sem with nothing held. */
static void test_mincore_copies_under_mmap_sem(void)
{
	const char *text = "task 1\n"
			   "  mmap s pages=1 prot=rw shared\n"
			   "  mmap v pages=1 prot=rw\n" /* never touched */
			   "  mincore s pages=1 vec=v\n";
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		check_ok(&r, kn);
		CHECK_RET(&r, 2, 0, kn, "mincore");
		int d = find_event(0, 1, 3, EV_LOCK, "down_read");
		int c = find_event(d, 1, 3, EV_UACCESS, "copy_to_user");
		int f = find_event(c, 1, 3, EV_FAULT, NULL);
		int u = find_event(d, 1, 3, EV_UNLOCK, "up_read");
		int t = find_event(f, 1, 3, EV_LOCK, "down_read_trylock");
		if (k->mm->mincore_copy_unlocked) {
			CHECK(d >= 0 && u > d && c > u && f > c && t > f,
			      "[%s] down_read < up_read < copy_to_user < fault < trylock (d=%d "
			      "u=%d c=%d f=%d t=%d)",
			      kn, d, u, c, f, t);
			continue;
		}
		CHECK(d >= 0 && c > d && f > c && u > f,
		      "[%s] down_read < copy_to_user < fault < up_read (d=%d c=%d f=%d u=%d)", kn,
		      d, c, f, u);
		/* the fault takes mmap_sem a second time, except where PF_MMAP_SEM says not to */
		if (k->pf_mmap_sem)
			CHECK(t < 0 || t > u, "[%s] no trylock in the fault (t=%d u=%d)", kn, t, u);
		else
			CHECK(t > f && t < u, "[%s] the fault's trylock (t=%d f=%d u=%d)", kn, t, f,
			      u);
	}
}

/* repro/cases/mincore-mmap-sem.case: the copy_to_user() fault queues behind a writer and
 * deadlocks on every kernel that keeps fair rwsems and a locking fault handler (the futex
 * fixes do not touch mincore: CVE-2006-4814, fixed in 2.6.20, whose mincore the kernels
 * from 2.6.22 run). */
static void test_mincore_case(void)
{
	const char *text = "task 1\n"
			   "  mmap shm pages=1 prot=rw shared\n"
			   "  mmap vec pages=1 prot=rw\n"
			   "  mincore shm pages=1 vec=vec\n"
			   "task 2\n"
			   "  mmap other pages=1 prot=rw\n"
			   "preempt 1 at op 3 point 5 to 2\n";
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		const char *want = reenters(k) || k->mm->mincore_copy_unlocked
				       ? "ok"
				       : "deadlock--do_page_fault--sys_mincore";
		CHECK(!strcmp(r.verdict, want), "[%s] verdict %s, want %s", kn, r.verdict, want);
	}
}

/* mincore's answers: vec bytes by page from the page cache (reclaim and MADV_DONTNEED
 * leave shmem pages there), -ENOMEM for anonymous memory and holes, -EINVAL for a
 * misaligned start, -EFAULT for a vector it cannot write. A futex word at vec reads the
 * bytes little-endian: {1, 0, 0, 0} is 1. */
static void test_mincore_results(void)
{
	const char *text = "task 1\n"
			   "  mmap s pages=2 prot=rw shared\n" /* 0 */
			   "  mmap v pages=1 prot=rw\n"        /* 1 */
			   "  store s val=1\n"                 /* 2 */
			   "  mincore s pages=2 vec=v\n"       /* 3 */
			   "  futex_wait v val=1 timeout=1\n"  /* 4 */
			   "  futex_wait v val=0 timeout=1\n"  /* 5 */
			   "  mincore s+4096 pages=1 vec=v\n"  /* 6 */
			   "  futex_wait v val=0 timeout=1\n"  /* 7 */
			   "  reclaim s\n"                     /* 8 */
			   "  reclaim s\n"                     /* 9 */
			   "  madvise s pages=2\n"             /* 10 */
			   "  mincore s pages=2 vec=v\n"       /* 11 */
			   "  futex_wait v val=1 timeout=1\n"  /* 12 */
			   "  mincore v pages=1 vec=v\n"       /* 13 */
			   "  mincore s+2 pages=1 vec=v\n"     /* 14 */
			   "  mincore s pages=1 vec=null\n"    /* 15 */
			   "  mmap ro pages=1 prot=r\n"        /* 16 */
			   "  mincore s pages=1 vec=ro\n"      /* 17 */
			   "  mmap h pages=3 prot=rw shared\n" /* 18 */
			   "  munmap h+4096 pages=1\n"         /* 19 */
			   "  mincore h pages=3 vec=v\n"       /* 20 */
			   "  mincore h+4096 pages=1 vec=v\n"  /* 21 */
			   "  munmap h pages=3\n"              /* 22 */
			   "  mincore h pages=1 vec=v\n";      /* 23 */
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		check_ok(&r, kn);
		CHECK_RET(&r, 3, 0, kn, "mincore of 2 shmem pages");
		CHECK_RET(&r, 4, -ETIMEDOUT, kn, "vec {1, 0}");
		CHECK_RET(&r, 5, -EWOULDBLOCK, kn, "vec is not all zero");
		CHECK_RET(&r, 6, 0, kn, "mincore of page 1 alone");
		CHECK_RET(&r, 7, -ETIMEDOUT, kn, "vec {0, 0}");
		CHECK_RET(&r, 8, PAGE_ACTIVATE, kn, "reclaim of shmem page 0: referenced");
		CHECK_RET(&r, 9, SWAP_SUCCESS, kn, "reclaim again: out of the PTE");
		CHECK_RET(&r, 10, 0, kn, "madvise of the shmem pages");
		CHECK_RET(&r, 11, 0, kn, "mincore after reclaim and madvise");
		CHECK_RET(&r, 12, -ETIMEDOUT, kn, "page 0 is still in the page cache");
		CHECK_RET(&r, 13, -ENOMEM, kn, "anonymous memory");
		CHECK_RET(&r, 14, -EINVAL, kn, "misaligned start");
		CHECK_RET(&r, 15, -EFAULT, kn, "vec NULL");
		CHECK_RET(&r, 17, -EFAULT, kn, "vec read-only");
		CHECK_RET(&r, 20, -ENOMEM, kn, "range with a hole");
		CHECK_RET(&r, 21, -ENOMEM, kn, "the hole alone");
		CHECK_RET(&r, 23, -ENOMEM, kn, "nothing mapped");
	}
}

/* Bytes of the vector and the argument checks the text form cannot reach. As in 2.6.11, a
 * hole gets no byte: the next VMA's answers follow the previous VMA's directly. 2.6.20
 * stops at the hole, with the answers before it copied out, and a length past TASK_SIZE
 * is -ENOMEM (access_ok()). */
static void mincore_direct_t1(void)
{
	unsigned long h = (unsigned long)sys_mmap2(0, 3 * P, RW, MAP_SHARED, -1, 0);
	unsigned long v = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t w = 0;

	CHECK_EQ(user_store(h + 2 * P, 1), 0, "touch page 2");
	CHECK_EQ(user_store(v, 0x07070707), 0, "fill the vector");
	CHECK_EQ(sys_mincore(h, 3 * P, v), 0, "mincore of 3 pages");
	CHECK_EQ(get_user(w, v), 0, "read the vector");
	CHECK_EQ(w, 0x07010000, "vec {0, 0, 1}");
	CHECK_EQ(sys_mincore(h, 1, v), 0, "len rounds up to a page");
	CHECK_EQ(sys_munmap(h + P, P), 0, "munmap of the middle page");
	CHECK_EQ(user_store(v, 0x07070707), 0, "refill the vector");
	CHECK_EQ(sys_mincore(h, 3 * P, v), -ENOMEM, "mincore over the hole");
	CHECK_EQ(get_user(w, v), 0, "read the vector");
	if (kcfg->mm->mincore_copy_unlocked)
		CHECK_EQ(w, 0x07070700, "vec {0}: page 0's byte, then the hole");
	else
		CHECK_EQ(w, 0x07070100, "vec {0, 1}: page 2's byte right after page 0's");
	CHECK_EQ(sys_mincore(TASK_SIZE, P, v), -ENOMEM, "start at TASK_SIZE");
	CHECK_EQ(sys_mincore(TASK_SIZE - P, 2 * P, v),
		 kcfg->mm->mincore_copy_unlocked ? -ENOMEM : -EINVAL, "len past TASK_SIZE");
	CHECK_EQ(sys_mincore(h, P, TASK_SIZE), -EFAULT, "vec fails access_ok");
	CHECK_EQ(sys_mincore(h + 2, P, v), -EINVAL, "misaligned start");
	CHECK_EQ(current->mm->mmap_sem.activity, 0, "every path released mmap_sem");
}

static void test_mincore_direct(void)
{
	task_fn fns[] = {mincore_direct_t1};

	for_each_kernel (k) {
		CHECK_EQ(run(k, 1, fns), SIM_OK, k->name);
		check_sem_free(k->name);
	}
}

/* ---------------------------------------------------------------------------------------
 * 4. The kernels' switches (kernels.h): rwsem lock depth, reader preference, PF_MMAP_SEM,
 *    and 2.6.12-jj's FUTEX_WAIT
 */

/* rwsem-lockdepth (and reader preference) let a reader that holds mmap_sem take it again
 * while a writer waits; the fair rwsem of every other kernel deadlocks ("the whole bug"). */
static void depth_t1(void)
{
	struct rw_semaphore *sem = &current->mm->mmap_sem;

	down_read(sem);
	note("read");
	nap(1);
	down_read(sem);
	note("again");
	CHECK(mmap_sem_head_waits(2, RWSEM_WAITING_FOR_WRITE), "T2 still queued for write");
	if (kcfg->rwsem == RWSEM_LOCKDEPTH)
		CHECK(sem->activity == 1 && sem->read_depth[1] == 2,
		      "lock depth: one reader, depth 2 (activity %d)", sem->activity);
	up_read(sem);
	up_read(sem);
	note("up");
}

static void depth_t2(void)
{
	down_write(&current->mm->mmap_sem);
	note("write");
	up_write(&current->mm->mmap_sem);
}

static void test_recursive_read_with_writer_waiting(void)
{
	task_fn fns[] = {depth_t1, depth_t2};

	for_each_kernel (k) {
		const char *kn = k->name;
		if (k->rwsem != RWSEM_FAIR) {
			check_run(k, 2, fns, "T1:read T1:again T1:up T2:write");
		} else {
			CHECK_EQ(run(k, 2, fns), SIM_HANG, kn);
			CHECK(!strcmp(finding.token, "deadlock--depth_t1--depth_t1"),
			      "[%s] token %s", kn, finding.token);
			check_order(kn, "T1:read");
		}
	}
}

/* rwsem-reader-pref: a new reader enters while a writer waits and another reader holds the
 * lock; every other kernel queues it behind the writer. */
static void pref_t1(void)
{
	down_read(&current->mm->mmap_sem);
	note("read");
	nap(1);
	note("up");
	up_read(&current->mm->mmap_sem);
}

static void pref_t3(void)
{
	down_read(&current->mm->mmap_sem);
	note("read");
	note("up");
	up_read(&current->mm->mmap_sem);
}

static void test_reader_preference(void)
{
	task_fn fns[] = {pref_t1, depth_t2, pref_t3};

	for_each_kernel (k)
		check_run(k, 3, fns,
			  k->rwsem == RWSEM_READER_PREF ? "T1:read T3:read T3:up T1:up T2:write"
							: "T1:read T1:up T2:write T3:read T3:up");
}

/* pf-mmap-sem: holding mmap_sem sets PF_MMAP_SEM, and a fault then takes no lock (no
 * down_read_trylock in the trace); without mmap_sem held the fault takes it as usual. */
static int held_fault_trylocks;

static void pfsem_t1(void)
{
	struct mm_struct *mm = current->mm;
	unsigned long a = (unsigned long)sys_mmap2(0, 2 * P, RW, PRIV, -1, 0);
	uint32_t v;

	down_read(&mm->mmap_sem);
	if (kcfg->pf_mmap_sem)
		CHECK(current->flags & PF_MMAP_SEM, "holding mmap_sem sets PF_MMAP_SEM");
	int t0 = ntrylocks(), f0 = count_events(EV_FAULT, NULL);
	CHECK_EQ(get_user(v, a), 0, "get_user under mmap_sem");
	CHECK_EQ(count_events(EV_FAULT, NULL), f0 + 1, "it faulted");
	held_fault_trylocks = ntrylocks() - t0;
	up_read(&mm->mmap_sem);
	CHECK(!(current->flags & PF_MMAP_SEM), "up_read clears PF_MMAP_SEM");
	t0 = ntrylocks();
	CHECK_EQ(get_user(v, a + P), 0, "get_user without mmap_sem");
	CHECK_EQ(ntrylocks(), t0 + 1, "a fault without mmap_sem held takes it");
}

static void test_pf_mmap_sem_fault_takes_no_lock(void)
{
	task_fn fns[] = {pfsem_t1};

	for_each_kernel (k) {
		const char *kn = k->name;
		CHECK_EQ(run(k, 1, fns), SIM_OK, kn);
		CHECK_EQ(held_fault_trylocks, k->pf_mmap_sem ? 0 : 1, kn);
		check_sem_free(kn);
	}
}

/* The article's deadlock by hand: a fault under mmap_sem (read) with a writer queued. The
 * three alternative kernels get through; the rest deadlock in do_page_fault. */
static void fault_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t v;

	down_read(&current->mm->mmap_sem);
	note("read");
	nap(1);
	CHECK_EQ(get_user(v, a), 0, "get_user");
	note("get_user");
	up_read(&current->mm->mmap_sem);
}

static void mmap_t2(void)
{
	sys_mmap2(0, P, RW, PRIV, -1, 0);
	note("mmap");
}

static void test_fault_under_mmap_sem_with_writer(void)
{
	task_fn fns[] = {fault_t1, mmap_t2};

	for_each_kernel (k) {
		const char *kn = k->name;
		if (reenters(k)) {
			check_run(k, 2, fns, "T1:read T1:get_user T2:mmap");
		} else {
			CHECK_EQ(run(k, 2, fns), SIM_HANG, kn);
			CHECK(!strcmp(finding.token, "deadlock--do_page_fault--fault_t1"),
			      "[%s] token %s", kn, finding.token);
		}
	}
}

/* repro/cases/futex-wait-mmap-sem.case, the LWN article's table: only 2.6.11-rc4
 * deadlocks; the three alternative kernels and 2.6.12-jj end ok. */
static void test_article_case(void)
{
	const char *text = "task 1\n"
			   "  mmap futex pages=1 prot=rw shared\n"
			   "  futex_wait futex val=1\n"
			   "task 2\n"
			   "  mmap other pages=1 prot=rw\n"
			   "preempt 1 at op 2 point 7 to 2\n";
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(harness_text_for(text, k), kn, &r);
		/* get_user() with mmap_sem held, a fair rwsem, a fault that takes it again */
		const char *want = k->futex->read == FUTEX_READ_GET_USER && !reenters(k)
				       ? "deadlock--do_page_fault--futex_wait"
				       : "ok";
		CHECK(!strcmp(r.verdict, want), "[%s] verdict %s, want %s", kn, r.verdict, want);
	}
}

/* The point of `task`'s first user access in its op `op` (futex_wait's read of the word)
 * in a run of `text` without preemptions. */
static int read_point(const char *text, const char *kernel, int task, int op)
{
	struct run_result r;
	int n, dropped;

	run_text(text, kernel, &r);
	int i = find_event(0, task, op, EV_UACCESS, NULL);
	return i < 0 ? -1 : sim_trace_events(&n, &dropped)[i].point;
}

/* 2.6.12-jj reads the word under the bucket lock and queues only on a match, and
 * 2.6.10-seto reads it before queue_me(): neither queues a mismatching waiter. A wake that
 * comes while a mismatching futex_wait is between queueing and reading finds it queued on
 * every other kernel and "wakes" it (the wait returns 0, the wake 1); on those two the
 * wait returns -EWOULDBLOCK and the wake finds nobody (0). */
static void test_jj_mismatch_does_not_queue(void)
{
	const char *prog = "task 1\n"
			   "  mmap f pages=1 prot=rw\n"
			   "  store f val=0\n"
			   "  futex_wait f val=1\n"
			   "task 2\n"
			   "  futex_wake f nr=1\n";
	char text[512];
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		bool match_only =
		    k->futex->read == FUTEX_READ_BUCKET_LOCKED || k->futex->wait_reads_first;
		int p1 = read_point(prog, kn, 1, 3);
		CHECK(p1 > 0, "[%s] read point %d", kn, p1);
		snprintf(text, sizeof(text), "%spreempt 1 at op 3 point %d to 2\n", prog, p1);
		run_text(text, kn, &r); /* f is touched: no ZERO_PAGE on any kernel */
		check_ok(&r, kn);
		CHECK(find_event(find_event(0, 2, 1, EV_SYSCALL, NULL), 1, 3, EV_UACCESS, NULL) > 0,
		      "[%s] the wake ran before the wait's read", kn);
		CHECK_RET(&r, 2, match_only ? -EWOULDBLOCK : 0, kn, "mismatching futex_wait");
		CHECK_RET(&r, 3, match_only ? 0 : 1, kn, "concurrent futex_wake");
	}
}

/* The absorbed wake-up (REFERENCE.md, 3 tasks / 2 preemptions): T1's mismatching wait is
 * queued ahead of T2's matching one when T3 wakes one waiter. Queue-first kernels hand the
 * wake-up to T1, which returns 0, and T2 sleeps on; 2.6.12-jj wakes T2. On 2.6.10-seto
 * nobody is queued when the wake comes (T1 never queues, T2 queues after its read), so the
 * wake returns 0 and T2 sleeps on. No lost-wakeup finding anywhere: T2 reads the word only
 * after the wake, so the wake owed it nothing (docs/oracles.md). */
static void test_absorbed_wakeup(void)
{
	const char *prog = "task 1\n"
			   "  mmap f pages=1 prot=rw\n"
			   "  store f val=0\n"
			   "  futex_wait f val=1\n" /* 2 */
			   "task 2\n"
			   "  futex_wait f val=0\n" /* 3 */
			   "task 3\n"
			   "  futex_wake f nr=1\n"; /* 4 */
	char text[512];
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		bool jj = k->futex->read == FUTEX_READ_BUCKET_LOCKED;
		bool seto = k->futex->wait_reads_first;
		int p1 = read_point(prog, kn, 1, 3), p2 = read_point(prog, kn, 2, 1);
		CHECK(p1 > 0 && p2 > 0, "[%s] read points %d %d", kn, p1, p2);
		snprintf(text, sizeof(text),
			 "%spreempt 1 at op 3 point %d to 2\npreempt 2 at op 1 point %d to 3\n",
			 prog, p1, p2);
		run_text(harness_text_for(text, k), kn, &r);
		check_ok(&r, kn);
		CHECK_RET(&r, 2, jj || seto ? -EWOULDBLOCK : 0, kn, "T1's mismatching wait");
		CHECK_RET(&r, 3, jj ? 0 : NOT_RUN, kn, "T2's matching wait");
		CHECK_RET(&r, 4, seto ? 0 : 1, kn, "T3's wake");
	}
}

int main(void)
{
	test_reclaim_takes_no_mmap_sem();
	test_reclaim_effects();
	test_madvise_takes_mmap_sem_for_write();
	test_madvise_effects();
	test_madvise_errors();
	test_mincore_takes_mmap_sem_for_read();
	test_mincore_copies_under_mmap_sem();
	test_mincore_case();
	test_mincore_results();
	test_mincore_direct();
	test_recursive_read_with_writer_waiting();
	test_reader_preference();
	test_pf_mmap_sem_fault_takes_no_lock();
	test_fault_under_mmap_sem_with_writer();
	test_article_case();
	test_jj_mismatch_does_not_queue();
	test_absorbed_wakeup();
	return harness_exit();
}
