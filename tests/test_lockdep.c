/* Lockdep on the model (ref/lockdep.c, docs/lockdep.md): the recursive-read rule follows
 * each kernel's rwsem policy; might_fault() annotates the user accesses that may fault
 * and is silent with page faults disabled; AB-BA orders are circular dependencies,
 * across tasks and within one; a nested subclass is a class of its own; one report a
 * run; a real deadlock in the same run takes precedence over the prediction.
 *
 * Hand-written task bodies run on the machine (run_tasks), on each listed kernel where
 * the kernel matters: the expectation comes from the kernel's switches.
 */
#include "harness.h"

#include "../ref/mm.h"
#include "../ref/report.h"
#include "../ref/rwsem.h"
#include "../ref/uaccess.h"

#include <string.h>

static struct rw_semaphore sem;
static spinlock_t lock_a, lock_b, bucket[2];

static enum sim_result run(int n, const task_fn *fns)
{
	order[0] = 0;
	init_rwsem(&sem, "&sem");
	spin_lock_init(&lock_a, "&x->lock_a");
	spin_lock_init(&lock_b, "&x->lock_b");
	spin_lock_init(&bucket[0], "&bh->lock");
	spin_lock_init(&bucket[1], "&bh->lock");
	return run_tasks(n, fns, NULL, 0);
}

static const struct lockdep_prediction *pred(void)
{
	return lockdep_prediction();
}

static void check_token(const char *want, const char *what)
{
	CHECK(pred()->made && !strcmp(pred()->token, want), "%s [%s]: token '%s', want '%s'", what,
	      kcfg->name, pred()->made ? pred()->token : "(none)", want);
}

static void check_silent(const char *what)
{
	CHECK(!pred()->made, "%s [%s]: a report '%s'", what, kcfg->name, pred()->token);
}

/* The report of the prediction (lockdep_finding()): its title, the lock the task is
 * trying to acquire (WANTED) and the lock it holds (HELD), as lines of its body. */
static void check_report(const char *title, const char *wanted, const char *held)
{
	lockdep_finding();
	CHECK(!strcmp(finding.title, title), "title '%s'", finding.title);
	CHECK(strstr(finding.body, wanted), "wanted:\n%s", finding.body);
	CHECK(strstr(finding.body, held), "held:\n%s", finding.body);
}

/* --- the recursive-read rule: a fair rwsem reports a second down_read(); the kernels
 * whose rwsem lets the holder in again do not --- */

static void read_twice(void)
{
	down_read(&sem);
	down_read(&sem);
	note("read twice");
	up_read(&sem);
	up_read(&sem);
}

static void test_recursive_read(void)
{
	task_fn fns[] = {read_twice};

	for_each_kernel (k) {
		kcfg = k;
		CHECK_EQ(run(1, fns), SIM_OK, "read twice, no writer: runs to the end");
		if (k->rwsem == RWSEM_FAIR) {
			check_token("lockdep--recursive-read--sem--read_twice", "recursive read");
			CHECK(pred()->task == 1 && !pred()->circular &&
				  pred()->locks[0] == sem.name,
			      "[%s] the prediction: task %d, circular %d", k->name, pred()->task,
			      pred()->circular);
		} else {
			check_silent("recursive read where the holder re-enters");
		}
	}
}

/* The trylock read is on the held-lock stack too: the down_read() after it is checked
 * against it. */
static void tryread_then_read(void)
{
	CHECK(down_read_trylock(&sem), "trylock");
	down_read(&sem);
	up_read(&sem);
	up_read(&sem);
}

/* A write after a read is a recursion on every kernel (it waits for itself). */
static void read_then_write(void)
{
	down_read(&sem);
	if (down_write_trylock(&sem)) /* fails: nothing is taken, nothing reported */
		up_write(&sem);
	up_read(&sem);
}

static void test_recursive_trylock(void)
{
	task_fn a[] = {tryread_then_read}, b[] = {read_then_write};

	kcfg = kernel_by_name("2.6.11-rc4");
	run(1, a);
	check_token("lockdep--recursive-read--sem--tryread_then_read", "trylock, then read");
	run(1, b);
	check_silent("a failed down_write_trylock");
}

/* --- might_fault(): each user access that may fault is a read of mmap_sem --- */

static void get_user_under_mmap_sem(void)
{
	struct mm_struct *mm = current->mm;
	uint32_t v;

	down_read(&mm->mmap_sem);
	get_user(v, 0); /* address 0: faults, gets the fixup; the report came before */
	up_read(&mm->mmap_sem);
}

