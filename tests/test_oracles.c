/* The oracles (docs/oracles.md): the lost wake-up and the wrong result fire where their
 * definitions say and nowhere else, on every kernel the model runs (expectations from the
 * switches), and --oracles chooses among them without changing the run. The saved cases
 * (repro/cases/futex-absorbed-wakeup.case, futex-seto-missed-wakeup.case,
 * cmp-requeue-spurious-eagain.case) are checked against their expect lines by CTest; here
 * the edges of the definitions: a passed-over waiter that is woken after all, times out or
 * gets a signal; a waker that runs before the waiter reads; a wake that changes nothing;
 * an -EAGAIN the word earned.
 */
#include "harness.h"

#include "../prog/oracle.h"
#include "../ref/report.h"

#include <stdlib.h>
#include <string.h>

#define LOST   "lost-wakeup--absorbed--futex_wait"
#define MISSED "lost-wakeup--missed--futex_wait"
#define WRONG  "wrong-result--futex_cmp_requeue"

/* The runs are run_text()'s (tests/harness.h: CHECK_RET and NOT_RUN too), with the trace
 * and every oracle but lockdep, whose prediction on the kernels that read the word under
 * mmap_sem (test_lockdep.c) would otherwise name them first; or run_text_with()'s, with
 * the oracles chosen. */
#define CHECK_VERDICT(r, want, kernel, what)                                             \
	CHECK(!strcmp((r)->verdict, want), "[%s] %s: verdict %s, want %s", kernel, what, \
	      (r)->verdict, want)

/* queue_me() before the read: a mismatching waiter sits on the chain for a while */
static bool queues_first(const struct kernel_config *k)
{
	return k->futex->read != FUTEX_READ_BUCKET_LOCKED && !k->futex->wait_reads_first;
}

/* FUTEX_CMP_REQUEUE with the nqueued test (every kernel before Jelinek's patch) */
static bool has_nqueued(const struct kernel_config *k)
{
	return k->futex->read != FUTEX_READ_BUCKET_LOCKED;
}

/* The point of the last user access of `task`'s op `op` in a run of TEXT: the futex
 * word's read (the page is there, so there is one). */
static int read_point(const char *text, const char *kernel, int task, int op)
{
	struct run_result r;
	int n, dropped, point = -1;

	run_text(text, kernel, &r);
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	for (int i = 0; i < n; i++)
		if (ev[i].task == task && ev[i].op == op && ev[i].kind == EV_UACCESS)
			point = ev[i].point;
	return point;
}

/* PROG and one more preemption, into buf: `task` at its op `op`, AFTER points from its
 * read of the word (0: just before it, 1: just after), to task `to`. Returns the point of
 * the read. */
static int preempt_at_read(char *buf, size_t len, const char *prog, const char *kernel, int task,
			   int op, int after, int to)
{
	int p = read_point(prog, kernel, task, op);

	snprintf(buf, len, "%spreempt %d at op %d point %d to %d\n", prog, task, op, p + after, to);
	return p;
}

/* Jelinek's scenario (repro/cases/futex-absorbed-wakeup.case): T3 waits for 1 on a word
 * holding 0, queued ahead of T2, which waits for 0 and sleeps; T1 wakes one. T3 is
 * preempted just after its read; TAIL goes after T1's wake. Ops: T1 1 mmap, 2 store, 3 wake,
 * then TAIL's; T2's wait, T3's wait. */
static void absorbed_text(char *buf, size_t len, const char *kernel, const char *t1_tail,
			  const char *t2_wait)
{
	char prog[1024];

	snprintf(prog, sizeof(prog),
		 "task 1\n  mmap f pages=1 prot=rw shared\n  store f val=0\n  futex_wake f nr=1\n%s"
		 "task 2\n  %s\n"
		 "task 3\n  futex_wait f val=1\n"
		 "preempt 1 at op 3 point 1 to 3\n",
		 t1_tail, t2_wait);
	int p = preempt_at_read(buf, len, prog, kernel, 3, 1, 1, 2);
	CHECK(p > 0, "[%s] T3's read point %d", kernel, p);
}

