/* snafu: the command-line tool. Subcommands in the habit of git and rr.
 *
 * Exit status: 0 no finding, 1 finding (or an expectation not met), 2 bad usage or bad
 * input, with one line naming the file (or argument), the position and what was
 * expected.
 *
 * This file: main(), the command table (name, function, help) and the commands that live
 * here (kernels, replay, minimize, show, stress); the others are in tools/NAME.c
 * (commands.h), fuzz and evaluate built on the fuzz driver (driver/). What every command
 * shares, the GNU-style arguments (cli_normalize()), the error lines and load_case(), is
 * in cli/cli.c.
 */
#include "commands.h"

#include "../cli/casefile.h"
#include "../cli/cli.h"
#include "../prog/exec.h"
#include "../prog/minimize.h"
#include "../ref/kernel.h"
#include "../ref/kernels.h"
#include "../sim/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog_name = "snafu";

static int cmd_kernels(int argc, char **argv);
static int cmd_replay(int argc, char **argv);
static int cmd_minimize(int argc, char **argv);
static int cmd_show(int argc, char **argv);
static int cmd_stress(int argc, char **argv);

static const char *const no_values[] = {NULL};
static const char *const replay_values[] = {"--kernel", "--repeat", "--stop-at-step", "--oracles",
					    NULL};
static const char *const minimize_values[] = {"--kernel", "-o", "--oracles", NULL};
static const char *const show_values[] = {"-o", NULL};
static const char *const stress_values[] = {"--kernel", "--threads", "--seconds",
					    "--seed",   "--hang-ms", NULL};

static const struct cli_command kernels_command = {
    "kernels", cmd_kernels, false, no_values,
    "  kernels                 list the kernels snafu can run: name, what it is and\n"
    "                          where it comes from (tag, patch, LKML message-id)\n"};
static const struct cli_command replay_command = {
    "replay", cmd_replay, true, replay_values,
    "  replay [OPTIONS] CASE.. run cases; exit 1 on a finding, with its report: each\n"
    "                          blocked task's state, locks held and Call Trace (its\n"
    "                          2.6.11 functions, innermost first), the wait-for cycle,\n"
    "                          each rwsem's lock state (activity, wait_list), the\n"
    "                          interleaving, one column per task\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"
    "      --check             compare with the cases' expect lines instead; with no\n"
    "                          --kernel, check every listed kernel (its own line, else\n"
    "                          'expect *'; neither is a MISMATCH) and any test-only\n"
    "                          kernel the case names; with --kernel=K, K alone, the\n"
    "                          same way; a schedule that does not fire in full is a\n"
    "                          MISMATCH too, unless expected 'unfired'\n"
    "      --repeat=N          run N times, fail unless every trace digest agrees\n"
    "      --digest            print the trace digest of each run\n"
    "      --trace             print every event of the run: task, op.point, event,\n"
    "                          function, its 2.6.11 source (file:function, '-' in\n"
    "                          user mode), object or argument\n"
    "      --no-schedule       ignore the case's preemptions\n"
    "      --oracles=LIST      what counts as a finding: some of deadlock, lost-wakeup,\n"
    "                          result, integrity, lockdep, comma-separated (default:\n"
    "                          all five; expect lines hold the default's verdicts)\n"
    "      --quiet             print no report, only the verdict line\n"
    "      --stop-at-step=N    raise SIGTRAP at the run's N-th scheduling point, for\n"
    "                          gdb (without a debugger the process dies of it)\n"
    "                          a preemption that does not fire, or a step past the\n"
    "                          run's end, gets a warning on stderr\n"};
static const struct cli_command minimize_command = {
    "minimize", cmd_minimize, true, minimize_values,
    "  minimize [--kernel=NAME] [--oracles=LIST] [-o OUT.case] INPUT\n"
    "                          shrink a case or fuzzer input with a finding to a small\n"
    "                          readable case with the same signature, with expect lines\n"
    "                          for every kernel; --oracles as for replay\n"};
