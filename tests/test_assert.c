/* Lock assertions (lockdep_assert_held(), ref/lockdep.c), the futex_q a waker must not
 * touch once its waiter may have returned (ref/futex.c), and lockdep's circular rule on
 * the instances of one class (futex bucket locks): docs/lockdep.md, "Lock assertions".
 *
 * Each rule is broken on purpose by a hand-written task body (run_tasks) that calls the
 * model's function without the lock, and the finding's token checked; the same call
 * with the lock is no finding. The write helpers that assert (set_pte(), __vma_link(),
 * the futex chain's, ...) are also called directly, by bodies with no assertion of their
 * own. The assertions are always on: they do not need lockdep's
 * checking (run_tasks turns it on; the bodies below turn it off where that matters).
 */
#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/report.h"
#include "../ref/rwsem.h"
#include "../ref/uaccess.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define P  PAGE_SIZE
#define RW (PROT_READ | PROT_WRITE)

static unsigned long addr;    /* the mapping the first task made */
static struct futex_q *q;     /* the waiter T2 found */
static spinlock_t *bucket[2]; /* two bucket locks that differ */
static long waited = -1000;   /* what T1's futex_wait returned */
static bool lockdep_off;      /* the bodies turn lockdep's checking off first */

static enum sim_result run(int n, const task_fn *fns)
{
	addr = 0;
	q = NULL;
	waited = -1000;
	return run_tasks(n, fns, NULL, 0);
}

/* Whether the last run's report has the title TITLE and its body says each of the
 * strings after it (NULL-ended). */
static bool reported(const char *title, ...)
{
	va_list ap;
	bool ok = !strcmp(finding.title, title);

	va_start(ap, title);
	for (const char *says; ok && (says = va_arg(ap, const char *));)
		ok = strstr(finding.body, says) != NULL;
	va_end(ap);
	if (!ok)
		fprintf(stderr, "the report: title '%s', body:\n%s\n", finding.title, finding.body);
	return ok;
}

static void maybe_lockdep_off(void)
{
	if (lockdep_off)
		lockdep_reset(false);
}

/* --- mmap_sem held for write: every VMA change --- */

static void split_unlocked(void)
{
	maybe_lockdep_off();
	addr = (unsigned long)sys_mmap2(0, 2 * P, RW, MAP_PRIVATE, -1, 0);
	split_at(current->mm, addr + P);
}

static void split_read(void)
{
	addr = (unsigned long)sys_mmap2(0, 2 * P, RW, MAP_PRIVATE, -1, 0);
	down_read(&current->mm->mmap_sem);
	split_at(current->mm, addr + P);
	up_read(&current->mm->mmap_sem);
}

static void split_write(void)
{
	struct mm_struct *mm = current->mm;

	addr = (unsigned long)sys_mmap2(0, 2 * P, RW, MAP_PRIVATE, -1, 0);
	down_write(&mm->mmap_sem);
	split_at(mm, addr + P);
	CHECK_EQ(mm->map_count, 2, "split under mmap_sem: two VMAs");
	CHECK_EQ(do_munmap(mm, addr, P), 0, "munmap under mmap_sem");
	up_write(&mm->mmap_sem);
}

static void mmap_unlocked(void)
{
	do_mmap_pgoff(current->mm, NULL, P, RW, MAP_PRIVATE);
}

static void munmap_unlocked(void)
{
	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_PRIVATE, -1, 0);
	user_store(addr, 1);
	do_munmap(current->mm, addr, P); /* no split: the whole VMA goes */
}

static void test_mmap_sem(void)
{
	task_fn unlocked[] = {split_unlocked}, read[] = {split_read}, write[] = {split_write},
		mmap[] = {mmap_unlocked}, munmap[] = {munmap_unlocked};

	for_each_kernel (k) {
		kcfg = k;
		for (int off = 0; off < 2; off++) {
			lockdep_off = off;
			harness_finding(run(1, unlocked), "lock-assert--mmap_sem-write--split_vma",
					lockdep_off ? "split_at() unlocked, lockdep off"
						    : "split_at() unlocked");
		}
		lockdep_off = false;
		harness_finding(run(1, read), "lock-assert--mmap_sem-write--split_vma",
				"split_at() under a read hold");
		harness_no_finding(run(1, write), "split_at() and do_munmap() under a write hold");
		harness_finding(run(1, mmap), "lock-assert--mmap_sem-write--do_mmap_pgoff",
				"do_mmap_pgoff() unlocked");
		harness_finding(run(1, munmap), "lock-assert--mmap_sem-write--do_munmap",
				"do_munmap() unlocked");
	}
}

