/* futex_mm_fuzzer: libFuzzer target. One input = one program + schedule (prog/codec.c),
 * run on one kernel; every finding of the watchdog and the checkers ends in a report, a
 * DEDUP_TOKEN line and abort(), so libFuzzer saves the input (with --keep-going, the
 * target saves it and goes on).
 *
 *   futex_mm_fuzzer [--kernel=NAME] [--ops=futex|all] [--oracles=LIST] [--progress=FILE]
 *                   [--interleaving-coverage=0|1] [--schedule=pct|preempt]
 *                   [--keep-going=PREFIX] [--joint=N] [--plateau=N] [--conflicts=0|1]
 *                   [--crossover=0|1]
 *                   [libFuzzer flags] [CORPUS...]
 *
 * --ops=futex (the default): programs use every op but the table's all_only ones,
 * mincore and mlock; inputs with one are rejected (not run, not kept). mincore's own
 * deadlock (CVE-2006-4814) is in every 2005 kernel, fixed futex code or not, and would
 * hide what a run on a futex fix is meant to tell. mlock opens no futex path (it only
 * keeps kswapd away from pages), and the fuzzer takes to it: each-page mlocks of
 * 256-page mappings, each faulting in every page, halved the executions a second
 * (measured: 300,000 runs on 2.6.11 from an empty corpus, 9.3 s of CPU without it, 17.5
 * to 20.7 s with it). --ops=all lets both in, as `snafu evaluate` does.
 *
 * --oracles=LIST: what counts as a finding (prog/oracle.h, docs/oracles.md): some of
 * deadlock, lost-wakeup, result, integrity and lockdep, comma-separated, or all or
 * default (the default: all five). The same list goes to snafu replay and snafu
 * minimize (snafu fuzz does that). lockdep's prediction on 2.6.11-rc4 comes long before
 * the schedule that deadlocks: --oracles=deadlock finds the deadlock itself.
 *
 * --interleaving-coverage=1: feedback on what the schedule did, beside the code coverage:
 * features of context switches, of tasks going to sleep while others stand somewhere,
 * and of the futex events and the state of their chains (sim/icov.h, docs/fuzzing.md),
 * in libFuzzer's extra counters. Off by default (0): since the mutator writes programs
 * the way races are written, PCT without it found 7 of the search table's 8 bugs sooner
 * or in more seeds, and ran 75,000 executions a second against 42,857 (it keeps ten
 * times the inputs; docs/fuzzing.md, "The search table").
 *
 * --schedule=pct (the default) or preempt: the kind of schedule the mutator writes
 * (prog/codec.c): a PCT schedule (random priorities and priority change points, sim.h's
 * struct sim_pct) or explicit preemptions. An input of the other kind (from libFuzzer's own
 * byte mutations, or a file: a saved case's bytes hold preemptions) is not run, with one
 * line on stderr the first time. A finding's report, and
 * snafu minimize, turn a PCT schedule into the preemptions it made. PCT is the default: it
 * finds every bug of the search table in more seeds or sooner than explicit preemptions
 * (docs/fuzzing.md, "The search table").
 *
 * --progress=FILE: about once a second, rewrite FILE with the executions so far, for
 * fuzz/run.sh's progress line (libFuzzer itself prints only on new coverage).
 *
 * --joint=N: the joint search (fuzz/joint.c, docs/fuzzing.md "The joint search"): each
 * program whose run reaches new code, and where a futex_wait (with a futex oracle) or a
 * pokedata (with the integrity oracle) has an op of another task on its page
 * (joint_worth()), gets a search of its
 * schedules, snafu explore's (up to JOINT_PREEMPTIONS preemptions, with its partial-order
 * reduction, its schedules in a random order seeded by the program), at most N runs (default
 * JOINT_DEFAULT_RUNS, 30;
 * --joint=0: no search), JOINT_CONTENDED_FACTOR times N for a program with a contended
 * futex word (joint_contended(): two tasks wait on it, a third wakes or requeues it)
 * where lost wake-ups or results are oracles, and for a forced write with an op of
 * another task on its page (joint_forced_beside()) where the integrity oracle is. On a plateau
 * (--plateau=N: no new code for N executions, default JOINT_PLATEAU_RUNS; 0: never) a program
 * worth it is searched without new code too, one per N executions at most. Each run counts
 * as an execution: in the "finding after" line, and toward -runs, which then ends the run itself
 * (libFuzzer counts only its own). A finding of the search is the program with the schedule found,
 * written to -artifact_prefix + "finding-HASH" (the input itself finds nothing), and ends the run
 * (--keep-going: reported once, and on). With the deadlock oracle on, an input libFuzzer keeps runs
 * once more with lockdep as a guide, and a program whose run makes a new prediction gets a search
 * for its deadlock instead (joint_prediction_worth(): a writer added, kswapd's passes; at most
 * JOINT_PREDICTION_RUNS runs), counted the same way.
 *
 * --conflicts=1: PCT change points drawn at conflict points too (fuzz/joint.c,
 * joint_conflicts_record(); docs/fuzzing.md "Conflict points"); off by default.
 *
 * --crossover=1: one time in four that libFuzzer asks for a crossover, it splices
 * programs by task (fuzz/mutator.c): a task of another input of the corpus joins the
 * program. Off by default (0): it finds the deadlocks of two roles sooner (get_mempolicy's,
 * mincore's) and the lost wake-ups later (docs/fuzzing.md, "Crossover by task").
 *
 * --keep-going=PREFIX: a finding does not end the run. The first input with each
 * signature is written to PREFIX + "finding-" + a hash of its bytes (through a temporary
 * and a rename), with its report and a line "futex_mm_fuzzer: finding after N executions:
 * SIGNATURE" on stderr; an input with a signature seen before, and every input with a
 * finding, is neither reported again nor kept in the corpus (as libFuzzer keeps no crash
 * there). So a run with -runs=N runs all N, past known bugs, and says when each signature
 * first came. snafu fuzz passes it with a budget and --known or --keep-going
 * (driver/options.c, fz_keeps_going()). Sanitizer reports still end the run: they are bugs
 * in the model's code.
 *
 * libFuzzer leaves flags that start with "--" to the target and passes them on to
 * -fork and -jobs children. The default kernel is snafu's (SNAFU_DEFAULT_KERNEL), or the one
 * the binary was built for (SNAFU_FUZZ_KERNEL, for OSS-Fuzz's one binary per kernel).
 *
 * Five libFuzzer defaults are changed unless given on the command line (the same values
 * are in futex_mm_fuzzer.options for OSS-Fuzz): -max_len=352 (31 ops of 11 bytes after the
 * header and the file table), -len_control=0, -reload=0, -detect_leaks=0 and
 * -use_counters=0. A deadlock needs three ops and a preemption, 49 bytes at least, and with length
 * control libFuzzer takes tens of thousands of runs to let inputs grow that long from an empty
 * corpus.
 *
 * -reload=0 keeps a run with a given -seed the same run on any machine, loaded or not.
 * libFuzzer's -reload=1 re-reads the first corpus directory once a second of wall time
 * and runs every file there that is not in its in-memory corpus: a seed that added no
 * coverage, or one since replaced by a smaller input. Each such run counts toward -runs
 * and updates Entropic's feature frequencies, wherever the clock put it in the stream
 * of executions. Measured, seed 1, 2.6.12-jj, the seed corpus plus one input
 * that adds no coverage: with -reload=1 the first finding came after 18851 executions
 * on a quiet machine, 17700 with six CPU hogs and 7545 with the fuzzer slowed to an
 * eighth; with -reload=0, 12969 each time. (The seed corpus alone has no such file at
 * start-up, every seed adds coverage on every kernel, so there it was latent: the
 * reloads found nothing to run, yet.) The cost: units that other processes (-jobs=N)
 * write into the same directory reach a run only when it starts again; -fork=N
 * (ci/fuzz.sh) shares its workers' units itself.
 *
 * -detect_leaks=0 for the same reason. With 1, libFuzzer runs an input a second time
 * whenever more mallocs than frees happened while it ran, counted across every thread
 * of the process: the model's one-time allocations (a fiber's stack, the page pool, the
 * trace buffer) make that happen a handful of times a run, and an allocation or free of
 * another thread (libFuzzer's own RSS thread, whenever the machine's load lets it run)
 * adds or removes one. Each second run counts toward -runs. Measured, the
 * 2.6.12-jj deadlock cell of `snafu evaluate --runs=3000 --ops=all`, five processes at
 * once: with -detect_leaks=1, 19 runs found it after 1,653 executions and one after
 * 1,652 (the initial corpus done at #24, or #23); with -detect_leaks=0, 25 of 25 after
 * 1,644. LeakSanitizer's own check when the process exits (ASan's detect_leaks) is
 * unchanged; only the per-input check, with its input saved, is off.
 *
 * -use_counters=0: an edge (or an interleaving counter) is a feature once, not once per
 * hit-count bucket. The model's loops (a wake over its waiters, an each-page op over
 * its pages, lockdep's held-lock stack) made every new count a new feature, and
 * libFuzzer's bookkeeping of features was a quarter of the time. Measured
 * (docs/fuzzing.md "Executions per second" and "The search table"): half the features,
 * a quarter less CPU a run, and no row of the search table worse beyond its spread.
 */
