/* The search's schedule machinery (docs/fuzzing.md, "Interleaving coverage" and "PCT"):
 *  - interleaving coverage (sim/icov.h) is a function of the run: the same program gives
 *    the same counters every time, on every kernel, and the counters change nothing in the
 *    run (same verdict, steps and digest with the map set or not);
 *  - a PCT schedule (prog/codec.c) runs exactly as the preemptions it made: the program
 *    with those in its place gives the same verdict, steps and digest; its byte form
 *    round-trips; and one that finds the absorbed lost wake-up on 2.6.11 minimizes to a
 *    case that replays the same finding, through its text form.
 * No timings and no executions-to-finding here: those are figures (docs/figures.md).
 */
#include "harness.h"

#include "../prog/minimize.h"
#include "../prog/oracle.h"
#include "../sim/icov.h"

#include <stdlib.h>
#include <string.h>

static const char absorbed[] = ABSORBED_WAKEUP_PROGRAM;

static const char lwn[] = "task 1\n"
			  "  mmap m0 pages=1 prot=rw shared\n"
			  "  futex_wait m0 val=1\n"
			  "task 2\n"
			  "  mmap m1 pages=1 prot=rw\n"
			  "  munmap m1\n"
			  "preempt 1 at op 2 point 7 to 2\n";

static void run(const struct program *p, const char *kernel, struct run_result *r)
{
	struct run_opts o = {.oracles = ORACLES_UNIT};

	prog_run(p, kernel_by_name(kernel), &o, r);
}

static uint8_t map_a[ICOV_SIZE], map_b[ICOV_SIZE];

static int count(const uint8_t *map)
{
	int n = 0;

	for (int i = 0; i < ICOV_SIZE; i++)
		n += map[i] != 0;
	return n;
}

/* Same program, same counters; and the counters change nothing. */
static void test_icov_deterministic(const char *text, const char *kernel)
{
	static struct program p;
	static struct run_result plain, a, b;

	harness_parse(text, &p);
	sim_icov_set(NULL);
	run(&p, kernel, &plain);
	memset(map_a, 0, sizeof(map_a));
	sim_icov_set(map_a);
	run(&p, kernel, &a);
	memset(map_b, 0, sizeof(map_b));
	sim_icov_set(map_b);
	run(&p, kernel, &b);
	sim_icov_set(NULL);
	CHECK(count(map_a) > 0, "[%s] no interleaving coverage at all", kernel);
	CHECK(!memcmp(map_a, map_b, sizeof(map_a)), "[%s] two runs, different counters", kernel);
	CHECK(!strcmp(plain.verdict, a.verdict), "[%s] verdict %s with counters, %s without",
	      kernel, a.verdict, plain.verdict);
	CHECK(plain.steps == a.steps && plain.digest == a.digest,
	      "[%s] the counters moved the run: %llu steps, digest %016llx; without: %llu, %016llx",
	      kernel, (unsigned long long)a.steps, (unsigned long long)a.digest,
	      (unsigned long long)plain.steps, (unsigned long long)plain.digest);
}

/* A schedule changes the counters: the absorbed wake-up's preemptions add features. */
static void test_icov_sees_schedule(void)
{
	static struct program p;
	static struct run_result r;

	harness_parse(absorbed, &p);
	memset(map_a, 0, sizeof(map_a));
	sim_icov_set(map_a);
	run(&p, "2.6.11", &r);
	p.preempts[0] = (struct sim_preempt){.task = 1, .op = 3, .point = 1, .to = 3};
	p.preempts[1] = (struct sim_preempt){.task = 3, .op = 1, .point = 8, .to = 2};
	p.npreempts = 2;
	memset(map_b, 0, sizeof(map_b));
	sim_icov_set(map_b);
	run(&p, "2.6.11", &r);
	sim_icov_set(NULL);
	CHECK(!strcmp(r.verdict, "lost-wakeup--absorbed--futex_wait"), "absorbed case: %s",
	      r.verdict);
	int added = 0;
	for (int i = 0; i < ICOV_SIZE; i++)
		added += map_b[i] && !map_a[i];
	CHECK(added > 0, "the schedule of the absorbed wake-up sets no new counter");
}

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng % n;
}