/* The helpers every VMA change goes through (ref/mmap.c), called directly by a body with
 * no assertion of its own: each asserts mmap_sem held for write, and the finding names
 * its caller. */
enum vma_helper { V_LINK, V_ADJUST, V_DETACH, V_FLAGS, NVMA };
static enum vma_helper vma_helper;
enum hold { HOLD_NONE, HOLD_READ, HOLD_WRITE };
static enum hold vma_hold;

static void vma_helper_body(void)
{
	struct mm_struct *mm = current->mm;

	addr = (unsigned long)sys_mmap2(0, 2 * P, RW, MAP_PRIVATE, -1, 0);
	if (vma_hold == HOLD_READ)
		down_read(&mm->mmap_sem);
	if (vma_hold == HOLD_WRITE)
		down_write(&mm->mmap_sem);
	struct vm_area_struct *vma = find_vma(mm, addr), v = *vma;
	switch (vma_helper) {
	case V_LINK: /* a VMA after the mapping, in the free window */
		v.vm_start = addr + 2 * P;
		v.vm_end = addr + 3 * P;
		CHECK(__vma_link(mm, &v)->vm_start == addr + 2 * P, "__vma_link: the copy");
		CHECK_EQ(mm->map_count, 2, "__vma_link: two VMAs");
		break;
	case V_ADJUST: /* no insert: only vma_adjust()'s own assertion can see it */
		vma_adjust(mm, vma, addr, addr + P, vma->vm_pgoff, NULL);
		CHECK(mm->map_count == 1 && mm->mmap[0].vm_end == addr + P, "vma_adjust: shrunk");
		break;
	case V_DETACH: /* no page touched: nothing to zap first */
		detach_vmas_to_be_unmapped(mm, addr, addr + 2 * P);
		CHECK_EQ(mm->map_count, 0, "detach_vmas_to_be_unmapped: none left");
		break;
	case V_FLAGS:
		vm_flags_reset(mm, vma, vma->vm_flags | VM_LOCKED);
		CHECK(find_vma(mm, addr)->vm_flags & VM_LOCKED, "vm_flags_reset: VM_LOCKED");
		break;
	case NVMA:
		break;
	}
	if (vma_hold == HOLD_READ)
		up_read(&mm->mmap_sem);
	if (vma_hold == HOLD_WRITE)
		up_write(&mm->mmap_sem);
}

static void test_vma_helpers(void)
{
	static const char *const name[NVMA] = {"__vma_link", "vma_adjust",
					       "detach_vmas_to_be_unmapped", "vm_flags_reset"};
	task_fn fns[] = {vma_helper_body};
	char what[96];

	for_each_kernel (k) {
		kcfg = k;
		for (vma_helper = 0; vma_helper < NVMA; vma_helper++) {
			for (vma_hold = HOLD_NONE; vma_hold <= HOLD_WRITE; vma_hold++) {
				snprintf(what, sizeof(what), "%s, mmap_sem %s", name[vma_helper],
					 vma_hold == HOLD_NONE   ? "not held"
					 : vma_hold == HOLD_READ ? "held for read"
								 : "held for write");
				if (vma_hold == HOLD_WRITE)
					harness_no_finding(run(1, fns), what);
				else
					harness_finding(
					    run(1, fns),
					    "lock-assert--mmap_sem-write--vma_helper_body", what);
			}
		}
	}
	kcfg = kernel_by_name("2.6.11");
	vma_helper = V_FLAGS;
	vma_hold = HOLD_READ;
	run(1, fns);
	CHECK(reported("WARNING: lock not held for write: &mm->mmap_sem in vma_helper_body",
		       "holds it for read only", NULL),
	      "vma_helper_body's report");
}

/* The report: the title, what the task holds, where it is (its Call Trace: split_at() is
 * the model's, split_vma() 2.6.11's; the test's task is in no syscall), the interleaving
 * (report_print()). */