#include "../prog/exec.h"
#include "../prog/ops.h"
#include "../sim/icov.h"
#include "fuzz_support.h"
#include "joint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef SNAFU_FUZZ_KERNEL
#define SNAFU_FUZZ_KERNEL SNAFU_DEFAULT_KERNEL
#endif

static const struct kernel_config *kernel;
static const char *progress_file;
static const char *keep_going;        /* --keep-going=PREFIX; NULL: a finding ends the run */
static unsigned oracles;              /* run_opts.oracles: 0, the default set, unless --oracles= */
static unsigned all_oracles;          /* the set itself: ORACLES_DEFAULT for 0 */
bool snafu_fuzz_all_ops;              /* read by the mutator too */
bool snafu_fuzz_pct = true;           /* --schedule=pct (the default); read by the mutator too */
bool snafu_fuzz_crossover;            /* --crossover=1; read by the mutator */
uint8_t snafu_fuzz_flags;             /* the flags the kernel has; read by the mutator */
static bool conflicts_on;             /* --conflicts=1: conflict-directed PCT changes */
static unsigned long long executions; /* the callback's, the joint search's runs included */
/* --joint=N: the joint search (fuzz/joint.c): runs a new program's search may make */
static long long joint_runs = JOINT_DEFAULT_RUNS;
static long long searches, search_runs; /* what it did */
static long long plateau_searches;      /* searches on a plateau among them */
/* --plateau=N: executions without new code after which a program worth a search gets one */
static long long plateau_runs = JOINT_PLATEAU_RUNS;
static long long steered;     /* searches of lockdep's predictions among them */
static long long traced_runs; /* runs traced for their conflict points */
static long long guided_runs; /* kept inputs run again with lockdep as a guide */
static void search_stats(void);

