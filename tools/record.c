/* snafu record CASE [--kernel=NAME]: a finding as something to debug.
 *
 * First a probe: a real `rr record -n /bin/true` (in a temporary trace directory,
 * removed afterwards). Where it works, `rr record` runs `snafu replay --kernel=K CASE`
 * (the debug build, below), `rr pack` makes the trace self-contained, and the commands
 * that replay it under gdb and stop at the finding are printed. Where it does not (rr needs
 * hardware performance counters; most VMs, this project's machines among them, have
 * none), one line on stderr says why, with rr's own error (or, where rr is not installed,
 * how to install it), and the fallback goes to stdout: the simulator replays the same run
 * every time, so gdb on `snafu replay --stop-at-step=N` stops by SIGTRAP exactly at the
 * finding's scheduling point, and gdb's `record full` steps backwards from an earlier one:
 * from the finding, a breakpoint on the kernel function it is about and reverse-continue
 * (plan_back()), the recording begun early enough to hold that function's call.
 *
 * Before printing the fallback, a second probe asks gdb's recorder: gdb in batch on this
 * executable, `starti`, `record full`, three `stepi`, one `reverse-stepi`, which must
 * land back on the second one's pc (a time limit of 60 s). Where that fails (gdb 13 on a
 * CPU with AMX: "Couldn't write extended state status: Bad address"), one more line on
 * stderr says so with gdb's own error line, and the fallback leaves out the `record full`
 * part: only landing on the finding and the helpers are printed. Where gdb is not
 * installed, one line says so and how to install it, and the whole fallback is printed.
 *
 * The case runs once in this process first, to learn its verdict, its last step (the
 * finding: the run's last scheduling point) and the step of the schedule's last
 * preemption. A lost wake-up or a wrong result is judged only when the run is over, and
 * a lockdep report is made while it runs: for those the recipe lands where the oracle's
 * records (ref/futex_oracle.h's views) and lockdep's prediction place the finding, the
 * wake call that lost the wake-up (fo_wake_end), FUTEX_CMP_REQUEUE's -EAGAIN
 * (fo_cmp_eagain), lockdep_bug, at that scheduling point's step (counted in the run's
 * trace), names the helpers that read those books (snafu-futex, snafu-lockdep), and
 * then the oracle's judgement (finding_begin).
 *
 * The commands run the debug build, not this one: at -O2 gdb shows stale values in the
 * frames without saying <optimized out> (futex_wait's uaddr, sys_mmap2's prot), so `rr
 * record` and the printed gdb commands use a snafu built at -O0 (./build.sh debug:
 * build-debug/bin/snafu; CMake's SNAFU_DEBUG_BUILD, or $SNAFU_DEBUG_BUILD, names another
 * bin/ directory). An unoptimized snafu is its own debug build. That build must replay
 * the same run (its `replay --digest` agrees with this run's digest and steps); where it
 * is not built yet, or replays another run, one line on stderr says so with the one
 * command that builds it, nothing is recorded, and the fallback names it all the same
 * (it runs once built): never the optimized build in its place.
 *
 * Exit status: 0 recorded, 3 not recorded: rr cannot record here, or the debug build is
 * missing (the fallback was printed, with or without its `record full` part), 2 bad
 * usage or bad input (one line naming the file or argument). SNAFU_RR names the rr to run
 * (default: rr, through PATH); the tests point it at a missing file to get the fallback on
 * machines where rr can record. SNAFU_GDB names the gdb to probe and to print in the
 * fallback (default: gdb, through PATH); the tests point it at a fake gdb to get the
 * fallback without `record full`.
 */
#define _GNU_SOURCE /* memmem */
#include "commands.h"

#include "../prog/exec.h"
#include "../ref/futex_oracle.h"
#include "../ref/kernels.h"
#include "../ref/lockdep.h"
#include "../cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SNAFU_SOURCE_DIR
#define SNAFU_SOURCE_DIR "."
#endif
/* the debug flavour's bin/ (CMake's SNAFU_DEBUG_BUILD; ./build.sh debug builds it) */
#define DEBUG_BUILD_DEFAULT SNAFU_SOURCE_DIR "/build-debug/bin"
#ifndef SNAFU_DEBUG_BUILD
#define SNAFU_DEBUG_BUILD DEBUG_BUILD_DEFAULT
#endif

#ifdef __OPTIMIZE__
#define RECORD_OPTIMIZED 1
#else
#define RECORD_OPTIMIZED 0
#endif
/* For repro/snafu-gdb.py: 1 where this snafu is optimized, whose frames gdb may show
 * stale values in (snafu-bt says so). */
__attribute__((used)) const int snafu_gdb_optimized = RECORD_OPTIMIZED;

#define PATH_LEN 4096

/* What gdb's `record full` needs from glibc: no AVX or AVX-512 string functions (gdb
 * 13's recorder stops at their VEX and EVEX instructions: "Process record does not
 * support instruction 0xc5/0x62"). AVX_Fast_Unaligned_Load must go too, or memcpy still
 * picks __memmove_avx_unaligned_erms. Checked with glibc 2.36 and gdb 13.1. */
