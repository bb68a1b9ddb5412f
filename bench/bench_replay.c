/* bench_replay: how many executions a second the fuzzer can hope for.
 *
 *   bench_replay [EXECUTIONS [KERNEL]]      (defaults: 20000, SNAFU_DEFAULT_KERNEL)
 *
 * Runs one program representative of fuzzing (three tasks, thirty ops: mappings made,
 * touched, protected and unmapped, futex waits with timeouts, wakes and a compare-and-
 * requeue, get_mempolicy, a few preemptions) the way futex_mm_fuzzer runs an input (no
 * trace, no digest, one prog_run per execution), then the way `snafu replay --repeat`
 * does (with the trace digest), then as the fuzzer with --oracles=deadlock (what the
 * other oracles, ref/lockdep.c and ref/futex_oracle.c, cost). Prints executions per second,
 * scheduling points per execution and the digest; every execution must take the same path.
 *
 * The program deadlocks on no kernel, so every execution runs to the end (lockdep's
 * prediction on the kernels that get_user() under mmap_sem does not end a run). Wall
 * time is only read here, around the loop; the model never sees it.
 */
#include "../prog/exec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if __has_feature(address_sanitizer) || defined(__SANITIZE_ADDRESS__)
#define SAN_ASAN "asan"
#else
#define SAN_ASAN ""
#endif
#if __has_feature(thread_sanitizer) || defined(__SANITIZE_THREAD__)
#define SAN_TSAN "tsan"
#else
#define SAN_TSAN ""
#endif
#ifdef SNAFU_BENCH_UBSAN /* set by bench/CMakeLists.txt: UBSan has no feature test */
#define SAN_UBSAN "ubsan"
#else
#define SAN_UBSAN ""
#endif
#ifdef __clang__
#define COMPILER "clang"
#else
#define COMPILER "gcc"
#endif

static const char program_text[] = "task 1\n"
				   "  mmap f pages=2 prot=rw shared\n"
				   "  store f val=1\n"
				   "  futex_wait f val=1 timeout=6\n"
				   "  load f+4\n"
				   "  futex_wake f+4 nr=1\n"
				   "  mmap b pages=1 prot=rw\n"
				   "  store b val=3\n"
				   "  get_mempolicy b addr=b+8 flags=2\n"
				   "  futex_wait b val=2\n"
				   "  munmap b\n"
				   "task 2\n"
				   "  mmap g pages=4 prot=rw\n"
				   "  store g val=2\n"
				   "  futex_wake f nr=2\n"
				   "  futex_cmp_requeue f f+4 val=1 nr_wake=1 nr_requeue=1\n"
				   "  mprotect g+0x1000 pages=1 prot=r\n"
				   "  load g+0x1000\n"
				   "  store g+0x2000 val=5\n"
				   "  futex_wait g+0x2000 val=5 timeout=4\n"
				   "  get_mempolicy g addr=g nmask flags=2\n"
				   "  munmap g pages=4\n"
				   "task 3\n"
				   "  mmap h pages=1 prot=rw shared\n"
				   "  store h val=0\n"
				   "  futex_wake h nr=1\n"
				   "  futex_wait h val=0 timeout=2\n"
				   "  load f\n"
				   "  futex_wake f nr=1\n"
				   "  mprotect h prot=r\n"
				   "  load h\n"
				   "  sleep 2\n"
				   "  munmap h\n"
				   "preempt 1 at op 3 point 3 to 2\n"
				   "preempt 2 at op 4 point 2 to 3\n"
				   "preempt 3 at op 4 point 1 to 1\n";

/* "asan+ubsan", "tsan", or "release" when built without sanitizers */
static const char *flavour(void)
{
	static const char *const parts[] = {SAN_ASAN, SAN_UBSAN, SAN_TSAN};
	static char buf[64];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i][0])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "+" : "",
					      parts[i]);
	return n ? buf : "release";
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double rate(long execs, double secs)
{
	return secs > 0 ? (double)execs / secs : 0.0;
}