/* Whether a contended futex word's program gets more runs: its extra schedules are for
 * what goes wrong there, a wake-up lost or a wrong result (a deadlock needs mmap_sem's
 * writer, which the word's users are not) */
static bool contended_oracles(void)
{
	return all_oracles & (ORACLE_LOST_WAKEUP | ORACLE_RESULT);
}
static unsigned long long runs_budget;   /* -runs=N, which then counts the search's runs */
static const char *artifact_prefix = ""; /* -artifact_prefix=, for the search's findings */

/* ASan's quarantine (256 MB of freed chunks by default) is emptied every PURGE_RUNS
 * executions, counted, not timed: a run frees what it allocated before it ends, so
 * what the quarantine holds for longer guards only against a pointer kept from one
 * run to another (none is: each run starts from futex_init() and a new mm). Filled
 * with libFuzzer's own corpus bookkeeping (Entropic's weight vectors, reallocated as
 * the corpus grows), it held 470 of the 523 MB a 10^6-run fuzzer had resident
 * (bench/bench_rss.sh, docs/fuzzing.md "Memory"). libFuzzer purges the same way with
 * -rss_limit_mb, but only past half the limit, once a second. Weak: not every
 * sanitizer build has an allocator. */
#define PURGE_RUNS 65536
__attribute__((weak)) void __sanitizer_purge_allocator(void);