static void test_report(void)
{
	task_fn read[] = {split_read};
	char *text = NULL;
	size_t len = 0;

	kcfg = kernel_by_name("2.6.11");
	run(1, read);
	CHECK(
	    !strcmp(finding.title, "WARNING: lock not held for write: &mm->mmap_sem in split_vma"),
	    "title '%s'", finding.title);
	CHECK(strstr(finding.body, "lockdep_assert_held_write(&mm->mmap_sem) in split_vma") &&
		  strstr(finding.body, "holds it for read only") &&
		  strstr(finding.body, "T1 holds 1 lock:\n  holds #0: &mm->mmap_sem (read), taken "
				       "at split_read") &&
		  strstr(finding.body, "\n\nCall Trace:\n [<0>] split_vma\n"),
	      "body:\n%s", finding.body);
	FILE *f = open_memstream(&text, &len);
	report_print(f, kcfg->name);
	fclose(f);
	CHECK(strstr(text, "interleaving:\nT1") &&
		  strstr(text, "DEDUP_TOKEN: lock-assert--mmap_sem-write--split_vma"),
	      "report:\n%s", text);
	free(text);
}

/* --- page_table_lock: every PTE change --- */

enum pte_case { ANON_READ, SHMEM_READ, WP, YOUNG, SWAP, ZAP, NCASES };
static int pte_case; /* enum pte_case */
static bool pte_locked;
static void pte_body(void);

/* A kernel whose read fault gives anonymous memory a page of its own (2.6.24 on):
 * do_anonymous_page()'s read drops page_table_lock to allocate, as its write does, so
 * the unlock is the finding; and the read before the WP case maps that page writable,
 * so its write fault is handle_pte_fault()'s, not do_wp_page()'s. */
static void pte_case_allocates(int which, char *token, size_t len)
{
	if (which == ANON_READ)
		snprintf(token, len, "spinlock-wrong-owner");
	if (which == WP)
		snprintf(token, len, "lock-assert--page_table_lock--handle_pte_fault");
}

/* BODY with *WHICH set to each of N cases, on every kernel: without page_table_lock the
 * finding lock-assert--page_table_lock--FN (NULL: the case's NAME), or the case's
 * UNLOCKS token where it has one, with it none. */
static void pte_cases(task_fn body, int *which, int n, const char *const *name, const char *fn,
		      const char *const *unlocks)
{
	task_fn fns[] = {body};
	char token[96];

	for_each_kernel (k) {
		kcfg = k;
		for (*which = 0; *which < n; (*which)++) {
			snprintf(token, sizeof(token), "lock-assert--page_table_lock--%s",
				 fn ? fn : name[*which]);
			if (unlocks && unlocks[*which])
				snprintf(token, sizeof(token), "%s", unlocks[*which]);
			if (body == pte_body && k->mm->anon_read_fault_allocates)
				pte_case_allocates(*which, token, sizeof(token));
			pte_locked = false;
			harness_finding(run(1, fns), token, name[*which]);
			pte_locked = true;
			harness_no_finding(run(1, fns), name[*which]);
		}
	}
}

/* Set up the PTE for the case with the model's own (locked) paths, then change it
 * through the function that expects page_table_lock, with or without it. */
static void pte_body(void)
{
	struct mm_struct *mm = current->mm;
	uint32_t v;

	addr = (unsigned long)sys_mmap2(0, P, RW, pte_case == SHMEM_READ ? MAP_SHARED : MAP_PRIVATE,
					-1, 0);
	if (pte_case == WP || pte_case == YOUNG)
		user_load(addr, &v); /* the ZERO_PAGE, read-only */
	if (pte_case == YOUNG || pte_case == SWAP || pte_case == ZAP)
		user_store(addr, 1); /* a page of its own */
	if (pte_case == SWAP) {
		page_referenced(mm, addr); /* young: activated; then unmapped */
		CHECK_EQ(try_to_unmap_one(mm, addr), SWAP_SUCCESS, "swapped out");
	}
	down_read(&mm->mmap_sem);
	if (pte_locked)
		spin_lock(&mm->page_table_lock);
	if (pte_case == ZAP)
		zap_pte_range(mm, addr, addr + P);
	else
		handle_pte_fault(mm, find_vma(mm, addr), addr, pte_case == WP);
	if (pte_locked)
		spin_unlock(&mm->page_table_lock);
	up_read(&mm->mmap_sem);
}

