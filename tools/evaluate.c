/* snafu evaluate: "does my fix hold?" for every kernel at once.
 *
 * The fuzz driver (tools/fuzzdrv.c) with these defaults: every kernel gets the same
 * budget, counted in executions (never in time, so the table does not depend on the
 * machine): one futex_mm_fuzzer process each, with the same seed (default 1), from an
 * empty corpus and a fresh copy of the seed corpus (--fresh), up to J of them at a time.
 * Each finding is minimized into OUT/KERNEL.case with an expect line for every kernel
 * (its input and report beside it), and one table says, per kernel: the verdict, the
 * executions to the first finding, its signature and the case. The same seed gives the
 * same table, byte for byte, on any machine, loaded or not: tools/fuzzdrv.c says how.
 *
 * OUT defaults to <the directory above snafu's>/evaluate, build/evaluate for
 * build/bin/snafu, wherever snafu is run from.
 *
 * Exit status: 0 when every fuzzer ran (findings are the expected output, not failures),
 * 1 when a fuzzer failed without leaving an artifact, 2 on bad usage.
 */
#include "evaluate.h"

#include "fuzzdrv.h"

#include <stdio.h>

/* A row: the verdict, the executions to the first finding, its signature, its case. */
static void row(const struct fuzz_job *j, char c[FUZZ_CELLS][FUZZ_PATH], bool code[FUZZ_CELLS])
{
	const struct fuzz_finding *f = j->nf ? &j->f[0] : NULL;

	snprintf(c[0], FUZZ_PATH, "%s", j->k->name);
	snprintf(c[1], FUZZ_PATH, "%s", f ? "finding" : j->error ? "error" : "none");
	if (j->execs >= 0)
		snprintf(c[2], FUZZ_PATH, "%lld", j->execs);
	else
		snprintf(c[2], FUZZ_PATH, "?");
	if (j->error)
		snprintf(c[3], FUZZ_PATH, "fuzzer %s, no artifact", j->why);
	else
		snprintf(c[3], FUZZ_PATH, "%s", f ? f->sig : "-");
	snprintf(c[4], FUZZ_PATH, "%s", f && f->casefile[0] ? f->casefile : "-");
	code[0] = true;
	code[1] = code[2] = false;
	code[3] = f != NULL;
	code[4] = f && f->casefile[0];
}

static const struct fuzz_plan plan = {
    .head = {"kernel", "verdict", "executions to first finding", "signature", "minimized case"},
    .right = 2,
    .row = row,
    .name = "evaluate",
    .opts = FUZZ_RUNS | FUZZ_JOBS | FUZZ_OPS | FUZZ_SEED | FUZZ_OUT | FUZZ_MARKDOWN | FUZZ_ORACLES,
    .runs = 1000000,
    .seed = 1,
    .ops = "all",
    .all_kernels = true,
    .fresh = true,
    .cases_in_out = true,
    .out_name = "evaluate",
};

int cmd_evaluate(int argc, char **argv)
{
	return fuzz_drive(&plan, argc, argv).errors ? 1 : 0;
}
