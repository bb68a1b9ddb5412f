/* snafu: the command-line tool. Subcommands in the habit of git and rr.
 *
 * Exit status: 0 no finding, 1 finding (or an expectation not met), 2 bad usage or bad
 * input, with one line naming the file (or argument), the position and what was
 * expected.
 */
#include "../prog/exec.h"
#include "../prog/minimize.h"
#include "../ref/kernels.h"
#include "casefile.h"
#include "cli.h"
#include "evaluate.h"
#include "record.h"
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog_name = "snafu";

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: snafu COMMAND [OPTIONS] [ARGS]\n"
	    "\n"
	    "commands:\n"
	    "  kernels                 list the kernels snafu can run\n"
	    "  replay [OPTIONS] CASE.. run cases; exit 1 on a finding\n"
	    "      --kernel=NAME       kernel to run (default 2.6.11-rc4)\n"
	    "      --check             compare with the cases' expect lines instead; with no\n"
	    "                          --kernel, check every kernel the case names\n"
	    "      --repeat=N          run N times, fail unless every trace digest agrees\n"
	    "      --digest            print the trace digest of each run\n"
	    "      --trace             print every event of the run\n"
	    "      --no-schedule       ignore the case's preemptions\n"
	    "      --quiet             print no report, only the verdict line\n"
	    "      --stop-at-step=N    raise SIGTRAP at the run's N-th scheduling point, for\n"
	    "                          gdb (without a debugger the process dies of it)\n"
	    "  record [--kernel=NAME] CASE\n"
	    "                          record the replay under rr and print how to debug it;\n"
	    "                          where rr cannot record, say why and print gdb commands\n"
	    "                          that stop at the finding (exit 3)\n"
	    "  minimize [--kernel=NAME] [-o OUT.case] INPUT\n"
	    "                          shrink a case or fuzzer input with a finding to a small\n"
	    "                          readable case with the same signature, with expect lines\n"
	    "                          for every kernel\n"
	    "  stress [--kernel=NAME] [--threads=N] [--seconds=S] [--seed=S] [--hang-ms=MS] "
	    "[CASE]\n"
	    "                          run Olof's testcase (or loop a case) on real threads until\n"
	    "                          the hung-task watchdog fires (exit 1) or time runs out\n"
	    "                          (exit 0); --seed turns on chaos (random yields, sleeps)\n"
	    "  trace [--kernel=NAME] [-o FILE.json|FILE.html] CASE\n"
	    "                          replay a case and draw it: FILE.json for Perfetto\n"
	    "                          (ui.perfetto.dev), FILE.html a page with one lane per\n"
	    "                          task, the locks held and waited for, the wait-for cycle;\n"
	    "                          without -o print what replay prints\n"
	    "  show [--no-schedule] [--bytes -o OUT] FILE\n"
	    "                          print a case (text or bytes) as text, or write its byte\n"
	    "                          form to OUT; --no-schedule drops its preemptions\n"
	    "  evaluate [OPTIONS]      fuzz every kernel with the same budget of executions and\n"
	    "                          print a table: verdict, executions to the first finding,\n"
	    "                          signature, minimized case; exit 0 when it ran\n"
	    "      --runs=N            executions per kernel (default 1000000)\n"
	    "      --jobs=J            fuzzers run at once (default: the online CPUs)\n"
	    "      --ops=futex|all     the ops the fuzzer may use (default all)\n"
	    "      --seed=S            libFuzzer's seed, 1..4294967295 (default 1)\n"
	    "      --out=DIR           corpora, logs, artifacts, cases (default build/evaluate)\n"
	    "      --markdown          print the table as GitHub markdown\n"
	    "\n"
	    "A file named *.case is text; anything else is the fuzzer's byte form.\n");
}

void die_usage(const char *fmt, const char *arg, int argn)
{
	fprintf(stderr, "%s: argument %d '%s': expected %s (see snafu --help)\n", prog_name, argn,
		arg, fmt);
	exit(2);
}