static void test_absorbed(void)
{
	char text[2048];
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		absorbed_text(text, sizeof(text), kn, "", "futex_wait f val=0");
		run_text(text, kn, &r);
		CHECK_EQ(r.unfired, 0, kn);
		CHECK_VERDICT(&r, queues_first(k) ? LOST : "ok", kn, "absorbed wake-up");
		/* T1's wake (op 3), T2's wait (op 4), T3's wait (op 5) */
		CHECK_RET(&r, 2, 1, kn, "the wake woke one");
		CHECK_RET(&r, 3, queues_first(k) ? NOT_RUN : 0, kn, "T2's wait");
		CHECK_RET(&r, 4, queues_first(k) ? 0 : -EWOULDBLOCK, kn, "T3's mismatching wait");
		if (!queues_first(k))
			continue;
		CHECK(r.result == SIM_ORACLE, "[%s] result %d", kn, r.result);
		CHECK(strstr(finding.body, "passed over") && strstr(finding.body, "woke T3") &&
			  strstr(finding.body, "returned 0, not -EWOULDBLOCK") &&
			  !strncmp(finding.body, "(op.point", 9) &&
			  strstr(finding.body, "T2 (pid 2) state S, in sys_futex, asleep"),
		      "[%s] the report:\n%s", kn, finding.body);
		CHECK(!strcmp(finding.title, "lost wake-up in futex_wait"), "[%s] title %s", kn,
		      finding.title);

		/* the same run, other oracles: the same digest, no finding */
		uint64_t digest = r.digest;
		run_text_with(text, kn, ORACLE_DEADLOCK | ORACLE_RESULT, &r);
		CHECK_VERDICT(&r, "ok", kn, "--oracles=deadlock,result");
		CHECK(r.digest == digest, "[%s] the oracles change the run", kn);
		run_text_with(text, kn, ORACLE_LOST_WAKEUP, &r);
		CHECK_VERDICT(&r, LOST, kn, "--oracles=lost-wakeup");

		/* T2 woken after all by a second wake: nothing lost for good */
		absorbed_text(text, sizeof(text), kn, "  futex_wake f nr=1\n",
			      "futex_wait f val=0");
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "passed over, then woken");
		CHECK_RET(&r, 4, 0, kn, "T2 woken by the second wake");
		/* ... or by its timeout, or a signal: not asleep when the run ends */
		absorbed_text(text, sizeof(text), kn, "", "futex_wait f val=0 timeout=5");
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "passed over, then timed out");
		CHECK_RET(&r, 3, -ETIMEDOUT, kn, "T2 times out");
		absorbed_text(text, sizeof(text), kn, "  kill 2\n", "futex_wait f val=0");
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "passed over, then a signal");
		CHECK_RET(&r, 4, -EINTR, kn, "T2 interrupted");
		/* T2 waits for another value: it reads 0 != 2 and never waits */
		absorbed_text(text, sizeof(text), kn, "", "futex_wait f val=2");
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "no waiter passed over");
	}
}

/* The wake half of FUTEX_REQUEUE absorbs the same way, and the report names it. From f to
 * f itself: 2.6.11 moves at least one waiter when there is one (the limit is tested after
 * a move), and a waiter moved to another futex (f+4) is no longer owed f's wake-up; moved
 * within f, T2 stays f's waiter, passed over. */
static void test_absorbed_by_requeue(void)
{
	const char *base = "task 1\n  mmap f pages=1 prot=rw shared\n  store f val=0\n"
			   "  futex_requeue f %s nr_wake=1 nr_requeue=0\n"
			   "task 2\n  futex_wait f val=0\n"
			   "task 3\n  futex_wait f val=1\n"
			   "preempt 1 at op 3 point 1 to 3\n";
	char prog[1024], text[1200];
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		for (int moved = 0; moved < 2; moved++) {
			snprintf(prog, sizeof(prog), base, moved ? "f+4" : "f");
			preempt_at_read(text, sizeof(text), prog, kn, 3, 1, 1, 2);
			run_text(text, kn, &r);
			CHECK_EQ(r.unfired, 0, kn);
			CHECK_VERDICT(&r, queues_first(k) && !moved ? LOST : "ok", kn,
				      moved ? "T2 moved to f+4" : "absorbed by FUTEX_REQUEUE");
			/* T3 woken and T2 moved (within f or to f+4), or T2 alone woken */
			CHECK_RET(&r, 2, queues_first(k) ? 2 : 1, kn, "FUTEX_REQUEUE");
			if (queues_first(k) && !moved)
				CHECK(strstr(finding.body, "FUTEX_REQUEUE(") != NULL,
				      "[%s] the report:\n%s", kn, finding.body);
		}
	}
}