#define RECORD_TUNABLES \
	"glibc.cpu.hwcaps=-AVX512F,-AVX512BW,-AVX512VL,-AVX2,-AVX_Fast_Unaligned_Load"

/* LeakSanitizer does not work under ptrace; the debug flavour has ASan (and other builds
 * ignore it) */
#define GDB_ENV "ASAN_OPTIONS=detect_leaks=0 "

#ifdef SNAFU_NATIVE
/* Real threads record no replayable run: hand over to the simulator build next to us. */
static int cmd_record(int argc, char **argv)
{
	(void)argc, (void)argv;
	return cli_to_simulator("record");
}
#else
static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Run argv (through PATH). Child fd `cap` (2 for stderr, 3 for rr's
 * --print-trace-dir=3; -1 for stdout and stderr together, stdin from /dev/null) goes to a
 * temporary file read back into buf; with `quiet` stdout goes to /dev/null. trace_root:
 * _RR_TRACE_DIR for the child; secs: a time limit (0: none). Returns the exit status, 127
 * when it could not run, 128+N after signal N. */
static int run_capture(char *const argv[], const char *trace_root, bool quiet, int cap, char *buf,
		       size_t len, unsigned secs)
{
	char tmp[PATH_LEN];
	const char *dir = getenv("TMPDIR");
	int fd, status;

	buf[0] = 0;
	snprintf(tmp, sizeof(tmp), "%s/snafu-record.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(buf, len, "cannot create %s: %s", tmp, strerror(errno));
		return 127;
	}
	unlink(tmp);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(buf, len, "cannot fork: %s", strerror(errno));
		close(fd);
		return 127;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (cap < 0) {
			cap = 2;
			dup2(fd, 1);
			if (null >= 0)
				dup2(null, 0);
		}
		dup2(fd, cap);
		if (fd != cap)
			close(fd);
		if (quiet && null >= 0)
			dup2(null, 1);
		if (null > 2)
			close(null);
		if (trace_root)
			setenv("_RR_TRACE_DIR", trace_root, 1);
		/* LeakSanitizer stops the world with ptrace, which rr's tracees may not do (the
		 * debug build has ASan whether this one has or not) */
		char asan[1024];
		const char *old = getenv("ASAN_OPTIONS");
		snprintf(asan, sizeof(asan), "%s%sdetect_leaks=0", old ? old : "",
			 old && *old ? ":" : "");
		setenv("ASAN_OPTIONS", asan, 1);
		if (secs)
			alarm(secs);
		execvp(argv[0], argv);
		dprintf(cap, "%s: cannot run: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = 127 << 8;
			break;
		}
	ssize_t n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The line of rr's stderr that says what went wrong: its FATAL or error line, else its
 * first line. */
static void error_line(const char *out, int status, char *line, size_t len)
{
	const char *pick = NULL;

	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		size_t n = strcspn(l, "\n");
		if (!pick && n)
			pick = l;
		if (memmem(l, n, "FATAL", 5) || memmem(l, n, "rror", 4) ||
		    memmem(l, n, "cannot run", 10)) {
			pick = l;
			break;
		}
	}
	if (!pick) {
		snprintf(line, len, "`rr record -n /bin/true` failed with status %d", status);
		return;
	}
	snprintf(line, len, "%.*s", (int)strcspn(pick, "\n"), pick);
	for (size_t n = strlen(line); n && (line[n - 1] == ' ' || line[n - 1] == '\r');)
		line[--n] = 0;
}

static const char *rr_path(void)
{
	const char *rr = getenv("SNAFU_RR");

	return rr && *rr ? rr : "rr";
}

static const char *gdb_path(void)
{
	const char *gdb = getenv("SNAFU_GDB");

	return gdb && *gdb ? gdb : "gdb";
}

/* Is there a program to run by this name: a path, or a name found in PATH, as execvp
 * looks? */
static bool installed(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_LEN];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (const char *p = path;; p += strcspn(p, ":") + 1) {
		int n = (int)strcspn(p, ":");
		struct stat st;
		snprintf(buf, sizeof(buf), "%.*s/%s", n ? n : 1, n ? p : ".", name);
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return true;
		if (!p[n])
			return false;
	}
}

/* Can rr record here? true, or false with rr's error line in why. */
static bool rr_probe(char *why, size_t len)
{
	char root[PATH_LEN], out[8192];
	const char *dir = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/snafu-rr-probe.XXXXXX", dir && *dir ? dir : "/tmp");
	if (!mkdtemp(root)) {
		snprintf(why, len, "cannot create %.200s: %s", root, strerror(errno));
		return false;
	}
	char *const argv[] = {(char *)rr_path(), "record", "-n", "/bin/true", NULL};
	int st = run_capture(argv, root, true, 2, out, sizeof(out), 60);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (st == 0)
		return true;
	error_line(out, st, why, len);
	return false;
}

