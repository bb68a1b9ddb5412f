/* The read-only views of the futex oracles' books (ref/futex_oracle.h: futex_oracle_lost(),
 * futex_oracle_wrong_result()), which snafu trace draws from: on every kernel, a view
 * exists exactly when the run's verdict is its finding, and it names what the report
 * names (the wake call, the waiter the wake-up was spent on, the sleeper passed over or
 * missed and their places; the FUTEX_CMP_REQUEUE and the queue_me() that moved nqueued).
 * The programs are those of repro/cases/futex-absorbed-wakeup.case,
 * futex-seto-missed-wakeup.case and cmp-requeue-spurious-eagain.case.
 */
#include "harness.h"

#include "../prog/oracle.h"
#include "../ref/futex_oracle.h"
#include "../ref/report.h"

#include <stdlib.h>
#include <string.h>

#define LOST   "lost-wakeup--absorbed--futex_wait"
#define MISSED "lost-wakeup--missed--futex_wait"
#define WRONG  "wrong-result--futex_cmp_requeue"

static const char absorbed[] = ABSORBED_WAKEUP_PROGRAM "preempt 1 at op 3 point 1 to 3\n"
						       "preempt 3 at op 1 point 8 to 2\n";

static const char missed[] = "task 1\n"
			     "  mmap futex pages=1 prot=rw shared\n"
			     "  store futex val=0\n"
			     "  futex_wait futex val=0\n"
			     "task 2\n"
			     "  store futex val=1\n"
			     "  futex_wake futex nr=1\n"
			     "preempt 1 at op 3 point 6 to 2\n";

static const char eagain[] = "task 1\n"
			     "  mmap futex pages=1 prot=rw shared\n"
			     "  store futex val=0\n"
			     "  futex_cmp_requeue futex futex+4 val=0 nr_wake=1 nr_requeue=0\n"
			     "task 2\n"
			     "  futex_wait futex val=0\n"
			     "preempt 1 at op 3 point 6 to 2\n";

/* A view exists exactly when the run's verdict is its finding WANT: whether it is. */
static bool view_iff_verdict(const char *kn, bool view, const struct run_result *r,
			     const char *want)
{
	bool found = !strcmp(r->verdict, want);

	CHECK(view == found, "[%s] a view %s a verdict %s", kn, found ? "without" : "with",
	      r->verdict);
	return found;
}

/* The report holds the line the view's facts make. */
#define CHECK_SAYS(kn, ...)                                                                       \
	do {                                                                                      \
		char want_[256];                                                                  \
		snprintf(want_, sizeof(want_), __VA_ARGS__);                                      \
		CHECK(strstr(finding.body, want_) != NULL, "[%s] the report lacks '%s':\n%s", kn, \
		      want_, finding.body);                                                       \
	} while (0)