static const struct cli_command stress_command = {
    "stress", cmd_stress, true, stress_values,
    "  stress [--kernel=NAME] [--threads=N] [--seconds=S] [--seed=S] [--hang-ms=MS] "
    "[CASE]\n"
    "                          run Olof's testcase on N threads (2..4, default 2) or\n"
    "                          loop a case on real threads until the hung-task watchdog\n"
    "                          fires (exit 1) or time runs out (exit 0); a progress line\n"
    "                          every 3 s; --seed turns on chaos (random yields, sleeps)\n"};
static const struct cli_command show_command = {
    "show", cmd_show, true, show_values,
    "  show [--no-schedule] [--bytes] [-o OUT] FILE\n"
    "                          print a case (text or bytes) as text, or write it to OUT;\n"
    "                          --bytes writes the byte form (to OUT only, - for a pipe);\n"
    "                          --no-schedule drops its preemptions\n"};

/* main()'s table, in the order of `snafu --help`; the commands in files of their own are
 * in commands.h */
static const struct cli_command *const commands[] = {
    &kernels_command, &replay_command,  &record_command,   &minimize_command, &expect_command,
    &confirm_command, &explore_command, &stress_command,   &trace_command,    &show_command,
    &ops_command,     &fuzz_command,    &evaluate_command,
};
#define NCOMMANDS ((int)(sizeof(commands) / sizeof(commands[0])))

static int cmd_kernels(int argc, char **argv)
{
	if (argc > 1)
		die_usage("no arguments", argv[1], 2);
	/* one line a kernel, its name first: scripts take the names with awk '{print $1}' */
	for_each_kernel (k)
		printf("%-18s %s. Source: %s\n", k->name, k->summary, k->source);
	return 0;
}

#define TRACE_SRC_WIDTH 41 /* lib/rwsem-spinlock.c:__down_write_trylock */

/* Every event of the run: its task, op.point, kind and function, the 2.6.11 source it
 * happened in (file:function, ref/kernel.h's KFRAME_SOURCES: "-" in user mode), and its
 * object or argument. */
static void print_trace(FILE *out)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	const struct sim_trace_where *wh = sim_trace_wheres();
	char src[96];

	fprintf(out,
		"task op.point  event    function                     %-*s object / argument\n",
		TRACE_SRC_WIDTH, "source (2.6.11)");
	if (dropped)
		fprintf(out, "(%d earlier events dropped)\n", dropped);
	for (int i = 0; i < n; i++) {
		const struct sim_trace_ev *e = &ev[i];
		const char *where =
		    wh ? kframe_source(wh[i].inner, wh[i].outer, src, sizeof(src)) : "-";
		fprintf(out, "T%-3d %4u.%-4u %-8s %-28s %-*s %s", e->task, e->op, e->point,
			sim_event_name(e->kind), e->fn ? e->fn : "-", TRACE_SRC_WIDTH, where,
			e->obj ? e->obj : "");
		if (e->arg || e->arg2)
			fprintf(out, " 0x%lx %ld", e->arg, e->arg2);
		fputc('\n', out);
	}
}

struct replay_opts {
	bool check, digest, trace, quiet, nosched;
	unsigned oracles;
	long repeat;
	unsigned long long stop_at;
};

/* The verdict the case's own expect line gives kernel k, or NULL. */
static const char *expect_of(const struct program *p, const struct kernel_config *k)
{
	for (int e = 0; e < p->nexpect; e++)
		if (!strcmp(p->expect[e].kernel, k->name))
			return p->expect[e].verdict;
	return NULL;
}

/* Run case p (from path) on kernel k as `replay` does: want is NULL without --check,
 * else the expected verdict, "" when the case has no expect line for k. Returns 0 (no
 * finding, or as expected), 1 (a finding, or not as expected) or -1 (the runs disagree:
 * replay stops there, exit status 1). */
