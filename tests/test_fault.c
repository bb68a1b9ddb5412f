/* The page-fault path and the mm syscalls (REFERENCE.md "The page fault path";
 * arch/i386/mm/fault.c, mm/mmap.c, mm/mprotect.c, 2.6.11).
 *
 * Kernel-internal facts (which path a fault takes, whether it touched mmap_sem, the VMA
 * list) are checked with hand-written task bodies; what a user program sees is checked
 * with text programs on every kernel. In text programs a futex_wait with a timeout reads
 * a word back: -ETIMEDOUT means the word held the value, -EWOULDBLOCK that it did not.
 */
#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/ptrace.h"
#include "../ref/report.h"
#include "../ref/uaccess.h"

#include <string.h>

#define P    PAGE_SIZE
#define PRIV (MAP_PRIVATE | MAP_ANONYMOUS)
#define RW   (PROT_READ | PROT_WRITE)

/* order, note() and nap(), count_events() and find_event(): tests/harness.h */

static int nfaults(void)
{
	return count_events(EV_FAULT, NULL);
}

/* rwsem operations so far (spinlocks left out): acquisitions, failed trylocks, releases. */
static int nsem_ops(void)
{
	return count_events(EV_LOCK, NULL) - count_events(EV_LOCK, "spin_lock") +
	       count_events(EV_TRYFAIL, NULL) + count_events(EV_UNLOCK, NULL) -
	       count_events(EV_UNLOCK, "spin_unlock");
}

static bool present(unsigned long addr)
{
	pte_t *pte = pte_offset(current->mm, addr);

	return pte && (pte->flags & _PAGE_PRESENT);
}

static void check_sem_free(void)
{
	struct mm_struct *mm = harness_mm();

	CHECK_EQ(mm->mmap_sem.activity, 0, "mmap_sem activity after the run");
	CHECK(list_empty(&mm->mmap_sem.wait_list), "mmap_sem waiters after the run");
}

static enum sim_result run(int n, const task_fn *fns)
{
	order[0] = 0;
	return run_tasks(n, fns, NULL, 0);
}

/* One hand-written task body alone (WHAT names it): it runs to the end, mmap_sem free. */
static void run_alone(task_fn fn, const char *what)
{
	CHECK_EQ(run(1, &fn), SIM_OK, what);
	check_sem_free();
}

/* run_text() after run_tasks(): the harness tears run_tasks()' mm down only at its next
 * call, and mm_alloc() reuses the one page table, so drop those pages first. */
static void run_prog(const char *text, const char *kernel, struct run_result *r)
{
	if (harness_mm())
		mmput(harness_mm());
	run_text(text, kernel, r);
}

/* --- present page: no fault --- */

static void present_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t v = 0;

	CHECK(!present(a), "a fresh mapping has no PTE");
	int f0 = nfaults();
	CHECK_EQ(user_store(a, 7), 0, "first store");
	CHECK_EQ(nfaults(), f0 + 1, "the first store faults");
	CHECK(present(a), "the fault installed the page");
	CHECK_EQ(user_load(a, &v), 0, "load of the present page");
	CHECK_EQ(v, 7, "value loaded");
	CHECK_EQ(get_user(v, a), 0, "get_user of the present page");
	CHECK_EQ(v, 7, "value from get_user");
	CHECK_EQ(nfaults(), f0 + 1, "no fault on a present page");
	CHECK_EQ(current->segv, 0, "SIGSEGVs");
}

static void test_present_page_does_not_fault(void)
{
	run_alone(present_t1, "a present page");
}

/* --- absent page: the fault takes mmap_sem for read, installs the page, releases it --- */

static void absent_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, 2 * P, PROT_READ, PRIV, -1, 0);
	uint32_t v = 1;

	int f0 = nfaults(), l0 = count_events(EV_LOCK, "down_read_trylock");
	CHECK_EQ(user_load(a, &v), 0, "user load of an absent page");
	CHECK_EQ(v, 0, "a fresh page reads as zero");
	CHECK_EQ(nfaults(), f0 + 1, "one fault");
	CHECK_EQ(count_events(EV_LOCK, "down_read_trylock"), l0 + 1, "fault took mmap_sem");
	CHECK(present(a), "page installed");
	pte_t *pte = pte_offset(current->mm, a);
	CHECK(pte->flags & _PAGE_USER, "user-readable PTE");
	CHECK(!(pte->flags & _PAGE_RW), "read-only mapping: no _PAGE_RW");
	CHECK_EQ(current->mm->mmap_sem.activity, 0, "the fault released mmap_sem");

	/* the same from the kernel: get_user() faults the second page in */
	v = 1;
	CHECK_EQ(get_user(v, a + P), 0, "get_user of an absent page");
	CHECK_EQ(v, 0, "value");
	CHECK(present(a + P), "page installed by a kernel-mode fault");
	CHECK_EQ(nfaults(), f0 + 2, "two faults");
	CHECK_EQ(current->segv, 0, "SIGSEGVs");
}