/* Interleaving coverage (sim/icov.h): libFuzzer reads this section's counters after each
 * execution, clears them before the next, and keeps an input that sets a new one as it
 * keeps one that reaches new code. Unused unless --interleaving-coverage=1. */
__attribute__((section("__libfuzzer_extra_counters"),
	       used)) static uint8_t icov_counters[ICOV_SIZE];
static bool icov_on;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#ifdef SNAFU_FUZZ_PLANTED
void snafu_fuzz_planted(void); /* fuzz/planted.c: the tests' planted bugs */
#endif

#ifndef SNAFU_FUZZ_NO_DEFAULT_FLAGS
static bool has_flag(int argc, char **argv, const char *flag)
{
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], flag, strlen(flag)))
			return true;
	return false;
}
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *name = SNAFU_FUZZ_KERNEL;

#ifndef SNAFU_FUZZ_NO_DEFAULT_FLAGS
	/* our defaults go right after argv[0], so anything the user gives still counts.
	 * Not under AFL++'s driver (ci/afl-build.sh defines SNAFU_FUZZ_NO_DEFAULT_FLAGS):
	 * it takes any argument left in argv for an input file to run. */
	static char *args[256];
	int n = 0;

	if (*argc < 250) {
		args[n++] = (*argv)[0];
		if (!has_flag(*argc, *argv, "-max_len="))
			args[n++] = "-max_len=352";
		if (!has_flag(*argc, *argv, "-len_control="))
			args[n++] = "-len_control=0";
		if (!has_flag(*argc, *argv, "-reload=")) /* see the top of this file */
			args[n++] = "-reload=0";
		if (!has_flag(*argc, *argv, "-detect_leaks=")) /* the same */
			args[n++] = "-detect_leaks=0";
		if (!has_flag(*argc, *argv, "-use_counters=")) /* see the top of this file */
			args[n++] = "-use_counters=0";
		for (int i = 1; i < *argc; i++)
			args[n++] = (*argv)[i];
		args[n] = NULL;
		*argc = n;
		*argv = args;
	}
#endif
#if defined(SNAFU_FUZZ_DEFAULT_ARTIFACTS) && !defined(SNAFU_FUZZ_NO_DEFAULT_FLAGS)
	/* crash-* files in <bindir>/../artifacts/, not in the current directory (the
	 * CMake build defines SNAFU_FUZZ_DEFAULT_ARTIFACTS: build/artifacts/) */
	snafu_fuzz_default_artifacts(argc, argv, "futex_mm_fuzzer");
