/* The joint search: the fuzzer finds programs, snafu explore's search finds
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
#include "../search/confirm.h"
#include "../search/explore.h"

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

/* FNV-1a over bytes; never 0 (an empty slot of the tables below) */
static uint64_t bytes_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

static uint64_t ops_hash(const struct program *p)
{
	return bytes_hash((const uint8_t *)p->ops, (size_t)p->nops * sizeof(p->ops[0]));
}

static bool same_page(const struct uref *a, const struct uref *b)
{
	return a->map == b->map && a->map != PROG_NULL_MAP && a->page == b->page;
}

/* Whether op i of p has, in another task, an op on its page that could race with it:
 * for a futex_wait neither a plain read nor an mmap (a waker, a store, a requeue, a
 * kswapd pass, an munmap, ...); for a forced write (`forced`) any but an mmap, a read
 * too (its fault maps the page the write then looks up). */
static bool racing_beside(const struct program *p, int i, bool forced)
{
	for (int j = 0; j < p->nops; j++) {
		const struct op *o = &p->ops[j];
		if (o->task == p->ops[i].task || o->kind == OP_MMAP ||
		    (o->kind == OP_LOAD && !forced))
			continue;
		if ((op_uses_a(o->kind) && same_page(&o->a, &p->ops[i].a)) ||
		    (op_uses_b(o->kind) && same_page(&o->b, &p->ops[i].a)))
			return true;
	}
	return false;
}

/* Whether an op of p that an oracle in force judges under contention (a futex_wait:
 * the futex oracles a schedule can change, so not lockdep's; a pokedata, a debugger's
 * forced write: the integrity oracle) has an op racing with it beside it. A search of
 * a futex_wait's program under the integrity oracle alone can find nothing: that
 * oracle judges forced writes only (ref/integrity.c). */
static bool contended_beside(const struct program *p, unsigned oracles)
{
	bool futex = oracles & (ORACLE_DEADLOCK | ORACLE_LOST_WAKEUP | ORACLE_RESULT);

	for (int i = 0; i < p->nops; i++) {
		enum op_kind k = p->ops[i].kind;
		bool forced = k == OP_POKEDATA && (oracles & ORACLE_INTEGRITY);
		if (((k == OP_FUTEX_WAIT && futex) || forced) && racing_beside(p, i, forced))
			return true;
	}
	return false;
}

bool joint_forced_beside(const struct program *p)
{
	for (int i = 0; i < p->nops; i++)
		if (p->ops[i].kind == OP_POKEDATA && racing_beside(p, i, true))
			return true;
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

static bool same_word(const struct uref *a, const struct uref *b)
{
	return same_page(a, b) && a->word == b->word && a->misaligned == b->misaligned;
}

bool joint_contended(const struct program *p)
{
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		if (o->kind != OP_FUTEX_WAKE && o->kind != OP_FUTEX_REQUEUE &&
		    o->kind != OP_FUTEX_CMP_REQUEUE)
			continue;
		int other = 0; /* the first waiter's task, not the waker's */
		for (int j = 0; j < p->nops; j++) {
			const struct op *w = &p->ops[j];
			if (w->kind != OP_FUTEX_WAIT || w->task == o->task || w->task == other ||
			    !same_word(&w->a, &o->a))
				continue;
			if (other)
				return true;
			other = w->task;
		}
	}
	return false;
}