static void test_absent_page_faults_in(void)
{
	run_alone(absent_t1, "an absent page");
}

/* --- bad address: SIGSEGV from user mode, -EFAULT through the fixup from the kernel --- */

static void bad_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t v;

	CHECK_EQ(user_load(0, &v), -EFAULT, "user load of NULL");
	CHECK_EQ(current->segv, 1, "SIGSEGV for NULL");
	CHECK_EQ(user_store(a + P, 1), -EFAULT, "user store past the mapping");
	CHECK_EQ(current->segv, 2, "SIGSEGV past the mapping");
	CHECK_EQ(user_load(0x1000, &v), -EFAULT, "user load outside the mmap window");
	CHECK_EQ(current->segv, 3, "SIGSEGV outside the window");

	CHECK_EQ(get_user(v, 0), -EFAULT, "get_user of NULL");
	CHECK_EQ(get_user(v, a + P), -EFAULT, "get_user past the mapping");
	CHECK_EQ(put_user(1, a + P), -EFAULT, "put_user past the mapping");
	CHECK_EQ(get_user(v, TASK_SIZE), -EFAULT, "get_user of a kernel address (access_ok)");
	CHECK_EQ(copy_to_user(a + P - 2, &v, 4), 2, "copy_to_user across the end: 2 left");
	CHECK_EQ(current->segv, 3, "kernel-mode faults send no SIGSEGV");
	CHECK_EQ(current->mm->mmap_sem.activity, 0, "bad_area released mmap_sem");
}

static void test_bad_address(void)
{
	run_alone(bad_t1, "bad addresses");
}

/* The same from a program: a user load of NULL or of an unmapped page is a SIGSEGV (the
 * op returns -EFAULT), on every kernel. */
static void test_bad_address_text(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=1 prot=rw\n"
			   "  load null\n"
			   "  store m+4096 val=1\n" /* one page past the mapping */
			   "  load m\n";
	struct run_result r;

	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[1], -EFAULT, "load null");
		CHECK_EQ(r.ret[2], -EFAULT, "store past the mapping");
		CHECK_EQ(r.ret[3], 0, "load m");
		CHECK_EQ(r.segv, 2, "SIGSEGVs");
	}
}

/* --- PROT_NONE: SIGSEGV from user mode; futex_wait says -EACCES where get_futex_key looks
 * first (every kernel but olof-rfc) and -EFAULT on olof-rfc, whose check_user_page_readable()
 * loop faults the page in with get_user() before get_futex_key() runs, and that fault
 * fails the VM_READ check --- */

static void test_prot_none(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=2 prot=none\n"
			   "  load m\n"
			   "  store m val=1\n"
			   "  futex_wait m val=0\n"
			   "  futex_wake m nr=1\n";
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_prog(text, kn, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", kn, r.verdict);
		CHECK_EQ(r.ret[1], -EFAULT, "load of PROT_NONE");
		CHECK_EQ(r.ret[2], -EFAULT, "store to PROT_NONE");
		CHECK_EQ(r.segv, 2, "SIGSEGVs");
		/* olof-rfc's loop reads the word before get_futex_key(); a key from the page
		 * (2.6.28 on) is get_user_pages()' -EFAULT for a VMA without VM_READ */
		CHECK_EQ(r.ret[3],
			 k->futex->read == FUTEX_READ_CHECK_PAGE || k->futex->key_from_page
			     ? -EFAULT
			     : -EACCES,
			 "futex_wait on PROT_NONE");
		CHECK_EQ(r.ret[4], k->futex->key_from_page ? -EFAULT : -EACCES,
			 "futex_wake on PROT_NONE (no read, every kernel)");
	}
}

/* A present page made PROT_NONE: the model's PTE stays present without _PAGE_USER (i386's
 * PAGE_NONE: _PAGE_PROTNONE, no page for the hardware), so a load faults, finds no
 * VM_READ and gets a SIGSEGV; mprotect back to read and the contents are still there. */