const struct kernel_config *kernel_arg(const char *name)
{
	const struct kernel_config *k = kernel_by_name(name);

	if (!k) {
		fprintf(stderr, "%s: unknown kernel '%s'; valid kernels:", prog_name, name);
		for (int i = 0; i < nkernels; i++)
			fprintf(stderr, " %s", kernels[i].name);
		fprintf(stderr, "\n");
		exit(2);
	}
	return k;
}

static bool is_text_case(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && !strcmp(path + n - 5, ".case");
}

/* Read a whole file; on error print one line and exit 2. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: cannot open: %s\n", prog_name, path, strerror(errno));
		exit(2);
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > (64u << 20)) {
				fprintf(stderr, "%s: %s: expected a case under 64 MiB\n", prog_name,
					path);
				exit(2);
			}
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: read error: %s\n", prog_name, path, strerror(errno));
		exit(2);
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Load a case in either form; a malformed text case is reported as FILE:LINE:COL.
 * Shared through cli.h. */
void load_case(const char *path, struct program *p)
{
	size_t len;
	uint8_t *data = read_file(path, &len);

	if (is_text_case(path)) {
		char err[256];
		if (memchr(data, 0, len)) {
			size_t off = (size_t)((uint8_t *)memchr(data, 0, len) - data);
			int line = 1, col = 1;
			for (size_t i = 0; i < off; i++, col++)
				if (data[i] == '\n')
					line++, col = 0;
			fprintf(stderr, "%s:%d:%d: expected text, found a NUL byte\n", path, line,
				col);
			exit(2);
		}
		if (prog_parse((const char *)data, p, err, sizeof(err))) {
			fprintf(stderr, "%s:%s\n", path, err);
			exit(2);
		}
	} else {
		prog_decode(data, len, p);
	}
	free(data);
}

static int cmd_kernels(int argc, char **argv)
{
	if (argc > 1)
		die_usage("no arguments", argv[1], 2);
	for (int i = 0; i < nkernels; i++)
		printf("%-18s %s\n", kernels[i].name, kernels[i].summary);
	return 0;
}

static void print_trace(FILE *out)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);

	static const char *const kinds[] = {
	    [EV_POINT] = "point",     [EV_SYSCALL] = "syscall", [EV_SYSRET] = "return",
	    [EV_LOCK] = "lock",       [EV_TRYFAIL] = "tryfail", [EV_UNLOCK] = "unlock",
	    [EV_SLEEP] = "sleep",     [EV_WAKE] = "wake",       [EV_UACCESS] = "uaccess",
	    [EV_FAULT] = "fault",     [EV_USER] = "user",       [EV_SIGNAL] = "signal",
	    [EV_PREEMPT] = "preempt", [EV_TIMER] = "timer",     [EV_NOTE] = "note",
	};

	fprintf(out, "task op.point  event    function                     object / argument\n");
	if (dropped)
		fprintf(out, "(%d earlier events dropped)\n", dropped);
	for (int i = 0; i < n; i++) {
		const struct sim_trace_ev *e = &ev[i];
		fprintf(out, "T%-3d %4u.%-4u %-8s %-28s %s", e->task, e->op, e->point,
			kinds[e->kind], e->fn ? e->fn : "-", e->obj ? e->obj : "");
		if (e->arg || e->arg2)
			fprintf(out, " 0x%lx %ld", e->arg, e->arg2);
		fputc('\n', out);
	}
}