static void test_page_table_lock(void)
{
	static const char *const fn[NCASES] = {"do_anonymous_page", "do_no_page",
					       "do_wp_page",        "handle_pte_fault",
					       "do_swap_page",      "zap_pte_range"};
	/* do_no_page() and do_wp_page()'s copy drop page_table_lock before they set the PTE,
	 * as 2.6.11 does: called without it, the unlock is the finding (a lock the task
	 * does not hold), before the PTE's assertion can be */
	static const char *const unlocks[NCASES] = {
	    [SHMEM_READ] = "spinlock-wrong-owner", [WP] = "spinlock-wrong-owner"};
	task_fn fns[] = {pte_body};

	pte_cases(pte_body, &pte_case, NCASES, fn, NULL, unlocks);
	kcfg = kernel_by_name("2.6.11");
	pte_case = ANON_READ;
	pte_locked = false;
	run(1, fns);
	CHECK(reported("WARNING: lock not held: &mm->page_table_lock in do_anonymous_page",
		       "does not hold it", "holds #0: &mm->mmap_sem (read), taken at pte_body",
		       NULL),
	      "do_anonymous_page's report");
}

/* The helpers every PTE change goes through (ref/mm.h), called directly by a body with no
 * assertion of its own, on the ZERO_PAGE's PTE (a read fault's: no page to lose). */
enum pte_helper { H_SET_PTE, H_PTE_CLEAR, H_ACCESS_FLAGS, H_CLEAR_YOUNG, NHELPERS };
static int pte_helper; /* enum pte_helper */

static void pte_helper_body(void)
{
	struct mm_struct *mm = current->mm;
	uint32_t v;

	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_PRIVATE, -1, 0);
	CHECK_EQ(user_load(addr, &v), 0, "the read");
	pte_t *pte = pte_offset(mm, addr);
	unsigned flags = pte->flags;
	if (pte_locked)
		spin_lock(&mm->page_table_lock);
	switch ((enum pte_helper)pte_helper) {
	case H_SET_PTE:
		set_pte(mm, pte, ZERO_PAGE(addr), flags & ~(unsigned)_PAGE_ACCESSED);
		CHECK(pte->page == ZERO_PAGE(addr) &&
			  pte->flags == (flags & ~(unsigned)_PAGE_ACCESSED),
		      "set_pte: page and flags");
		break;
	case H_PTE_CLEAR:
		pte_clear(mm, pte);
		CHECK(!pte->page && !pte->flags, "pte_clear: none");
		break;
	case H_ACCESS_FLAGS:
		pte->flags &= ~(unsigned)_PAGE_ACCESSED; /* the test's own, under the lock or not */
		ptep_set_access_flags(mm, pte, _PAGE_ACCESSED);
		CHECK(pte->flags == flags, "ptep_set_access_flags: young again");
		break;
	case H_CLEAR_YOUNG:
		CHECK_EQ(ptep_clear_flush_young(mm, pte), 1, "ptep_clear_flush_young: was young");
		CHECK(pte->flags == (flags & ~(unsigned)_PAGE_ACCESSED),
		      "ptep_clear_flush_young: old");
		break;
	case NHELPERS:
		break;
	}
	if (pte_locked)
		spin_unlock(&mm->page_table_lock);
}

static void test_pte_helpers(void)
{
	static const char *const name[NHELPERS] = {"set_pte", "pte_clear", "ptep_set_access_flags",
						   "ptep_clear_flush_young"};
	task_fn fns[] = {pte_helper_body};

	pte_cases(pte_helper_body, &pte_helper, NHELPERS, name, "pte_helper_body", NULL);
	kcfg = kernel_by_name("2.6.11");
	pte_helper = H_SET_PTE;
	pte_locked = false;
	run(1, fns);
	CHECK(reported("WARNING: lock not held: &mm->page_table_lock in pte_helper_body",
		       "does not hold it", NULL),
	      "pte_helper_body's report");
}

/* --- the bucket lock: every futex_q list operation --- */

static void waiter(void)
{
	maybe_lockdep_off();
	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_SHARED, -1, 0);
	waited = do_futex(addr, FUTEX_WAIT, 0, MAX_SCHEDULE_TIMEOUT, 0, 0, 0);
}

/* Two bucket locks that differ: addr's, and that of the first word after it that hashes
 * elsewhere. */
static void find_buckets(void)
{
	bucket[0] = futex_test_bucket_lock(addr);
	bucket[1] = NULL;
	for (unsigned long a = addr + 4; a < addr + P && !bucket[1]; a += 4)
		if (futex_test_bucket_lock(a) != bucket[0])
			bucket[1] = futex_test_bucket_lock(a);
	CHECK(bucket[0] && bucket[1], "two buckets");
}

enum waker_lock { NO_LOCK, OTHER_BUCKET, OWN_BUCKET };
static enum waker_lock waker_lock;

