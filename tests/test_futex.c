/* futex conformance: the behaviour the kernel selftests and LTP check (REFERENCE.md
 * "Conformance facts"), as 2.6.11 had it (kernel/futex.c), on every kernel the model runs
 * (on 2.6.28 and 2.6.30 through private futexes: harness_text_for()).
 *
 * Each case is a text program with the return value expected of each op. Waiters sleep
 * in tasks 1..3; the waker (task 4, or task 2) starts with `sleep 1`: the virtual clock
 * fires a timer only when no task can run, so it runs once every waiter is asleep. A
 * waiter nobody wakes sleeps interruptibly for ever: the run ends "ok" and its op never
 * returns (NOT_RUN).
 */
#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/uaccess.h"

#include <limits.h>
#include <string.h>

/* Which kernels a case is for, from their switches (struct kernel_config), so that a new
 * kernel in ref/kernels.c is tested without a word here. */
typedef bool (*kernel_pred)(const struct kernel_config *k);

static bool every(const struct kernel_config *k)
{
	(void)k;
	return true;
}

/* get_futex_key() runs before the word is read (every kernel but olof-rfc) */
static bool key_first(const struct kernel_config *k)
{
	return k->futex->read != FUTEX_READ_CHECK_PAGE;
}

/* olof-rfc's check_user_page_readable() loop faults the page in before get_futex_key() */
static bool faults_first(const struct kernel_config *k)
{
	return k->futex->read == FUTEX_READ_CHECK_PAGE;
}

/* a kernel whose get_futex_key() makes a shared key from the page (2.6.28 on) */
static bool page_keys(const struct kernel_config *k)
{
	return k->futex->key_from_page;
}

/* get_futex_key() from the VMA, before the word is read (every kernel but olof-rfc and
 * those with keys from the page) */
static bool vma_key_first(const struct kernel_config *k)
{
	return key_first(k) && !page_keys(k);
}

struct want {
	int op;   /* in the order written, all of task 1's first */
	long ret; /* or NOT_RUN (tests/harness.h) */
};

/* WANT({op, ret}, ...): the expected return values, as an array and its length */
#define WANT(...)                           \
	(const struct want[]){__VA_ARGS__}, \
	    (int)(sizeof((const struct want[]){__VA_ARGS__}) / sizeof(struct want))

/* Run the program on each listed kernel `which` is true of and compare the ops' return values;
 * every case must end without a finding and without a SIGSEGV. AS_WRITTEN: on every kernel
 * as it is (an error case, whose errors a private futex does not give); else as harness_text_for()
 * makes it. */
static void run_case(const char *name, kernel_pred which, const char *text, bool as_written,
		     const struct want *want, int nwant)
{
	struct run_result r;

	for_each_kernel (k) {
		if (!which(k))
			continue;
		run_text(as_written ? text : harness_text_for(text, k), k->name, &r);
		CHECK(r.result == SIM_OK && !strcmp(r.verdict, "ok"), "%s [%s]: verdict %s", name,
		      k->name, r.verdict);
		CHECK_EQ(r.segv, 0, name);
		for (int i = 0; i < nwant; i++) {
			const struct want *w = &want[i];
			CHECK(want_ret(&r, w->op, w->ret), "%s [%s]: op %d: got %s%ld, want %s%ld",
			      name, k->name, w->op, r.ran[w->op] ? "" : "(never returned) ",
			      r.ret[w->op], w->ret == NOT_RUN ? "never returned " : "",
			      w->ret == NOT_RUN ? 0L : w->ret);
		}
	}
}

#define check_case(name, which, text, ...)  run_case(name, which, text, false, __VA_ARGS__)
#define check_error(name, which, text, ...) run_case(name, which, text, true, __VA_ARGS__)

/* Three waiters on WORD in the mapping f (MAP: its mmap arguments), queued in task order
 * (ops 1-3), and the waker, task 4, whose `sleep 1` (op 4) ends once all three sleep; then
 * WAKER, the waker's ops 5, 6, ... */
#define THREE_WAITERS(map, word, waker) \
	"task 1\n"                      \
	"  mmap f " map "\n"            \
	"  futex_wait " word " val=0\n" \
	"task 2\n"                      \
	"  futex_wait " word " val=0\n" \
	"task 3\n"                      \
	"  futex_wait " word " val=0\n" \
	"task 4\n"                      \
	"  sleep 1\n" waker