static int cmd_replay(int argc, char **argv)
{
	const struct kernel_config *only = NULL;
	bool check = false, digest = false, trace = false, quiet = false, nosched = false;
	long repeat = 1;
	unsigned long long stop_at = 0;
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
				  "--no-schedule, --stop-at-step=N or --quiet",
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
	for (int c = first; c < argc; c++) {
		load_case(argv[c], &p);
		/* which kernels to run: --kernel, else the expected ones when checking */
		const struct kernel_config *ks[16];
		const char *want[16];
		int nk = 0;
		if (check && !only) {
			for (int e = 0; e < p.nexpect && nk < 16; e++) {
				ks[nk] = kernel_by_name(p.expect[e].kernel);
				if (!ks[nk]) {
					fprintf(stderr,
						"%s: expect line %d names unknown kernel '%s'\n",
						argv[c], e + 1, p.expect[e].kernel);
					return 2;
				}
				want[nk++] = p.expect[e].verdict;
			}
			if (!nk) {
				fprintf(stderr,
					"%s: expected 'expect KERNEL VERDICT' lines for --check\n",
					argv[c]);
				return 2;
			}
		} else {
			ks[0] = only ? only : kernel_by_name("2.6.11-rc4");
			want[0] = NULL;
			for (int e = 0; e < p.nexpect; e++)
				if (!strcmp(p.expect[e].kernel, ks[0]->name))
					want[0] = p.expect[e].verdict;
			if (check && !want[0]) {
				fprintf(stderr, "%s: no expect line for kernel %s\n", argv[c],
					ks[0]->name);
				return 2;
			}
			nk = 1;
		}
		for (int k = 0; k < nk; k++) {
			struct run_opts o = {.trace = !quiet || trace,
					     .no_schedule = nosched,
					     .stop_at_step = stop_at};
			struct run_result r, first_r;
			for (long n = 0; n < repeat; n++) {
				prog_run(&p, ks[k], &o, &r);
				if (n == 0)
					first_r = r;
				else if (r.digest != first_r.digest ||
					 strcmp(r.verdict, first_r.verdict)) {
					printf("%s [%s]: NONDETERMINISTIC: run %ld digest %016llx, "
					       "run 1 "
					       "%016llx\n",
					       argv[c], ks[k]->name, n + 1,
					       (unsigned long long)r.digest,
					       (unsigned long long)first_r.digest);
					return 1;
				}
			}
			if (trace)
				print_trace(stdout);
			if (r.result != SIM_OK && !quiet && !check)
				prog_report(stdout, ks[k]);
			if (check) {
				bool ok = !strcmp(r.verdict, want[k]);
				printf("%s [%s]: %s (expected %s) %s\n", argv[c], ks[k]->name,
				       r.verdict, want[k], ok ? "PASS" : "MISMATCH");
				if (!ok) {
					if (r.result != SIM_OK && !quiet)
						prog_report(stdout, ks[k]);
					status = 1;
				}
			} else {
				printf("%s [%s]: %s\n", argv[c], ks[k]->name, r.verdict);
				if (r.result != SIM_OK)
					status = 1;
			}
			if (digest)
				printf("%s [%s]: digest %016llx steps %llu runs %ld\n", argv[c],
				       ks[k]->name, (unsigned long long)r.digest,
				       (unsigned long long)r.steps, repeat);
		}
	}
	return status;
}

static int cmd_minimize(int argc, char **argv)
{
	const struct kernel_config *k = kernel_by_name("2.6.11-rc4");
	const char *out = NULL, *in = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--kernel=", 9))
			k = kernel_arg(argv[i] + 9);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1])
			die_usage("--kernel=NAME, -o OUT or an INPUT", argv[i], i + 1);
		else if (in)
			die_usage("one INPUT", argv[i], i + 1);
		else
			in = argv[i];
	}
	if (!in) {
		fprintf(stderr, "%s minimize: expected an INPUT\n", prog_name);
		return 2;
	}
	static struct program p;
	struct run_opts quiet = {0};
	struct run_result r;
	load_case(in, &p);
	prog_run(&p, k, &quiet, &r);
	if (r.result == SIM_OK) {
		fprintf(stderr, "%s: expected an input with a finding on %s; it runs to the end\n",
			in, k->name);
		return 2;
	}
	char verdict[sizeof(r.verdict)];
	snprintf(verdict, sizeof(verdict), "%s", r.verdict);
	return case_write_minimized(&p, k, verdict, in, "snafu minimize", out);
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
		else if (argv[i][0] == '-' && argv[i][1])
			die_usage("--bytes, --no-schedule, -o OUT or a FILE", argv[i], i + 1);
		else if (in)
			die_usage("one FILE", argv[i], i + 1);
		else
			in = argv[i];
	}
	if (!in || (bytes && !out)) {
		fprintf(stderr, "%s show: expected FILE, and -o OUT with --bytes\n", prog_name);
		return 2;
	}
	static struct program p;
	load_case(in, &p);
	if (nosched)
		p.npreempts = 0;
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
 * value 1 on every page, unmap; the loop repeats it. */
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
	if (prog_parse(text, p, err, sizeof(err)))
		abort(); /* our own text */
}