static void waker(void)
{
	find_buckets();
	q = futex_test_first_waiter(addr);
	CHECK(q != NULL, "T1 is queued");
	spinlock_t *l = waker_lock == OWN_BUCKET ? bucket[0] : bucket[1];
	if (waker_lock != NO_LOCK)
		spin_lock(l);
	futex_test_wake(q);
	if (waker_lock != NO_LOCK)
		spin_unlock(l);
}

/* T2 points T1's lock_ptr at another bucket, as a requeue that moved nothing but
 * lock_ptr would; T1's timeout then unqueues it under that lock. */
static void timed_waiter(void)
{
	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_SHARED, -1, 0);
	waited = do_futex(addr, FUTEX_WAIT, 0, 1, 0, 0, 0);
}

static void lock_ptr_mover(void)
{
	find_buckets();
	q = futex_test_first_waiter(addr);
	futex_test_set_lock_ptr(q, bucket[1]);
}

static void test_bucket_lock(void)
{
	task_fn wake[] = {waiter, waker}, move[] = {timed_waiter, lock_ptr_mover};

	for_each_kernel (k) {
		kcfg = k;
		waker_lock = NO_LOCK;
		for (int off = 0; off < 2; off++) {
			lockdep_off = off;
			harness_finding(run(2, wake), "lock-assert--bh_lock--wake_futex",
					off ? "wake_futex() unlocked, lockdep off"
					    : "wake_futex() unlocked");
		}
		lockdep_off = false;
		waker_lock = OTHER_BUCKET;
		harness_finding(run(2, wake), "lock-assert--bh_lock--wake_futex",
				"wake_futex() under another bucket's lock");
		waker_lock = OWN_BUCKET;
		harness_no_finding(run(2, wake), "wake_futex() under the bucket lock");
		CHECK_EQ(waited, 0, "woken: futex_wait returned 0");
		harness_finding(run(2, move), "lock-assert--bh_lock--unqueue_me",
				"unqueue_me() under the lock lock_ptr names, not its chain's");
	}
	kcfg = kernel_by_name("2.6.11");
	waker_lock = NO_LOCK;
	run(2, wake);
	CHECK(reported("WARNING: lock not held: &bh->lock in wake_futex", "T2 (pid 2), op ",
		       "does not hold it\n\nT2 holds 0 locks\n", NULL),
	      "wake_futex's report");
	/* another bucket's lock: the report names both instances */
	waker_lock = OTHER_BUCKET;
	run(2, wake);
	char want[2][128];
	snprintf(want[0], sizeof(want[0]),
		 "lockdep_assert_held(&bh->lock (futex_queues[%d])) in "
		 "wake_futex:\n",
		 bucket[0]->index);
	snprintf(want[1], sizeof(want[1]),
		 "holds #0: &bh->lock (futex_queues[%d]) (write), taken "
		 "at waker\n",
		 bucket[1]->index);
	CHECK(strstr(finding.body, want[0]) && strstr(finding.body, want[1]),
	      "want '%s' and '%s' in:\n%s", want[0], want[1], finding.body);
}

/* The helpers every change of a futex_q's chain goes through (ref/futex.c), called
 * directly (futex_test_chain_*()) by a body with no assertion of its own: each asserts
 * the lock of the bucket whose chain it changes; a move both. T1 waits; T2 is the body,
 * which leaves T1 queued in its own bucket or ends at the finding. */
enum chain_case {
	CH_DEL,       /* list_del(), no lock */
	CH_DEL_INIT,  /* list_del_init(), no lock */
	CH_ADD,       /* list_add_tail(), no lock (unlinked under it first) */
	CH_MOVE_FROM, /* list_move_tail(), only the leaving chain's lock */
	CH_MOVE_TO,   /* list_move_tail(), only the new chain's lock */
	CH_RELIST,    /* futex_test_relist() after the wake, no lock */
	CH_LOCKED,    /* each of them under the locks, then the wake: no finding */
	NCHAIN
};
static enum chain_case chain_case;