enum gdb_verdict {
	GDB_REVERSES,   /* record full steps backwards here */
	GDB_MISSING,    /* no gdb to run */
	GDB_NO_DEBUG,   /* gdb cannot run a program here (ptrace) */
	GDB_NO_REVERSE, /* gdb's recorder cannot step backwards here (gdb 13 with AMX) */
};

/* gdb's error line in the probe's output: the one after "Error in sourced command file:",
 * else the first that says error or cannot, else the first; no trailing period. */
static void gdb_error_line(const char *out, int status, char *line, size_t len)
{
	const char *pick = NULL, *first = NULL, *l;

	if (status >= 128) {
		snprintf(line, len, "gdb did not finish the probe (signal %d%s)", status - 128,
			 status == 128 + SIGALRM ? ": time limit" : "");
		return;
	}
	if ((l = strstr(out, "Error in sourced command file:")) && (l = strchr(l, '\n')))
		pick = l + 1;
	for (l = out; !pick && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		size_t n = strcspn(l, "\n");
		if (!n || !strncmp(l, "snafu-probe:", 12))
			continue;
		if (!first)
			first = l;
		if (memmem(l, n, "rror", 4) || memmem(l, n, "annot", 5) ||
		    memmem(l, n, "ouldn't", 7))
			pick = l;
	}
	if (!pick)
		pick = first;
	if (!pick || !*pick) {
		snprintf(line, len, "gdb's probe ended with status %d", status);
		return;
	}
	snprintf(line, len, "%.*s", (int)strcspn(pick, "\n"), pick);
	for (size_t n = strlen(line); n && strchr(" \r.", line[n - 1]);)
		line[--n] = 0;
}

/* Can gdb's `record full` step backwards here? GDB_REVERSES, or why not, with gdb's
 * own error line. */
static enum gdb_verdict gdb_probe(const char *self, char *why, size_t len)
{
	static const char script[] =
	    "starti\n"
	    "echo snafu-probe: started\\n\n"
	    "record full\n"
	    "stepi\n"
	    "stepi\n"
	    "set $snafu_probe_pc = $pc\n"
	    "stepi\n"
	    "reverse-stepi\n"
	    "if $pc == $snafu_probe_pc\n"
	    "  echo snafu-probe: stepped back\\n\n"
	    "else\n"
	    "  echo snafu-probe: reverse-stepi did not go back one instruction\\n\n"
	    "end\n";
	char file[PATH_LEN], out[16384];
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!installed(gdb_path())) {
		snprintf(why, len, "%s", gdb_path());
		return GDB_MISSING;
	}
	snprintf(file, sizeof(file), "%s/snafu-gdb-probe.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(file);
	if (fd < 0 || write(fd, script, sizeof(script) - 1) != (ssize_t)sizeof(script) - 1) {
		snprintf(why, len, "cannot write %.200s: %s", file, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(file);
		}
		return GDB_NO_DEBUG;
	}
	close(fd);
	char *const argv[] = {(char *)gdb_path(),
			      "-nx",
			      "-batch",
			      "-iex",
			      "set debuginfod enabled off",
			      "-iex",
			      "set startup-with-shell off",
			      "-x",
			      file,
			      "--args",
			      (char *)self,
			      "kernels",
			      NULL};
	int st = run_capture(argv, NULL, false, -1, out, sizeof(out), 60);
	unlink(file);
	if (strstr(out, "snafu-probe: stepped back"))
		return GDB_REVERSES;
	if (strstr(out, "snafu-probe: reverse-stepi did not"))
		snprintf(why, len, "reverse-stepi did not go back one instruction");
	else
		gdb_error_line(out, st, why, len);
	return strstr(out, "snafu-probe: started") ? GDB_NO_REVERSE : GDB_NO_DEBUG;
}

/* The breakpoint where the finding is judged. */
static const char *finding_break(enum sim_result res)
{
	switch (res) {
	case SIM_HANG:
		return "check_hung_tasks"; /* the watchdog's judgement: every task asleep */
	case SIM_STOPPED:
		return "kernel_bug"; /* a checker's BUG */
	case SIM_LIVELOCK:
		return "sim_stop"; /* the step budget ran out */
	case SIM_PREDICTED:
		return "lockdep_bug"; /* lockdep's report, made while the run went on */
	case SIM_ORACLE:
		return "futex_oracles_judge"; /* an oracle judging the run's end */
	case SIM_OK:
		break;
	}
	return "exit";
}