static int replay_one(const struct replay_opts *ro, const char *path, const struct program *p,
		      const struct kernel_config *k, const char *want)
{
	const char *name = case_name(path);
	struct run_opts o = {.trace = !ro->quiet || ro->trace,
			     .no_schedule = ro->nosched,
			     .oracles = ro->oracles,
			     .stop_at_step = ro->stop_at};
	struct run_result r, first_r;
	int status = 0;

	for (long n = 0; n < ro->repeat; n++) {
		prog_run(p, k, &o, &r);
		if (n == 0) {
			first_r = r;
			warn_schedule(path, p, k, &r, ro->stop_at);
		} else if (r.digest != first_r.digest || strcmp(r.verdict, first_r.verdict)) {
			printf("%s [%s]: NONDETERMINISTIC: run %ld digest %016llx, run 1 %016llx\n",
			       name, k->name, n + 1, (unsigned long long)r.digest,
			       (unsigned long long)first_r.digest);
			return -1;
		}
	}
	if (ro->trace)
		print_trace(stdout);
	if (r.result != SIM_OK && !ro->quiet && !ro->check)
		prog_report(stdout, k);
	if (ro->check) {
		/* a saved case is exact: its whole schedule fires, unless its expect line
		 * says `unfired` (the run ends ok and a preemption does not fire) */
		bool ok = *want && case_expect_met(want, &r);
		char unfired[64] = "";
		if (r.unfired)
			snprintf(unfired, sizeof(unfired), ", %d of %d preemption%s did not fire",
				 r.unfired, r.npreempts, r.npreempts == 1 ? "" : "s");
		if (*want) {
			printf("%s [%s]: %s%s (expected %s) %s\n", name, k->name, r.verdict,
			       unfired, want, ok ? "PASS" : "MISMATCH");
		} else {
			const char *word = case_expect_word(&r);
			if (word)
				printf("%s [%s]: %s%s (no expect line for %s: add 'expect %s %s', "
				       "or an 'expect * VERDICT' line) MISMATCH\n",
				       name, k->name, r.verdict, unfired, k->name, k->name, word);
			else
				printf("%s [%s]: %s%s (no expect line for %s, and none fits a "
				       "finding with an unfired preemption: change the schedule) "
				       "MISMATCH\n",
				       name, k->name, r.verdict, unfired, k->name);
		}
		if (!ok) {
			if (r.result != SIM_OK && !ro->quiet)
				prog_report(stdout, k);
			status = 1;
		}
	} else {
		printf("%s [%s]: %s\n", name, k->name, r.verdict);
		if (r.result != SIM_OK)
			status = 1;
	}
	if (ro->digest)
		printf("%s [%s]: digest %016llx steps %llu runs %ld\n", name, k->name,
		       (unsigned long long)r.digest, (unsigned long long)r.steps, ro->repeat);
	return status;
}

