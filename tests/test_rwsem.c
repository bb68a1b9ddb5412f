/* rwsem fairness and wake rules (REFERENCE.md "rwsem"; lib/rwsem-spinlock.c, 2.6.11), and
 * the hang detector's verdict on the recursive-read deadlock.
 *
 * Each test runs hand-written task bodies on one private semaphore. A task lets the others
 * run by napping (an interruptible timed sleep): the virtual clock fires a timer only when
 * no task can run, so a nap lasts until everybody else has blocked or finished. The tasks
 * write what they got, in order, into a log that the test compares at the end.
 */
#include "harness.h"

#include "../ref/report.h"
#include "../ref/rwsem.h"

#include <string.h>

static struct rw_semaphore sem;
/* order, note() and nap(): tests/harness.h */

static int nwaiters(void)
{
	int n = 0;

	for (struct list_head *l = sem.wait_list.next; l != &sem.wait_list; l = l->next)
		n++;
	return n;
}

/* The task waiting at position i (0: the head) and what it waits for. */
static const struct rwsem_waiter *waiter_at(int i)
{
	struct list_head *l = sem.wait_list.next;

	while (i-- > 0 && l != &sem.wait_list)
		l = l->next;
	return l == &sem.wait_list ? NULL : list_entry(l, struct rwsem_waiter, list);
}

static bool waits_for(int i, int pid, unsigned int flags)
{
	const struct rwsem_waiter *w = waiter_at(i);

	return w && w->task && w->task->pid == pid && w->flags == flags;
}

static enum sim_result run(int n, const task_fn *fns)
{
	order[0] = 0;
	init_rwsem(&sem, "&sem");
	return run_tasks(n, fns, NULL, 0);
}

static void check_order(const char *want)
{
	CHECK(!strcmp(order, want), "order\n  got:  %s\n  want: %s", order, want);
}

static void check_idle(void)
{
	CHECK_EQ(sem.activity, 0, "activity after the run");
	CHECK(list_empty(&sem.wait_list), "wait list not empty after the run");
}

/* Run the task bodies: they run to the end, in the order `want`, and leave the lock idle. */
static void check_run(int n, const task_fn *fns, const char *want)
{
	enum sim_result res = run(n, fns);

	CHECK(res == SIM_OK, "the run for order %s: result %d", want, res);
	check_order(want);
	check_idle();
}

/* The plain reader and writer: take the lock, note it, release it. */
static void reader(void)
{
	down_read(&sem);
	note("read");
	up_read(&sem);
}

static void writer(void)
{
	down_write(&sem);
	note("write");
	up_write(&sem);
}

/* --- a reader is granted at once when no writer is active and nobody waits --- */

static void granted_t1(void)
{
	down_read(&sem);
	note("read");
	nap(1);
	CHECK_EQ(sem.activity, 1, "activity when T1 wakes (T2 came and went)");
	up_read(&sem);
	note("up");
}

static void granted_t2(void)
{
	down_read(&sem); /* T1 holds it for read, nobody waits: no sleep */
	note("read");
	CHECK_EQ(sem.activity, 2, "two readers share the lock");
	CHECK_EQ(down_read_trylock(&sem), 1, "down_read_trylock with readers only");
	CHECK_EQ(sem.activity, 3, "three read holds");
	up_read(&sem);
	up_read(&sem);
	note("up");
}

static void test_reader_granted_at_once(void)
{
	task_fn fns[] = {granted_t1, granted_t2};

	check_run(2, fns, "T1:read T2:read T2:up T1:up");
}

/* --- fairness: a reader queues behind a waiting writer even while readers hold the
 * lock ("That is the whole bug") --- */

static void fair_t1(void)
{
	down_read(&sem);
	note("read");
	nap(1);
	/* T2 queued for write, then T3 for read, although only a reader holds the lock */
	CHECK_EQ(sem.activity, 1, "activity: T1's read hold only");
	CHECK_EQ(nwaiters(), 2, "waiters");
	CHECK(waits_for(0, 2, RWSEM_WAITING_FOR_WRITE), "head: T2 for write");
	CHECK(waits_for(1, 3, RWSEM_WAITING_FOR_READ), "next: T3 for read");
	up_read(&sem);
	note("up");
}

