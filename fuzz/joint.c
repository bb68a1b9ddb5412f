/* The joint search (issue 23): the fuzzer finds programs, snafu explore's search finds
 * their schedules. Given a bug's program, explore finds its schedule in tens to hundreds
 * of runs; libFuzzer, mutating schedules at random, takes thousands. So a program that
 * reaches new code (the input libFuzzer keeps) gets, once, a search of its schedules
 * with up to JOINT_PREEMPTIONS preemptions on a budget of runs, each run counted as an
 * execution (fuzz/futex_mm_fuzzer.c, --joint=N).
 *
 * Built without coverage counters (CMakeLists.txt): the search's own code is not the
 * model's. The model's code it runs is, so the counters are put back after it: an input
 * is kept for what its own run reached, not for what the search of it did. The search
 * has snafu explore's partial-order reduction: the sim_touch() marks it needs are calls
 * into sim/, which add no edge to the model's coverage (sim/sim.h). Only programs where
 * an order can matter to a sleeper are searched (waits_beside()): a futex_wait with an
 * op of another task on its page, as Snowboard pairs a write of one test with a read of
 * another on the same memory.
 *
 * Lockdep steers it to deadlocks (joint_prediction_worth()): a program whose run makes
 * a lockdep prediction gets snafu confirm's search for the deadlock predicted
 * (confirm_explore(): the writer and kswapd's passes it needs added), as DeadlockFuzzer
 * predicts a cycle from one run and then directs the scheduler to it.
 */
#include "joint.h"

#include "../prog/exec.h"
#include "../prog/oracle.h"
#include "../ref/lockdep.h"
#include "../tools/confirm.h"
#include "../tools/explore.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer's inline 8-bit counters, one per edge, in this section of the binary */
extern uint8_t __start___sancov_cntrs[] __attribute__((weak));
extern uint8_t __stop___sancov_cntrs[] __attribute__((weak));

static uint8_t *seen, *saved; /* 0xff per counter once seen; a copy for joint_search() */

static size_t ncounters(void)
{
	if (!__start___sancov_cntrs || !__stop___sancov_cntrs)
		return 0;
	return (size_t)(__stop___sancov_cntrs - __start___sancov_cntrs);
}

/* The last counters, fewer than eight, as a word laid out as the others are */
static uint64_t short_word(size_t from, size_t n)
{
	uint8_t b[8] = {0};
	uint64_t w;

	for (size_t j = from; j < n; j++)
		b[j - from] = __start___sancov_cntrs[j];
	memcpy(&w, b, 8);
	return w;
}

/* Called after every execution, so it reads the counters eight at a time, without the
 * sanitizers' checks of each load, against a mask of 0xff for each counter seen before:
 * byte by byte with the checks, it took 22 % of the fuzzer's time with --joint=30 (perf
 * record -e cpu-clock), against 5 % for libFuzzer's own scan of the same counters. */
__attribute__((no_sanitize("address", "undefined"))) bool joint_new_coverage(void)
{
	size_t n = ncounters(), words = (n + 7) / 8;
	bool fresh = false;

	if (!n)
		return false;
	if (!seen && !(seen = calloc(words, 8)))
		abort();
	for (size_t i = 0; i < words; i++) {
		uint64_t w, mask;
		if (8 * i + 8 <= n)
			__builtin_memcpy(&w, __start___sancov_cntrs + 8 * i, 8); /* a load */
		else
			w = short_word(8 * i, n);
		__builtin_memcpy(&mask, seen + 8 * i, 8);
		if (!(w & ~mask))
			continue;
		for (size_t j = 8 * i; j < n && j < 8 * i + 8; j++)
			if (__start___sancov_cntrs[j])
				seen[j] = 0xff;
		fresh = true;
	}
	return fresh;
}

/* The programs searched, by a hash of their ops (open addressing; full: none more). */
#define SEARCHED_CAP (1u << 16)
static uint64_t searched[SEARCHED_CAP];
static unsigned nsearched;

