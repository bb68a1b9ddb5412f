/* futex_mm_fuzzer's crossover (fuzz/mutator.c, LLVMFuzzerCustomCrossOver; docs/fuzzing.md
 * "Crossover by task"), called as libFuzzer calls it: without --crossover=1 it gives
 * nothing (libFuzzer then mutates); with it, every output is a program, the same seed
 * gives the same one, and a splice is this input's program with one task of the other
 * input's, each op whole: every task of the output is a task of one input or the
 * other, with its ops in order, and some outputs hold both inputs' roles. */
#include "harness.h"

#include "../fuzz/mutator.c"

#include <stdio.h>
#include <string.h>

bool snafu_fuzz_all_ops, snafu_fuzz_pct = true, snafu_fuzz_crossover;
uint8_t snafu_fuzz_flags;

/* libFuzzer's byte mutation, which the mutator calls one time in twelve: none here */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)data, (void)max_size;
	return size;
}

static const char waiter[] = "task 1\n"
			     "  mmap w pages=1 prot=rw shared\n"
			     "  futex_wait w val=0 timeout=1\n"
			     "task 2\n"
			     "  load w\n";
static const char kswapd[] = "task 1\n"
			     "  mmap r pages=1 prot=rw shared\n"
			     "  store r val=1\n"
			     "task 2\n"
			     "  reclaim r\n"
			     "  reclaim r\n";

/* The kinds of task t's ops, in order, as a string of kind numbers + 'A'. */
static void kinds(const struct program *p, int t, char *out)
{
	int n = 0;

	for (int i = 0; i < p->nops; i++)
		if (p->ops[i].task == t)
			out[n++] = (char)('A' + p->ops[i].kind);
	out[n] = 0;
}

/* Whether task t of q is, op kind by op kind, one of the tasks of a or of b. */
static bool task_of(const struct program *q, int t, const struct program *a,
		    const struct program *b)
{
	char want[PROG_MAX_OPS + 1], got[PROG_MAX_OPS + 1];

	kinds(q, t, got);
	for (int u = 1; u <= PROG_MAX_TASKS; u++) {
		kinds(a, u, want);
		if (u <= a->ntasks && !strcmp(want, got))
			return true;
		kinds(b, u, want);
		if (u <= b->ntasks && !strcmp(want, got))
			return true;
	}
	return !*got; /* a task without ops */
}

int main(void)
{
	static struct program a, b, q;
	static uint8_t da[PROG_MAX_ENCODED], db[PROG_MAX_ENCODED], out[PROG_MAX_ENCODED],
	    again[PROG_MAX_ENCODED];

	harness_parse(waiter, &a);
	harness_parse(kswapd, &b);
	size_t na = prog_encode(&a, da, sizeof(da)), nb = prog_encode(&b, db, sizeof(db));

	snafu_fuzz_crossover = false;
	CHECK_EQ(LLVMFuzzerCustomCrossOver(da, na, db, nb, out, sizeof(out), 1), 0,
		 "without --crossover=1");

	snafu_fuzz_crossover = true;
	int bad_decode = 0, spliced = 0, both = 0, bad_task = 0, shared = 0;
	for (unsigned seed = 1; seed <= 400; seed++) {
		/* libFuzzer's call: a program, the same for the same seed */
		size_t n = LLVMFuzzerCustomCrossOver(da, na, db, nb, out, sizeof(out), seed);
		size_t m = LLVMFuzzerCustomCrossOver(da, na, db, nb, again, sizeof(again), seed);
		CHECK(n == m && !memcmp(out, again, n), "seed %u: two outputs", seed);
		bad_decode += !n || prog_decode(out, n, &q) != 0;
		/* the splice itself */
		rng = seed | 1;
		n = splice(da, na, db, nb, out, sizeof(out));
		if (!n || prog_decode(out, n, &q)) {
			bad_decode++;
			continue;
		}
		int wmap = -1, rmap = -1, from_b = 0;
		for (int i = 0; i < q.nops; i++) {
			from_b += q.ops[i].kind == OP_STORE || q.ops[i].kind == OP_RECLAIM;
			if (q.ops[i].kind == OP_FUTEX_WAIT)
				wmap = q.ops[i].a.map;
			if (q.ops[i].kind == OP_RECLAIM)
				rmap = q.ops[i].a.map;
		}
		spliced += from_b > 0;
		both += wmap >= 0 && rmap >= 0;
		/* the other input's references name this program's mappings: the reclaim
		 * passes take the page of the futex word */
		shared += wmap >= 0 && wmap == rmap;
		for (int t = 1; t <= q.ntasks; t++)
			bad_task += !task_of(&q, t, &a, &b);
	}
	CHECK_EQ(bad_decode, 0, "outputs that are not programs");
	CHECK_EQ(spliced, 400, "splices with a task of the other input's in them");
	CHECK(both >= 100, "%d of 400 splices hold the futex_wait and the reclaim passes", both);
	CHECK(shared >= 50, "%d of 400 splices: the reclaim passes on the futex_wait's mapping",
	      shared);
	CHECK_EQ(bad_task, 0, "tasks of a splice that are a task of neither input");

	return harness_exit();
}