static void fair_t2(void)
{
	down_write(&sem);
	note("write");
	CHECK(waits_for(0, 3, RWSEM_WAITING_FOR_READ), "T3 still queued while T2 writes");
	up_write(&sem);
	note("up");
}

static void test_reader_queues_behind_writer(void)
{
	task_fn fns[] = {fair_t1, fair_t2, reader};

	check_run(3, fns, "T1:read T1:up T2:write T2:up T3:read");
}

/* --- a writer waits for every reader; the last up_read wakes the head writer --- */

static void readers_t1(void)
{
	down_read(&sem);
	note("read");
	nap(1);
	up_read(&sem);
	note("up");
	/* T2 still reads: no wake-up yet */
	CHECK_EQ(sem.activity, 1, "activity after the first up_read");
	CHECK(waits_for(0, 3, RWSEM_WAITING_FOR_WRITE), "T3 still queued for write");
	CHECK_EQ(harness_task(3)->state, TASK_UNINTERRUPTIBLE, "T3 still asleep");
}

static void readers_t2(void)
{
	down_read(&sem);
	note("read");
	nap(2);
	up_read(&sem);
	note("up");
	/* the last reader out granted the lock to the head writer */
	CHECK_EQ(sem.activity, -1, "activity: granted to the writer");
	CHECK(list_empty(&sem.wait_list), "the writer left the queue");
	CHECK_EQ(harness_task(3)->state, TASK_RUNNING, "T3 woken");
}

static void test_writer_waits_for_all_readers(void)
{
	task_fn fns[] = {readers_t1, readers_t2, writer};

	check_run(3, fns, "T1:read T2:read T1:up T2:up T3:write");
}

/* --- up_write with a writer at the head wakes that writer alone --- */

static void wakew_t1(void)
{
	down_write(&sem);
	note("write");
	nap(1);
	up_write(&sem);
	note("up");
	CHECK_EQ(sem.activity, -1, "activity: granted to T2 for write");
	CHECK_EQ(nwaiters(), 1, "waiters after up_write");
	CHECK(waits_for(0, 3, RWSEM_WAITING_FOR_READ), "T3 still queued for read");
	CHECK_EQ(harness_task(2)->state, TASK_RUNNING, "T2 woken");
	CHECK_EQ(harness_task(3)->state, TASK_UNINTERRUPTIBLE, "T3 not woken");
}

static void wakew_t2(void)
{
	down_write(&sem);
	note("write");
	up_write(&sem);
	note("up");
}

static void test_up_write_wakes_writer_alone(void)
{
	task_fn fns[] = {wakew_t1, wakew_t2, reader};

	check_run(3, fns, "T1:write T1:up T2:write T2:up T3:read");
}

/* --- up_write with readers at the head wakes all of them, up to the first writer:
 * queue R2 R3 W4 R5 -> R2 and R3 granted together, W4 and R5 stay --- */

static void waker_t1(void)
{
	down_write(&sem);
	note("write");
	nap(1);
	up_write(&sem);
	note("up");
	CHECK_EQ(sem.activity, 2, "activity: T2 and T3 granted together");
	CHECK_EQ(nwaiters(), 2, "waiters after up_write");
	CHECK(waits_for(0, 4, RWSEM_WAITING_FOR_WRITE), "head: T4 for write");
	CHECK(waits_for(1, 5, RWSEM_WAITING_FOR_READ), "T5 stays behind T4");
	CHECK_EQ(harness_task(2)->state, TASK_RUNNING, "T2 woken");
	CHECK_EQ(harness_task(3)->state, TASK_RUNNING, "T3 woken");
	CHECK_EQ(harness_task(4)->state, TASK_UNINTERRUPTIBLE, "T4 not woken");
	CHECK_EQ(harness_task(5)->state, TASK_UNINTERRUPTIBLE, "T5 not woken");
}