/* futex_wait: its return values */
static void test_wait(void)
{
	/* selftest futex_wait_uninitialized_heap, LTP futex_wait04: a never-touched private
	 * page holds 0, so val=1 gives -EWOULDBLOCK at once (through the faulting read) */
	check_case("untouched private page, val=1", every,
		   "task 1\n"
		   "  mmap m pages=1 prot=rw\n"
		   "  futex_wait m val=1\n",
		   WANT({1, -EWOULDBLOCK}));
	/* the same on a MAP_SHARED /dev/zero page (the seed testcase's mapping) */
	check_case("untouched shared page, val=1", every,
		   "task 1\n"
		   "  mmap m pages=4 prot=rw shared\n"
		   "  futex_wait m+8192 val=1\n",
		   WANT({1, -EWOULDBLOCK}));
	/* LTP futex_wait01: value mismatch -EWOULDBLOCK, match with a timeout -ETIMEDOUT */
	check_case("value mismatch and timeout", every,
		   "task 1\n"
		   "  mmap m pages=1 prot=rw\n"
		   "  store m+12 val=7\n"
		   "  futex_wait m+12 val=6\n"
		   "  futex_wait m+12 val=7 timeout=3\n"
		   "  futex_wait m val=0 timeout=1\n",
		   WANT({2, -EWOULDBLOCK}, {3, -ETIMEDOUT}, {4, -ETIMEDOUT}));
	/* LTP futex_wait07 (signal): a kill while the waiter sleeps gives -EINTR, with or
	 * without a timeout left */
	check_case("signal while sleeping", every,
		   "task 1\n"
		   "  mmap m pages=1 prot=rw\n"
		   "  futex_wait m val=0\n"
		   "task 2\n"
		   "  futex_wait m+4 val=0 timeout=100\n"
		   "task 3\n"
		   "  sleep 1\n"
		   "  kill 1\n"
		   "  kill 2\n",
		   WANT({1, -EINTR}, {2, -EINTR}, {4, 0}, {5, 0}));
	/* nothing to wait for: a waiter nobody wakes is not a hang, the run just ends */
	check_case("waiter nobody wakes", every,
		   "task 1\n"
		   "  mmap m pages=1 prot=rw\n"
		   "  futex_wait m val=0\n",
		   WANT({1, NOT_RUN}));
}

/* bad addresses and words */
static void test_errors(void)
{
	/* LTP futex_wait06, futex_wake05: NULL and unmapped addresses give -EFAULT (m is
	 * touched first: an untouched word is test_zero_page_loop()'s) */
	check_error("NULL address", every,
		    "task 1\n"
		    "  mmap m pages=1 prot=rw\n"
		    "  load m\n"
		    "  futex_wait null val=0\n"
		    "  futex_wake null nr=1\n"
		    "  futex_cmp_requeue null m val=0 nr_wake=1 nr_requeue=1\n"
		    "  futex_requeue m null nr_wake=1 nr_requeue=1\n",
		    WANT({2, -EFAULT}, {3, -EFAULT}, {4, -EFAULT}, {5, -EFAULT}));
	check_error("unmapped address", every,
		    "task 1\n"
		    "  mmap m pages=1 prot=rw\n"
		    "  munmap m pages=1\n"
		    "  futex_wait m val=0\n"
		    "  futex_wake m nr=1\n"
		    "  mmap n pages=1 prot=rw\n"
		    "  futex_wait n+4096 val=0\n",
		    WANT({2, -EFAULT}, {3, -EFAULT}, {5, -EFAULT}));
	/* PROT_NONE: 2.6.11's get_futex_key() says -EACCES (modern kernels -EFAULT); futex_wake
	 * never reads the word, so it says -EACCES on every kernel */
	const char *prot_none = "task 1\n"
				"  mmap m pages=1 prot=none\n"
				"  futex_wait m val=0\n"
				"  futex_wake m nr=1\n"
				"  futex_cmp_requeue m m+4 val=0 nr_wake=1 nr_requeue=1\n"
				"  futex_requeue m m+4 nr_wake=1 nr_requeue=1\n";
	check_error("PROT_NONE, get_futex_key first", vma_key_first, prot_none,
		    WANT({1, -EACCES}, {2, -EACCES}, {3, -EACCES}, {4, -EACCES}));
	/* a key from the page: get_user_pages() finds no VM_READ, -EFAULT (as today) */
	check_error("PROT_NONE, key from the page", page_keys, prot_none,
		    WANT({1, -EFAULT}, {2, -EFAULT}, {3, -EFAULT}, {4, -EFAULT}));
	/* ... but olof-rfc's check_user_page_readable() loop runs before get_futex_key() in
	 * futex_wait and futex_requeue: its get_user() fault fails the VM_READ check in
	 * do_page_fault, so those return -EFAULT */
	check_error("PROT_NONE, olof-rfc faults first", faults_first, prot_none,
		    WANT({1, -EFAULT}, {2, -EACCES}, {3, -EFAULT}, {4, -EFAULT}));
	/* a futex word must be 4-byte aligned: -EINVAL (get_futex_key) */
	check_error("misaligned word", every,
		    "task 1\n"
		    "  mmap m pages=1 prot=rw\n"
		    "  futex_wait m+2 val=0\n"
		    "  futex_wake m+2 nr=1\n"
		    "  futex_cmp_requeue m+2 m val=0 nr_wake=1 nr_requeue=1\n",
		    WANT({1, -EINVAL}, {2, -EINVAL}, {3, -EINVAL}));
}

