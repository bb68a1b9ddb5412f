/* futex_mm_fuzzer: libFuzzer target. One input = one program + schedule (prog/codec.c),
 * run on one kernel; every finding of the watchdog and the checkers ends in a report, a
 * DEDUP_TOKEN line and abort(), so libFuzzer saves the input.
 *
 *   futex_mm_fuzzer [--kernel=NAME] [--ops=futex|all] [--progress=FILE] [libFuzzer flags]
 *                   [CORPUS...]
 *
 * --ops=futex (the default): programs use every op but mincore; inputs with a mincore
 * are rejected (not run, not kept). mincore's own deadlock (CVE-2006-4814) is in every
 * 2005 kernel, fixed futex code or not, and would hide what a run on a futex fix is
 * meant to tell. --ops=all lets it in, as `snafu evaluate` does.
 *
 * --progress=FILE: about once a second, rewrite FILE with the executions so far, for
 * fuzz/run.sh's progress line (libFuzzer itself prints only on new coverage).
 *
 * libFuzzer leaves flags that start with "--" to the target and passes them on to
 * -fork and -jobs children. The default kernel is the unfixed 2.6.11-rc4, or the one
 * the binary was built for (SNAFU_FUZZ_KERNEL, for OSS-Fuzz's one binary per kernel).
 *
 * Two libFuzzer defaults are changed unless given on the command line (the same values
 * are in futex_mm_fuzzer.options for OSS-Fuzz): -max_len=256 (31 ops) and
 * -len_control=0. A deadlock needs three ops and a preemption, 31 bytes at least, and
 * with length control libFuzzer takes tens of thousands of runs to let inputs grow that
 * long from an empty corpus.
 */
#include "../prog/exec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef SNAFU_FUZZ_KERNEL
#define SNAFU_FUZZ_KERNEL "2.6.11-rc4"
#endif

static const struct kernel_config *kernel;
static const char *progress_file;
bool snafu_fuzz_all_ops; /* read by the mutator too */
static unsigned long long executions;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
			args[n++] = "-max_len=256";
		if (!has_flag(*argc, *argv, "-len_control="))
			args[n++] = "-len_control=0";
		if (!has_flag(*argc, *argv, "-reload="))
			args[n++] = "-reload=0";
		for (int i = 1; i < *argc; i++)
			args[n++] = (*argv)[i];
		args[n] = NULL;
		*argc = n;
		*argv = args;
	}
#endif
	for (int i = 1; i < *argc; i++)
		if (!strncmp((*argv)[i], "--kernel=", 9))
			name = (*argv)[i] + 9;
		else if (!strncmp((*argv)[i], "--progress=", 11))
			progress_file = (*argv)[i] + 11;
		else if (!strcmp((*argv)[i], "--ops=all"))
			snafu_fuzz_all_ops = true;
		else if (!strcmp((*argv)[i], "--ops=futex"))
			snafu_fuzz_all_ops = false;
		else if (!strncmp((*argv)[i], "--", 2) && (*argv)[i][2])
			fprintf(stderr,
				"futex_mm_fuzzer: argument %d '%s': expected --kernel=NAME "
				"--ops=futex|all or --progress=FILE (other -- flags are not "
				"known)\n",
				i, (*argv)[i]);
	kernel = kernel_by_name(name);
	if (!kernel) {
		fprintf(stderr, "futex_mm_fuzzer: unknown kernel '%s'; valid kernels:", name);
		for (int i = 0; i < nkernels; i++)
			fprintf(stderr, " %s", kernels[i].name);
		fprintf(stderr, "\n");
		exit(2);
	}
	fprintf(stderr, "futex_mm_fuzzer: kernel %s\n", kernel->name);
	return 0;
}

/* Wall time is read only for this progress file, never by the model. */
static void report_progress(void)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct program p;
	struct run_opts quick = {.no_digest = true}, traced = {.trace = true};
	struct run_result r;

	if (progress_file && (++executions & 1023) == 0)
		report_progress();
	prog_decode(data, size, &p);
	if (!snafu_fuzz_all_ops)
		for (int i = 0; i < p.nops; i++)
			if (p.ops[i].kind == OP_MINCORE)
				return -1; /* not in this op set: neither run nor kept */
	prog_run(&p, kernel, &quick, &r);
	if (r.result == SIM_OK)
		return 0;
	/* The same input runs the same way: run it again with the trace on, for the
	 * report's interleaving table. */
	prog_run(&p, kernel, &traced, &r);
	fprintf(stderr, "\n");
	prog_report(stderr, kernel);
	fprintf(stderr, "program (snafu show):\n");
	prog_print(&p, stderr);
	fflush(stderr);
	abort();
}