static void waker_writer(void)
{
	down_write(&sem);
	note("write");
	CHECK(waits_for(0, 5, RWSEM_WAITING_FOR_READ), "T5 still queued while T4 writes");
	up_write(&sem);
}

static void test_up_write_wakes_readers_up_to_writer(void)
{
	task_fn fns[] = {waker_t1, reader, reader, waker_writer, reader};

	check_run(5, fns, "T1:write T1:up T2:read T3:read T4:write T5:read");
}

/* --- trylocks fail whenever the lock could not be granted at once: a queued waiter
 * counts, even when only readers hold the lock --- */

static void try_t1(void)
{
	CHECK_EQ(down_write_trylock(&sem), 1, "down_write_trylock on a free lock");
	up_write(&sem);
	down_read(&sem);
	nap(1);
	up_read(&sem);
}

static void try_t2(void)
{
	CHECK_EQ(down_write_trylock(&sem), 0, "down_write_trylock with a reader active");
	CHECK_EQ(down_read_trylock(&sem), 1, "down_read_trylock with readers, no waiter");
	up_read(&sem);
	down_write(&sem); /* queues behind T1's read hold */
	note("write");
	up_write(&sem);
}

static void try_t3(void)
{
	CHECK_EQ(sem.activity, 1, "a reader holds the lock");
	CHECK_EQ(nwaiters(), 1, "a writer waits");
	CHECK_EQ(down_read_trylock(&sem), 0, "down_read_trylock with a writer queued");
	CHECK_EQ(down_write_trylock(&sem), 0, "down_write_trylock with a writer queued");
	nap(2);
	CHECK_EQ(down_write_trylock(&sem), 1, "down_write_trylock once all have left");
	CHECK_EQ(down_read_trylock(&sem), 0, "down_read_trylock with a writer active");
	up_write(&sem);
	note("done");
}

static void test_trylocks(void)
{
	task_fn fns[] = {try_t1, try_t2, try_t3};

	check_run(3, fns, "T2:write T3:done");
}

/* --- downgrade_write wakes readers only: the readers at the head join the downgraded
 * holder; a writer behind them, and everything after it, keeps waiting --- */

static void down_t1(void)
{
	down_write(&sem);
	note("write");
	nap(1);
	downgrade_write(&sem);
	note("downgrade");
	CHECK_EQ(sem.activity, 3, "activity: T1 and the two woken readers");
	CHECK_EQ(nwaiters(), 2, "waiters after downgrade_write");
	CHECK(waits_for(0, 4, RWSEM_WAITING_FOR_WRITE), "head: T4 for write");
	CHECK(waits_for(1, 5, RWSEM_WAITING_FOR_READ), "T5 stays behind T4");
	CHECK_EQ(current->nheld, 1, "T1 holds one lock");
	CHECK(current->held[0].read, "T1's hold is a read hold after downgrade_write");
	up_read(&sem);
}

static void test_downgrade_wakes_readers(void)
{
	task_fn fns[] = {down_t1, reader, reader, waker_writer, reader};

	check_run(5, fns, "T1:write T1:downgrade T2:read T3:read T4:write T5:read");
}

/* ... and with a writer at the head downgrade_write wakes nobody; the writer gets the
 * lock from the up_read of the downgraded hold. */
static void downw_t1(void)
{
	down_write(&sem);
	note("write");
	nap(1);
	downgrade_write(&sem);
	CHECK_EQ(sem.activity, 1, "activity: the downgraded hold only");
	CHECK_EQ(nwaiters(), 2, "nobody woken");
	CHECK_EQ(harness_task(2)->state, TASK_UNINTERRUPTIBLE, "T2 (writer) not woken");
	CHECK_EQ(harness_task(3)->state, TASK_UNINTERRUPTIBLE, "T3 (reader behind it) not woken");
	up_read(&sem);
	note("up");
	CHECK_EQ(sem.activity, -1, "up_read of the last reader granted T2 the write lock");
}