struct plan {
	/* as the developer types them; run: the debug build's snafu, which the commands run */
	const char *casefile, *run, *script, *gdb;
	const char *self_abs, *run_abs;
	enum { DEBUG_READY, DEBUG_MISSING, DEBUG_OTHER_RUN, DEBUG_FAILS } debug;
	char debug_cmd[3 * PATH_LEN]; /* the one command that builds the debug build */
	char debug_err[8300];         /* how its run differs, or how it failed (its first
					 line of output, find_debug_build()) */
	const struct kernel_config *k;
	struct run_result r;
	struct sim_decision pre; /* the schedule's last preemption; step 0: none */
	uint64_t at;             /* the finding's step: the run's last, lockdep's report, or
				    where the oracle's records place the finding */
	/* The new findings (the futex oracles, lockdep): where the finding was made, as
	 * gdb's `break` argument, with a condition where the function sees more than the
	 * finding; empty: finding_break() and the landing at step `at` alone. */
	char brk[96];
	char where[320];    /* the summary's "where ..." */
	const char *helper; /* the helper that reads that finding's books, with what it shows */
	const char *finish; /* a `finish` that closes those books, with what it shows, or NULL */
	/* the recorder's way back: a breakpoint to reverse-continue to, and where that lands */
	char back_brk[64];
	char back_what[192];
	/* a step before back_brk's call (the scheduling point before the first one inside
	 * it): the recording begins there when that is before the last preemption, else
	 * reverse-continue would run out of history; 0: not known */
	uint64_t back_from;
	int back_task;
	bool judged_at_end; /* an oracle: it judges and reports at the run's end */
	int bt_task;        /* the task whose backtrace matters most */
};

/* The step (sim_steps()) of TASK's scheduling point OP.POINT in the traced run that just
 * ended: the run's steps less the points traced after it; 0 when not in the trace. */
static uint64_t step_of(int task, unsigned op, unsigned point, uint64_t steps)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	uint64_t after = 0;

	for (int i = n - 1; ev && i >= 0; i--) {
		if (ev[i].kind != EV_POINT)
			continue;
		if (ev[i].task == task && ev[i].op == op && ev[i].point == point)
			return steps - after;
		after++;
	}
	return 0;
}

/* The recorder's way back: a breakpoint on the kernel function the finding is about, and
 * reverse-continue, which stops at that function's last call in the recording. Not
 * reverse-step or reverse-finish: from the finding's breakpoint (check_hung_tasks,
 * lockdep_bug) reverse-step lands in the simulator (sim_run(), which called the check),
 * and reverse-finish runs out of history, the recording having begun inside the kernel
 * function's caller. FN: a deadlock's or hang's blocked site (DEDUP_TOKEN's second
 * field), lockdep's held lock's site; else (a checker's BUG, a livelock, no finding) the
 * scheduling points, one at a time. */
#define C_NAME_CHARS    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
static void plan_back(struct plan *p, const char *fn, const char *what, int task, unsigned op,
		      unsigned point)
{
	uint64_t s;

	if (!fn || !*fn || strspn(fn, C_NAME_CHARS) != strlen(fn) ||
	    strlen(fn) >= sizeof(p->back_brk)) {
		snprintf(p->back_brk, sizeof(p->back_brk), "sim_point");
		snprintf(p->back_what, sizeof(p->back_what),
			 "back one scheduling point at a time (snafu-step: which)");
		return;
	}
	fn = kernel_fn(kcfg, fn); /* futex_wait: the run's release's, as gdb knows it */
	snprintf(p->back_brk, sizeof(p->back_brk), "%s", fn);
	/* a task runs from one of its scheduling points to the next without a switch, so
	 * the call comes after the step before its first point inside it */
	if (task && op && point && (s = step_of(task, op, point, p->r.steps))) {
		p->back_from = s > 1 ? s - 1 : 1;
		p->back_task = task;
	}
	snprintf(p->back_what, sizeof(p->back_what), "back into %s(), its last call recorded: %s",
		 fn, what);
}

/* Where gdb should stop for a lost wake-up, a wrong result or a lockdep report, from the
 * oracle's records (ref/futex_oracle.h's views) and lockdep's prediction: where the
 * finding was made, not where it was judged. And for every finding, the recorder's way
 * back (plan_back()). */
