/* futex_mm_fuzzer's programs of roles (fuzz/mutator.c, role_program(); docs/fuzzing.md
 * "Roles"): every one is a program of two to four tasks whose first op maps the futex
 * word, prot=rw; every task plays a role, and the roles' ops use the word; a waiter's
 * val= is the word's value as the program's earlier stores leave it, but for the stale
 * ones; an unlocker stores a new value, then wakes one; one program in four is a
 * contended word (an unlocker and two waiters, each a task of its own); a requeuer
 * requeues from the word or onto it; --ops=futex draws no role of an --ops=all op; the
 * mutator makes such programs from the empty input, the same for the same seed. */
#include "harness.h"

#include "../fuzz/mutator.c"

#include <string.h>

bool snafu_fuzz_all_ops, snafu_fuzz_pct = true, snafu_fuzz_crossover;
uint8_t snafu_fuzz_flags;

/* libFuzzer's byte mutation, which the mutator calls one time in twelve: none here */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)data, (void)max_size;
	return size;
}

static bool at_word(const struct op *o)
{
	return o->a.map == 0 && o->a.page == 0 && o->a.word == 0 && !o->a.misaligned &&
	       !o->each_page;
}

/* What the programs of roles held, over many seeds. */
struct tally {
	int programs, bad, first_not_mmap, idle_task, mincore, pokedata;
	int waits, waits_cur;             /* futex_waits at the word; those with its value */
	int unlocks, unlocks_new;         /* a store at the word, then a futex_wake at it */
	int unlocks_one;                  /* of them, the wake's nr=1 */
	int contended;                    /* an unlocker and two waiters, each a task alone */
	int passes;                       /* two reclaims of the word in a row */
	int requeues_from, requeues_onto; /* futex_requeue from the word, onto it */
	int broadcasts, bcast_cur;        /* futex_cmp_requeue at the word; with its value */
};

/* Whether p's first three tasks are a contended word: in some order, one only stores at
 * the word and wakes one waiter, two only wait at the word (task 1's mmap aside). */
static bool is_contended(const struct program *p)
{
	int unlockers = 0, waiters = 0;

	for (int u = 1; u <= 3 && u <= p->ntasks; u++) {
		const struct op *v[3];
		int n = 0;
		for (int i = 1; i < p->nops; i++)
			if (p->ops[i].task == u && n < 3)
				v[n++] = &p->ops[i];
		waiters += n == 1 && v[0]->kind == OP_FUTEX_WAIT && at_word(v[0]);
		unlockers += n == 2 && v[0]->kind == OP_STORE && at_word(v[0]) &&
			     v[1]->kind == OP_FUTEX_WAKE && at_word(v[1]) && v[1]->x == 1;
	}
	return unlockers == 1 && waiters == 2;
}

static void tally(const struct program *p, struct tally *t)
{
	int cur = 0;

	t->programs++;
	/* prog/ops.c: mmap's prot is bits 0..2 of y, 3 is rw */
	t->first_not_mmap +=
	    p->ops[0].kind != OP_MMAP || p->ops[0].task != 1 || (p->ops[0].y & 7) != 3;
	for (int u = 1; u <= p->ntasks; u++) {
		int n = 0;
		for (int i = 0; i < p->nops; i++)
			n += p->ops[i].task == u;
		t->idle_task += n == 0;
	}
	t->contended += is_contended(p);
	/* the canonical order is the order role_program() wrote them in: task by task */
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i], *next = i + 1 < p->nops ? o + 1 : NULL;
		bool same_task = next && next->task == o->task;
		t->mincore += o->kind == OP_MINCORE;
		t->pokedata += o->kind == OP_POKEDATA;
		if (o->kind == OP_FUTEX_REQUEUE && o->b.map == 0 && o->b.page == 0 &&
		    o->b.word == 0)
			t->requeues_onto++;
		if (!at_word(o))
			continue;
		t->requeues_from += o->kind == OP_FUTEX_REQUEUE;
		if (o->kind == OP_FUTEX_WAIT)
			t->waits++, t->waits_cur += o->x == cur;
		if (o->kind == OP_FUTEX_CMP_REQUEUE)
			t->broadcasts++, t->bcast_cur += o->y == cur;
		if (o->kind == OP_STORE && same_task && next->kind == OP_FUTEX_WAKE &&
		    at_word(next))
			t->unlocks++, t->unlocks_new += o->x == ((cur + 1) & 3),
			    t->unlocks_one += next->x == 1;
		if (o->kind == OP_RECLAIM && same_task && next->kind == OP_RECLAIM && at_word(next))
			t->passes++;
		if (o->kind == OP_STORE)
			cur = o->x;
	}
}