#endif
	snafu_fuzz_sanitizer_tokens();
	/* Ours are the "--" flags (libFuzzer ignores them): anything else is refused, so a
	 * typo does not fuzz for hours with a default. */
	for (int i = 1; i < *argc; i++) {
		const char *a = (*argv)[i];
		if (!strncmp(a, "--kernel=", 9))
			name = a + 9;
		else if (!strncmp(a, "--progress=", 11) && a[11])
			progress_file = a + 11;
		else if (!strncmp(a, "--keep-going=", 13))
			keep_going = a + 13;
		else if (!strncmp(a, "--joint=", 8)) {
			char *end;
			joint_runs = strtoll(a + 8, &end, 10);
			if (*end || end == a + 8 || joint_runs < 0 || joint_runs > 1000000) {
				fprintf(stderr,
					"futex_mm_fuzzer: '%s': expected --joint=N, 0..1000000 "
					"schedules a new program\n",
					a);
				exit(2);
			}
		} else if (!strncmp(a, "--plateau=", 10)) {
			char *end;
			plateau_runs = strtoll(a + 10, &end, 10);
			if (*end || end == a + 10 || plateau_runs < 0 ||
			    plateau_runs > 1000000000) {
				fprintf(
				    stderr,
				    "futex_mm_fuzzer: '%s': expected --plateau=N, 0..1000000000 "
				    "executions without new code (0: never)\n",
				    a);
				exit(2);
			}
		} else if (!strncmp(a, "-runs=", 6))
			runs_budget = strtoull(a + 6, NULL, 10);
		else if (!strncmp(a, "-artifact_prefix=", 17))
			artifact_prefix = a + 17;
		else if (!strncmp(a, "--oracles=", 10)) {
			char err[256];
			oracles = oracles_parse(a + 10, err, sizeof(err));
			if (!oracles) {
				fprintf(stderr, "futex_mm_fuzzer: '%s': expected LIST %s\n", a,
					err);
				exit(2);
			}
		} else if (!strcmp(a, "--schedule=pct"))
			snafu_fuzz_pct = true;
		else if (!strcmp(a, "--schedule=preempt"))
			snafu_fuzz_pct = false;
		else if (!strncmp(a, "--schedule=", 11)) {
			fprintf(stderr,
				"futex_mm_fuzzer: '%s': expected --schedule=preempt or "
				"--schedule=pct\n",
				a);
			exit(2);
		} else if (!strcmp(a, "--interleaving-coverage=1"))
			icov_on = true;
		else if (!strcmp(a, "--interleaving-coverage=0"))
			icov_on = false;
		else if (!strncmp(a, "--interleaving-coverage=", 24)) {
			fprintf(stderr,
				"futex_mm_fuzzer: '%s': expected --interleaving-coverage=0 or 1\n",
				a);
			exit(2);
		} else if (!strcmp(a, "--conflicts=1") || !strcmp(a, "--conflicts=0"))
			conflicts_on = a[12] == '1';
		else if (!strncmp(a, "--conflicts=", 12)) {
			fprintf(stderr, "futex_mm_fuzzer: '%s': expected --conflicts=0 or 1\n", a);
			exit(2);
		} else if (!strcmp(a, "--crossover=1") || !strcmp(a, "--crossover=0"))
			snafu_fuzz_crossover = a[12] == '1';
		else if (!strncmp(a, "--crossover=", 12)) {
			fprintf(stderr, "futex_mm_fuzzer: '%s': expected --crossover=0 or 1\n", a);
			exit(2);
		} else if (!strcmp(a, "--ops=all"))
			snafu_fuzz_all_ops = true;
		else if (!strcmp(a, "--ops=futex"))
			snafu_fuzz_all_ops = false;
		else if (!strncmp(a, "--ops=", 6)) {
			fprintf(stderr,
				"futex_mm_fuzzer: '%s': expected --ops=futex or --ops=all\n", a);
			exit(2);
		} else if (!strncmp(a, "--", 2) && a[2]) {
			fprintf(stderr,
				"futex_mm_fuzzer: unknown flag '%s': expected --kernel=NAME, "
				"--ops=futex|all, --oracles=LIST, --interleaving-coverage=0|1, "
				"--schedule=preempt|pct, --progress=FILE, --keep-going=PREFIX, "
				"--joint=N, --plateau=N, --conflicts=0|1 or --crossover=0|1 "
				"(libFuzzer's flags take one dash)\n",
				a);
			exit(2);
		}
	}
	kernel = kernel_by_name(name);
	if (!kernel) {
		fprintf(stderr, "futex_mm_fuzzer: unknown kernel '%s'; valid kernels:", name);
		for_each_kernel (k)
			fprintf(stderr, " %s", k->name);
		fprintf(stderr, "\n");
		exit(2);
	}
	if (kernel_private_futexes(kernel)) /* the bit of `private`, as the op table has it */
		snafu_fuzz_flags = (uint8_t)(1u << op_arg_private.shift);
	char names[256];
	all_oracles = oracles ? oracles : ORACLES_DEFAULT;
	fprintf(stderr, "futex_mm_fuzzer: kernel %s\n", kernel->name);
	fprintf(stderr, "futex_mm_fuzzer: oracles %s\n",
		oracles_str(oracles, names, sizeof(names)));
	fprintf(stderr, "futex_mm_fuzzer: inputs in byte form %04x (prog/codec.c)\n",
		prog_format_id());
	fprintf(stderr, "futex_mm_fuzzer: interleaving coverage %s (%d counters)\n",
		icov_on ? "on" : "off", icov_on ? ICOV_SIZE : 0);
	if (conflicts_on)
		fprintf(stderr,
			"futex_mm_fuzzer: PCT change points drawn at conflicts too (each kept "
			"input run once more, traced)\n");
	if (joint_runs) {
		char contended[96] = "";
		bool word = contended_oracles(), forced = all_oracles & ORACLE_INTEGRITY;
		if (word || forced)
			snprintf(contended, sizeof(contended), " (%lld with %s%s%s)",
				 JOINT_CONTENDED_FACTOR * joint_runs,
				 word ? "a contended futex word" : "", word && forced ? " or " : "",
				 forced ? "a forced write beside another task's op" : "");
		fprintf(stderr,
			"futex_mm_fuzzer: joint search: each program with new coverage, %lld "
			"schedules at most%s, up to %d preemptions%s\n",
			joint_runs, contended, JOINT_PREEMPTIONS,
			all_oracles & ORACLE_DEADLOCK
			    ? "; each new lockdep prediction, its deadlock searched"
			    : "");
		if (plateau_runs)
			fprintf(stderr,
				"futex_mm_fuzzer: joint search on a plateau: a program worth one, "
				"without new coverage, once %lld executions had none\n",
				plateau_runs);
		atexit(search_stats);
	}
	sim_icov_set(icov_on ? icov_counters : NULL);
	return 0;
}