static int cmd_replay(int argc, char **argv)
{
	const struct kernel_config *only = NULL;
	bool check = false, digest = false, trace = false, quiet = false, nosched = false;
	long repeat = 1;
	unsigned long long stop_at = 0;
	unsigned oracles = 0;
	int first = argc, status = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			only = kernel_arg(a + 9);
		else if (!strcmp(a, "--check"))
			check = true;
		else if (!strcmp(a, "--digest"))
			digest = true;
		else if (!strcmp(a, "--trace"))
			trace = true;
		else if (!strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "--no-schedule"))
			nosched = true;
		else if (!strncmp(a, "--oracles=", 10))
			oracles = oracles_arg(a, a + 10, i + 1);
		else if (!strncmp(a, "--repeat=", 9)) {
			char *end;
			repeat = strtol(a + 9, &end, 10);
			if (*end || repeat < 1 || repeat > 1000000)
				die_usage("--repeat=N with N in 1..1000000", a, i + 1);
		} else if (!strncmp(a, "--stop-at-step=", 15)) {
			char *end;
			errno = 0;
			stop_at = strtoull(a + 15, &end, 10);
			if (*end || end == a + 15 || errno || stop_at < 1 || a[15] == '-')
				die_usage("--stop-at-step=N with N >= 1", a, i + 1);
		} else if (a[0] == '-' && a[1])
			die_usage("--kernel=NAME, --check, --repeat=N, --digest, --trace, "
				  "--no-schedule, --oracles=LIST, --stop-at-step=N or --quiet",
				  a, i + 1);
		else {
			first = i;
			break;
		}
	}
	if (first == argc) {
		fprintf(stderr, "%s replay: expected at least one CASE file\n", prog_name);
		return 2;
	}
	static struct program p;
	struct replay_opts ro = {.check = check,
				 .digest = digest,
				 .trace = trace,
				 .quiet = quiet,
				 .nosched = nosched,
				 .oracles = oracles,
				 .repeat = repeat,
				 .stop_at = stop_at};
	for (int c = first; c < argc; c++) {
		const char *name = case_name(argv[c]);
		load_case(argv[c], &p);
		if (!check) {
			int st =
			    replay_one(&ro, argv[c], &p,
				       only ? only : kernel_by_name(SNAFU_DEFAULT_KERNEL), NULL);
			if (st < 0)
				return 1;
			status |= st;
			continue;
		}
		/* checking: each kernel's own expect line, else the `expect *` line, which
		 * covers every listed kernel without one of its own */
		if (!p.nexpect) {
			fprintf(stderr, "%s: expected 'expect KERNEL VERDICT' lines for --check\n",
				name);
			return 2;
		}
		const char *any = NULL;
		for (int e = 0; e < p.nexpect; e++)
			if (!strcmp(p.expect[e].kernel, EXPECT_ANY_KERNEL))
				any = p.expect[e].verdict;
		if (only) {
			/* one kernel, judged as among all of them: a listed kernel with neither
			 * line is a MISMATCH that says what to add (exit 1); a test-only one is
			 * checked only where a line names it, so naming it without one is bad
			 * usage */
			const char *want = expect_of(&p, only);
			if (!want && !only->test_only)
				want = any ? any : "";
			if (!want) {
				fprintf(stderr,
					"%s: no expect line for kernel %s: add 'expect %s VERDICT' "
					"(test-only: 'expect *' does not cover it)\n",
					name, only->name, only->name);
				return 2;
			}
			int st = replay_one(&ro, argv[c], &p, only, want);
			if (st < 0)
				return 1;
			status |= st;
			continue;
		}
		/* every listed kernel, in table order; then the test-only ones the case names */
		for_each_kernel (k) {
			const char *want = expect_of(&p, k);
			int st = replay_one(&ro, argv[c], &p, k, want ? want : any ? any : "");
			if (st < 0)
				return 1;
			status |= st;
		}
		for (int e = 0; e < p.nexpect; e++) {
			const struct kernel_config *k = kernel_by_name(p.expect[e].kernel);
			if (!k || !k->test_only)
				continue;
			int st = replay_one(&ro, argv[c], &p, k, p.expect[e].verdict);
			if (st < 0)
				return 1;
			status |= st;
		}
	}
	return status;
}

static int cmd_minimize(int argc, char **argv)
{
	const struct kernel_config *k = kernel_by_name(SNAFU_DEFAULT_KERNEL);
	const char *out = NULL, *in = NULL;
	unsigned oracles = 0;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--kernel=", 9))
			k = kernel_arg(argv[i] + 9);
		else if (!strncmp(argv[i], "--oracles=", 10))
			oracles = oracles_arg(argv[i], argv[i] + 10, i + 1);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else
			cli_operand(&in, argv[i], i + 1,
				    "--kernel=NAME, --oracles=LIST, -o OUT or an INPUT",
				    "one INPUT");
	}
	if (!in) {
		fprintf(stderr, "%s minimize: expected an INPUT\n", prog_name);
		return 2;
	}
	if (out && !case_out_ok(out))
		return 2;
	static struct program p;
	struct run_opts quiet = {.oracles = oracles};
	struct run_result r;
	load_case(in, &p);
	prog_run(&p, k, &quiet, &r);
	if (r.result == SIM_OK) {
		fprintf(stderr, "%s: expected an input with a finding on %s; it runs to the end\n",
			case_name(in), k->name);
		return 2;
	}
	char verdict[sizeof(r.verdict)];
	snprintf(verdict, sizeof(verdict), "%s", r.verdict);
	return case_write_minimized(&p, k, verdict, oracles, case_name(in), "snafu minimize", out);
}