static void check_roles(bool all_ops, const char *set)
{
	static uint8_t buf[PROG_MAX_ENCODED];
	static struct program p;
	struct tally t = {0};

	snafu_fuzz_all_ops = all_ops;
	for (unsigned seed = 1; seed <= 2000; seed++) {
		size_t ops = PROG_OPS_AT, n = ops + 1;
		prog_header(buf);
		memset(buf + PROG_HEADER_BYTES, 0, PROG_PROLOGUE_BYTES);
		buf[ops] = 0; /* the schedule: no preemptions */
		rng = seed | 1;
		n = role_program(buf, n, ops, 0);
		if (prog_decode(buf, n, &p) != 0 || p.ntasks < 2) {
			t.bad++;
			continue;
		}
		tally(&p, &t);
	}
	CHECK_EQ(t.bad, 0, "programs of roles that do not decode");
	CHECK_EQ(t.first_not_mmap, 0, "programs whose first op is not task 1's mmap, rw");
	CHECK_EQ(t.idle_task, 0, "tasks that play no role");
	/* each role often enough (roles[] weighs them) */
	CHECK(t.waits > 800, "%s: %d futex_waits at the word in 2000 programs", set, t.waits);
	CHECK(t.waits_cur * 10 > t.waits * 7 && t.waits_cur * 10 < t.waits * 9,
	      "%s: %d of %d waits hold the word's value (three in four, and stale values "
	      "that match by chance)",
	      set, t.waits_cur, t.waits);
	CHECK(t.broadcasts > 200 && t.bcast_cur * 10 > t.broadcasts * 7,
	      "%s: %d of %d futex_cmp_requeues with the word's value", set, t.bcast_cur,
	      t.broadcasts);
	/* (a store of another role, a wake of the next: any value) */
	CHECK(t.unlocks > 300 && t.unlocks_new * 10 > t.unlocks * 8,
	      "%s: %d of %d store-then-wake pairs store the next value", set, t.unlocks_new,
	      t.unlocks);
	CHECK(t.unlocks_one * 10 > t.unlocks * 8, "%s: %d of %d store-then-wake pairs wake one",
	      set, t.unlocks_one, t.unlocks);
	/* one program in four is a contended word, and a few others are by chance */
	CHECK(t.contended * 100 > t.programs * 22 && t.contended * 100 < t.programs * 35,
	      "%s: %d of %d programs are a contended word", set, t.contended, t.programs);
	CHECK(t.passes > 150, "%s: %d pairs of reclaim passes", set, t.passes);
	/* a requeue from the word to another, or onto it: both orders of two buckets */
	CHECK(t.requeues_from > 40 && t.requeues_onto > 40,
	      "%s: futex_requeues from the word %d, onto it %d", set, t.requeues_from,
	      t.requeues_onto);
	if (all_ops) {
		CHECK(t.mincore > 0, "--ops=all: no mincore in 2000 programs");
		CHECK(t.pokedata > 0, "--ops=all: no pokedata in 2000 programs");
	} else {
		CHECK_EQ(t.mincore, 0, "--ops=futex: mincores");
		CHECK_EQ(t.pokedata, 0, "--ops=futex: pokedatas");
	}
}

int main(void)
{
	static uint8_t a[PROG_MAX_ENCODED], b[PROG_MAX_ENCODED];
	static struct program p;

	check_roles(false, "--ops=futex");
	check_roles(true, "--ops=all");

	/* the mutator makes them from the empty input, one time in two, the same for a seed */
	snafu_fuzz_all_ops = false;
	int of_roles = 0;
	for (unsigned seed = 1; seed <= 200; seed++) {
		size_t n = LLVMFuzzerCustomMutator(a, 0, sizeof(a), seed);
		size_t m = LLVMFuzzerCustomMutator(b, 0, sizeof(b), seed);
		CHECK(n == m && !memcmp(a, b, n), "seed %u: two programs from the empty input",
		      seed);
		bool ok = prog_decode(a, n, &p) == 0;
		CHECK(ok, "seed %u: not a program", seed);
		if (!ok)
			continue;
		struct tally t = {0};
		tally(&p, &t);
		of_roles += t.waits + t.unlocks + t.broadcasts + t.passes > 0 && !t.idle_task;
	}
	CHECK(of_roles > 60 && of_roles < 160, "%d of 200 new programs use the word as roles do",
	      of_roles);
	return harness_exit();
}