static void check_lost(const char *kn, const struct fo_lost_view *v)
{
	CHECK_SAYS(
	    kn,
	    "T%d (pid %d) state S, in sys_futex, asleep in futex_wait(0x%lx, val %d) since %u.%u",
	    v->sleeper_slept.task, v->sleeper_slept.task, v->uaddr, v->sleeper_val,
	    v->sleeper_slept.op, v->sleeper_slept.point);
	CHECK_SAYS(kn, "read %u, its val, at %u.%u, before the %s below (T%d, %u.%u)",
		   v->sleeper_curval, v->sleeper_read.op, v->sleeper_read.point, v->call,
		   v->wake.task, v->wake.op, v->wake.point);
	CHECK_SAYS(kn, "T%d (pid %d) %s(0x%lx), which may wake %d, at %u.%u: returned %ld",
		   v->wake.task, v->wake.task, v->call, v->uaddr, v->budget, v->wake.op,
		   v->wake.point, v->ret);
	CHECK(v->sleeper_read.task == v->sleeper_slept.task &&
		  v->sleeper_queued.task == v->sleeper_slept.task,
	      "[%s] the sleeper's places name one task", kn);
	if (v->missed) {
		CHECK_SAYS(kn, "queued only at %u.%u, after it", v->sleeper_queued.op,
			   v->sleeper_queued.point);
		CHECK_SAYS(kn, "by then the word held %u, not the %u T%d had read", v->word_at_wake,
			   v->sleeper_curval, v->sleeper_slept.task);
		CHECK_EQ(v->nwoken, 0, "a missed wake woke nobody");
		return;
	}
	CHECK_SAYS(kn, "queued at %u.%u; passed over", v->sleeper_queued.op,
		   v->sleeper_queued.point);
	CHECK_SAYS(kn, "woke T%d", v->spent_read.task);
	CHECK_SAYS(kn, "T%d (pid %d) in futex_wait(0x%lx, val %d): queued at %u.%u",
		   v->spent_read.task, v->spent_read.task, v->uaddr, v->spent_val,
		   v->spent_queued.op, v->spent_queued.point);
	CHECK_SAYS(kn, "read %u at %u.%u", v->spent_curval, v->spent_read.op, v->spent_read.point);
	CHECK((int)v->spent_curval != v->spent_val, "[%s] the spent-on waiter matched", kn);
	CHECK(v->nwoken >= 1 && v->woken[0] == v->spent_read.task, "[%s] woken %d", kn,
	      v->nwoken ? v->woken[0] : -1);
}

static void test_lost(const char *text, bool want_missed)
{
	struct run_result r;
	struct fo_lost_view v;
	struct fo_eagain_view e;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(text, kn, &r);
		bool lost =
		    view_iff_verdict(kn, futex_oracle_lost(&v), &r, want_missed ? MISSED : LOST);
		CHECK(!futex_oracle_wrong_result(&e), "[%s] a wrong result", kn);
		if (!lost)
			continue;
		CHECK(v.missed == want_missed, "[%s] missed %d", kn, v.missed);
		check_lost(kn, &v);
		/* the books do not depend on the oracles asked for */
		struct fo_lost_view again;
		run_text_with(text, kn, ORACLE_DEADLOCK, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] --oracles=deadlock: %s", kn, r.verdict);
		CHECK(futex_oracle_lost(&again) && !memcmp(&again, &v, sizeof(v)),
		      "[%s] the view changed with the oracles", kn);
	}
}

static void test_wrong_result(void)
{
	struct run_result r;
	struct fo_eagain_view v;
	struct fo_lost_view l;

	for_each_kernel (k) {
		const char *kn = k->name;
		run_text(eagain, kn, &r);
		bool wrong = view_iff_verdict(kn, futex_oracle_wrong_result(&v), &r, WRONG);
		CHECK(!futex_oracle_lost(&l), "[%s] a lost wake-up", kn);
		if (!wrong)
			continue;
		CHECK_SAYS(
		    kn, "T%d (pid %d) FUTEX_CMP_REQUEUE(0x%lx, val %d) returned -EAGAIN at %u.%u",
		    v.call.task, v.call.task, v.uaddr, v.val, v.call.op, v.call.point);
		CHECK_SAYS(kn, "the bucket's count went from %u to %u", v.then_nq, v.now_nq);
		CHECK(v.nqueuers == 1, "[%s] %d queue_me() calls", kn, v.nqueuers);
		for (int i = 0; i < v.nqueuers; i++)
			CHECK_SAYS(kn, "T%d queued a waiter there at %u.%u (futex_wait(0x%lx))",
				   v.queuers[i].task, v.queuers[i].op, v.queuers[i].point,
				   v.queuer_uaddr[i]);
		CHECK((int)v.curval == v.val && (int)v.now == v.val, "[%s] read %u, now %u", kn,
		      v.curval, v.now);
	}
}

int main(void)
{
	test_lost(absorbed, false);
	test_lost(missed, true);
	test_wrong_result();
	return harness_exit();
}