static void chain_body(void)
{
	find_buckets();
	q = futex_test_first_waiter(addr);
	CHECK(q != NULL, "T1 is queued");
	switch (chain_case) {
	case CH_DEL:
		futex_test_chain_del(q);
		break;
	case CH_DEL_INIT:
		futex_test_chain_del_init(q);
		break;
	case CH_ADD:
		spin_lock(bucket[0]);
		futex_test_chain_del_init(q);
		spin_unlock(bucket[0]);
		futex_test_chain_add(q, bucket[0]);
		break;
	case CH_MOVE_FROM:
		spin_lock(bucket[0]);
		futex_test_chain_move(q, bucket[1]);
		spin_unlock(bucket[0]);
		break;
	case CH_MOVE_TO:
		spin_lock(bucket[1]);
		futex_test_chain_move(q, bucket[1]);
		spin_unlock(bucket[1]);
		break;
	case CH_RELIST:
		spin_lock(bucket[0]);
		futex_test_wake(q);
		spin_unlock(bucket[0]);
		futex_test_relist(q);
		break;
	case CH_LOCKED:
		spin_lock(bucket[0]);
		futex_test_chain_del(q);
		futex_test_chain_add(q, bucket[0]);
		futex_test_chain_del_init(q);
		futex_test_chain_add(q, bucket[0]);
		spin_lock_nested(bucket[1], SINGLE_DEPTH_NESTING);
		futex_test_chain_move(q, bucket[1]);
		futex_test_chain_move(q, bucket[0]);
		spin_unlock(bucket[1]);
		futex_test_wake(q);
		spin_unlock(bucket[0]);
		break;
	case NCHAIN:
		break;
	}
}

static void test_chain_helpers(void)
{
	static const char *const fn[NCHAIN] = {"futex_test_chain_del",  "futex_test_chain_del_init",
					       "futex_test_chain_add",  "futex_test_chain_move",
					       "futex_test_chain_move", "futex_test_relist"};
	task_fn fns[] = {waiter, chain_body};
	char token[96];

	for_each_kernel (k) {
		kcfg = k;
		for (chain_case = 0; chain_case < CH_LOCKED; chain_case++) {
			snprintf(token, sizeof(token), "lock-assert--bh_lock--%s", fn[chain_case]);
			harness_finding(run(2, fns), token, token);
		}
		chain_case = CH_LOCKED;
		harness_no_finding(run(2, fns), "each chain helper under its locks");
		CHECK_EQ(waited, 0, "woken: futex_wait returned 0");
	}
	/* a move asserts both: the report names the bucket lock missing */
	kcfg = kernel_by_name("2.6.11");
	char want[96];
	for (chain_case = CH_MOVE_FROM; chain_case <= CH_MOVE_TO; chain_case++) {
		run(2, fns);
		snprintf(want, sizeof(want),
			 "(&bh->lock (futex_queues[%d])) in futex_test_chain_move",
			 bucket[chain_case == CH_MOVE_FROM ? 1 : 0]->index);
		CHECK(strstr(finding.body, want), "want '%s' in:\n%s", want, finding.body);
	}
}

/* --- the futex_q once its waker is done with it --- */

static bool nap_first;

static void late_waker(void)
{
	find_buckets();
	q = futex_test_first_waiter(addr);
	spin_lock(bucket[0]);
	futex_test_wake(q);
	spin_unlock(bucket[0]);
	if (nap_first)
		nap(1); /* T1 returns meanwhile */
	spin_lock(bucket[0]);
	futex_test_wake(q); /* the late touch */
	spin_unlock(bucket[0]);
}

static void test_use_after_wake(void)
{
	task_fn fns[] = {waiter, late_waker};

	for_each_kernel (k) {
		kcfg = k;
		nap_first = true;
		harness_finding(run(2, fns), "use-after-wake--futex_q--wake_futex",
				"wake_futex() again after the waiter returned");
		CHECK(!strcmp(finding.title, "BUG: futex_q used after its waiter returned"),
		      "[%s] title '%s'", k->name, finding.title);
		CHECK_EQ(waited, 0, "the waiter returned 0");
		nap_first = false;
		harness_finding(run(2, fns), "use-after-wake--futex_q--wake_futex",
				"wake_futex() again at once");
		CHECK(!strcmp(finding.title, "BUG: futex_q used after wake_futex() released it"),
		      "[%s] title '%s'", k->name, finding.title);
		CHECK_EQ(waited, -1000, "the waiter has not returned yet");
	}
	kcfg = kernel_by_name("2.6.11");
	nap_first = true;
	run(2, fns);
	CHECK(strstr(finding.body, "touches in wake_futex the futex_q of T1's futex_wait:\n"
				   "  wake_futex() by T2 cleared its lock_ptr at ") &&
		  strstr(finding.body, "  T1's futex_wait returned at ") &&
		  strstr(finding.body, "\"Afterwards, the futex_q must not be accessed.\"") &&
		  strstr(finding.body, "holds #0: &bh->lock (futex_queues[") &&
		  strstr(finding.body, "]) (write), taken at late_waker"),
	      "body:\n%s", finding.body);
}