static void test_prot_none_present_page(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=1 prot=rw\n"
			   "  store m val=5\n"
			   "  mprotect m pages=1 prot=none\n"
			   "  load m\n"
			   "  mprotect m pages=1 prot=r\n"
			   "  load m\n"
			   "  futex_wait m val=5 timeout=1\n"
			   "  store m val=6\n";
	struct run_result r;

	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[1], 0, "store");
		CHECK_EQ(r.ret[2], 0, "mprotect none");
		CHECK_EQ(r.ret[3], -EFAULT, "load of a present PROT_NONE page");
		CHECK_EQ(r.ret[4], 0, "mprotect r");
		CHECK_EQ(r.ret[5], 0, "load after mprotect r");
		CHECK_EQ(r.ret[6], -ETIMEDOUT, "the word still holds 5");
		CHECK_EQ(r.ret[7], -EFAULT, "store to the read-only page");
		CHECK_EQ(r.segv, 2, "SIGSEGVs");
	}
}

/* The same PROT_NONE page, loaded while another task's mprotect() holds mmap_sem to make
 * it readable again: the load faults, do_page_fault()'s down_read() waits for the writer,
 * and the VMA it then finds allows the read. The hardware saw no page (i386's PAGE_NONE
 * has no _PAGE_PRESENT), so the error code has no PF_PROT, and the fault maps the page:
 * no SIGSEGV. (With PF_PROT the read would be refused whatever the VMA says.) */
static void test_prot_none_made_readable_meanwhile(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=1 prot=rw\n"
			   "  store m val=5\n"
			   "  mprotect m pages=1 prot=none\n"
			   "  load m\n"
			   "task 2\n"
			   "  mprotect m pages=1 prot=r\n"
			   /* T2 in before T1's load; T1's fault while T2 holds mmap_sem */
			   "preempt 1 at op 4 point 1 to 2\n"
			   "preempt 2 at op 1 point 4 to 1\n";
	struct run_result r;

	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.unfired, 0, "both preemptions fired");
		CHECK_EQ(r.loaded[3], 5, "what the load read");
		CHECK_EQ(r.ret[3], 0, "load of the page made readable during its fault");
		CHECK_EQ(r.ret[4], 0, "mprotect r");
		CHECK_EQ(r.segv, 0, "SIGSEGVs");
	}
}

/* --- write to a read-only mapping: SIGSEGV whether the page is absent (write fault,
 * no VM_WRITE) or present (PF_PROT|PF_WRITE); put_user from the kernel gets -EFAULT --- */

static void ro_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, 2 * P, PROT_READ, PRIV, -1, 0);
	uint32_t v;

	CHECK_EQ(user_store(a, 1), -EFAULT, "store to an absent read-only page");
	CHECK(!present(a), "the failed write fault installed nothing");
	CHECK_EQ(user_load(a, &v), 0, "load");
	CHECK_EQ(user_store(a, 1), -EFAULT, "store to a present read-only page");
	CHECK_EQ(current->segv, 2, "SIGSEGVs");
	CHECK_EQ(put_user(1, a), -EFAULT, "put_user to a present read-only page");
	CHECK_EQ(put_user(1, a + P), -EFAULT, "put_user to an absent read-only page");
	CHECK_EQ(current->segv, 2, "no SIGSEGV from the kernel");
	CHECK_EQ(user_load(a, &v), 0, "load again");
	CHECK_EQ(v, 0, "the page was not written");
}

static void test_write_to_read_only(void)
{
	run_alone(ro_t1, "writes to a read-only mapping");
}

/* --- atomic context: with the preempt count raised a fault takes no mmap_sem and
 * returns through the fixup (what __copy_from_user_inatomic relies on) --- */

static void atomic_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t v = 1;

	int f0 = nfaults(), s0 = nsem_ops();
	inc_preempt_count();
	CHECK_EQ(__copy_from_user_inatomic(&v, a, 4), 4, "inatomic copy of an absent page");
	dec_preempt_count();
	CHECK_EQ(nfaults(), f0 + 1, "it faulted");
	CHECK_EQ(nsem_ops(), s0, "the fault did not touch mmap_sem");
	CHECK(!present(a), "nothing installed");
	CHECK_EQ(current->segv, 0, "no SIGSEGV");

	CHECK_EQ(user_store(a, 3), 0, "store (faults the page in)");
	f0 = nfaults();
	inc_preempt_count();
	CHECK_EQ(__copy_from_user_inatomic(&v, a, 4), 0, "inatomic copy of a present page");
	dec_preempt_count();
	CHECK_EQ(v, 3, "value");
	CHECK_EQ(nfaults(), f0, "no fault");
}