static void plan_finding(struct plan *p)
{
	struct fo_lost_view v;
	struct fo_eagain_view e;
	const struct lockdep_prediction *ld = lockdep_prediction();
	uint64_t s;

	p->bt_task = 1;
	if (p->r.result == SIM_HANG) {
		/* deadlock--SITE--..., hung--SITE--...: SITE, where the task went to sleep */
		const char *site = strstr(p->r.verdict, "--");
		char fn[64] = "";
		int n, dropped, task = 0;
		unsigned op = 0, point = 0;
		if (site)
			snprintf(fn, sizeof(fn), "%.*s", (int)strcspn(site + 2, "-"), site + 2);
		/* the op of its last call, the trace's last event in it (do_page_fault's fault),
		 * and that op's first point in it */
		const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
		for (int i = n - 1; ev && i >= 0; i--) {
			if (!ev[i].fn || strcmp(ev[i].fn, fn) ||
			    (task && (ev[i].task != task || ev[i].op != op)))
				continue;
			task = ev[i].task, op = ev[i].op;
			if (ev[i].kind == EV_POINT && (!point || ev[i].point < point))
				point = ev[i].point;
		}
		plan_back(p, fn, "the finding's task went to sleep in it", task, op, point);
	} else if (p->r.result == SIM_PREDICTED && ld->made) {
		snprintf(p->brk, sizeof(p->brk), "lockdep_bug");
		p->helper = "snafu-lockdep      lockdep's report: the acquisition, the held lock "
			    "and where it was taken";
		p->bt_task = ld->task;
		char what[128];
		snprintf(what, sizeof(what), "it took the held %s", ld->locks[0]);
		/* held_site: the syscall's function, or one it calls: in the op, after its
		 * first point's step before */
		plan_back(p, ld->held_site, what, ld->task, ld->op, 1);
	} else if (p->r.result == SIM_ORACLE && !strncmp(p->r.verdict, "lost-wakeup--", 13) &&
		   futex_oracle_lost(&v) &&
		   (s = step_of(v.wake.task, v.wake.op, v.wake.point, p->r.steps))) {
		p->at = s;
		snprintf(p->brk, sizeof(p->brk), "fo_wake_end if fo.cur == &fo.wakes[%d]",
			 v.wake_record);
		if (v.missed)
			snprintf(
			    p->where, sizeof(p->where),
			    "where T%d's %s (op %u.%u) found nobody: T%d had read its val at "
			    "%u.%u and queued only at %u.%u; judged when the run was over, after "
			    "step %llu",
			    v.wake.task, v.call, v.wake.op, v.wake.point, v.sleeper_slept.task,
			    v.sleeper_read.op, v.sleeper_read.point, v.sleeper_queued.op,
			    v.sleeper_queued.point, (unsigned long long)p->r.steps);
		else
			snprintf(
			    p->where, sizeof(p->where),
			    "where T%d's %s (op %u.%u) spent the wake-up on T%d and passed over "
			    "T%d; judged when the run was over, after step %llu",
			    v.wake.task, v.call, v.wake.op, v.wake.point, v.spent_read.task,
			    v.sleeper_slept.task, (unsigned long long)p->r.steps);
		p->helper = "snafu-futex        the futex oracle's books: each futex_wait, each "
			    "wake call";
		p->finish = "finish             the wake call's books closed: whom it passed over "
			    "or missed";
		p->judged_at_end = true;
		p->bt_task = v.sleeper_slept.task;
		if (!v.missed) {
			snprintf(p->back_brk, sizeof(p->back_brk), "fo_woken");
			snprintf(p->back_what, sizeof(p->back_what),
				 "back to wake_futex() unlinking the waiter that never waited");
		}
	} else if (p->r.result == SIM_ORACLE &&
		   !strcmp(p->r.verdict, "wrong-result--futex_cmp_requeue") &&
		   futex_oracle_wrong_result(&e) &&
		   (s = step_of(e.call.task, e.call.op, e.call.point, p->r.steps))) {
		p->at = s;
		/* the oracle keeps the first -EAGAIN from nqueued, and judges that one */
		snprintf(p->brk, sizeof(p->brk), "fo_cmp_eagain if !fo.eagain.seen");
		snprintf(p->where, sizeof(p->where),
			 "where T%d's FUTEX_CMP_REQUEUE (op %u.%u) found nqueued moved (%u -> %u) "
			 "and chose -EAGAIN, the word equal to val %d; judged when the run was "
			 "over, after step %llu",
			 e.call.task, e.call.op, e.call.point, e.then_nq, e.now_nq, e.val,
			 (unsigned long long)p->r.steps);
		p->helper = "snafu-futex        the futex oracle's books: the nqueued sample, the "
			    "queue_me() calls since";
		p->judged_at_end = true;
		p->bt_task = e.nqueuers ? e.queuers[0].task : e.call.task;
		snprintf(p->back_brk, sizeof(p->back_brk), "fo_queued");
		snprintf(p->back_what, sizeof(p->back_what),
			 "back to the queue_me() that moved nqueued");
	}
	if (!p->back_brk[0])
		plan_back(p, NULL, NULL, 0, 0, 0);
}

static const char *plan_break(const struct plan *p)
{
	return p->brk[0] ? p->brk : finding_break(p->r.result);
}

/* What the developer lands on. */
static const char *landing(const struct plan *p)
{
	return p->r.result == SIM_OK ? "the end of the run, no finding" : "the finding";
}

static void print_summary(const struct plan *p)
{
	printf("%s [%s]: %s at step %llu, %s", p->casefile, p->k->name, p->r.verdict,
	       (unsigned long long)p->at,
	       p->where[0]                    ? p->where
	       : p->r.result == SIM_PREDICTED ? "where lockdep made its report"
					      : "the run's last scheduling point");
	if (p->pre.step)
		printf(" (the schedule's last preemption: step %llu, T%d at %s, op %u.%u, to T%d)",
		       (unsigned long long)p->pre.step, p->pre.from, p->pre.site, p->pre.op,
		       p->pre.point, p->pre.to);
	printf("\n");
}