static long num_flag(const char *a, const char *prefix, long lo, long hi, int argn)
{
	char *end, what[96];
	long v = strtol(a + strlen(prefix), &end, 10);

	if (*end || v < lo || v > hi) {
		snprintf(what, sizeof(what), "%sN with N in %ld..%ld", prefix, lo, hi);
		die_usage(what, a, argn);
	}
	return v;
}

static int cmd_stress(int argc, char **argv)
{
	const struct kernel_config *k = kernel_by_name("2.6.11-rc4");
	long threads = 2, seconds = 60, seed = 0, hang_ms = 2000;
	const char *in = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			k = kernel_arg(a + 9);
		else if (!strncmp(a, "--threads=", 10))
			threads = num_flag(a, "--threads=", 1, PROG_MAX_TASKS, i + 1);
		else if (!strncmp(a, "--seconds=", 10))
			seconds = num_flag(a, "--seconds=", 1, 86400, i + 1);
		else if (!strncmp(a, "--seed=", 7))
			seed = num_flag(a, "--seed=", 0, 1L << 30, i + 1);
		else if (!strncmp(a, "--hang-ms=", 10))
			hang_ms = num_flag(a, "--hang-ms=", 10, 3600000, i + 1);
		else if (a[0] == '-' && a[1])
			die_usage(
			    "--kernel=NAME, --threads=N, --seconds=S, --seed=S, --hang-ms=MS or "
			    "a CASE",
			    a, i + 1);
		else if (in)
			die_usage("one CASE", a, i + 1);
		else
			in = a;
	}
	static struct program p;
	if (in)
		load_case(in, &p);
	else
		seed_testcase(&p, (int)threads);
	printf("stress: kernel %s, %d threads, %s, up to %ld s, hung-task threshold %ld ms%s\n",
	       k->name, p.ntasks, in ? in : "Olof's testcase", seconds, hang_ms,
	       seed ? ", chaos on" : "");
	fflush(stdout);
	struct run_opts o = {
	    .loop = true,
	    .seconds = (uint64_t)seconds,
	    .hang_ms = (uint64_t)hang_ms,
	    .chaos_seed = (uint64_t)seed,
	};
	struct run_result r;
	prog_run(&p, k, &o, &r);
	if (r.result == SIM_OK) {
		printf("stress: no hang in %.1f s, %llu iterations\n", sim_now() / 1000.0,
		       (unsigned long long)r.iterations);
		return 0;
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
static int cmd_stress(int argc, char **argv)
{
	char self[4096], path[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	if (n <= 0) {
		fprintf(stderr, "%s stress: cannot find my own executable\n", prog_name);
		return 2;
	}
	self[n] = 0;
	char *slash = strrchr(self, '/');
	*slash = 0;
	snprintf(path, sizeof(path), "%s/snafu-native", self);
	argv[-1] = path;
	execv(path, argv - 1);
	fprintf(stderr, "%s stress: %s: expected the native-runtime build next to snafu: %s\n",
		prog_name, path, strerror(errno));
	return 2;
}
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	if (!strcmp(argv[1], "kernels"))
		return cmd_kernels(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "minimize"))
		return cmd_minimize(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stress"))
		return cmd_stress(argc - 1, argv + 1);
	if (!strcmp(argv[1], "evaluate"))
		return cmd_evaluate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	fprintf(stderr,
		"%s: argument 1 '%s': expected a command: kernels, replay, minimize, show, stress, "
		"evaluate, record, trace\n",
		prog_name, argv[1]);
	return 2;
}