static void test_atomic_fault_takes_no_sem(void)
{
	run_alone(atomic_t1, "a fault in atomic context");
}

/* With mmap_sem held for write by another task, the atomic fault still returns at once,
 * while a plain get_user() fault fails its trylock and sleeps in down_read() until the
 * writer leaves. */
static unsigned long shared_addr;

static void writer_t1(void)
{
	shared_addr = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	down_write(&current->mm->mmap_sem);
	note("down_write");
	nap(1);
	note("up_write");
	up_write(&current->mm->mmap_sem);
}

static void atomic_vs_writer_t2(void)
{
	uint32_t v;

	inc_preempt_count();
	CHECK_EQ(__copy_from_user_inatomic(&v, shared_addr, 4), 4, "inatomic copy");
	dec_preempt_count();
	note("fixup");
	CHECK_EQ(get_user(v, shared_addr), 0, "get_user");
	note("get_user");
}

static void test_atomic_fault_does_not_wait_for_writer(void)
{
	task_fn fns[] = {writer_t1, atomic_vs_writer_t2};

	CHECK_EQ(run(2, fns), SIM_OK, "run");
	CHECK(!strcmp(order, "T1:down_write T2:fixup T1:up_write T2:get_user"), "order %s", order);
	CHECK_EQ(count_events(EV_TRYFAIL, "down_read_trylock"), 1,
		 "get_user's fault failed its trylock once");
	check_sem_free();
}

/* The deadlock itself, by hand: T1 holds mmap_sem for read and faults; T2's mmap()
 * queued for write in between, so the fault's down_read() queues behind it. Raising
 * the preempt count around the access (the 2.6.11 fix) avoids it. */
static void fault_deadlock_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t v;

	down_read(&current->mm->mmap_sem);
	nap(1);
	get_user(v, a); /* never returns */
	note("get_user");
}

static void fault_atomic_t1(void)
{
	unsigned long a = (unsigned long)sys_mmap2(0, P, RW, PRIV, -1, 0);
	uint32_t v;

	down_read(&current->mm->mmap_sem);
	nap(1);
	inc_preempt_count();
	CHECK_EQ(__copy_from_user_inatomic(&v, a, 4), 4, "inatomic copy under mmap_sem");
	dec_preempt_count();
	note("fixup");
	up_read(&current->mm->mmap_sem);
	CHECK_EQ(get_user(v, a), 0, "get_user without mmap_sem");
	note("get_user");
}

static void mmap_t2(void)
{
	sys_mmap2(0, P, RW, PRIV, -1, 0);
	note("mmap");
}

static void test_fault_under_mmap_sem(void)
{
	task_fn deadlock[] = {fault_deadlock_t1, mmap_t2};
	task_fn fixed[] = {fault_atomic_t1, mmap_t2};

	CHECK_EQ(run(2, deadlock), SIM_HANG, "get_user under mmap_sem");
	CHECK(!strcmp(finding.token, "deadlock--do_page_fault--fault_deadlock_t1"), "token '%s'",
	      finding.token);
	CHECK(!strcmp(order, ""), "order %s", order);

	CHECK_EQ(run(2, fixed), SIM_OK, "inatomic copy under mmap_sem");
	CHECK(!finding.found, "finding '%s'", finding.token);
	/* T1's up_read handed the lock to T2's mmap, so the get_user() fault waits for it,
	 * holding nothing */
	CHECK(!strcmp(order, "T1:fixup T2:mmap T1:get_user"), "order %s", order);
	check_sem_free();
}

/* Sleeping with the preempt count raised is a finding of its own. */
static void sleep_atomic_t1(void)
{
	inc_preempt_count();
	down_read(&current->mm->mmap_sem);
	note("down_read");
}

static void test_sleep_in_atomic(void)
{
	task_fn fns[] = {sleep_atomic_t1};

	CHECK_EQ(run(1, fns), SIM_STOPPED, "run");
	CHECK(!strcmp(finding.token, "sleep-in-atomic--rwsem_down_read"), "token '%s'",
	      finding.token);
}

/* The futex read on an untouched page, from the trace: 2.6.11's
 * get_futex_value_locked() fault goes to the fixup without a trylock, then futex_wait
 * drops mmap_sem before the get_user() that faults the page in; 2.6.11-rc4's get_user()
 * fault takes mmap_sem for read a second time (the trylock succeeds: nobody waits), and
 * so does every kernel that reads the word as it does, but with PF_MMAP_SEM. */
