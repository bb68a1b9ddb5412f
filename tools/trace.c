/* snafu trace: one traced run of a case, for a person to look at.
 *
 *   snafu trace [--kernel=NAME] [-o FILE.json | -o FILE.html] CASE
 *
 * FILE.json is the Chrome/Perfetto JSON trace event format (ui.perfetto.dev,
 * chrome://tracing): a track per task with its system calls as slices, the locks it holds
 * on tracks of their own beside it, its sleeps and wake-ups as instants, arrows from
 * waker to wakee and from a preempted task to the one the schedule switched to, and the
 * finding as a global instant.
 *
 * FILE.html is one self-contained page (no scripts, no fonts or files from elsewhere): an
 * SVG with one lane per task, time flowing down one row per event as in the report's
 * table, lock holds as solid bars beside the lane, waits as hatched ones, and the
 * wait-for cycle of a deadlock in red; beside it the report.
 *
 * A lost wake-up, a wrong result or a lockdep report is marked in red in both, from the
 * oracle's records and lockdep's prediction (timeline.h, struct marks): the wake-up spent
 * on a waiter that never waited, the sleeper passed over or missed and its sleep to the
 * end of the run; the FUTEX_CMP_REQUEUE with the wrong -EAGAIN and the queue_me() that
 * moved nqueued; the acquisition lockdep reported and the held lock. The JSON carries the
 * facts on the finding's instant (args.facts).
 *
 * Without -o it prints what `snafu replay` prints. Exit status as replay: 1 when the run
 * ends with a finding, 0 when not, 2 for bad usage or input.
 */
#include "../trace/writers.h"

#include "../prog/exec.h"
#include "../cli/casefile.h"
#include "../cli/cli.h"
#include "../trace/timeline.h"

#include <stdlib.h>
#include <string.h>

#ifdef SNAFU_NATIVE
/* Real threads record no trace: the simulator's build draws it. */
static int cmd_trace(int argc, char **argv)
{
	(void)argc, (void)argv;
	return cli_to_simulator("trace");
}
#else

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static int cmd_trace(int argc, char **argv)
{
	const struct kernel_config *k = kernel_arg(SNAFU_DEFAULT_KERNEL);
	const char *out = NULL, *in = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			k = kernel_arg(a + 9);
		else if (!strcmp(a, "-o") && i + 1 < argc) {
			out = argv[++i];
			if (!ends_with(out, ".json") && !ends_with(out, ".html"))
				die_usage("-o FILE.json (Perfetto) or -o FILE.html", out, i + 1);
		} else
			cli_operand(&in, a, i + 1,
				    "--kernel=NAME, -o FILE.json, -o FILE.html or a CASE",
				    "one CASE");
	}
	if (!in) {
		fprintf(stderr, "snafu trace: expected a CASE file\n");
		return 2;
	}

	if (out && !case_out_ok(out))
		return 2;
	static struct program p;
	struct run_opts o = {.trace = true};
	struct run_result r;
	load_case(in, &p);
	prog_run(&p, k, &o, &r);
	warn_schedule(in, &p, k, &r, 0);
	in = case_name(in);
	if (!out) {
		if (r.result != SIM_OK)
			prog_report(stdout, k);
		printf("%s [%s]: %s\n", in, k->name, r.verdict);
		return r.result != SIM_OK;
	}

	char tmp[4096];
	FILE *f = case_open_out(out, tmp, sizeof(tmp));
	if (!f)
		return 2;

	struct timeline m;
	timeline_build(&m, &r);
	if (ends_with(out, ".json"))
		trace_write_json(f, &m, in, k, &r);
	else
		trace_write_html(f, &m, in, k, &r);
	timeline_free(&m);
	if (case_close_out(f, tmp, out))
		return 2;
	printf("%s [%s]: %s\n", in, k->name, r.verdict);
	printf("trace: wrote %s (%d events)\n", out, m.n);
	return r.result != SIM_OK;
}

#endif

static const char *const trace_values[] = {"--kernel", "-o", NULL};

const struct cli_command trace_command = {
    "trace", cmd_trace, true, trace_values,
    "  trace [--kernel=NAME] [-o FILE.json|FILE.html] CASE\n"
    "                          replay a case and draw it: FILE.json for Perfetto\n"
    "                          (ui.perfetto.dev), FILE.html a page with one lane per\n"
    "                          task, the locks held and waited for, the wait-for cycle;\n"
    "                          without -o print what replay prints\n"};