static uint64_t ops_hash(const struct program *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const uint8_t *b = (const uint8_t *)p->ops;

	for (size_t i = 0; i < (size_t)p->nops * sizeof(p->ops[0]); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h ? h : 1; /* 0: an empty slot */
}

static bool same_page(const struct uref *a, const struct uref *b)
{
	return a->map == b->map && a->map != PROG_NULL_MAP && a->page == b->page;
}

/* Whether a futex_wait of p has, in another task, an op on its page that is neither a
 * plain read nor an mmap: a waker, a store, a requeue, a kswapd pass, an munmap, ... */
static bool waits_beside(const struct program *p)
{
	for (int i = 0; i < p->nops; i++) {
		if (p->ops[i].kind != OP_FUTEX_WAIT)
			continue;
		for (int j = 0; j < p->nops; j++) {
			const struct op *o = &p->ops[j];
			if (o->task == p->ops[i].task || o->kind == OP_LOAD || o->kind == OP_MMAP)
				continue;
			if ((op_uses_a(o->kind) && same_page(&o->a, &p->ops[i].a)) ||
			    (op_uses_b(o->kind) && same_page(&o->b, &p->ops[i].a)))
				return true;
		}
	}
	return false;
}

/* Whether h is new to the set of searched programs (and now in it); false when full */
static bool first_search(uint64_t h)
{
	if (nsearched >= SEARCHED_CAP / 2)
		return false;
	unsigned i = (unsigned)h & (SEARCHED_CAP - 1);
	while (searched[i]) {
		if (searched[i] == h)
			return false;
		i = (i + 1) & (SEARCHED_CAP - 1);
	}
	searched[i] = h;
	nsearched++;
	return true;
}

bool joint_worth(const struct program *p)
{
	return waits_beside(p) && first_search(ops_hash(p));
}

/* Lockdep's predictions searched, by their signature: whether a search confirmed one */
#define PREDICTIONS_CAP 64
static struct {
	uint64_t token;
	bool confirmed;
} predictions[PREDICTIONS_CAP];
static int npredictions;

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return h;
}

/* The prediction's entry, made on first sight; NULL when the table is full */
static int prediction_of(const char *token)
{
	uint64_t h = str_hash(token);

	for (int i = 0; i < npredictions; i++)
		if (predictions[i].token == h)
			return i;
	if (npredictions == PREDICTIONS_CAP)
		return -1;
	predictions[npredictions].token = h;
	return npredictions++;
}

/* The prediction joint_prediction_worth() said was worth a search: the runs made before
 * the search (the report of the input's own finding) make their own */
static struct lockdep_prediction pending;

bool joint_prediction_worth(const struct program *p, bool fresh)
{
	const struct lockdep_prediction *pred = lockdep_prediction();

	if (!pred->made)
		return false;
	int i = npredictions, e = prediction_of(pred->token);
	bool first = e == i; /* its first program */
	if (e < 0 || predictions[e].confirmed || !(first || fresh) ||
	    !first_search(ops_hash(p) ^ str_hash(pred->token)))
		return false;
	pending = *pred;
	return true;
}

/* The coverage counters, kept across a search: what it reaches is not the input's */
static void counters_save(void)
{
	size_t n = ncounters();

	if (n && !saved && !(saved = malloc(n)))
		abort();
	if (n)
		memcpy(saved, __start___sancov_cntrs, n);
}

static void counters_restore(void)
{
	size_t n = ncounters();

	if (n)
		memcpy(__start___sancov_cntrs, saved, n);
}

bool joint_search(const struct program *p, const struct kernel_config *k, unsigned oracles,
		  long long max_schedules, struct program *found, long long *runs)
{
	static struct program q;

	/* lockdep's prediction needs no schedule: the input's own run made it or not */
	unsigned o = (oracles ? oracles : ORACLES_DEFAULT) & ~(unsigned)ORACLE_LOCKDEP;
	if (!o) {
		*runs = 0;
		return false;
	}
	counters_save();
	q = *p;
	q.npreempts = 0;
	q.pct.on = false;
	bool hit =
	    explore_search(&q, k, o, JOINT_PREEMPTIONS, max_schedules, NULL, NULL, found, runs);
	counters_restore();
	return hit;
}

bool joint_search_prediction(const struct program *p, const struct kernel_config *k,
			     long long max_runs, struct program *found, long long *runs)
{
	counters_save();
	bool hit = confirm_explore(p, k, &pending, max_runs, found, runs);
	counters_restore();
	if (hit)
		predictions[prediction_of(pending.token)].confirmed = true;
	return hit;
}