/* FUTEX_WAKE */
static void test_wake(void)
{
	/* LTP futex_wake01: a wake with no waiters returns 0 for any nr (INT_MAX is in
	 * test_wake_int_max below: the text form stops at 127) */
	check_case("wake with no waiters", every,
		   "task 1\n"
		   "  mmap m pages=1 prot=rw\n"
		   "  futex_wake m nr=0\n"
		   "  futex_wake m nr=1\n"
		   "  futex_wake m nr=127\n"
		   "  futex_wake m+124 nr=1\n",
		   WANT({1, 0}, {2, 0}, {3, 0}, {4, 0}));
	/* a woken futex_wait returns 0, and wakes come in queue order (T1 first); a timed
	 * waiter woken before its timeout returns 0 too */
	check_case("woken waiter returns 0", every,
		   "task 1\n"
		   "  mmap f pages=1 prot=rw\n"
		   "  futex_wait f val=0 timeout=100\n"
		   "task 2\n"
		   "  futex_wait f val=0\n"
		   "task 4\n"
		   "  sleep 1\n"
		   "  futex_wake f nr=1\n"
		   "  futex_wake f nr=1\n"
		   "  futex_wake f nr=1\n",
		   WANT({1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 1}, {6, 0}));
	/* 2.6.11's futex_wake wakes one even when nr is 0 (it counts before it compares) */
	check_case("wake nr=0 wakes one", every,
		   "task 1\n"
		   "  mmap f pages=1 prot=rw\n"
		   "  futex_wait f val=0\n"
		   "task 2\n"
		   "  futex_wait f val=0\n"
		   "task 4\n"
		   "  sleep 1\n"
		   "  futex_wake f nr=0\n",
		   WANT({1, 0}, {2, NOT_RUN}, {4, 1}));
	/* waiters on different words of one page, or in different mappings, are not woken
	 * by a wake of another word: the key includes the offset and the mapping */
	check_case("wake matches the key only", every,
		   "task 1\n"
		   "  mmap f pages=1 prot=rw shared\n"
		   "  futex_wait f val=0\n"
		   "task 2\n"
		   "  mmap g pages=1 prot=rw shared\n"
		   "  futex_wait g val=0\n"
		   "task 3\n"
		   "  futex_wait f+4 val=0\n"
		   "task 4\n"
		   "  sleep 1\n"
		   "  futex_wake f nr=127\n",
		   WANT({1, 0}, {3, NOT_RUN}, {4, NOT_RUN}, {6, 1}));
	/* ... and a private key includes the page: the same offset in the next page is
	 * another futex */
	check_case("wake matches the key only, private", every,
		   "task 1\n"
		   "  mmap f pages=2 prot=rw\n"
		   "  futex_wait f val=0\n"
		   "task 2\n"
		   "  futex_wait f+4096 val=0\n"
		   "task 3\n"
		   "  futex_wait f+4 val=0\n"
		   "task 4\n"
		   "  sleep 1\n"
		   "  futex_wake f+4096 nr=127\n",
		   WANT({1, NOT_RUN}, {2, 0}, {3, NOT_RUN}, {5, 1}));
}