static void copies_under_mmap_sem(void)
{
	struct mm_struct *mm = current->mm;
	uint32_t v = 0;

	down_read(&mm->mmap_sem);
	copy_to_user(0, &v, sizeof(v));
	up_read(&mm->mmap_sem);
}

static void clear_user_under_mmap_sem(void)
{
	struct mm_struct *mm = current->mm;

	down_read(&mm->mmap_sem);
	clear_user(0, 4);
	up_read(&mm->mmap_sem);
}

static void put_user_under_mmap_sem(void)
{
	struct mm_struct *mm = current->mm;

	down_read(&mm->mmap_sem);
	put_user(1, 0);
	up_read(&mm->mmap_sem);
}

/* 2.6.11's get_futex_value_locked(): page faults disabled around the inatomic copy; and a
 * get_user() with the preempt count raised (in_atomic()) is not annotated either. */
static void faults_disabled_under_mmap_sem(void)
{
	struct mm_struct *mm = current->mm;
	uint32_t v;

	down_read(&mm->mmap_sem);
	inc_preempt_count();
	__copy_from_user_inatomic(&v, 0, sizeof(v));
	get_user(v, 0);
	dec_preempt_count();
	up_read(&mm->mmap_sem);
}

static void get_user_unlocked(void)
{
	uint32_t v;

	get_user(v, 0);
}

static void test_might_fault(void)
{
	struct {
		task_fn fn;
		const char *site;
	} under[] = {{get_user_under_mmap_sem, "get_user_under_mmap_sem"},
		     {copies_under_mmap_sem, "copies_under_mmap_sem"},
		     {clear_user_under_mmap_sem, "clear_user_under_mmap_sem"},
		     {put_user_under_mmap_sem, "put_user_under_mmap_sem"}};
	task_fn disabled[] = {faults_disabled_under_mmap_sem}, unlocked[] = {get_user_unlocked};
	char want[160];

	for_each_kernel (k) {
		kcfg = k;
		for (size_t i = 0; i < sizeof(under) / sizeof(under[0]); i++) {
			run(1, &under[i].fn);
			snprintf(want, sizeof(want), "lockdep--recursive-read--mmap_sem--%s",
				 under[i].site);
			if (k->rwsem == RWSEM_FAIR && !k->pf_mmap_sem)
				check_token(want, under[i].site);
			else /* the holder re-enters, or the fault takes no mmap_sem */
				check_silent(under[i].site);
		}
		run(1, disabled);
		check_silent("page faults disabled");
		run(1, unlocked);
		check_silent("get_user() holding nothing");
	}
	/* the report names the access and its caller */
	kcfg = kernel_by_name("2.6.11-rc4");
	run(1, &under[0].fn);
	check_report("possible recursive locking detected",
		     "T1 (pid 1) is trying to acquire &mm->mmap_sem (read) in might_fault(), from "
		     "get_user() in get_user_under_mmap_sem",
		     "holds #0: &mm->mmap_sem (read), taken at get_user_under_mmap_sem");
}

/* --- circular dependencies --- */

static void a_then_b(void)
{
	spin_lock(&lock_a);
	spin_lock(&lock_b);
	spin_unlock(&lock_b);
	spin_unlock(&lock_a);
}

static void b_then_a(void)
{
	spin_lock(&lock_b);
	spin_lock(&lock_a);
	spin_unlock(&lock_a);
	spin_unlock(&lock_b);
}

static void both_orders(void)
{
	a_then_b();
	b_then_a();
}

static void test_circular(void)
{
	task_fn two[] = {a_then_b, b_then_a}, one[] = {both_orders}, same[] = {a_then_b, a_then_b};

	kcfg = kernel_by_name("2.6.11");
	/* AB in T1, then BA in T2: they never meet (no preemption), lockdep reports all the
	 * same, when T2 takes A holding B */
	CHECK_EQ(run(2, two), SIM_OK, "AB-BA without a preemption: no deadlock");
	check_token("lockdep--circular--lock_b--lock_a--b_then_a", "AB-BA across tasks");
	CHECK(pred()->circular && pred()->task == 2, "circular by T2 (task %d)", pred()->task);
	/* AB then BA in one task */
	CHECK_EQ(run(1, one), SIM_OK, "AB then BA in one task");
	check_token("lockdep--circular--lock_b--lock_a--b_then_a", "AB-BA within a task");
	/* the same order twice is fine */
	run(2, same);
	check_silent("AB twice");
}