/* A PCT program from random bytes: TEXT's ops, PCT with nchange change points. */
static void random_pct(const char *text, int nchange, struct program *p)
{
	static struct program base;
	static uint8_t buf[PROG_MAX_ENCODED];

	harness_parse(text, &base);
	base.npreempts = 0;
	size_t n = prog_encode(&base, buf, sizeof(buf)) - 1; /* drop the count byte */
	buf[n++] = (uint8_t)rnd(256);                        /* the priorities */
	for (int j = 0; j < nchange; j++) {
		buf[n++] = (uint8_t)rnd(256);
		buf[n++] = (uint8_t)rnd(256);
	}
	buf[n++] = (uint8_t)(0xf0 | nchange);
	CHECK(prog_decode(buf, n, p) == 0, "PCT bytes do not decode");
	CHECK(p->pct.on && p->pct.nchange == nchange && p->npreempts == 0,
	      "PCT bytes decode to on %d, %d change points, %d preemptions", p->pct.on,
	      p->pct.nchange, p->npreempts);
	/* the byte form round-trips: to the same schedule, then to the same bytes */
	static uint8_t once[PROG_MAX_ENCODED], twice[PROG_MAX_ENCODED];
	static struct program back;
	size_t m = prog_encode(p, once, sizeof(once));
	CHECK(prog_decode(once, m, &back) == 0 && !memcmp(&back.pct, &p->pct, sizeof(p->pct)),
	      "a PCT program's bytes decode to another schedule");
	CHECK(prog_encode(&back, twice, sizeof(twice)) == m && !memcmp(once, twice, m),
	      "a PCT program's canonical bytes are not a fixed point");
}

/* Every PCT run replays exactly from the preemptions it made. */
static int test_pct_replays(const char *text, const char *kernel, int tries)
{
	static struct program p, q;
	static struct run_result a, b;
	int switched = 0;

	for (int i = 0; i < tries; i++) {
		random_pct(text, (int)rnd(4), &p);
		run(&p, kernel, &a);
		q = p;
		prog_resolve_schedule(&q, kernel_by_name(kernel), 0);
		CHECK(!q.pct.on && q.npreempts == a.nmade,
		      "[%s] resolved to %d preemptions, made %d", kernel, q.npreempts, a.nmade);
		run(&q, kernel, &b);
		switched += a.nmade > 0;
		CHECK(!strcmp(a.verdict, b.verdict) && a.steps == b.steps && a.digest == b.digest &&
			  b.unfired == 0,
		      "[%s] PCT run %d: %s, %llu steps, %016llx; its preemptions: %s, %llu steps, "
		      "%016llx, %d unfired",
		      kernel, i, a.verdict, (unsigned long long)a.steps,
		      (unsigned long long)a.digest, b.verdict, (unsigned long long)b.steps,
		      (unsigned long long)b.digest, b.unfired);
	}
	return switched;
}

/* A PCT schedule that finds the absorbed wake-up; minimized, it is a case (text) that
 * replays the same finding with preemptions alone. */
static void test_pct_minimizes(void)
{
	static struct program p, m, back;
	static struct run_result r;
	static char text[16384];
	const struct kernel_config *k = kernel_by_name("2.6.11");
	int i;

	for (i = 0; i < 200000; i++) {
		random_pct(absorbed, 2, &p);
		run(&p, "2.6.11", &r);
		if (!strcmp(r.verdict, "lost-wakeup--absorbed--futex_wait"))
			break;
	}
	CHECK(i < 200000, "no PCT schedule with two change points finds the absorbed wake-up");
	if (i == 200000)
		return;
	m = p;
	CHECK(prog_minimize(&m, k, r.verdict, ORACLE_LOST_WAKEUP) >= 0,
	      "minimize does not take the PCT input");
	CHECK(!m.pct.on && m.npreempts > 0, "minimized: PCT %d, %d preemptions", m.pct.on,
	      m.npreempts);
	FILE *f = fmemopen(text, sizeof(text), "w");
	prog_print(&m, f);
	fclose(f);
	harness_parse(text, &back);
	run(&back, "2.6.11", &r);
	CHECK(!strcmp(r.verdict, "lost-wakeup--absorbed--futex_wait") && r.unfired == 0,
	      "the minimized case replays %s (%d unfired):\n%s", r.verdict, r.unfired, text);
}

int main(void)
{
	for_each_kernel (k) {
		test_icov_deterministic(absorbed, k->name);
		test_icov_deterministic(lwn, k->name);
	}
	test_icov_sees_schedule();
	int switched = 0;
	for_each_kernel (k) {
		switched += test_pct_replays(absorbed, k->name, 200);
		switched += test_pct_replays(lwn, k->name, 100);
	}
	CHECK(switched > 0, "no PCT schedule switched tasks at all");
	test_pct_minimizes();
	return harness_exit();
}
