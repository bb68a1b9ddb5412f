/* The fuzz driver (see driver.h): one loop for `snafu fuzz`, `snafu evaluate`,
 * fuzz/run.sh and ci/fuzz.sh.
 *
 * For each kernel, one futex_mm_fuzzer process (up to --jobs at a time), or with --fork
 * one in libFuzzer's fork mode with --jobs workers (one kernel at a time). The budget is
 * counted in executions (--runs, the same on any machine) or in time (--seconds); with
 * neither, a single process runs until its first finding. Everything lands in OUT:
 *
 *   OUT/KERNEL/seeds/     a copy of corpus/futex_mm_fuzzer/ (the repository is never
 *                         written, but by --merge)
 *   OUT/KERNEL/seeds.txt  its files in name order, for -seed_inputs=@OUT/KERNEL/seeds.txt
 *   OUT/KERNEL/corpus/    what the fuzzer added: kept from run to run, unless --fresh
 *   OUT/KERNEL/fuzz.log   everything the fuzzer printed, copied there by the driver,
 *                         which reads the executions and tokens on the way: a write
 *                         that fails is said, exit 2, and the log removed (whole or not
 *                         there; util.c's struct fz_sink); the logs of the snafu and
 *                         fuzzer runs below too
 *   OUT/KERNEL/crash-...  libFuzzer's artifacts (crash-, timeout-, oom-, leak-; finding-
 *                         with --keep-going)
 *   OUT/KERNEL/progress   the executions so far (the fuzzer's --progress=FILE)
 *
 * OUT defaults to <the directory above snafu's>/NAME: build/fuzz for build/bin/snafu
 * (build/evaluate for `snafu evaluate`), wherever snafu is run from; .gitignore covers
 * build*. Every run starts with OUT/KERNEL emptied but for its corpus.
 *
 * With a budget and --known or --keep-going, the fuzzer goes on past its findings
 * (futex_mm_fuzzer --keep-going=OUT/KERNEL/: finding-HASH files, one per signature, and a
 * "finding after N executions" line each in the log): see fz_keeps_going() (options.c).
 *
 * Then every artifact is sorted by its signature: by replaying it (`snafu replay --quiet
 * --input=bytes`, one process for them all), and for what snafu does not replay to a
 * finding, by what the fuzzer binary says of it (its DEDUP_TOKEN line, else its
 * sanitizer's SUMMARY line, else "unreproducible"); timeout-, oom- and leak- files are
 * libfuzzer-timeout and the like. Never from the log alone: in fork mode a crashing child
 * ends its job, the parent prints only the children's "ERROR:" lines and starts another,
 * and each crash leaves crash-SHA1 under -artifact_prefix; the parent's log has no
 * DEDUP_TOKEN lines. The fuzzer prints a DEDUP_TOKEN for its ASan and UBSan reports too
 * (fuzz/fuzz_support.c: asan-heap-use-after-free--futex_wake--sys_futex and the like), so
 * they sort the same way; such a report is a bug in the model's code, not a finding to
 * minimize: saved with the fuzzer's report. A signature that --known lists for the
 * kernel is known; any other is new: the smallest input with it is minimized (`snafu
 * minimize`) into FOUND/KERNEL/SIGNATURE.case, its report beside it (.report, `snafu
 * replay`), the raw input too (.input). A new lockdep prediction (lockdep--...) then
 * goes to `snafu confirm` (tools/confirm.c), which looks for a schedule that deadlocks
 * and writes it to FOUND/KERNEL/SIGNATURE.confirmed.case: the table says "predicted and
 * confirmed" or "predicted only". One table closes the run.
 *
 * With --merge, the inputs that add coverage are then merged into the seed corpus
 * (--merge-into=DIR): `-merge=1` into a temporary copy of it (the checked-in seeds stay,
 * by name), kernel by kernel, then only the new files (named by their SHA-1) are copied
 * in, and only those that give no finding on any kernel (the seed corpus holds
 * programs, not reproducers: the fuzzer must find the interleaving itself). The merge
 * counts edges only (-use_counters=0), so the checked-in corpus grows by the inputs that
 * reach new code, not by every new hit count (a minute per kernel: about 100 files
 * instead of 700); the work corpora keep everything.
 *
 * libFuzzer's own flags (-NAME=VALUE) are checked before anything runs, as libFuzzer
 * only warns of a flag it does not know (in the log) and reads -runs=abc as 0: NAME must
 * be one that `futex_mm_fuzzer -help=1` lists, VALUE a whole number (a path or a string
 * for dict, seed_inputs, stop_file and the like); -artifact_prefix and
 * -exact_artifact_path are the driver's. Ctrl-C (SIGINT) or SIGTERM stops the fuzzers
 * (each in a process group of its own, fork-mode workers included; one that has not ended
 * STOP_GRACE_S after SIGTERM is killed, process.c) and says so: exit 130.
 *
 * The same seed gives the same run, byte for byte, on any machine, loaded or not
 * (tests/test_evaluate.sh, tests/test_evaluate_parallel.sh). What had to go for that,
 * each measured:
 *  - the order of the seeds. libFuzzer shuffles them with its seeded RNG, then sorts them
 *    by size, stably: files of equal size (three seeds have 26 bytes, two 34) keep the
 *    order the directory listing gave, and that is the file system's (hash order on
 *    ext4, creation order on tmpfs). With the seeds in OUT/KERNEL/corpus, --out on ext4
 *    and on tmpfs gave different tables for seed 1 at --runs=20000 (2.6.11: a finding
 *    after 6605 executions on ext4, after 90 on tmpfs). So the seeds come in a list in
 *    strcmp() order (-seed_inputs=@FILE), and `snafu evaluate` starts from an empty
 *    corpus directory (--fresh). Fork mode ignores -seed_inputs (measured: "-fork=1: 0
 *    seed inputs"): there the copy of the seeds is the second corpus directory, and fork
 *    mode, its workers started by the clock, is not reproducible anyway.
 *  - libFuzzer's -reload (default: every 1 s of wall time) re-reads the corpus
 *    directory and runs every file in it that is not in its in-memory corpus (a seed
 *    that added no coverage, or one replaced by a smaller input): each such run counts
 *    toward -runs and feeds Entropic's feature frequencies, at a point in the stream
 *    that depends on the machine's speed. The fuzzer defaults to -reload=0 (see
 *    fuzz/futex_mm_fuzzer.c); it is passed here too, so that a run never depends on a
 *    default. (With the seeds out of the corpus directory nothing there would be re-run
 *    anyway.)
 *  - libFuzzer's per-input leak check (-detect_leaks=1) runs an input again when more
 *    mallocs than frees happened during it, in any thread: another thread's allocation
 *    at the wrong moment adds or saves one execution (measured: 1,652 instead of 1,653
 *    once in 20 loaded runs). The fuzzer defaults to -detect_leaks=0
 *    (fuzz/futex_mm_fuzzer.c).
 *  - the progress file: the fuzzer's report_progress() rewrites it when the clock's
 *    second changes, and with coverage counters in it, the input that ran then covered
 *    a new edge and was kept (measured: three identical runs at once found their first
 *    bug after 52,578, 52,578 and 8,163 executions). It has no counters now
 *    (tests/test_fuzz_reproducible.sh).
 *  - address randomization: libFuzzer's CMP dictionary picks up values that hold
 *    addresses, which then differ from run to run, and so would the executions to a
 *    finding. It is turned off for the fuzzers (personality, inherited through exec).
 * Not time-dependent, checked: -timeout (1200 s a unit; the model is bounded in steps),
 * -rss_limit_mb and its allocator purge every second above half of it (RSS stays near
 * 400 MB, and a purge every second changed nothing), the model's clock (virtual) and the
 * mutator (seeded by libFuzzer). Wall time is read only to report it, and for progress.
 *
 * The driver's files, one job each (internal.h has what they share), each calling only
 * those above it here:
 *   util.c      paths, files, child processes, Ctrl-C
 *   options.c   the options: parsed and checked, where things are, --known, the jobs, a
 *               fuzzer's command line
 *   log.c       what the fuzzers print, read on its way into their logs; their artifacts
 *   report.c    what is printed: the first lines, a new finding in full, the table
 *   findings.c  the findings: artifacts sorted by signature, saved, minimized, confirmed
 *   process.c   the fuzzers as processes: OUT's lock, starting, waiting, progress, Ctrl-C
 *   merge.c     --merge
 *   drive.c     this overview, and fuzz_drive(): a run from its arguments to its table
 * snafu fuzz (tools/fuzz.c) and snafu evaluate (tools/evaluate.c) are commands built on it.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fuzz_totals fuzz_drive(const struct fuzz_plan *p, int argc, char **argv)
{
	static struct fuzz_run run;
	struct fuzz_run *r = &run;
	struct fuzz_totals totals = {0}, *t = &totals;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char cmd[3 * PATH_LEN];

	*r = (struct fuzz_run){.p = p,
			       .name = p->name,
			       .runs = p->runs,
			       .ops = p->ops,
			       .seed = p->seed,
			       .seed_count = 1,
			       .fresh = p->fresh,
			       .joint = -1,
			       .jobs = cpus > 0 ? cpus : 1};
	fz_set_name(p->name);
	fz_ignore_xfsz(); /* past a file-size limit a write fails, and the driver says so */
	setvbuf(stdout, NULL, _IOLBF, 0); /* in order with stderr, in a pipe too */
	fz_parse(r, argc, argv);
	fz_locate(r);
	/* every directory a result goes to, before the first execution: a finding is not
	 * to be lost after the whole run */
	fz_writable_dir(r, r->out, "--out");
	if (r->p->judge && !r->p->cases_in_out)
		fz_writable_dir(r, r->found, "--found");
	struct stat st;
	if (r->merge && (stat(r->merge_into, &st) || !S_ISDIR(st.st_mode))) { /* a corpus */
		int e = stat(r->merge_into, &st) ? errno : ENOTDIR;
		errno = e;
		fprintf(stderr, "snafu %s: %s (--merge-into): cannot merge into: %s\n", r->name,
			r->merge_into, strerror(errno));
		exit(2);
	}
	if (r->merge)
		fz_writable_dir(r, r->merge_into, "--merge-into");
	fz_check_libfuzzer_flags(r);
	if (r->known_file[0])
		fz_read_known(r);
	fz_make_jobs(r);
	fz_lock_out(r); /* the usage is good: from here on OUT is written */
	struct fuzz_info info = {.name = r->name,
				 .job = r->job,
				 .njobs = r->njobs,
				 .jobs = r->jobs,
				 .oracles = r->oracles,
				 .out = r->out,
				 .seeds = r->seeds};
	if (p->before)
		p->before(&info);
	if (fz_mkdir_p(r->out)) {
		fprintf(stderr, "snafu %s: %s: cannot create: %s\n", r->name, r->out,
			strerror(errno));
		exit(2);
	}
	for (int i = 0; i < r->njobs; i++)
		fz_prepare(r, &r->job[i]);

	fz_command_line(r, cmd, sizeof(cmd));
	fz_print_opening(r);
	fz_set_up_process(r);

	double t0 = fz_now();
	fz_run_all(r, t);
	if (p->after && !fuzz_interrupted() && !p->after(&info))
		t->errors++;
	if (r->merge && !fuzz_interrupted() && !fz_merge(r))
		t->errors++;
	if (fuzz_interrupted()) /* while the last results were sorted, or the merge ran */
		fz_stop(r);
	else if ((p->opts & FUZZ_MERGE) && !r->merge)
		fprintf(stderr,
			"%s: %s left as it is; the new inputs stay in %s/KERNEL/corpus (--merge "
			"adds those with new coverage)\n",
			r->name, fz_shown(r->merge_into), r->out);
	double wall = fz_now() - t0;

	fz_print_closing(r, t, cmd, wall);
	t->errors += fz_unwritten(); /* a log lost: each said so when it happened */
	return totals;
}