/* Wall time is read only for this progress file, never by the model; and this function
 * has no coverage counters, or the input that first ran when the clock's second changed
 * would cover a new edge here and be kept, and the corpus would depend on load. */
#ifdef __clang__
#define NO_COVERAGE __attribute__((no_sanitize("coverage"), noinline))
#else
#define NO_COVERAGE __attribute__((noinline))
#endif
NO_COVERAGE static void report_progress(void)
{
	static time_t last;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (now.tv_sec == last)
		return;
	last = now.tv_sec;
	FILE *f = fopen(progress_file, "w");
	if (f) {
		fprintf(f, "%llu\n", executions);
		fclose(f);
	}
}

/* --keep-going: the signatures seen so far in this process. */
static char seen[64][160];
static int nseen;

static bool seen_before(const char *sig)
{
	for (int i = 0; i < nseen; i++)
		if (!strcmp(seen[i], sig))
			return true;
	if (nseen == 64)
		return true; /* enough: the rest of the run counts as seen */
	snprintf(seen[nseen++], sizeof(seen[0]), "%s", sig);
	return false;
}

/* The input of a finding, into PREFIX + "finding-" + its hash, whole or not at all (a
 * write that fails ends the run with exit 2), and its line. */
static void save_finding(const char *prefix, const uint8_t *data, size_t size, const char *sig)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char path[4096], tmp[4200];

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ULL;
	snprintf(path, sizeof(path), "%sfinding-%016llx", prefix, (unsigned long long)h);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "wb");
	bool ok = f && fwrite(data, 1, size, f) == size;
	if (f && fclose(f))
		ok = false;
	if (!ok || rename(tmp, path)) {
		fprintf(stderr, "futex_mm_fuzzer: %s: cannot write: %s\n", ok ? path : tmp,
			strerror(errno));
		remove(tmp);
		exit(2);
	}
	fprintf(stderr, "futex_mm_fuzzer: finding after %llu executions: %s -> %s\n", executions,
		sig, path);
}

/* The finding's run again with the trace on (the same program runs the same way), for
 * the report's interleaving table; the report and the program on stderr. */
static void report(const struct program *q, struct run_result *r)
{
	struct run_opts traced = {.trace = true, .oracles = oracles};

	prog_run(q, kernel, &traced, r);
	fprintf(stderr, "\n");
	prog_report(stderr, kernel);
	fprintf(stderr, "program (snafu show):\n");
	prog_print(q, stderr);
	fflush(stderr);
}

/* -runs=N with --joint: N executions, the search's runs among them, which libFuzzer
 * does not count: the run ends here, with the count in libFuzzer's words. */
static void budget_spent(void)
{
	search_stats();
	fprintf(stderr,
		"futex_mm_fuzzer: done: %llu executions, the search's included\n"
		"stat::number_of_executed_units: %llu\n",
		executions, executions);
	fflush(stderr);
	_Exit(0);
}