/* FUTEX_REQUEUE and FUTEX_CMP_REQUEUE */
static void test_requeue(void)
{
	/* selftest futex_requeue: CMP_REQUEUE (f1, nr_wake 0, nr_requeue 1) with one waiter
	 * returns 1, then a wake on f2 returns 1; nobody is left on f1 */
	check_case("CMP_REQUEUE one waiter (0, 1)", every,
		   "task 1\n"
		   "  mmap f pages=1 prot=rw\n"
		   "  futex_wait f val=0\n"
		   "task 2\n"
		   "  sleep 1\n"
		   "  futex_cmp_requeue f f+4 val=0 nr_wake=0 nr_requeue=1\n"
		   "  futex_wake f nr=1\n"
		   "  futex_wake f+4 nr=1\n",
		   WANT({1, 0}, {3, 1}, {4, 0}, {5, 1}));
	/* selftest futex_requeue scaled to three waiters: (nr_wake 1, nr_requeue 2) returns 3
	 * (the one woken plus the two moved), then a wake of f2 returns 2 */
	check_case("CMP_REQUEUE three waiters (1, 2)", every,
		   THREE_WAITERS("pages=1 prot=rw", "f",
				 "  futex_cmp_requeue f f+4 val=0 nr_wake=1 nr_requeue=2\n"
				 "  futex_wake f+4 nr=127\n"),
		   WANT({1, 0}, {2, 0}, {3, 0}, {5, 3}, {6, 2}));
	/* requeue moves at most nr_requeue: (0, 1) of three leaves two on f1 */
	check_case("CMP_REQUEUE (0, 1) of three", every,
		   THREE_WAITERS("pages=2 prot=rw shared", "f",
				 "  futex_cmp_requeue f f+4096 val=0 nr_wake=0 nr_requeue=1\n"
				 "  futex_wake f+4096 nr=127\n"
				 "  futex_wake f nr=127\n"),
		   WANT({1, 0}, {2, 0}, {3, 0}, {5, 1}, {6, 1}, {7, 2}));
	/* LTP futex_cmp_requeue02: a value mismatch gives -EAGAIN and moves nobody */
	check_case("CMP_REQUEUE value mismatch", every,
		   "task 1\n"
		   "  mmap f pages=1 prot=rw\n"
		   "  futex_wait f val=0\n"
		   "task 2\n"
		   "  sleep 1\n"
		   "  futex_cmp_requeue f f+4 val=1 nr_wake=1 nr_requeue=1\n"
		   "  futex_wake f+4 nr=1\n"
		   "  futex_wake f nr=1\n",
		   WANT({1, 0}, {3, -EAGAIN}, {4, 0}, {5, 1}));
	/* CMP_REQUEUE on a never-touched page reads it (faulting it in) and compares 0 */
	check_case("CMP_REQUEUE on an untouched page", every,
		   "task 1\n"
		   "  mmap f pages=2 prot=rw\n"
		   "  futex_cmp_requeue f+4096 f val=1 nr_wake=1 nr_requeue=1\n"
		   "  futex_cmp_requeue f+4096 f val=0 nr_wake=1 nr_requeue=1\n",
		   WANT({1, -EAGAIN}, {2, 0}));
	/* plain FUTEX_REQUEUE: the same counts, and it never compares the word */
	check_case("REQUEUE three waiters (1, 2)", every,
		   THREE_WAITERS("pages=1 prot=rw", "f",
				 "  store f val=9\n"
				 "  futex_requeue f f+4 nr_wake=1 nr_requeue=2\n"
				 "  futex_wake f nr=127\n"
				 "  futex_wake f+4 nr=127\n"),
		   WANT({1, 0}, {2, 0}, {3, 0}, {6, 3}, {7, 0}, {8, 2}));
}

/* LTP futex_wake02: waking i of N waiters returns i, and exactly the first i (in queue
 * order) return 0; the rest sleep on. Private and shared mappings. */
