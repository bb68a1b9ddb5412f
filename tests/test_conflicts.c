/* Conflict-directed PCT schedules (fuzz/joint.c, joint_conflicts_record(); fuzz/mutator.c,
 * conflict_change(); docs/fuzzing.md "Conflict points"): the steps kept for an input are
 * those of its accesses that another task's access to the same object conflicts with
 * (one of the two writes), within a change point's reach, in order; a program of one
 * task has none; the mutator finds them by the input's bytes, and the change points it
 * draws from them are at one or right after one. And which programs have a contended
 * futex word, whose search joint.c gives more runs (joint_contended()). */
#include "harness.h"

#include "../fuzz/mutator.c" /* first: it declares joint_conflict_steps() weak */
#include "../fuzz/joint.c"

#include <stdlib.h>
#include <string.h>

bool snafu_fuzz_all_ops, snafu_fuzz_pct = true, snafu_fuzz_crossover;
uint8_t snafu_fuzz_flags;

/* libFuzzer's byte mutation, which the mutator calls one time in twelve: none here */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)data, (void)max_size;
	return size;
}

/* The searches joint.c would make: not used here */
bool explore_search(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, bool (*accept)(void *ctx, const struct run_result *r),
		    void *ctx, struct program *found, long long *runs)
{
	(void)p, (void)k, (void)oracles, (void)K, (void)max_schedules, (void)accept, (void)ctx;
	(void)found, (void)runs;
	abort();
}

bool explore_sample(const struct program *p, const struct kernel_config *k, unsigned oracles, int K,
		    long long max_schedules, uint64_t seed, struct program *found, long long *runs)
{
	(void)p, (void)k, (void)oracles, (void)K, (void)max_schedules, (void)seed;
	(void)found, (void)runs;
	abort();
}

bool confirm_explore(const struct program *p, const struct kernel_config *k,
		     const struct lockdep_prediction *pred, long long budget, struct program *found,
		     long long *runs)
{
	(void)p, (void)k, (void)pred, (void)budget, (void)found, (void)runs;
	abort();
}

/* Seto's missed wake-up's program (repro/cases/futex-seto-missed-wakeup.case) and a
 * bystander, with a PCT schedule that runs task 1 first and changes nothing: its byte
 * form in buf */
static size_t seto(uint8_t *buf, size_t cap, bool one_task, struct program *p)
{
	char err[PROG_ERR_LEN];
	const char *text = one_task
			       ? "task 1\n  mmap futex pages=1 prot=rw shared\n"
				 "  store futex val=0\n  futex_wait futex val=0\n"
			       : "task 1\n  mmap futex pages=1 prot=rw shared\n"
				 "  store futex val=0\n  futex_wait futex val=0\n"
				 "task 2\n  store futex val=1\n  futex_wake futex nr=1\n"
				 /* a bystander on a page of its own: steps without conflicts,
				    so that a change point drawn at random seldom lands on one */
				 "task 3\n  mmap own pages=1 prot=rw\n  load own\n  load own\n"
				 "  load own\n  load own\n  load own\n  load own\n";
	if (prog_parse(text, p, err, sizeof(err))) {
		fprintf(stderr, "test_conflicts: %s\n", err);
		exit(1);
	}
	p->pct.on = true;
	p->pct.nchange = 0;
	p->pct.prio[0] = 3, p->pct.prio[1] = 2, p->pct.prio[2] = 1;
	size_t n = prog_encode(p, buf, cap);
	prog_decode(buf, n, p);
	return n;
}

/* The step of task TASK's first traced event of KIND by FN in p's run */
static uint32_t step_of(const struct program *p, const struct kernel_config *k, int task, int kind,
			const char *fn)
{
	struct run_opts traced = {.trace = true};
	struct run_result r;
	int n, dropped;

	prog_run(p, k, &traced, &r);
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	for (int i = 0; i < n; i++)
		if (ev[i].task == task && ev[i].kind == kind && !strcmp(ev[i].fn, fn))
			return ev[i].step;
	return 0;
}

static bool kept(const uint32_t *steps, int n, uint32_t s)
{
	for (int i = 0; i < n; i++)
		if (steps[i] == s)
			return true;
	return false;
}