/* Seto's order (repro/cases/futex-seto-missed-wakeup.case) and its edges: T1 waits for 0,
 * T2 stores `store` (none: no store) and wakes one, preempting T1 at `at` points from its
 * read (0: just before it, 1: just after). */
static void seto_text(char *buf, size_t len, const char *kernel, const char *store, int at)
{
	char prog[512];

	snprintf(prog, sizeof(prog),
		 "task 1\n  mmap f pages=1 prot=rw shared\n  store f val=0\n  futex_wait f val=0\n"
		 "task 2\n%s  futex_wake f nr=1\n",
		 store);
	int p = preempt_at_read(buf, len, prog, kernel, 1, 3, at, 2);
	CHECK(p > 0, "[%s] T1's read point %d", kernel, p);
}

static void test_seto(void)
{
	char text[1024];
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		bool seto = k->futex->wait_reads_first;

		/* the word changes between T1's read and the wake */
		seto_text(text, sizeof(text), kn, "  store f val=1\n", 1);
		run_text(text, kn, &r);
		CHECK_EQ(r.unfired, 0, kn);
		CHECK_VERDICT(&r, seto ? MISSED : "ok", kn, "wake between read and queue_me");
		CHECK_RET(&r, 2, seto ? NOT_RUN : 0, kn, "T1's wait");
		CHECK_RET(&r, 4, seto ? 0 : 1, kn, "T2's wake");
		if (seto)
			CHECK(strstr(finding.body, "woke nobody") &&
				  strstr(finding.body,
					 "by then the word held 1, not the 0 T1 had read"),
			      "[%s] the report:\n%s", kn, finding.body);

		/* the waker runs before the waiter reads: T1 reads 1 and does not wait (on a
		 * queue-first kernel the wake finds it queued: its wait returns 0) */
		seto_text(text, sizeof(text), kn, "  store f val=1\n", 0);
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "wake before the read");
		CHECK_RET(&r, 2, queues_first(k) ? 0 : -EWOULDBLOCK, kn, "T1 reads the new value");

		/* a wake that changes nothing: T1 sleeps on, as it would after a wake-up too */
		seto_text(text, sizeof(text), kn, "", 1);
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "a wake without a store");
		CHECK_RET(&r, 2, seto ? NOT_RUN : 0, kn, "T1's wait");
		CHECK_RET(&r, 3, seto ? 0 : 1, kn, "T2's wake");
	}
}

/* FUTEX_CMP_REQUEUE (repro/cases/cmp-requeue-spurious-eagain.case): T1 reads the word,
 * T2's futex_wait queues in the bucket before T1 takes the bucket locks. */
static void test_cmp_requeue(void)
{
	const char *base = "task 1\n  mmap f pages=1 prot=rw shared\n  store f val=0\n"
			   "  futex_cmp_requeue f f+4 val=0 nr_wake=1 nr_requeue=0\n"
			   "task 2\n%s  futex_wait f val=%d\n";
	char prog[512], text[1024];
	struct run_result r;

	for_each_kernel (k) {
		const char *kn = k->name;
		/* the word equals val throughout */
		snprintf(prog, sizeof(prog), base, "", 0);
		preempt_at_read(text, sizeof(text), prog, kn, 1, 3, 1, 2);
		run_text(text, kn, &r);
		CHECK_EQ(r.unfired, 0, kn);
		CHECK_VERDICT(&r, has_nqueued(k) ? WRONG : "ok", kn, "nqueued's -EAGAIN");
		CHECK_RET(&r, 2, has_nqueued(k) ? -EAGAIN : 0, kn, "FUTEX_CMP_REQUEUE");
		if (has_nqueued(k)) {
			CHECK(strstr(finding.body, "returned -EAGAIN") &&
				  strstr(finding.body, "the bucket's count went from 0 to 1") &&
				  strstr(finding.body, "T2 queued a waiter there"),
			      "[%s] the report:\n%s", kn, finding.body);
			run_text_with(text, kn, ORACLE_DEADLOCK | ORACLE_LOST_WAKEUP, &r);
			CHECK_VERDICT(&r, "ok", kn, "--oracles=deadlock,lost-wakeup");
		}

		/* T2 changes the word before it queues: -EAGAIN is what the caller asked for */
		snprintf(prog, sizeof(prog), base, "  store f val=1\n", 1);
		preempt_at_read(text, sizeof(text), prog, kn, 1, 3, 1, 2);
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "the word changed during the call");

		/* the plain mismatch */
		snprintf(text, sizeof(text),
			 "task 1\n  mmap f pages=1 prot=rw shared\n  store f val=1\n"
			 "  futex_cmp_requeue f f+4 val=0 nr_wake=1 nr_requeue=0\n");
		run_text(text, kn, &r);
		CHECK_VERDICT(&r, "ok", kn, "a plain mismatch");
		CHECK_RET(&r, 2, -EAGAIN, kn, "FUTEX_CMP_REQUEUE, mismatch");
	}
}

