/* snafu confirm CASE: a lockdep prediction to a deadlocking case, by confirm's search
 * (search/confirm.c says how it searches). The first run that deadlocks is minimized as
 * `snafu minimize` does (prog/minimize.c, cli/casefile.c), keeping its signature, and
 * written to -o OUT or, by default, to NAME.confirmed.case in the current directory (NAME:
 * CASE's base name without .case or .input), never beside the input: in repro/cases/ it
 * would become one more saved case to every glob of *.case there.
 *
 * Exit status: 0 confirmed (the case written), 1 not confirmed within the budget (or the
 * whole search space without a deadlock), 2 bad usage or an input whose verdict is not a
 * lockdep prediction.
 */
#include "commands.h"

#include "../cli/casefile.h"
#include "../cli/cli.h"
#include "../prog/exec.h"
#include "../ref/lockdep.h"
#include "../search/confirm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const confirm_value_opts[] = {"--kernel", "--runs", "-o", NULL};

static const char confirm_help[] =
    "  confirm [--kernel=NAME] [--runs=N] [-o OUT.case] CASE\n"
    "                          for a case whose verdict is a lockdep prediction\n"
    "                          (lockdep--...), search for a schedule that deadlocks:\n"
    "                          every single preemption, with and without an added writer\n"
    "                          (an mmap in another task), then every pair; then the\n"
    "                          same programs without the case's preemptions, every\n"
    "                          schedule with at most 2 (as snafu explore); then, for a\n"
    "                          user access under mmap_sem, with two kswapd passes\n"
    "                          (reclaim) before the writer, every schedule with at most\n"
    "                          3 preemptions; minimize the first deadlock into OUT,\n"
    "                          by default NAME.confirmed.case in the current directory\n"
    "                          (NAME: CASE's base name without .case or .input), not\n"
    "                          beside CASE; exit 0 confirmed, 1 not confirmed, 2 bad\n"
    "                          usage\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"
    "      --runs=N            executions to try at most (default 200000)\n";

/* OUT's default: IN's base name, its .case (or .input) replaced by .confirmed.case, in the
 * current directory. Not beside IN: a saved case's directory (repro/cases/) is globbed by
 * snafu replay --check, CTest and fuzz/make-corpus.sh, which would take the result for
 * one more saved case. */
static void default_out(const char *in, char *buf, size_t len)
{
	const char *slash = strrchr(in, '/');
	size_t n;

	if (slash)
		in = slash + 1;
	n = strlen(in);
	if (n > 5 && !strcmp(in + n - 5, ".case"))
		n -= 5;
	else if (n > 6 && !strcmp(in + n - 6, ".input"))
		n -= 6;
	snprintf(buf, len, "%.*s.confirmed.case", (int)n, in);
}