static int cmd_show(int argc, char **argv)
{
	const char *out = NULL, *in = NULL;
	bool bytes = false, nosched = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bytes"))
			bytes = true;
		else if (!strcmp(argv[i], "--no-schedule"))
			nosched = true;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else
			cli_operand(&in, argv[i], i + 1, "--bytes, --no-schedule, -o OUT or a FILE",
				    "one FILE");
	}
	if (!in || (bytes && !out)) {
		fprintf(stderr, "%s show: expected FILE, and -o OUT with --bytes\n", prog_name);
		return 2;
	}
	size_t olen = out ? strlen(out) : 0;
	if (bytes && olen >= 5 && !strcmp(out + olen - 5, ".case")) {
		fprintf(stderr,
			"%s show: expected an OUT not named *.case for --bytes (a .case "
			"file is read as text)\n",
			prog_name);
		return 2;
	}
	if (bytes && !strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr,
			"%s show: expected -o - with --bytes to write to a pipe or a file, "
			"not a terminal\n",
			prog_name);
		return 2;
	}
	static struct program p;
	load_case(in, &p);
	if (nosched) {
		p.npreempts = 0;
		p.pct.on = false;
	}
	/* a PCT schedule (the byte form's, docs/cases.md) has no text: the preemptions it
	 * makes on the default kernel stand for it, so a case never depends on it */
	prog_resolve_schedule(&p, kernel_by_name(SNAFU_DEFAULT_KERNEL), 0);
	char tmp[4096];
	FILE *f = out ? case_open_out(out, tmp, sizeof(tmp)) : stdout;
	if (!f)
		return 2;
	if (bytes) {
		static uint8_t buf[PROG_MAX_ENCODED];
		size_t n = prog_encode(&p, buf, sizeof(buf));
		fwrite(buf, 1, n, f);
	} else {
		prog_print(&p, f);
	}
	/* written to a temporary and renamed: never a half-written OUT */
	return out ? case_close_out(f, tmp, out) : 0;
}

/* snafu stress: a program on real threads (the native runtime, snafu-native), looping
 * until the hung-task watchdog fires or time runs out. The simulator build hands the
 * command to snafu-native next to it. */
#ifdef SNAFU_NATIVE
/* Olof's testcase, one task per thread: map 1 MiB of /dev/zero shared, FUTEX_WAIT with
 * value 1 on every page, unmap; the loop repeats it. It takes two threads at least: the
 * deadlock needs one task's mmap or munmap queued for mmap_sem between another's
 * futex_wait and its fault, and one thread alone never hangs. */
static void seed_testcase(struct program *p, int threads)
{
	char text[1024] = "", err[256];
	size_t n = 0;

	for (int t = 1; t <= threads; t++)
		n += (size_t)snprintf(
		    text + n, sizeof(text) - n,
		    "task %d\n  mmap buf%d pages=256 prot=rw shared\n"
		    "  futex_wait buf%d val=1 each-page\n  munmap buf%d pages=256\n",
		    t, t, t, t);
	if (prog_parse(text, p, err, sizeof(err)) || p->ntasks != threads)
		abort(); /* our own text */
}

static long num_flag(const char *a, const char *prefix, long lo, long hi, int argn)
{
	char *end, what[96];
	long v = strtol(a + strlen(prefix), &end, 10);

	if (*end || end == a + strlen(prefix) || v < lo || v > hi) {
		snprintf(what, sizeof(what), "%sN with N in %ld..%ld", prefix, lo, hi);
		die_usage(what, a, argn);
	}
	return v;
}

static void stress_progress(uint64_t now_ms, uint64_t iterations)
{
	printf("stress: %llu s, %llu iterations\n", (unsigned long long)(now_ms / 1000),
	       (unsigned long long)iterations);
	fflush(stdout);
}