/* A waker that cleared lock_ptr and then touches q: the store is the hand-back, so the
 * next touch is the finding, with no schedule and whatever the books say (the planted
 * bug bench/mutants/wake-futex-lock-ptr-first.mutant). */
static void clearing_waker(void)
{
	find_buckets();
	q = futex_test_first_waiter(addr);
	spin_lock(bucket[0]);
	futex_test_set_lock_ptr(q, NULL);
	futex_test_wake(q);
	spin_unlock(bucket[0]);
}

static void test_lock_ptr_cleared(void)
{
	task_fn fns[] = {waiter, clearing_waker};

	for_each_kernel (k) {
		kcfg = k;
		harness_finding(run(2, fns), "use-after-wake--futex_q--wake_futex",
				"wake_futex() of a futex_q whose lock_ptr is NULL");
		CHECK(!strcmp(finding.title, "BUG: futex_q used after wake_futex() released it") &&
			  strstr(finding.body, "its lock_ptr is already NULL: from then on T1 may "
					       "return at any moment"),
		      "[%s] title '%s', body:\n%s", k->name, finding.title, finding.body);
	}
}

/* --- the ZERO_PAGE is never written --- */

static bool zero_page_writable; /* the planted bug: a read-only ZERO_PAGE PTE made RW */

static void zero_page_body(void)
{
	uint32_t v = 1;

	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_PRIVATE, -1, 0);
	CHECK_EQ(user_load(addr, &v), 0, "the read");
	CHECK_EQ(v, 0, "an untouched page reads 0");
	pte_t *pte = pte_offset(current->mm, addr);
	if (kcfg->mm->anon_read_fault_allocates) { /* 2.6.24 on: no ZERO_PAGE to write into */
		CHECK(pte && pte->page && pte->page != ZERO_PAGE(addr) && (pte->flags & _PAGE_RW),
		      "[%s] the read maps a page of its own, writable", kcfg->name);
		return;
	}
	CHECK(pte && pte->page == ZERO_PAGE(addr) && !(pte->flags & _PAGE_RW),
	      "the read maps the ZERO_PAGE read-only");
	if (zero_page_writable && pte)
		pte->flags |= _PAGE_RW;
	user_store(addr, 7);
}

static void test_zero_page(void)
{
	task_fn fns[] = {zero_page_body};

	for_each_kernel (k) {
		kcfg = k;
		zero_page_writable = false;
		harness_no_finding(run(1, fns),
				   "a store after a read: do_wp_page() copies the ZERO_PAGE");
		if (k->mm->anon_read_fault_allocates)
			continue; /* the read checked its own page: the ZERO_PAGE is not mapped */
		zero_page_writable = true;
		harness_finding(run(1, fns), "zero-page-write--user_store",
				"a store through a writable PTE of the ZERO_PAGE");
		CHECK(!strcmp(finding.title, "BUG: store into the ZERO_PAGE"), "[%s] title '%s'",
		      k->name, finding.title);
	}
	zero_page_writable = false;
}

/* --- lockdep's circular rule on the instances of one class --- */

static void a_then_b(void)
{
	spin_lock(bucket[0]);
	spin_lock_nested(bucket[1], SINGLE_DEPTH_NESTING);
	spin_unlock(bucket[1]);
	spin_unlock(bucket[0]);
}

static void b_then_a(void)
{
	spin_lock(bucket[1]);
	spin_lock_nested(bucket[0], SINGLE_DEPTH_NESTING);
	spin_unlock(bucket[0]);
	spin_unlock(bucket[1]);
}

static void buckets_t1(void)
{
	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_SHARED, -1, 0);
	find_buckets();
	a_then_b();
}

static void order_check(void)
{
	const struct lockdep_prediction *p = lockdep_prediction();

	CHECK(p->made && p->circular && p->instances && p->task == 2 &&
		  !strcmp(p->token, "lockdep--circular--bh_lock--bh_lock--b_then_a"),
	      "[%s] prediction: made %d, instances %d, task %d, token '%s'", kcfg->name, p->made,
	      p->instances, p->task, p->made ? p->token : "");
}