/* What the joint search did, at the end of any run that had it on. */
static void search_stats(void)
{
	char traced[64] = "", guided[64] = "";
	if (conflicts_on)
		snprintf(traced, sizeof(traced), ", %lld runs traced for conflicts", traced_runs);
	if ((all_oracles & ORACLE_DEADLOCK) && !(all_oracles & ORACLE_LOCKDEP))
		snprintf(guided, sizeof(guided), ", %lld runs with lockdep", guided_runs);
	fprintf(stderr,
		"futex_mm_fuzzer: the joint search: %lld programs searched (%lld for a lockdep "
		"prediction, %lld on a plateau), %lld schedules run%s%s (of %llu executions)\n",
		searches, steered, plateau_searches, search_runs, guided, traced, executions);
}

/* After a search (fuzz/joint.c): its runs counted as executions, toward -runs too. A
 * finding is saved as the program with the schedule found (the input's own run did not
 * find it): it ends the run, as a crash would, or with --keep-going is reported once. */
static void search_done(bool hit, const struct program *found, long long runs)
{
	static uint8_t bytes[65536];
	struct run_result r;

	executions += (unsigned long long)runs;
	searches++;
	search_runs += runs;
	struct run_opts quick = {.no_digest = true, .oracles = oracles};
	if (hit && keep_going) /* once a signature */
		prog_run(found, kernel, &quick, &r);
	if (hit && (!keep_going || !seen_before(r.verdict))) {
		report(found, &r);
		size_t n = prog_encode(found, bytes, sizeof(bytes));
		if (!keep_going) {
			save_finding(artifact_prefix, bytes, n, r.verdict);
			search_stats();
			fprintf(stderr, "stat::number_of_executed_units: %llu\n", executions);
			fflush(stderr);
			_Exit(1); /* not abort(): the input itself finds nothing */
		}
		save_finding(keep_going, bytes, n, r.verdict);
	}
}

/* The runs a search may make: MAX, or what is left of -runs */
static long long search_budget(long long max)
{
	if (runs_budget && executions >= runs_budget)
		return 0;
	if (runs_budget && (long long)(runs_budget - executions) < max)
		max = (long long)(runs_budget - executions);
	return max;
}

/* Whether p's search gets JOINT_CONTENDED_FACTOR times the runs: a contended futex word
 * (joint_contended()) under contended_oracles(), or under the integrity oracle any
 * program searched for it (a forced write with a racing op beside it: joint_worth()) */
static bool contended_runs(const struct program *p)
{
	return (contended_oracles() && joint_contended(p)) ||
	       ((all_oracles & ORACLE_INTEGRITY) && joint_forced_beside(p));
}

/* A search of p (fuzz/joint.c): its schedules, within --joint=N runs (a contended futex
 * word's program, JOINT_CONTENDED_FACTOR times that), where it reached new code; or
 * (PREDICTION) the deadlock lockdep predicted from its run */