int main(void)
{
	static uint8_t a[PROG_MAX_ENCODED], one[PROG_MAX_ENCODED], other[PROG_MAX_ENCODED];
	static struct program p, q;
	const struct kernel_config *k = kernel_by_name("2.6.11");
	const uint32_t *steps;

	size_t n = seto(a, sizeof(a), false, &p);
	joint_conflicts_record(&p, a, n, k, ORACLE_LOST_WAKEUP);
	int ns = joint_conflict_steps(a, n, &steps);
	CHECK(ns > 0, "Seto's program: no conflict steps kept");
	for (int i = 0; i < ns; i++) {
		CHECK(steps[i] >= 1 && steps[i] <= prog_pct_steps(&p), "step %u out of reach",
		      steps[i]);
		CHECK(i == 0 || steps[i] > steps[i - 1], "steps not in order: %u after %u",
		      steps[i], steps[i - 1]);
	}
	/* task 1's read of the word in futex_wait (2.6.11: with page faults off) reads what
	 * task 2's store writes; both stores write the word's page */
	uint32_t get = step_of(&p, k, 1, EV_UACCESS, "__copy_from_user_inatomic");
	uint32_t st2 = step_of(&p, k, 2, EV_USER, "store");
	CHECK(get && kept(steps, ns, get), "futex_wait's read (step %u) not kept", get);
	CHECK(st2 && kept(steps, ns, st2), "task 2's store (step %u) not kept", st2);

	/* one task: nothing conflicts */
	size_t m = seto(one, sizeof(one), true, &q);
	joint_conflicts_record(&q, one, m, k, ORACLE_LOST_WAKEUP);
	CHECK_EQ(joint_conflict_steps(one, m, &steps), 0, "one task's conflict steps");

	/* the mutator: given the input's bytes, it has its steps (and none for another
	 * input: the same program with other priorities); a change point it draws there is
	 * at one of them or right after it */
	ns = joint_conflict_steps(a, n, &steps);
	memcpy(other, a, n);
	other[n - 2] ^= 1; /* the priorities' byte (no change points: before the last) */
	CHECK_EQ(joint_conflict_steps(other, n, &steps), 0, "the other input's conflict steps");
	LLVMFuzzerCustomMutator(other, n, sizeof(other), 1);
	CHECK_EQ(nconflict, 0, "the mutator's conflict steps for the other input");
	memcpy(other, a, n);
	LLVMFuzzerCustomMutator(other, n, sizeof(other), 1);
	CHECK_EQ(nconflict, ns, "the mutator's conflict steps for the input");
	uint32_t pct_steps = prog_pct_steps(&p);
	int before = 0, after = 0, wrong = 0;
	for (int i = 0; i < 1000; i++) {
		uint8_t c[2];
		CHECK(conflict_change(c), "no change point drawn at a conflict");
		uint32_t at = 1 + (uint32_t)(c[0] | c[1] << 8) % pct_steps; /* prog/codec.c */
		before += kept(conflict, nconflict, at);
		after += kept(conflict, nconflict, at - 1) && !kept(conflict, nconflict, at);
		wrong += !kept(conflict, nconflict, at) && !kept(conflict, nconflict, at - 1);
	}
	CHECK(!wrong && before > 300 && after > 100,
	      "change points drawn at conflicts: %d at one, %d right after, %d elsewhere", before,
	      after, wrong);

	/* joint_contended(): two tasks wait on one word, a third wakes or requeues it (the
	 * absorbed wake-up's program); not with the waiters in one task, on two words, or
	 * with the waker one of them */
	static const struct {
		const char *text;
		bool contended;
	} words[] = {
	    {"task 1\n  mmap f pages=1 prot=rw shared\n  store f val=0\n  futex_wake f nr=1\n"
	     "task 2\n  futex_wait f val=0\ntask 3\n  futex_wait f val=1\n",
	     true},
	    {"task 1\n  mmap f pages=1 prot=rw shared\n  futex_cmp_requeue f f+4 val=0 nr_wake=1 "
	     "nr_requeue=1\n"
	     "task 2\n  futex_wait f val=0\ntask 3\n  futex_wait f val=0\n",
	     true},
	    {"task 1\n  mmap f pages=1 prot=rw shared\n  futex_wake f nr=1\n"
	     "task 2\n  futex_wait f val=0\n  futex_wait f val=0\n",
	     false},
	    {"task 1\n  mmap f pages=1 prot=rw shared\n  futex_wake f nr=1\n"
	     "task 2\n  futex_wait f val=0\ntask 3\n  futex_wait f+4 val=0\n",
	     false},
	    {"task 1\n  mmap f pages=1 prot=rw shared\n  futex_wake f nr=1\n  futex_wait f val=0\n"
	     "task 2\n  futex_wait f val=0\n",
	     false},
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char err[PROG_ERR_LEN];
		static struct program w;
		CHECK(!prog_parse(words[i].text, &w, err, sizeof(err)), "program %zu: %s", i, err);
		CHECK(joint_contended(&w) == words[i].contended, "program %zu: contended %d", i,
		      !words[i].contended);
	}
	return harness_exit();
}