/* The helpers to run where gdb landed; for an oracle, then its judgement at the end. */
static void print_helpers(const struct plan *p)
{
	if (p->finish)
		printf("  (gdb) %s\n", p->finish);
	if (p->helper)
		printf("  (gdb) %s\n", p->helper);
	printf("  (gdb) snafu-step         the step, the running task, the last decisions\n"
	       "  (gdb) snafu-tasks        every task: state, syscall, held locks, blocked on\n"
	       "  (gdb) snafu-bt %d         a task's backtrace, from its fiber's registers\n",
	       p->bt_task ? p->bt_task : 1);
	if (p->judged_at_end)
		printf("then the oracle's judgement, when the run is over (its report):\n"
		       "  (gdb) break finding_begin\n"
		       "  (gdb) continue\n"
		       "  (gdb) snafu-futex\n");
}

/* The one command that builds the debug flavour into DIR (its bin/ directory). */
static void debug_build_command(const char *dir, char *buf, size_t len)
{
	char w[PATH_LEN], w2[PATH_LEN], parent[PATH_LEN];

	if (!strcmp(dir, DEBUG_BUILD_DEFAULT)) {
		const char *sh = cli_shell_word(SNAFU_SOURCE_DIR "/build.sh", w, sizeof(w));
		snprintf(buf, len, "%s%s debug", strchr(sh, '/') ? "" : "./", sh);
		return;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash && !strcmp(slash, "/bin"))
		*slash = 0;
	const char *b = cli_shell_word(parent, w, sizeof(w));
	snprintf(buf, len,
		 "cmake -S %s -B %s -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug "
		 "&& ninja -C %s snafu",
		 cli_shell_word(SNAFU_SOURCE_DIR, w2, sizeof(w2)), b, b);
}

/* How much of the debug build's error line the line about it quotes. */
#define DEBUG_QUOTE_MAX 200

/* LINE (one line) as the one-line message quotes it, into BUF: whole when at most MAX
 * bytes; else cut at a whole word, the first space from MAX bytes on (the word under way
 * ends first), with " ..." after; without a space from there on, whole. */
static void quote_words(const char *line, size_t max, char *buf, size_t len)
{
	const char *space = strlen(line) > max ? strchr(line + max, ' ') : NULL;
	size_t cut;

	if (!space) {
		snprintf(buf, len, "%s", line);
		return;
	}
	for (cut = (size_t)(space - line); cut > 0 && line[cut - 1] == ' '; cut--)
		;
	snprintf(buf, len, "%.*s ...", (int)cut, line);
}

/* The snafu the commands run, into path: this one (self) where it is unoptimized, else
 * the debug build's. Where that is missing, or replays another run than this one (p->r),
 * p->debug says so, with the command that builds it. */
static void find_debug_build(struct plan *p, const char *self, const char *casefile, char *path,
			     size_t len)
{
	const char *env = getenv("SNAFU_DEBUG_BUILD");
	const char *dir = env && *env ? env : SNAFU_DEBUG_BUILD;
	char out[8192], kopt[128];
	unsigned long long digest, steps;
	const char *d;

	p->debug = DEBUG_READY;
	if (!RECORD_OPTIMIZED && !(env && *env)) {
		snprintf(path, len, "%s", self);
		return;
	}
	snprintf(path, len, "%s/snafu", dir);
	debug_build_command(dir, p->debug_cmd, sizeof(p->debug_cmd));
	if (access(path, X_OK)) {
		p->debug = DEBUG_MISSING;
		return;
	}
	if (!strcmp(casefile, "-"))
		return; /* standard input, read already: nothing to replay it with */
	snprintf(kopt, sizeof(kopt), "--kernel=%s", p->k->name);
	char *const argv[] = {path, "replay", "--quiet",        "--digest",
			      kopt, "--",     (char *)casefile, NULL};
	int st = run_capture(argv, NULL, false, -1, out, sizeof(out), 120);
	if ((d = strstr(out, "]: digest ")) &&
	    sscanf(d, "]: digest %llx steps %llu", &digest, &steps) == 2) {
		if (digest == p->r.digest && steps == p->r.steps)
			return;
		p->debug = DEBUG_OTHER_RUN;
		snprintf(p->debug_err, sizeof(p->debug_err),
			 "digest %016llx, %llu steps; here %016llx, %llu steps", digest, steps,
			 (unsigned long long)p->r.digest, (unsigned long long)p->r.steps);
		return;
	}
	p->debug = DEBUG_FAILS;
	out[strcspn(out, "\n")] = 0;
	char quoted[sizeof(out) + 8];
	quote_words(out, DEBUG_QUOTE_MAX, quoted, sizeof(quoted));
	snprintf(p->debug_err, sizeof(p->debug_err), "status %d: %s", st,
		 out[0] ? quoted : "no output");
}