static void test_wake_i_of_n(void)
{
	char text[512];
	struct run_result r;

	for (int shared = 0; shared <= 1; shared++) {
		for (int i = 1; i <= 3; i++) {
			snprintf(text, sizeof(text),
				 THREE_WAITERS("pages=1 prot=rw%s", "f+64",
					       "  futex_wake f+64 nr=%d\n"
					       "  futex_wake f+64 nr=127\n"),
				 shared ? " shared" : "", i);
			for_each_kernel (k) {
				const char *kn = k->name;
				run_text(harness_text_for(text, k), kn, &r);
				CHECK(!strcmp(r.verdict, "ok"), "wake %d of 3 [%s]: %s", i, kn,
				      r.verdict);
				CHECK(r.ran[5] && r.ret[5] == i, "wake %d of 3 [%s]: returned %ld",
				      i, kn, r.ret[5]);
				CHECK(r.ran[6] && r.ret[6] == 3 - i,
				      "then a wake of the rest [%s]: returned %ld", kn, r.ret[6]);
				for (int w = 0; w < 3; w++) {
					CHECK(r.ran[w + 1] && r.ret[w + 1] == 0,
					      "wake %d of 3 [%s]: waiter T%d got %ld", i, kn, w + 1,
					      r.ret[w + 1]);
				}
			}
		}
	}
}

/* The ordering trick itself: the waker's `sleep 1` ends only once every waiter has gone
 * to sleep in futex_wait, so its wake finds all three queued. */
static void test_waker_runs_after_waiters_sleep(void)
{
	const char *text = THREE_WAITERS("pages=1 prot=rw", "f", "  futex_wake f nr=127\n");
	struct run_result r;

	for_each_kernel (k) {
		int n, dropped, asleep = 0, wake = -1;
		run_text(harness_text_for(text, k), k->name, &r);
		const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
		for (int i = 0; i < n && wake < 0; i++) {
			if (ev[i].kind == EV_SLEEP && ev[i].task <= 3 && ev[i].fn &&
			    !strcmp(ev[i].fn, "futex_wait"))
				asleep |= 1 << ev[i].task;
			if (ev[i].kind == EV_SYSCALL && ev[i].task == 4 && ev[i].fn &&
			    !strcmp(ev[i].fn, "sys_futex"))
				wake = i;
		}
		CHECK(wake > 0, "[%s] no futex_wake from T4", k->name);
		CHECK_EQ(asleep, 0xe, "waiters asleep before T4's futex_wake (bit per task)");
		CHECK_EQ(r.ret[5], 3, "futex_wake");
		for (int w = 1; w <= 3; w++)
			CHECK(r.ran[w] && r.ret[w] == 0, "[%s] waiter T%d got %ld", k->name, w,
			      r.ret[w]);
	}
}

/* Without the second wake, the waiters after the first i never return. */
static void test_wake_leaves_the_rest_asleep(void)
{
	const char *text = THREE_WAITERS("pages=1 prot=rw", "f", "  futex_wake f nr=2\n");
	struct run_result r;

	for_each_kernel (k) {
		run_text(harness_text_for(text, k), k->name, &r);
		CHECK(!strcmp(r.verdict, "ok"), "[%s] verdict %s", k->name, r.verdict);
		CHECK_EQ(r.ret[5], 2, "wake nr=2");
		CHECK(r.ran[1] && r.ret[1] == 0, "T1 woken first");
		CHECK(r.ran[2] && r.ret[2] == 0, "T2 woken second");
		CHECK(!r.ran[3], "T3 still asleep");
	}
}

/* 2.6.28 and 2.6.30: a shared futex op on a private anonymous word nobody has touched
 * loops in get_futex_key(), whose get_user_pages() hands out the ZERO_PAGE (FOLL_ANON) and
 * whose `if (!page->mapping) goto again` finds no mapping on it, for ever (fixed in 2.6.33
 * by 7485d0d3758e; docs/kernel-facts.md, "Keys from the page"). The selftest
 * futex_wait_uninitialized_heap ("intent to test zero page handling in futex") is the
 * first case of test_wait(): there it loops; a private futex does not. */