static void test_downgrade_with_writer_at_head(void)
{
	task_fn fns[] = {downw_t1, writer, reader};

	check_run(3, fns, "T1:write T1:up T2:write T3:read");
}

/* --- the hang detector: T1 holds the lock for read, T2 queues for write, T1 asks for
 * read again and queues behind T2 (the LWN article's cycle, without futexes) --- */

static void recursive_t1(void)
{
	down_read(&sem);
	nap(1);
	down_read(&sem); /* never returns */
	note("read twice");
}

static void recursive_t2(void)
{
	down_write(&sem); /* never returns */
	note("write");
}

static void test_recursive_read_deadlock(void)
{
	task_fn fns[] = {recursive_t1, recursive_t2};

	CHECK_EQ(run(2, fns), SIM_HANG, "run");
	CHECK(finding.found, "no finding");
	CHECK(!strncmp(finding.token, "deadlock--", 10), "token '%s'", finding.token);
	CHECK(!strcmp(finding.token, "deadlock--recursive_t1--recursive_t1"), "token '%s'",
	      finding.token);
	CHECK(strstr(finding.body, "wait-for cycle"), "no cycle in the report:\n%s", finding.body);
	/* each task's Call Trace (no syscall: the tasks call down_read() themselves), and the
	 * rwsem as a crash dump shows it: T1's read hold, T2 queued ahead of T1 */
	CHECK(
	    strstr(finding.body, "\nCall Trace:\n [<0>] schedule\n [<0>] down_read\nT2 (pid 2)") &&
		strstr(finding.body, "\nCall Trace:\n [<0>] schedule\n [<0>] down_write\n\n"),
	    "no Call Trace of T1 and T2:\n%s", finding.body);
	CHECK(strstr(finding.body, "\nlock state (struct rw_semaphore, lib/rwsem-spinlock.c):\n"
				   "  &sem: activity 1, wait_list: T2 (write), T1 (read)\n"),
	      "no lock state:\n%s", finding.body);
	check_order("");
	CHECK_EQ(harness_task(1)->state, TASK_UNINTERRUPTIBLE, "T1 in D state");
	CHECK_EQ(harness_task(2)->state, TASK_UNINTERRUPTIBLE, "T2 in D state");
}

/* Without a queued writer the same recursive read is granted at once: the deadlock
 * needs the writer in between. */
static void recursive_alone_t1(void)
{
	down_read(&sem);
	nap(1);
	down_read(&sem);
	note("read twice");
	up_read(&sem);
	up_read(&sem);
}

static void test_recursive_read_without_writer(void)
{
	task_fn fns[] = {recursive_alone_t1};

	CHECK_EQ(run(1, fns), SIM_OK, "run");
	CHECK(!finding.found, "finding '%s'", finding.token);
	check_order("T1:read twice");
	check_idle();
}

/* A task that waits for a lock whose holder has gone, with no cycle, is a hung task,
 * not a deadlock. */
static void leak_t1(void)
{
	down_write(&sem); /* and never up_write */
}

static void leak_t2(void)
{
	down_read(&sem);
	note("read");
}

static void test_hung_without_cycle(void)
{
	task_fn fns[] = {leak_t1, leak_t2};

	CHECK_EQ(run(2, fns), SIM_HANG, "run");
	CHECK(!strcmp(finding.token, "hung--leak_t2--user"), "token '%s'", finding.token);
	check_order("");
}

int main(void)
{
	test_reader_granted_at_once();
	test_reader_queues_behind_writer();
	test_writer_waits_for_all_readers();
	test_up_write_wakes_writer_alone();
	test_up_write_wakes_readers_up_to_writer();
	test_trylocks();
	test_downgrade_wakes_readers();
	test_downgrade_with_writer_at_head();
	test_recursive_read_deadlock();
	test_recursive_read_without_writer();
	test_hung_without_cycle();
	return harness_exit();
}