static int cmd_stress(int argc, char **argv)
{
	const struct kernel_config *k = kernel_by_name(SNAFU_DEFAULT_KERNEL);
	long threads = 2, seconds = 60, seed = 0, hang_ms = 2000;
	const char *in = NULL;
	int threads_arg = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			k = kernel_arg(a + 9);
		else if (!strncmp(a, "--threads=", 10)) {
			threads = num_flag(a, "--threads=", 2, PROG_MAX_TASKS, i + 1);
			threads_arg = i + 1;
		} else if (!strncmp(a, "--seconds=", 10))
			seconds = num_flag(a, "--seconds=", 1, 86400, i + 1);
		else if (!strncmp(a, "--seed=", 7))
			seed = num_flag(a, "--seed=", 0, 1L << 30, i + 1);
		else if (!strncmp(a, "--hang-ms=", 10))
			hang_ms = num_flag(a, "--hang-ms=", 10, 3600000, i + 1);
		else
			cli_operand(
			    &in, a, i + 1,
			    "--kernel=NAME, --threads=N, --seconds=S, --seed=S, --hang-ms=MS or "
			    "a CASE",
			    "one CASE");
	}
	if (in && threads_arg)
		die_usage("--threads=N for Olof's testcase only (a CASE has its own tasks)",
			  argv[threads_arg - 1], threads_arg);
	static struct program p;
	if (in)
		load_case(in, &p);
	else
		seed_testcase(&p, (int)threads);
	printf("stress: kernel %s, %d threads, %s, up to %ld s, hung-task threshold %ld ms%s%s\n",
	       k->name, p.ntasks, in ? case_name(in) : "Olof's testcase", seconds, hang_ms,
	       seed ? ", chaos on" : "",
	       p.npreempts ? ", the case's preemptions ignored (real threads)" : "");
	fflush(stdout);
	struct run_opts o = {
	    .loop = true,
	    .seconds = (uint64_t)seconds,
	    .hang_ms = (uint64_t)hang_ms,
	    .chaos_seed = (uint64_t)seed,
	    .progress_ms = 3000,
	    .progress = stress_progress,
	};
	struct run_result r;
	prog_run(&p, k, &o, &r);
	if (r.result == SIM_OK || r.result == SIM_PREDICTED) {
		printf("stress: no hang in %.1f s, %llu iterations\n", sim_now() / 1000.0,
		       (unsigned long long)r.iterations);
		if (r.result == SIM_OK)
			return 0;
		/* lockdep's prediction, made on the way: a finding, though nothing hung */
		printf("stress: lockdep predicted %s\n", r.verdict);
		prog_report(stdout, k);
		return 1;
	}
	uint64_t at = sim_now(), began = sim_hung_since();
	printf("stress: %s: hung after %.2f s (reported at %.2f s, %ld ms without progress), "
	       "%llu iterations\n",
	       r.verdict, began / 1000.0, at / 1000.0, hang_ms, (unsigned long long)r.iterations);
	prog_report(stdout, k);
	fflush(stdout);
	_exit(1); /* the hung threads stay hung: leave without joining them */
}
#else
/* The simulator build hands stress to snafu-native next to it, with the command line as
 * it was typed (snafu-native's main() reads the options again). */
static int cmd_stress(int argc, char **argv)
{
	(void)argc, (void)argv;
	return cli_exec_beside("stress", "snafu-native", "the native-runtime build next to snafu");
}
#endif

static const struct cli_command *find_command(const char *name)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* At exit: what went to standard output got there, or the run fails (exit 2), as a
 * failed write to any other file does. */
static void check_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "snafu: standard output: cannot write: %s\n", strerror(errno));
		_exit(2);
	}
}

int main(int argc, char **argv)
{
	atexit(check_stdout);
	if (argc < 2) {
		cli_usage(stderr, commands, NCOMMANDS, NULL);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		cli_usage(stdout, commands, NCOMMANDS, NULL);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2)
			cli_die_at("nothing after --version", argv[2], 2);
		printf("snafu %s\n", SNAFU_VERSION);
		return 0;
	}
	const struct cli_command *c = find_command(argv[!strcmp(argv[1], "help") ? 2 : 1]);
	if (!c) {
		int at = !strcmp(argv[1], "help") ? 2 : 1;
		char what[160] = "a command:";
		for (int i = 0; i < NCOMMANDS; i++)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s %s",
				 i ? "," : "", commands[i]->name);
		cli_die_at(what, argv[at], at);
	}
	if (!strcmp(argv[1], "help")) {
		cli_usage(stdout, NULL, 0, c);
		return 0;
	}
	int cargc;
	char **cargv = cli_normalize(c, argc, argv, &cargc);
	return c->run(cargc, cargv);
}