static void test_futex_read_fault_paths(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=1 prot=rw\n"
			   "  futex_wait m val=1\n";
	struct run_result r;

	/* d: futex_wait's down_read; u: the first up_read after it; g: the get_user();
	 * t: the first successful trylock after g */
	for_each_kernel (k) {
		const char *kn = k->name;
		run_prog(text, kn, &r);
		CHECK(r.ret[1] == -EWOULDBLOCK, "[%s] futex_wait: %ld", kn, r.ret[1]);
		if (k->futex->read == FUTEX_READ_LOCKED_RETRY) { /* 2.6.11 */
			int d = find_event(0, 0, 0, EV_LOCK, "down_read");
			int c = find_event(d, 0, 0, EV_UACCESS, "__copy_from_user_inatomic");
			int f = find_event(c, 0, 0, EV_FAULT, NULL);
			int u = find_event(d, 0, 0, EV_UNLOCK, "up_read");
			int g = find_event(d, 0, 0, EV_UACCESS, "get_user");
			int t = find_event(d, 0, 0, EV_LOCK, "down_read_trylock");
			CHECK(d >= 0 && c > d && f > c,
			      "[%s] the inatomic read faults (d=%d c=%d f=%d)", kn, d, c, f);
			CHECK(u > f && g > u && t > g,
			      "[%s] no trylock in the inatomic fault; up_read, then get_user "
			      "faults and takes mmap_sem (f=%d u=%d g=%d t=%d)",
			      kn, f, u, g, t);
			CHECK(find_event(0, 0, 0, EV_TRYFAIL, NULL) == -1, "[%s] no failed trylock",
			      kn);
		}
		if (k->futex->read == FUTEX_READ_GET_USER) { /* 2.6.11-rc4 and its variants */
			CHECK(find_event(0, 0, 0, EV_UACCESS, "__copy_from_user_inatomic") == -1,
			      "[%s] has no inatomic read", kn);
		}
		/* the fault takes mmap_sem again, unless PF_MMAP_SEM says the task holds it */
		if (k->futex->read == FUTEX_READ_GET_USER && !k->pf_mmap_sem) {
			int d = find_event(0, 0, 0, EV_LOCK, "down_read");
			int g = find_event(d, 0, 0, EV_UACCESS, "get_user");
			int f = find_event(g, 0, 0, EV_FAULT, NULL);
			int t = find_event(d, 0, 0, EV_LOCK, "down_read_trylock");
			int u = find_event(d, 0, 0, EV_UNLOCK, "up_read");
			CHECK(d >= 0 && g > d && f > g && t > f && u > t,
			      "[%s] get_user faults with mmap_sem held and the fault takes it "
			      "again (d=%d g=%d f=%d t=%d u=%d)",
			      kn, d, g, f, t, u);
		}
	}
}

/* --- mm: a partial munmap splits the VMA; the pages either side keep their contents,
 * the hole is unmapped --- */

static void munmap_t1(void)
{
	struct mm_struct *mm = current->mm;
	unsigned long a = (unsigned long)sys_mmap2(0, 3 * P, RW, PRIV, -1, 0);
	uint32_t v;

	for (unsigned long i = 0; i < 3; i++)
		CHECK_EQ(user_store(a + i * P, 1 + (uint32_t)i), 0, "store");
	CHECK_EQ(mm->map_count, 1, "one VMA");
	CHECK_EQ(sys_munmap(a + P, P), 0, "munmap of the middle page");
	CHECK_EQ(mm->map_count, 2, "split into two VMAs");
	CHECK(mm->mmap[0].vm_start == a && mm->mmap[0].vm_end == a + P, "low VMA");
	CHECK(mm->mmap[1].vm_start == a + 2 * P && mm->mmap[1].vm_end == a + 3 * P, "high VMA");
	CHECK(!present(a + P), "the hole's PTE is gone");
	CHECK(present(a) && present(a + 2 * P), "the other PTEs stay");
	CHECK_EQ(user_load(a, &v), 0, "load below the hole");
	CHECK_EQ(v, 1, "value below");
	CHECK_EQ(user_load(a + 2 * P, &v), 0, "load above the hole");
	CHECK_EQ(v, 3, "value above");
	CHECK_EQ(current->segv, 0, "no SIGSEGV yet");
	CHECK_EQ(user_load(a + P, &v), -EFAULT, "load in the hole");
	CHECK_EQ(current->segv, 1, "SIGSEGV in the hole");
	CHECK_EQ(get_user(v, a + P), -EFAULT, "get_user in the hole");
}