/* Requeues of futexes in two buckets, each way: 2.6.11 takes the two in address order. */
static unsigned long second;
static void requeue_t1(void)
{
	addr = (unsigned long)sys_mmap2(0, P, RW, MAP_SHARED, -1, 0);
	find_buckets();
	for (second = addr + 4; futex_test_bucket_lock(second) == bucket[0]; second += 4)
		;
	do_futex(addr, FUTEX_REQUEUE, 1, 0, second, 1, 0);
}

static void requeue_t2(void)
{
	do_futex(second, FUTEX_REQUEUE, 1, 0, addr, 1, 0);
}

static spinlock_t plain[2];
static void plain_ab(void)
{
	spin_lock(&plain[0]);
	spin_lock_nested(&plain[1], SINGLE_DEPTH_NESTING);
	spin_unlock(&plain[1]);
	spin_unlock(&plain[0]);
}

static void plain_ba(void)
{
	spin_lock(&plain[1]);
	spin_lock_nested(&plain[0], SINGLE_DEPTH_NESTING);
	spin_unlock(&plain[0]);
	spin_unlock(&plain[1]);
}

static void plain_ab_off(void)
{
	lockdep_reset(false);
	plain_ab();
}

static void test_instance_order(void)
{
	task_fn inverted[] = {buckets_t1, b_then_a}, same[] = {buckets_t1, a_then_b},
		requeues[] = {requeue_t1, requeue_t2}, plains[] = {plain_ab, plain_ba},
		plains_off[] = {plain_ab_off, plain_ba};

	for_each_kernel (k) {
		kcfg = k;
		/* no preemption: the two never meet, and the order is reported all the same */
		harness_no_finding(run(2, inverted), "buckets taken both ways");
		order_check();
		run(2, same);
		CHECK(!lockdep_prediction()->made, "[%s] one order twice: '%s'", k->name,
		      lockdep_prediction()->token);
		/* the model's futex_requeue(), each way: address order, no report */
		harness_no_finding(run(2, requeues), "two requeues, futexes swapped");
		CHECK(!lockdep_prediction()->made, "[%s] requeues each way: '%s'", k->name,
		      lockdep_prediction()->token);
	}
	kcfg = kernel_by_name("2.6.11");
	run(2, inverted);
	lockdep_finding();
	CHECK(!strcmp(finding.title, "possible circular locking dependency detected"), "title '%s'",
	      finding.title);
	char want[256];
	int i0 = bucket[0]->index, i1 = bucket[1]->index;
	snprintf(want, sizeof(want),
		 "T2 (pid 2) is trying to acquire &bh->lock/1 (futex_queues[%d]) (write) at "
		 "b_then_a",
		 i0);
	CHECK(strstr(finding.body, want), "want '%s' in:\n%s", want, finding.body);
	snprintf(want, sizeof(want),
		 "but it already holds:\n  &bh->lock (futex_queues[%d]) (write), taken at b_then_a",
		 i1);
	CHECK(strstr(finding.body, want), "want '%s' in:\n%s", want, finding.body);
	snprintf(want, sizeof(want),
		 "  T1 held &bh->lock (futex_queues[%d]) (taken at a_then_b) when it took "
		 "&bh->lock/1 (futex_queues[%d]) at a_then_b",
		 i0, i1);
	CHECK(strstr(finding.body, want), "want '%s' in:\n%s", want, finding.body);
	/* locks of no array: by the order the run met them */
	spin_lock_init(&plain[0], "&x->lock");
	spin_lock_init(&plain[1], "&x->lock");
	run(2, plains);
	lockdep_finding();
	CHECK(!strcmp(lockdep_prediction()->token, "lockdep--circular--x_lock--x_lock--plain_ba") &&
		  strstr(finding.body, "T1 held &x->lock (instance #1) (taken at plain_ab) when it "
				       "took &x->lock/1 (instance #2)"),
	      "token '%s', body:\n%s", lockdep_prediction()->token, finding.body);
	/* lockdep's checking off (--oracles without lockdep): no report */
	run(2, plains_off);
	CHECK(!lockdep_prediction()->made, "lockdep off: '%s'", lockdep_prediction()->token);
}

int main(void)
{
	test_mmap_sem();
	test_vma_helpers();
	test_report();
	test_page_table_lock();
	test_pte_helpers();
	test_bucket_lock();
	test_chain_helpers();
	test_use_after_wake();
	test_lock_ptr_cleared();
	test_zero_page();
	test_instance_order();
	return harness_exit();
}