/* The line that says the debug build is not ready, with the command that builds it. */
static void print_debug_why(const struct plan *p)
{
	switch (p->debug) {
	case DEBUG_READY:
		return;
	case DEBUG_MISSING:
		fprintf(
		    stderr,
		    "snafu record: no debug build yet (%s: not found), which the commands below "
		    "run: at -O2 gdb shows stale values in the frames; build it with: %s\n",
		    p->run, p->debug_cmd);
		return;
	case DEBUG_OTHER_RUN:
		fprintf(stderr,
			"snafu record: the debug build %s replays another run (%s): one of the two "
			"is out of date; rebuild it with: %s\n",
			p->run, p->debug_err, p->debug_cmd);
		return;
	case DEBUG_FAILS:
		fprintf(
		    stderr,
		    "snafu record: the debug build %s does not replay the case (%s); rebuild it "
		    "with: %s\n",
		    p->run, p->debug_err, p->debug_cmd);
		return;
	}
}

static void print_fallback(const struct plan *p)
{
	unsigned long long n = p->at, from = p->pre.step && p->pre.step <= n ? p->pre.step : 1;
	const char *brk = plan_break(p);
	char why[1024];
	enum gdb_verdict gdb = gdb_probe(p->self_abs, why, sizeof(why));

	switch (gdb) {
	case GDB_REVERSES:
		break;
	case GDB_MISSING:
		fprintf(stderr,
			"snafu record: gdb is not installed (%s: not found); get it with "
			"apt-get install gdb (Debian package gdb)\n",
			why);
		break;
	case GDB_NO_DEBUG:
		fprintf(stderr, "snafu record: gdb cannot run a program here: %s\n", why);
		break;
	case GDB_NO_REVERSE:
		fprintf(stderr, "snafu record: gdb cannot step backwards here (record full): %s\n",
			why);
		break;
	}
	print_debug_why(p);
	fflush(stderr);

	printf("snafu record: not recorded; the simulator replays the same run every time, so "
	       "debug the replay:\n");
	print_summary(p);
	if (p->brk[0])
		printf("\nland on %s (the replay stops by SIGTRAP at step %llu, then in %.*s):\n",
		       landing(p), n, (int)strcspn(p->brk, " "), p->brk);
	else
		printf("\nland on %s (the replay stops by SIGTRAP at step %llu):\n", landing(p), n);
	printf("  " GDB_ENV "%s -x %s --args %s replay --kernel=%s --stop-at-step=%llu %s\n",
	       p->gdb, p->script, p->run, p->k->name, n, p->casefile);
	printf("  (gdb) run\n");
	if (p->brk[0])
		printf("  (gdb) break %s\n"
		       "  (gdb) continue\n",
		       p->brk);
	print_helpers(p);
	if (gdb == GDB_NO_REVERSE || gdb == GDB_NO_DEBUG) {
		printf("\nan earlier step: the same command with a smaller --stop-at-step=N (every "
		       "run is the same run)");
		if (p->pre.step)
			printf("; --stop-at-step=%llu stops at the schedule's last preemption",
			       (unsigned long long)p->pre.step);
		printf("\n");
		return;
	}
	char at[160];
	snprintf(at, sizeof(at), "%s",
		 from > 1 ? "the last preemption" : "the first scheduling point");
	if (p->back_from && p->back_from < from) {
		from = p->back_from;
		snprintf(at, sizeof(at), "before T%d's %s()", p->back_task, p->back_brk);
	}
	printf("\nstep backwards with gdb's recorder: stop at step %llu (%s), record, run on "
	       "to the finding:\n",
	       from, at);
	printf("  GLIBC_TUNABLES=" RECORD_TUNABLES " \\\n");
	printf("  " GDB_ENV "%s -x %s --args %s replay --kernel=%s --stop-at-step=%llu %s\n",
	       p->gdb, p->script, p->run, p->k->name, from, p->casefile);
	printf("  (gdb) run\n"
	       "  (gdb) set record full insn-number-max unlimited\n"
	       "  (gdb) record full\n"
	       "  (gdb) break %s\n"
	       "  (gdb) continue\n"
	       "  (gdb) break %s\n"
	       "  (gdb) reverse-continue   %s\n",
	       brk, p->back_brk, p->back_what);
	printf("GLIBC_TUNABLES keeps glibc's AVX and AVX-512 memcpy, memset, strcmp and strlen "
	       "out of the run: gdb's recorder cannot record their instructions. "
	       "insn-number-max: gdb keeps 200,000 instructions by default and drops the "
	       "oldest beyond that, the call the way back stops in among them.\n");
}