static void search(const struct program *p, bool prediction)
{
	static struct program found;
	long long want = prediction          ? JOINT_PREDICTION_RUNS
			 : contended_runs(p) ? JOINT_CONTENDED_FACTOR * joint_runs
					     : joint_runs;
	long long max = search_budget(want), runs = 0;

	if (!max)
		return;
	sim_icov_set(NULL);
	steered += prediction;
	bool hit = prediction ? joint_search_prediction(p, kernel, max, &found, &runs)
			      : joint_search(p, kernel, oracles, max, &found, &runs);
	search_done(hit, &found, runs);
	sim_icov_set(icov_on ? icov_counters : NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct program p;
	struct run_opts quick = {.no_digest = true, .oracles = oracles};
	struct run_result r;

	if (joint_runs && runs_budget && executions >= runs_budget) /* the search's, counted */
		budget_spent();
	if (progress_file && (executions & 1023) == 0)
		report_progress();
	if (++executions % PURGE_RUNS == 0 && __sanitizer_purge_allocator)
		__sanitizer_purge_allocator();
#ifdef SNAFU_FUZZ_PLANTED
	snafu_fuzz_planted();
#endif
	if (prog_decode(data, size, &p) < 0) {
		/* another byte form (an old corpus): never run as some other program */
		static bool told;
		char why[256];
		if (!told && size >= PROG_HEADER_BYTES) { /* not libFuzzer's own "\n" */
			prog_decode_error(data, size, why, sizeof(why));
			fprintf(stderr,
				"futex_mm_fuzzer: skipping inputs not in this byte form: %s\n",
				why);
			told = true;
		}
		return -1;
	}
	if (!snafu_fuzz_all_ops)
		for (int i = 0; i < p.nops; i++)
			if (op_table[p.ops[i].kind].all_only)
				return -1; /* not in this op set: neither run nor kept */
#ifndef SNAFU_FUZZ_NO_DEFAULT_FLAGS
	/* The other kind of schedule than the mutator writes (from libFuzzer's own byte
	 * mutations, or a file): not run. Run, such inputs filled the corpus with schedules
	 * the mutator then throws away (2.6.11-rc4's deadlock took a median of 6,838
	 * executions over seeds 1..10 with PCT, against 2,818 so). Not under AFL++'s driver,
	 * which takes no flags and mutates bytes only. */
	if (snafu_fuzz_pct ? p.npreempts > 0 : p.pct.on) {
		static bool told;
		if (!told)
			fprintf(stderr,
				"futex_mm_fuzzer: not running inputs with %s under --schedule=%s "
				"(--schedule=%s runs them)\n",
				snafu_fuzz_pct ? "preemptions" : "a PCT schedule",
				snafu_fuzz_pct ? "pct" : "preempt",
				snafu_fuzz_pct ? "preempt" : "pct");
		told = true;
		return -1;
	}
#endif
	prog_run(&p, kernel, &quick, &r);
	bool fresh = (joint_runs || conflicts_on) &&
		     (r.result == SIM_OK || r.result == SIM_PREDICTED) && joint_new_coverage();
	/* a plateau (--plateau=N): no new code, nor a search of a program without it, for N
	 * executions */
	static unsigned long long plateau_from;
	if (fresh)
		plateau_from = executions;
	bool plateau =
	    plateau_runs && !fresh && executions - plateau_from >= (unsigned long long)plateau_runs;
	/* lockdep's prediction steers a search for the deadlock (fuzz/joint.c), whether or
	 * not it is a finding itself (with --keep-going the fuzzer goes on past it). Where
	 * lockdep is no oracle, only the inputs libFuzzer keeps are run once more with it:
	 * on every run it cost a third of the executions a second */
	bool guide = joint_runs && (all_oracles & ORACLE_DEADLOCK);
	bool steer = false;
	if (guide && !(all_oracles & ORACLE_LOCKDEP) && r.result == SIM_OK && fresh &&
	    search_budget(1)) {
		executions++;
		guided_runs++;
		steer = joint_predicts(&p, kernel, oracles) && joint_prediction_worth(&p, true);
	} else if (guide && r.result == SIM_PREDICTED && keep_going)
		steer = joint_prediction_worth(&p, fresh);
	if (r.result == SIM_OK) {
		if (conflicts_on && fresh && p.pct.on && search_budget(1)) { /* its conflicts */
			joint_conflicts_record(&p, data, size, kernel, oracles);
			executions++;
			traced_runs++;
		}
		if (steer)
			search(&p, true);
		if (joint_runs && (fresh || plateau) && joint_worth(&p, all_oracles)) {
			if (plateau) {
				plateau_from = executions;
				plateau_searches++;
			}
			search(&p, false);
		}
		return 0;
	}
	if (keep_going && seen_before(r.verdict)) {
		if (steer)
			search(&p, true);
		return -1;
	}
	sim_icov_set(NULL);
	static struct program input;
	input = p;                                  /* its own schedule, for the search */
	prog_resolve_schedule(&p, kernel, oracles); /* the report shows preemptions */
	report(&p, &r);
	if (!keep_going) {
		fprintf(stderr, "futex_mm_fuzzer: finding after %llu executions: %s\n", executions,
			r.verdict);
		fflush(stderr);
		abort();
	}
	save_finding(keep_going, data, size, r.verdict);
	sim_icov_set(icov_on ? icov_counters : NULL);
	if (steer)
		search(&input, true);
	return -1;
}