/* The report says who took what first. */
static void test_circular_report(void)
{
	task_fn two[] = {a_then_b, b_then_a};

	kcfg = kernel_by_name("2.6.11");
	run(2, two);
	check_report("possible circular locking dependency detected",
		     "T2 (pid 2) is trying to acquire &x->lock_a (write) at b_then_a",
		     "&x->lock_b (write), taken at b_then_a");
	CHECK(strstr(finding.body, "&x->lock_a -> &x->lock_b: T1 held &x->lock_a (taken at "
				   "a_then_b) when it took &x->lock_b at a_then_b"),
	      "chain:\n%s", finding.body);
}

/* --- subclasses: two bucket locks, the second nested (futex_requeue's double_lock_hb()) --- */

static void two_buckets_nested(void)
{
	spin_lock(&bucket[0]);
	spin_lock_nested(&bucket[1], SINGLE_DEPTH_NESTING);
	spin_unlock(&bucket[1]);
	spin_unlock(&bucket[0]);
}

static void two_buckets_plain(void)
{
	spin_lock(&bucket[0]);
	spin_lock(&bucket[1]);
	spin_unlock(&bucket[1]);
	spin_unlock(&bucket[0]);
}

static void test_nested(void)
{
	task_fn nested[] = {two_buckets_nested}, plain[] = {two_buckets_plain};

	kcfg = kernel_by_name("2.6.11");
	run(1, nested);
	check_silent("spin_lock_nested()");
	run(1, plain);
	check_token("lockdep--recursive--bh_lock--two_buckets_plain", "two of a class, not nested");
}

/* --- one report a run, and nothing with lockdep off --- */

static void recursion_then_circle(void)
{
	read_twice();
	both_orders();
}

static void test_one_report(void)
{
	task_fn fns[] = {recursion_then_circle};

	kcfg = kernel_by_name("2.6.11-rc4");
	run(1, fns);
	check_token("lockdep--recursive-read--sem--read_twice", "the first report only");
	lockdep_reset(false);
	CHECK(!pred()->made, "reset");
}

/* --- through prog_run(): the verdict; a deadlock in the same run wins --- */

static const char lwn[] = "task 1\n  mmap futex shared\n  futex_wait futex val=1\n"
			  "task 2\n  mmap other\n";

static void run_case(const char *text, const struct kernel_config *k, bool lockdep,
		     struct run_result *r)
{
	static struct program p;
	struct run_opts o = {.oracles = lockdep ? ORACLES_DEFAULT : ORACLE_DEADLOCK};

	harness_parse(text, &p);
	prog_run(&p, k, &o, r);
}

static void test_verdicts(void)
{
	struct run_result r;
	char text[512];

	for_each_kernel (k) {
		/* the article's program without its preemption: get_user() under mmap_sem */
		bool get_user_held = (k->futex->read == FUTEX_READ_GET_USER ||
				      k->futex->read == FUTEX_READ_CHECK_PAGE) &&
				     k->rwsem == RWSEM_FAIR && !k->pf_mmap_sem;
		run_case(lwn, k, true, &r);
		if (get_user_held)
			CHECK(
			    r.result == SIM_PREDICTED &&
				!strcmp(r.verdict, "lockdep--recursive-read--mmap_sem--futex_wait"),
			    "[%s] no schedule: verdict %s", k->name, r.verdict);
		else
			CHECK(r.result == SIM_OK && !strcmp(r.verdict, "ok"),
			      "[%s] no schedule: verdict %s", k->name, r.verdict);
		run_case(lwn, k, false, &r);
		CHECK(r.result == SIM_OK, "[%s] lockdep off: verdict %s", k->name, r.verdict);
		/* with the article's preemption: the deadlock, not the prediction */
		snprintf(text, sizeof(text), "%spreempt 1 at op 2 point 7 to 2\n", lwn);
		run_case(text, k, true, &r);
		if (k->futex->read == FUTEX_READ_GET_USER && k->rwsem == RWSEM_FAIR &&
		    !k->pf_mmap_sem)
			CHECK(r.result == SIM_HANG &&
				  !strcmp(r.verdict, "deadlock--do_page_fault--futex_wait"),
			      "[%s] with the preemption: verdict %s", k->name, r.verdict);
	}
}

int main(void)
{
	test_recursive_read();
	test_recursive_trylock();
	test_might_fault();
	test_circular();
	test_circular_report();
	test_nested();
	test_one_report();
	test_verdicts();
	return harness_exit();
}