static int cmd_confirm(int argc, char **argv)
{
	const struct kernel_config *k = kernel_by_name(SNAFU_DEFAULT_KERNEL);
	const char *out = NULL, *in = NULL;
	long long budget = CONFIRM_DEFAULT_RUNS;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			k = kernel_arg(a + 9);
		else if (!strncmp(a, "--runs=", 7)) {
			char *end;
			errno = 0;
			budget = strtoll(a + 7, &end, 10);
			if (*end || end == a + 7 || errno || budget < 1 || budget > 100000000)
				die_usage("--runs=N with N in 1..100000000", a, i + 1);
		} else if (!strcmp(a, "-o") && i + 1 < argc)
			out = argv[++i];
		else
			cli_operand(&in, a, i + 1, "--kernel=NAME, --runs=N, -o OUT or a CASE",
				    "one CASE");
	}
	if (!in) {
		fprintf(stderr, "snafu confirm: expected a CASE\n");
		return 2;
	}
	char outbuf[4096];
	if (!out) {
		if (strcmp(in, "-"))
			default_out(in, outbuf, sizeof(outbuf));
		else
			snprintf(outbuf, sizeof(outbuf), "-");
		out = outbuf;
	}
	if (!case_out_ok(out))
		return 2;

	static struct program p;
	static struct confirm_search s;
	/* the prediction, whatever else the run finds (a lost wake-up would come first) */
	struct run_opts quiet = {.oracles = ORACLE_DEADLOCK | ORACLE_LOCKDEP};
	const char *name = case_name(in);
	load_case(in, &p);
	prog_run(&p, k, &quiet, &s.r);
	if (strncmp(s.r.verdict, "lockdep--", 9) || s.r.unfired) {
		fprintf(stderr,
			"%s: expected a case whose verdict on %s is a lockdep prediction "
			"(lockdep--...) with its whole schedule fired, found %s%s\n",
			name, k->name, s.r.verdict,
			s.r.unfired ? " with a preemption unfired" : "");
		return 2;
	}
	s.k = k;
	s.pred = *lockdep_prediction();
	s.budget = budget;
	s.runs = 0;
	char predicted[160];
	snprintf(predicted, sizeof(predicted), "%s", s.r.verdict);

	/* the messages go to stdout, unless the case does (-o -) */
	FILE *msg = strcmp(out, "-") ? stdout : stderr;
	bool exhausted;
	bool found = confirm_search(&s, &p, predicted, &exhausted);
	/* the preemptions added, as the text form writes them */
	for (int i = s.added_from; found && i < s.found.npreempts; i++) {
		char line[80];
		size_t n = strlen(s.how);
		snprintf(s.how + n, sizeof(s.how) - n, "%s%s", i == s.added_from ? ": " : ", ",
			 prog_preempt_str(&s.found.preempts[i], line, sizeof(line)));
	}
	char kswapd[160];
	snprintf(kswapd, sizeof(kswapd),
		 "every schedule within %d preemptions with two kswapd passes and then a writer "
		 "added in task %d",
		 CONFIRM_RECLAIM_PREEMPTIONS, s.reclaim_task);
	if (!found) {
		if (exhausted)
			fprintf(msg,
				"confirm: %s [%s]: %s: not confirmed: none of the %lld schedules "
				"deadlocks (every single preemption and every pair of those that "
				"fired, with and without an added writer; every schedule within %d "
				"preemptions of those programs without the case's; %s)\n",
				name, k->name, predicted, s.runs, CONFIRM_EXPLORE_PREEMPTIONS,
				s.reclaim_done ? kswapd : s.no_reclaim);
		else if (s.reclaim_task)
			fprintf(msg,
				"confirm: %s [%s]: %s: not confirmed within %lld executions (cut "
				"while searching %s)\n",
				name, k->name, predicted, s.runs, kswapd);
		else if (s.explore_cut)
			fprintf(msg,
				"confirm: %s [%s]: %s: not confirmed within %lld executions (cut "
				"while searching every schedule within %d preemptions without the "
				"case's)\n",
				name, k->name, predicted, s.runs, CONFIRM_EXPLORE_PREEMPTIONS);
		else
			fprintf(msg, "confirm: %s [%s]: %s: not confirmed within %lld executions\n",
				name, k->name, predicted, s.runs);
		return 1;
	}
	fprintf(msg, "confirm: %s [%s]: %s: confirmed after %lld executions: %s with %s\n", name,
		k->name, predicted, s.runs, s.verdict, s.how);
	fflush(msg);
	char note[512];
	snprintf(note, sizeof(note),
		 "confirms the lockdep prediction %s on %s:\n"
		 "found with %s after %lld executions, then minimized\n",
		 predicted, k->name, s.how, s.runs);
	int st =
	    case_write_minimized_note(&s.found, k, s.verdict, 0, name, "snafu confirm", note, out);
	if (st)
		return st;
	if (strcmp(out, "-"))
		printf("confirm: minimized case: %s\n", out);
	return 0;
}

const struct cli_command confirm_command = {"confirm", cmd_confirm, true, confirm_value_opts,
					    confirm_help};