/* Without the deadlock oracle a hang is no finding (the tasks sleep for good, unjudged). */
static void test_deadlock_oracle_off(void)
{
	const char *text = "task 1\n  mmap futex pages=1 prot=rw shared\n  futex_wait futex val=1\n"
			   "task 2\n  mmap other pages=1 prot=rw\n"
			   "preempt 1 at op 2 point 7 to 2\n";
	struct run_result r;

	run_text(text, "2.6.11-rc4", &r);
	CHECK_VERDICT(&r, "deadlock--do_page_fault--futex_wait", "2.6.11-rc4", "default");
	CHECK(r.result == SIM_HANG, "result %d", r.result);
	run_text_with(text, "2.6.11-rc4", ORACLE_LOST_WAKEUP | ORACLE_RESULT, &r);
	CHECK_VERDICT(&r, "ok", "2.6.11-rc4", "--oracles=lost-wakeup,result");
	CHECK(r.result == SIM_OK, "result %d", r.result);
}

/* The names (prog/oracle.c): the one table --oracles=LIST reads. */
static void test_names(void)
{
	char err[256], buf[256];

	CHECK_EQ(oracles_parse("deadlock", err, sizeof(err)), ORACLE_DEADLOCK, "deadlock");
	CHECK_EQ(oracles_parse("result,lost-wakeup", err, sizeof(err)),
		 ORACLE_RESULT | ORACLE_LOST_WAKEUP, "result,lost-wakeup");
	CHECK_EQ(oracles_parse("default", err, sizeof(err)), ORACLES_DEFAULT, "default");
	unsigned all = 0;
	for (const struct oracle_info *o = oracle_table; o->name; o++) {
		CHECK_EQ(oracles_parse(o->name, err, sizeof(err)), o->bit, o->name);
		CHECK(o->doc && o->tokens, "%s has a doc line and its tokens", o->name);
		all |= o->bit;
	}
	CHECK_EQ(oracles_parse("all", err, sizeof(err)), all, "all");
	CHECK((all & ORACLES_DEFAULT) == ORACLES_DEFAULT, "the default set is named");
	const char *bad[] = {"", "deadlock,", ",deadlock", "lost_wakeup", "deadlock,nope", "ALL"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		CHECK(oracles_parse(bad[i], err, sizeof(err)) == 0 && strstr(err, "' is none"),
		      "'%s' refused (%s)", bad[i], err);
	}
	CHECK(!strcmp(oracles_str(0, buf, sizeof(buf)),
		      "deadlock,lost-wakeup,result,integrity,lockdep"),
	      "%s", buf);
	CHECK(!strcmp(oracles_str(ORACLE_RESULT, buf, sizeof(buf)), "result"), "%s", buf);
	CHECK(!strcmp(oracles_all_names(), "deadlock,lost-wakeup,result,integrity,lockdep"), "%s",
	      oracles_all_names());
}

int main(void)
{
	test_names();
	test_absorbed();
	test_absorbed_by_requeue();
	test_seto();
	test_cmp_requeue();
	test_deadlock_oracle_off();
	return harness_exit();
}
