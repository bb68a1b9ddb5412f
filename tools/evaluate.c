/* snafu evaluate: "does my fix hold?" for every kernel at once.
 *
 * The fuzz driver (tools/fuzzdrv.c) with these defaults: every kernel gets the same
 * budget, counted in executions (never in time, so the table does not depend on the
 * machine): one futex_mm_fuzzer process each, with the same seed (default 1), from an
 * empty corpus and a fresh copy of the seed corpus (--fresh), up to J of them at a time,
 * once per oracle (each alone: --oracles=NAME, for every name in --oracles=LIST, default
 * all four), so that what one oracle finds first does not hide what another would.
 * Each finding is minimized into OUT/KERNEL/ORACLE.case with an expect line for every
 * kernel (its input and report beside it), and one table says, per kernel and oracle:
 * the first finding's signature and the executions it took, or none in the budget. The same seed
 * gives the same table, byte for byte, on any machine, loaded or not: tools/fuzzdrv.c says how.
 *
 * OUT defaults to <the directory above snafu's>/evaluate, build/evaluate for
 * build/bin/snafu, wherever snafu is run from.
 *
 * Exit status: 0 when every fuzzer ran (findings are the expected output, not failures),
 * 1 when a fuzzer failed without leaving an artifact, 2 on bad usage.
 */
#include "evaluate.h"

#include "explore.h"
#include "fuzzdrv.h"

#include <stdio.h>
#include <string.h>

/* A row: the kernel, then per oracle (each run alone, --oracles=NAME) its first finding
 * and the executions it took, or "none in N"; a lockdep prediction says whether snafu
 * confirm turned it into a deadlock. */
static void row(const struct fuzz_job *j, int n, char c[FUZZ_CELLS][FUZZ_PATH],
		bool code[FUZZ_CELLS])
{
	snprintf(c[0], FUZZ_PATH, "%s", j->k->name);
	code[0] = true;
	for (int i = 0; i < n && i + 1 < FUZZ_CELLS; i++) {
		const struct fuzz_job *o = &j[i];
		const struct fuzz_finding *f = o->nf ? &o->f[0] : NULL;
		char execs[32] = "?";
		if (o->execs >= 0)
			snprintf(execs, sizeof(execs), "%lld", o->execs);
		if (o->error)
			snprintf(c[i + 1], FUZZ_PATH, "error: fuzzer %s, no artifact", o->why);
		else if (!f)
			snprintf(c[i + 1], FUZZ_PATH, "none in %s", execs);
		else
			snprintf(c[i + 1], FUZZ_PATH, "%s after %s%s", f->sig, execs,
				 f->confirm > 0   ? ", confirmed"
				 : f->confirm < 0 ? ", predicted only"
						  : "");
		code[i + 1] = false;
	}
}

static const struct fuzz_plan plan = {
    .head = {"kernel"}, /* then the oracles' names */
    .right = -1,
    .row = row,
    .name = "evaluate",
    .opts = FUZZ_RUNS | FUZZ_JOBS | FUZZ_OPS | FUZZ_SEED | FUZZ_OUT | FUZZ_MARKDOWN | FUZZ_ORACLES |
	    FUZZ_SEARCH,
    .runs = 1000000,
    .seed = 1,
    .ops = "all",
    .all_kernels = true,
    .fresh = true,
    .cases_in_out = true,
    .per_oracle = true,
    .out_name = "evaluate",
};

int cmd_evaluate(int argc, char **argv)
{
	/* --explore: schedules searched, not sampled (tools/explore.c) */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--explore") || !strncmp(argv[i], "--explore=", 10))
			return explore_evaluate(argc, argv);
	return fuzz_drive(&plan, argc, argv).errors ? 1 : 0;
}
