/* The primitives' contracts (ref/rwsem.c rwsem_bug(), ref/futex.c futex_q_bug()): each
 * rule broken on purpose (rwsem_test_break, futex_test_relist()) in a run whose program
 * would otherwise end well, and the finding's token checked; the same run unbroken is no
 * finding. A fair rwsem that let a reader past a queued writer would pass every program
 * that does not deadlock: the contract catches it in the run that breaks it.
 */
#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/report.h"
#include "../ref/rwsem.h"

#include <string.h>

static struct rw_semaphore sem;

/* T1 holds the rwsem for read until the others have blocked; T2 asks for write (and
 * queues behind T1); T3, where there is one, asks for read. */
static void reader(void)
{
	down_read(&sem);
	note("read");
	nap(1);
	up_read(&sem);
}

static void writer(void)
{
	down_write(&sem);
	note("write");
	up_write(&sem);
}

static void late_reader(void)
{
	down_read(&sem);
	note("read");
	up_read(&sem);
}

static enum sim_result run(enum rwsem_break b, int n)
{
	task_fn fns[] = {reader, writer, late_reader};

	init_rwsem(&sem, "&test->sem");
	order[0] = 0;
	rwsem_test_break = b;
	enum sim_result res = run_tasks(n, fns, NULL, 0);
	rwsem_test_break = RWSEM_BREAK_NONE;
	return res;
}

static void test_rwsem(void)
{
	for_each_kernel (k) {
		kcfg = k;
		harness_no_finding(run(RWSEM_BREAK_NONE, 3), "a reader, a writer, a reader");
		CHECK(!strcmp(order, kcfg->rwsem == RWSEM_READER_PREF ? "T1:read T3:read T2:write"
								      : "T1:read T2:write T3:read"),
		      "order '%s'", order);
		if (kcfg->rwsem == RWSEM_READER_PREF) {
			/* admitting readers past writers is this kernel's design, not a bug */
			harness_no_finding(run(RWSEM_BREAK_FAIRNESS, 3), "reader-pref: T3 past T2");
			CHECK(!strcmp(order, "T1:read T3:read T2:write"), "reader-pref order '%s'",
			      order);
		} else {
			harness_finding(run(RWSEM_BREAK_FAIRNESS, 3),
					"rwsem-contract--reader-past-queued-writer",
					"a fair rwsem lets T3 past T2");
			CHECK(!strcmp(order, "T1:read"), "fair order '%s'", order);
		}
		harness_finding(run(RWSEM_BREAK_UNLINK, 2), "rwsem-contract--granted-but-queued",
				"T2 granted the lock and left on the wait list");
		harness_finding(run(RWSEM_BREAK_WRITER, 2), "rwsem-contract--writer-not-alone",
				"T2 let in to write beside T1's read");
	}
	/* the report names the rule, the lock and its state (activity and wait list, as a
	 * crash dump shows them), and where the task was */
	kcfg = kernel_by_name("2.6.11");
	run(RWSEM_BREAK_FAIRNESS, 3);
	CHECK(
	    !strcmp(finding.title, "BUG: rwsem contract broken") &&
		strstr(finding.body, "&test->sem: a reader let in at once past a queued writer") &&
		strstr(finding.body,
		       "\nlock state: &test->sem: activity 1, wait_list: T2 (write)\n") &&
		strstr(finding.body, "\n\nCall Trace:\n [<0>] down_read\n"),
	    "title '%s', body:\n%s", finding.title, finding.body);
}

/* T1 waits on a futex; T2 wakes it, then (broken) puts its futex_q back on the chain. */
static unsigned long addr;
static bool relist;

static void futex_waiter(void)
{
	addr = (unsigned long)sys_mmap2(0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, -1, 0);
	do_futex(addr, FUTEX_WAIT, 0, MAX_SCHEDULE_TIMEOUT, 0, 0, 0);
	note("woken");
}

static void futex_waker(void)
{
	struct futex_q *q = futex_test_first_waiter(addr);
	spinlock_t *lock = futex_test_bucket_lock(addr);

	CHECK(q != NULL, "T1 is queued");
	spin_lock(lock);
	futex_test_wake(q);
	if (relist)
		futex_test_relist(q);
	spin_unlock(lock);
}

static void test_futex_q(void)
{
	task_fn fns[] = {futex_waiter, futex_waker};

	for_each_kernel (k) {
		kcfg = k;
		relist = false;
		order[0] = 0;
		harness_no_finding(run_tasks(2, fns, NULL, 0), "a wake");
		CHECK(!strcmp(order, "T1:woken"), "order '%s'", order);
		relist = true;
		harness_finding(run_tasks(2, fns, NULL, 0), "futex-contract--woken-but-queued",
				"a wake that leaves the futex_q on its chain");
	}
	relist = false;
}

int main(void)
{
	test_rwsem();
	test_futex_q();
	return harness_exit();
}