static void test_zero_page_loop(void)
{
	static const struct {
		const char *op, *token;
	} ops[] = {
	    {"futex_wait m val=1", "livelock--futex_wait"},
	    {"futex_wake m nr=1", "livelock--futex_wake"},
	    {"futex_cmp_requeue m m+4 val=0 nr_wake=1 nr_requeue=1", "livelock--futex_cmp_requeue"},
	};
	char text[256];
	struct run_result r;

	for_each_kernel (k) {
		if (!page_keys(k))
			continue;
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			snprintf(text, sizeof(text), "task 1\n  mmap m pages=1 prot=rw\n  %s\n",
				 ops[i].op);
			run_text(text, k->name, &r);
			CHECK(!strcmp(r.verdict, ops[i].token), "[%s] %s on an untouched word: %s",
			      k->name, ops[i].op, r.verdict);
			snprintf(text, sizeof(text),
				 "task 1\n  mmap m pages=1 prot=rw\n  %s private\n", ops[i].op);
			run_text(text, k->name, &r);
			CHECK(!strcmp(r.verdict, "ok") && r.ran[1], "[%s] %s private: %s", k->name,
			      ops[i].op, r.verdict);
			snprintf(text, sizeof(text),
				 "task 1\n  mmap m pages=1 prot=rw\n  load m\n  %s\n", ops[i].op);
			run_text(text, k->name, &r);
			CHECK(!strcmp(r.verdict, "ok") && r.ran[2], "[%s] load, then %s: %s",
			      k->name, ops[i].op, r.verdict);
		}
	}
}

/* --- do_futex directly: what the text form cannot say --- */

static unsigned long futex_page;
static long rets[6];

static void direct_t1(void)
{
	futex_page = (unsigned long)sys_mmap2(0, PAGE_SIZE, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	user_store(futex_page, 0); /* touched: an untouched word is test_zero_page_loop()'s */
	/* LTP futex_wake01 with INT_MAX */
	rets[0] = do_futex(futex_page, FUTEX_WAKE, INT_MAX, 0, 0, 0, 0);
	/* FUTEX_FD is not modelled; an unknown op is -ENOSYS (FUTEX_WAKE_OP before 2.6.14) */
	rets[1] = do_futex(futex_page, FUTEX_FD, 0, 0, 0, 0, 0);
	rets[2] = do_futex(futex_page, 5 /* FUTEX_WAKE_OP, 2.6.14 */, 1, 0, 0, 0, 0);
	rets[3] = do_futex(futex_page, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0, 0);
	/* a signal that is already pending when futex_wait goes to sleep: schedule() does
	 * not sleep in TASK_INTERRUPTIBLE with a signal pending, so -EINTR at once */
	send_sig(current);
	rets[4] = do_futex(futex_page, FUTEX_WAIT, 0, MAX_SCHEDULE_TIMEOUT, 0, 0, 0);
	rets[5] = do_futex(futex_page, FUTEX_WAIT, 0, 5, 0, 0, 0);
	current->sigpending = false;
}

static void test_direct_calls(void)
{
	task_fn fns[] = {direct_t1};

	for_each_kernel (k) {
		kcfg = k;
		memset(rets, 0x55, sizeof(rets));
		CHECK_EQ(run_tasks(1, fns, NULL, 0), SIM_OK, k->name);
		CHECK_EQ(rets[0], 0, "wake INT_MAX with no waiters");
		CHECK_EQ(rets[1], -ENOSYS, "FUTEX_FD");
		/* from 2.6.14 FUTEX_WAKE_OP, whose uaddr2 0 has no VMA: get_futex_key()'s
		 * -EFAULT */
		CHECK_EQ(rets[2], kernel_wake_op(k) ? -EFAULT : -ENOSYS, "op 5");
		/* a private FUTEX_WAIT for a word that holds 0, not 1: before 2.6.22 no such
		 * op, from 2.6.22 the word's mismatch */
		CHECK_EQ(rets[3], kernel_private_futexes(k) ? -EWOULDBLOCK : -ENOSYS,
			 "FUTEX_WAIT | FUTEX_PRIVATE_FLAG");
		CHECK_EQ(rets[4], -EINTR, "wait with a signal pending");
		CHECK_EQ(rets[5], -EINTR, "timed wait with a signal pending");
		CHECK_EQ(sim_now(), 0, "nobody slept");
	}
	/* drop run_tasks()' pages: run_text() reuses the one page table */
	mmput(harness_mm());
}

int main(void)
{
	test_wait();
	test_errors();
	test_wake();
	test_requeue();
	test_waker_runs_after_waiters_sleep();
	test_wake_i_of_n();
	test_wake_leaves_the_rest_asleep();
	test_zero_page_loop();
	test_direct_calls();
	return harness_exit();
}