static void test_partial_munmap_splits(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=3 prot=rw\n"
			   "  store m val=1\n"
			   "  store m+4096 val=2\n"
			   "  store m+8192 val=3\n"
			   "  munmap m+4096 pages=1\n"
			   "  load m\n"
			   "  load m+8192\n"
			   "  load m+4096\n"
			   "  futex_wait m val=1 timeout=1\n"
			   "  futex_wait m+8192 val=3 timeout=1\n"
			   "  futex_wait m+4096 val=2 timeout=1\n";
	struct run_result r;

	run_alone(munmap_t1, "a partial munmap");
	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[4], 0, "munmap");
		CHECK_EQ(r.ret[5], 0, "load below");
		CHECK_EQ(r.ret[6], 0, "load above");
		CHECK_EQ(r.ret[7], -EFAULT, "load in the hole");
		CHECK_EQ(r.segv, 1, "SIGSEGVs");
		CHECK_EQ(r.ret[8], -ETIMEDOUT, "the word below holds 1");
		CHECK_EQ(r.ret[9], -ETIMEDOUT, "the word above holds 3");
		CHECK_EQ(r.ret[10], -EFAULT, "futex_wait in the hole");
	}
}

/* --- mm: mprotect of the middle page splits the VMA in three --- */

static void mprotect_t1(void)
{
	struct mm_struct *mm = current->mm;
	unsigned long a = (unsigned long)sys_mmap2(0, 3 * P, RW, PRIV, -1, 0);
	uint32_t v;

	CHECK_EQ(user_store(a + P, 9), 0, "store to the middle page");
	CHECK_EQ(sys_mprotect(a + P, P, PROT_READ), 0, "mprotect of the middle page");
	CHECK_EQ(mm->map_count, 3, "split into three VMAs");
	CHECK(mm->mmap[1].vm_start == a + P && mm->mmap[1].vm_end == a + 2 * P, "middle VMA");
	CHECK_EQ(mm->mmap[0].vm_flags & 0xf, VM_READ | VM_WRITE, "low VMA flags");
	CHECK_EQ(mm->mmap[1].vm_flags & 0xf, VM_READ, "middle VMA flags");
	CHECK_EQ(mm->mmap[2].vm_flags & 0xf, VM_READ | VM_WRITE, "high VMA flags");
	CHECK(!(pte_offset(mm, a + P)->flags & _PAGE_RW), "the present PTE lost _PAGE_RW");
	CHECK_EQ(user_store(a, 1), 0, "store below");
	CHECK_EQ(user_store(a + 2 * P, 1), 0, "store above");
	CHECK_EQ(user_store(a + P, 1), -EFAULT, "store to the read-only middle");
	CHECK_EQ(user_load(a + P, &v), 0, "load of the read-only middle");
	CHECK_EQ(v, 9, "the middle page kept its contents");
	CHECK_EQ(current->segv, 1, "SIGSEGVs");
	CHECK_EQ(sys_mprotect(a + 3 * P, P, PROT_READ), -ENOMEM, "mprotect of a hole");
	/* 2.6.11 goes VMA by VMA: over [a+2P, a+4P) the VMA before the hole is changed */
	CHECK_EQ(sys_mprotect(a + 2 * P, 2 * P, PROT_NONE), -ENOMEM, "mprotect into a hole");
	CHECK_EQ(mm->mmap[2].vm_flags & 0xf, 0, "the VMA before the hole is PROT_NONE now");
	CHECK_EQ(user_load(a + 2 * P, &v), -EFAULT, "so a load there faults");
	/* back to rw: a private page's PTE stays read-only (PAGE_COPY) until a write
	 * fault makes it writable (do_wp_page reuses the page) */
	CHECK_EQ(sys_mprotect(a, 3 * P, RW), 0, "mprotect of the three VMAs to rw");
	CHECK(!(pte_offset(mm, a + P)->flags & _PAGE_RW), "the PTE is still read-only");
	struct page *page = pte_offset(mm, a + P)->page;
	CHECK_EQ(user_store(a + P, 4), 0, "store to it");
	CHECK(pte_offset(mm, a + P)->page == page && (pte_offset(mm, a + P)->flags & _PAGE_RW),
	      "the same page, writable now");
}