int main(int argc, char **argv)
{
	static struct program p;
	static struct run_result r, first;
	struct run_opts fuzz = {.no_digest = true}, replay = {0},
			deadlock_only = {.no_digest = true, .oracles = ORACLE_DEADLOCK};
	char err[256], *end;
	long execs = 20000;
	const char *kname = SNAFU_DEFAULT_KERNEL;

	if (argc > 3) {
		fprintf(stderr,
			"bench_replay: argument 4 '%s': expected at most EXECUTIONS and "
			"KERNEL\n",
			argv[3]);
		return 2;
	}
	if (argc > 1) {
		execs = strtol(argv[1], &end, 10);
		if (*end || end == argv[1] || execs < 1 || execs > 100000000) {
			fprintf(stderr,
				"bench_replay: argument 1 '%s': expected a number of executions "
				"(1..100000000)\n",
				argv[1]);
			return 2;
		}
	}
	if (argc > 2)
		kname = argv[2];
	const struct kernel_config *k = kernel_by_name(kname);
	if (!k) {
		fprintf(stderr, "bench_replay: argument 2 '%s': expected a kernel:", kname);
		for_each_kernel (l)
			fprintf(stderr, " %s", l->name);
		fprintf(stderr, "\n");
		return 2;
	}
	if (prog_parse(program_text, &p, err, sizeof(err))) {
		fprintf(stderr, "bench_replay: the built-in program: %s\n", err);
		return 2;
	}
	int ntasks = 0;
	for (int i = 0; i < p.nops; i++)
		ntasks = p.ops[i].task > ntasks ? p.ops[i].task : ntasks;

	/* the program is meant to run to the end on the fixed kernel and on this one */
	const struct kernel_config *fixed = kernel_by_name("2.6.11");
	if (fixed) {
		prog_run(&p, fixed, &replay, &r);
		printf("bench_replay: verdict on %s: %s\n", fixed->name, r.verdict);
	}
	prog_run(&p, k, &replay, &first);
	if (k != fixed)
		printf("bench_replay: verdict on %s: %s\n", k->name, first.verdict);
	if ((first.result != SIM_OK && first.result != SIM_PREDICTED) ||
	    (fixed && r.result != SIM_OK && r.result != SIM_PREDICTED))
		printf("bench_replay: note: the program has a finding, so executions end early "
		       "and the figure is not representative\n");

	/* as the fuzzer runs an input: no trace, no digest */
	double t0 = now();
	for (long n = 0; n < execs; n++) {
		prog_run(&p, k, &fuzz, &r);
		if (r.result != first.result || r.steps != first.steps) {
			printf(
			    "bench_replay: NONDETERMINISTIC: execution %ld: %s after %llu points, "
			    "first %s after %llu\n",
			    n + 1, r.verdict, (unsigned long long)r.steps, first.verdict,
			    (unsigned long long)first.steps);
			return 1;
		}
	}
	double fuzz_secs = now() - t0;

	/* as `snafu replay --repeat` runs a case: with the trace digest */
	t0 = now();
	for (long n = 0; n < execs; n++) {
		prog_run(&p, k, &replay, &r);
		if (r.digest != first.digest) {
			printf(
			    "bench_replay: NONDETERMINISTIC: execution %ld digest %016llx, first "
			    "%016llx\n",
			    n + 1, (unsigned long long)r.digest, (unsigned long long)first.digest);
			return 1;
		}
	}
	double replay_secs = now() - t0;

	/* as the fuzzer runs with --oracles=deadlock */
	t0 = now();
	for (long n = 0; n < execs; n++)
		prog_run(&p, k, &deadlock_only, &r);
	double nold_secs = now() - t0;

	printf("bench_replay: %d tasks, %d ops, kernel %s, build %s (%s): %.0f exec/s "
	       "(%llu points/exec, %ld execs in %.2f s; with the digest %.0f exec/s, digest "
	       "%016llx; deadlock oracle only %.0f exec/s)\n",
	       ntasks, p.nops, k->name, flavour(), COMPILER, rate(execs, fuzz_secs),
	       (unsigned long long)first.steps, execs, fuzz_secs, rate(execs, replay_secs),
	       (unsigned long long)first.digest, rate(execs, nold_secs));
	return 0;
}