bool joint_worth(const struct program *p, unsigned oracles)
{
	return contended_beside(p, oracles) && first_search(ops_hash(p));
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
	return bytes_hash((const uint8_t *)s, strlen(s));
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

bool joint_predicts(const struct program *p, const struct kernel_config *k, unsigned oracles)
{
	struct run_opts guided = {.no_digest = true, .oracles = oracles, .lockdep_guide = true};
	struct run_result r;

	counters_save();
	prog_run(p, k, &guided, &r);
	counters_restore();
	return r.result == SIM_OK && lockdep_prediction()->made;
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
	    explore_sample(&q, k, o, JOINT_PREEMPTIONS, max_schedules, ops_hash(p), found, runs);
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

/* ---- Conflict points: where the order of two tasks' steps can matter ---- */

/* The inputs whose conflict steps are known, by a hash of their bytes (open addressing;
 * full: none more), and up to CONFLICT_STEPS steps each */
#define CONFLICTS_CAP     4096
#define CONFLICT_STEPS    32
#define CONFLICT_ACCESSES 512 /* accesses of a run looked at */
static struct {
	uint64_t key;
	uint8_t n;
	uint32_t step[CONFLICT_STEPS];
} conflicts[CONFLICTS_CAP];
static unsigned nconflicts;

/* An access of a traced event: the object (a lock by its name, a user page by its
 * number), whether it writes it, its task and step; false for events that touch none */
struct access {
	uint64_t obj;
	bool write;
	uint8_t task;
	uint32_t step;
};

static bool access_of(const struct sim_trace_ev *e, struct access *a)
{
	a->task = e->task;
	a->step = e->step;
	if (e->point > SIM_PCT_MAX_POINT)
		return false; /* no PCT switch comes there (sim.h) */
	switch (e->kind) {
	case EV_LOCK: /* a lock's holder changes; two readers of an rwsem commute */
	case EV_UNLOCK:
	case EV_TRYFAIL:
		/* the rwsem's own spinlock (ref/rwsem.c) is in every down and up: the order
		 * that matters is the rwsem's, which its own events give */
		if (!e->obj || !strcmp(e->obj, "&sem->wait_lock"))
			return false;
		a->obj = str_hash(e->obj) << 1;
		a->write = strcmp(e->fn, "down_read") && strcmp(e->fn, "up_read") &&
			   strcmp(e->fn, "down_read_trylock");
		return true;
	case EV_UACCESS: /* get_user, __copy_from_user_inatomic read; the rest write */
	case EV_USER:    /* load reads, store writes */
	case EV_FAULT:   /* arg2: a write fault */
		a->obj = (uint64_t)((unsigned long)e->arg >> 12) << 1 | 1;
		a->write = e->kind == EV_FAULT
			       ? e->arg2 != 0
			       : strcmp(e->fn, "get_user") && strcmp(e->fn, "load") &&
				     strcmp(e->fn, "__copy_from_user_inatomic");
		return true;
	}
	return false;
}

void joint_conflicts_record(const struct program *p, const uint8_t *data, size_t size,
			    const struct kernel_config *k, unsigned oracles)
{
	static struct access acc[CONFLICT_ACCESSES];
	struct run_result r;
	struct run_opts traced = {.trace = true, .oracles = oracles};
	uint64_t key = bytes_hash(data, size);

	if (!p->pct.on || nconflicts >= CONFLICTS_CAP / 2)
		return;
	counters_save();
	prog_run(p, k, &traced, &r);
	counters_restore();
	int n = 0, nev, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&nev, &dropped);
	for (int i = 0; i < nev && n < CONFLICT_ACCESSES; i++)
		n += access_of(&ev[i], &acc[n]);
	uint32_t steps = prog_pct_steps(p), step[CONFLICT_STEPS];
	int ns = 0;
	for (int i = 0; i < n && ns < CONFLICT_STEPS; i++) {
		if (acc[i].step > steps || (ns && step[ns - 1] == acc[i].step))
			continue; /* out of a change point's reach, or kept already */
		for (int j = 0; j < n; j++)
			if (acc[j].obj == acc[i].obj && acc[j].task != acc[i].task &&
			    (acc[i].write || acc[j].write)) {
				step[ns++] = acc[i].step;
				break;
			}
	}
	if (!ns)
		return;
	unsigned i = (unsigned)key & (CONFLICTS_CAP - 1);
	while (conflicts[i].key && conflicts[i].key != key)
		i = (i + 1) & (CONFLICTS_CAP - 1);
	if (!conflicts[i].key)
		nconflicts++;
	conflicts[i].key = key;
	conflicts[i].n = (uint8_t)ns;
	memcpy(conflicts[i].step, step, sizeof(step[0]) * (size_t)ns);
}

int joint_conflict_steps(const uint8_t *data, size_t size, const uint32_t **steps)
{
	if (!nconflicts) /* --conflicts=0, the default: no hash of every input mutated */
		return 0;
	uint64_t key = bytes_hash(data, size);

	for (unsigned i = (unsigned)key & (CONFLICTS_CAP - 1); conflicts[i].key;
	     i = (i + 1) & (CONFLICTS_CAP - 1))
		if (conflicts[i].key == key) {
			*steps = conflicts[i].step;
			return conflicts[i].n;
		}
	return 0;
}