/* rr can record: record, pack, print how to replay. 0, or 3 when rr failed after all. */
static int record_with_rr(const struct plan *p, const char *casefile)
{
	char kopt[128], dir[PATH_LEN], out[PATH_LEN], w[PATH_LEN], w2[PATH_LEN];

	snprintf(kopt, sizeof(kopt), "--kernel=%s", p->k->name);
	char *const rec[] = {(char *)rr_path(), "record", "--print-trace-dir=3", (char *)p->run_abs,
			     "replay",          kopt,     (char *)casefile,      NULL};
	int st = run_capture(rec, NULL, false, 3, dir, sizeof(dir), 0);
	dir[strcspn(dir, "\n")] = 0;
	if ((st != 0 && st != 1) || !dir[0]) { /* snafu replay's own: 0 no finding, 1 one */
		fprintf(stderr, "snafu record: rr record failed (status %d)%s\n", st,
			dir[0] ? "" : ", no trace directory");
		print_fallback(p);
		return 3;
	}
	char *const pack[] = {(char *)rr_path(), "pack", dir, NULL};
	st = run_capture(pack, NULL, true, 2, out, sizeof(out), 0);
	const char *d = cli_shell_word(dir, w, sizeof(w));
	printf("snafu record: recorded in %s%s\n", d,
	       st ? " (rr pack failed: the trace needs this machine's files)"
		  : " (packed: it can be copied to another machine)");
	print_summary(p);
	printf("\nreplay it under gdb and stop at %s:\n", landing(p));
	printf("  %s replay %s -- -x %s\n", cli_shell_word(rr_path(), w2, sizeof(w2)), d,
	       p->script);
	printf("  (gdb) break %s\n", plan_break(p));
	printf("  (gdb) continue\n");
	print_helpers(p);
	if (p->pre.step)
		printf("or at the schedule's last preemption (step %llu):\n"
		       "  (gdb) break sim_point if sim_gdb_sched->steps == %llu\n",
		       (unsigned long long)p->pre.step, (unsigned long long)p->pre.step - 1);
	printf("rr replays backwards too, from the finding:\n"
	       "  (gdb) break %s\n"
	       "  (gdb) reverse-continue   %s\n",
	       p->back_brk, p->back_what);
	return 0;
}

static int cmd_record(int argc, char **argv)
{
	const struct kernel_config *k = kernel_by_name(SNAFU_DEFAULT_KERNEL);
	const char *in = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9))
			k = kernel_arg(a + 9);
		else
			cli_operand(&in, a, i + 1, "--kernel=NAME or a CASE", "one CASE");
	}
	if (!in) {
		fprintf(stderr, "snafu record: expected a CASE file\n");
		return 2;
	}

	static struct program prog;
	static struct plan p;
	char self[PATH_LEN], run[PATH_LEN], w1[PATH_LEN], w2[PATH_LEN], w3[PATH_LEN], w4[PATH_LEN];
	if (!cli_exe_path(self, sizeof(self))) {
		fprintf(stderr, "snafu record: cannot find my own executable\n");
		return 2;
	}
	load_case(in, &prog); /* one line and exit 2 on bad input */
	/* traced: the oracle's records name places (op.point) that the trace turns into steps */
	struct run_opts quiet = {.trace = true};
	prog_run(&prog, k, &quiet, &p.r);
	p.pre = sim_last_preempt;
	p.at = p.r.result == SIM_PREDICTED ? lockdep_prediction()->step : p.r.steps;
	plan_finding(&p);
	p.k = k;
	p.casefile = cli_shell_word(in, w1, sizeof(w1));
	p.script = cli_shell_word(SNAFU_SOURCE_DIR "/repro/snafu-gdb.py", w3, sizeof(w3));
	p.gdb = cli_shell_word(gdb_path(), w4, sizeof(w4));
	p.self_abs = self;
	find_debug_build(&p, self, in, run, sizeof(run));
	p.run_abs = run;
	p.run = cli_shell_word(run, w2, sizeof(w2));

	char why[1024];
	if (!installed(rr_path())) {
		fprintf(stderr,
			"snafu record: rr is not installed (%s: not found); get it with apt-get "
			"install rr (Debian package rr) or ./build.sh test, which installs it\n",
			rr_path());
		fflush(stderr);
		print_fallback(&p);
		return 3;
	}
	if (!rr_probe(why, sizeof(why))) {
		fprintf(stderr, "snafu record: rr cannot record here: %s\n", why);
		fflush(stderr);
		print_fallback(&p);
		return 3;
	}
	if (p.debug != DEBUG_READY) { /* nothing to record that gdb shows true values of */
		print_fallback(&p);
		return 3;
	}
	return record_with_rr(&p, in);
}
#endif

static const char *const record_values[] = {"--kernel", NULL};

const struct cli_command record_command = {
    "record", cmd_record, true, record_values,
    "  record [--kernel=NAME] CASE\n"
    "                          record the replay under rr and print how to debug it;\n"
    "                          where rr cannot record, say why and print gdb commands\n"
    "                          that stop at the finding (exit 3); rr and those commands\n"
    "                          run the -O0 debug build, build-debug/bin/snafu\n"
    "                          (./build.sh debug makes it; $SNAFU_DEBUG_BUILD names\n"
    "                          another bin/), whose frames gdb shows with true values;\n"
    "                          where it is not built, or replays another run, a line\n"
    "                          says so and nothing is recorded (exit 3)\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"};