static void test_mprotect_splits(void)
{
	const char *text = "task 1\n"
			   "  mmap m pages=3 prot=rw\n"
			   "  mprotect m+4096 pages=1 prot=r\n"
			   "  store m val=1\n"
			   "  store m+4096 val=2\n"
			   "  store m+8192 val=3\n"
			   "  load m+4096\n"
			   "  futex_wait m+4096 val=0 timeout=1\n"
			   "  futex_wait m+8192 val=3 timeout=1\n";
	struct run_result r;

	run_alone(mprotect_t1, "mprotect of the middle page");
	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[1], 0, "mprotect");
		CHECK_EQ(r.ret[2], 0, "store below");
		CHECK_EQ(r.ret[3], -EFAULT, "store to the read-only middle");
		CHECK_EQ(r.ret[4], 0, "store above");
		CHECK_EQ(r.ret[5], 0, "load of the middle");
		CHECK_EQ(r.segv, 1, "SIGSEGVs");
		CHECK_EQ(r.ret[6], -ETIMEDOUT, "the middle word is still 0");
		CHECK_EQ(r.ret[7], -ETIMEDOUT, "the high word holds 3");
	}
}

/* --- mm: munmap, then mmap again: the address is reused (first fit) and the new
 * private page is a fresh zeroed one --- */

static void test_munmap_then_reuse(void)
{
	const char *text = "task 1\n"
			   "  mmap a pages=1 prot=rw\n"
			   "  store a val=9\n"
			   "  munmap a pages=1\n"
			   "  load a\n"
			   "  mmap b pages=1 prot=rw\n"
			   "  load b\n" /* touched: 2.6.28's futex keys loop on an untouched word */
			   "  futex_wait b val=0 timeout=1\n"
			   "  futex_wait b val=9\n"
			   "  store b val=4\n"
			   "  futex_wait a val=4 timeout=1\n";
	struct run_result r;

	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[2], 0, "munmap");
		CHECK_EQ(r.ret[3], -EFAULT, "load after munmap");
		CHECK_EQ(r.segv, 1, "SIGSEGVs");
		CHECK(r.ret[4] > 0 && r.ret[4] == r.ret[0], "mmap reuses the address (%lx, %lx)",
		      (unsigned long)r.ret[4], (unsigned long)r.ret[0]);
		CHECK_EQ(r.ret[6], -ETIMEDOUT, "the new page is zeroed");
		CHECK_EQ(r.ret[7], -EWOULDBLOCK, "the old value is gone");
		CHECK_EQ(r.ret[8], 0, "store");
		CHECK_EQ(r.ret[9], -ETIMEDOUT, "the old address names the new page");
	}
}

/* --- mm: a shared mapping's page keeps its contents: a second access, by the same task
 * or another one, and across mprotect, sees the stored value --- */

static void test_shared_mapping_keeps_contents(void)
{
	const char *text = "task 1\n"
			   "  mmap s pages=2 prot=rw shared\n"
			   "  store s val=5\n"
			   "  futex_wait s val=5 timeout=1\n"
			   "  futex_wait s val=4\n"
			   "  mprotect s pages=2 prot=none\n"
			   "  mprotect s pages=2 prot=rw\n"
			   "  futex_wait s val=5 timeout=1\n"
			   "  munmap s+4096 pages=1\n"
			   "  futex_wait s val=5 timeout=1\n"
			   "task 2\n"
			   "  futex_wait s val=5 timeout=1\n";
	struct run_result r;

	for_each_kernel (k) {
		run_prog(text, k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[1], 0, "store");
		CHECK_EQ(r.ret[2], -ETIMEDOUT, "val=5 matches");
		CHECK_EQ(r.ret[3], -EWOULDBLOCK, "val=4 does not");
		CHECK_EQ(r.ret[6], -ETIMEDOUT, "after mprotect none and back");
		CHECK_EQ(r.ret[7], 0, "munmap of the second page");
		CHECK_EQ(r.ret[8], -ETIMEDOUT, "after a partial munmap");
		CHECK_EQ(r.ret[9], -ETIMEDOUT, "task 2 sees the same page");
		CHECK_EQ(r.segv, 0, "SIGSEGVs");
	}
}

/* --- files (ref/filemap.c): what each mapping of the run's files reads and writes, as
 * 2.6.11's do_mmap_pgoff(), filemap_nopage() and the COW paths make it --- */

static void files_t1(void)
{
	unsigned long priv = (unsigned long)sys_mmap2(0, P, RW, MAP_PRIVATE, 1, 0);
	unsigned long shr = (unsigned long)sys_mmap2(0, P, RW, MAP_SHARED, 1, 0);
	unsigned long priv2 = (unsigned long)sys_mmap2(0, P, PROT_READ, MAP_PRIVATE, 1, 0);
	unsigned long past =
	    (unsigned long)sys_mmap2(0, (FILE_MAX_PAGES + 1) * P, PROT_READ, MAP_PRIVATE, 2, 0);
	unsigned long ro = (unsigned long)sys_mmap2(0, P, PROT_READ, MAP_SHARED, 3, 0);
	unsigned long text = (unsigned long)sys_mmap2(0, P, PROT_READ, MAP_PRIVATE, 3, 0);
	uint32_t v, d = 5;

	CHECK(priv >= TASK_UNMAPPED_BASE && shr > priv && priv2 > shr && past > priv2 &&
		  ro > past && text > ro,
	      "the file mappings: %lx %lx %lx %lx %lx %lx", priv, shr, priv2, past, ro, text);
	CHECK_EQ(sys_mmap2(0, P, RW, MAP_SHARED, 3, 0), -EACCES,
		 "a shared writable mapping of a file opened read-only");
	CHECK_EQ(sys_mmap2(0, P, PROT_READ, MAP_SHARED, NR_FILES + 1, 0), -EBADF, "no such fd");
	CHECK_EQ(sys_mprotect(ro, P, RW), -EACCES, "mprotect asks for VM_WRITE, no VM_MAYWRITE");

	CHECK_EQ(user_load(priv, &v), 0, "a private mapping reads the file");
	CHECK_EQ(v, 0x10101010u, "file 1, page 0");
	CHECK_EQ(user_store(priv, 7), 0, "a store through the private mapping");
	CHECK_EQ(user_load(shr, &v), 0, "the shared mapping");
	CHECK_EQ(v, 0x10101010u, "the file did not get the private store");
	CHECK_EQ(user_store(shr, 9), 0, "a store through the shared mapping");
	CHECK_EQ(user_load(priv, &v), 0, "the private copy");
	CHECK_EQ(v, 7u, "keeps the task's own value");
	CHECK_EQ(user_load(priv2, &v), 0, "another private mapping, untouched");
	CHECK_EQ(v, 9u, "reads the page cache: the shared store");

	CHECK_EQ(user_load(past + (FILE_MAX_PAGES - 1) * P, &v), 0, "the file's last page");
	CHECK_EQ(v, 0x23232323u, "file 2, page 3");
	CHECK_EQ(user_load(past + FILE_MAX_PAGES * P, &v), -EFAULT, "beyond the end of the file");
	CHECK_EQ(current->sigbus, 1, "SIGBUS");
	CHECK_EQ(current->segv, 0, "not SIGSEGV");
	CHECK_EQ(get_user(v, past + FILE_MAX_PAGES * P), -EFAULT,
		 "get_user beyond the end: the fixup");
	CHECK_EQ(current->sigbus, 1, "no SIGBUS from the kernel");

	CHECK_EQ(sys_ptrace(PTRACE_POKEDATA, ro, &d), -EIO, "a forced write needs VM_MAYWRITE");
	CHECK_EQ(sys_ptrace(PTRACE_POKEDATA, text, &d), 0, "a breakpoint in private text");
	CHECK_EQ(sys_ptrace(PTRACE_PEEKDATA, text, &v), 0, "read back");
	CHECK_EQ(v, 5u, "the breakpoint is there");
	CHECK_EQ(user_load(ro, &v), 0, "the file through the shared mapping");
	CHECK_EQ(v, 0x30303030u, "file 3 untouched: the breakpoint went into a copy");
	CHECK_EQ(sys_ptrace(PTRACE_PEEKDATA, past + FILE_MAX_PAGES * P, &v), -EIO,
		 "a forced read beyond the end");
}

static void test_files(void)
{
	run_alone(files_t1, "the run's files");
}

int main(void)
{
	test_present_page_does_not_fault();
	test_absent_page_faults_in();
	test_bad_address();
	test_bad_address_text();
	test_prot_none();
	test_prot_none_present_page();
	test_prot_none_made_readable_meanwhile();
	test_write_to_read_only();
	test_atomic_fault_takes_no_sem();
	test_atomic_fault_does_not_wait_for_writer();
	test_fault_under_mmap_sem();
	test_sleep_in_atomic();
	test_futex_read_fault_paths();
	test_partial_munmap_splits();
	test_mprotect_splits();
	test_munmap_then_reuse();
	test_shared_mapping_keeps_contents();
	test_files();
	return harness_exit();
}
