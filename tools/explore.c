/* snafu explore: the command, --check-reduction (the reduction loses nothing) and
 * snafu evaluate --explore (every saved program on every kernel), on the schedule search
 * (search/), whose state (search/search.h) it sets up and reads itself. */
#include "commands.h"

#include "../cli/casefile.h"
#include "../cli/cli.h"
#include "../ref/spinlock.h"
#include "../search/search.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const explore_value_opts[] = {
    "--kernel", "--preemptions", "--oracles", "--shard",  "--max-schedules",
    "--random", "--random-ops",  "--seed",    "--sample", "-o",
    NULL};

static const char explore_help[] =
    "  explore [OPTIONS] CASE  run the case's program (its own preemptions ignored) under\n"
    "                          every schedule with at most K preemptions, one per trace\n"
    "                          (partial-order reduction), fewest preemptions first; stop\n"
    "                          at the first finding: its report, then the case with its\n"
    "                          schedule (-o); exit 1 with a finding, 0 without, 130 when\n"
    "                          interrupted (SIGINT, SIGTERM: the line says how far)\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"
    "      --all-kernels       every listed kernel, one line each (no report, no -o)\n"
    "      --preemptions=K     the bound, 0..15 (default 2); all: every trace (what a\n"
    "                          case can write: at most 15)\n"
    "      --oracles=LIST      what counts as a finding (default: deadlock, lost-wakeup,\n"
    "                          result; lockdep only when LIST names it: its prediction\n"
    "                          needs no schedule)\n"
    "      --max-schedules=M   run at most M schedules\n"
    "      --no-reduction      run every schedule (no partial-order reduction)\n"
    "      --shard=I/N         with --no-reduction: the I-th of N processes that split it\n"
    "      --sample=S          the schedules in a random order from stream S, as the\n"
    "                          fuzzer's joint search runs them: a level with work, then a\n"
    "                          schedule of it, at random (not fewest preemptions first);\n"
    "                          with --max-schedules, a sample of every level it reaches\n"
    "      --check-reduction   search with and without the reduction at every bound 0..K,\n"
    "                          on the kernel (or --all-kernels), and compare the outcomes\n"
    "                          (verdicts and end states); exit 1 if they differ\n"
    "      --random=N          with --check-reduction and no CASE: N random programs\n"
    "                          (2-3 tasks, 1-4 ops each), from --seed=S (default 1)\n"
    "      --random-ops=M      ... of at most M ops in all, 3..12 (default 12)\n"
    "      --quiet             no progress lines (every 3 s on stderr otherwise)\n"
    "      -o OUT.case         write the finding, minimized, with expect lines\n";

#ifdef SNAFU_NATIVE
/* Real threads follow no schedule: the simulator's build searches them. */
static int cmd_explore(int argc, char **argv)
{
	(void)argc, (void)argv;
	return cli_to_simulator("explore");
}

int explore_evaluate(int argc, char **argv)
{
	(void)argc, (void)argv;
	return cli_to_simulator("evaluate");
}
#else

/* ---- the command ---- */

/* The line that says how the search on s->k ended. */
static void say(FILE *f, const struct search *s, const char *name, const char *shard)
{
	char bound[64];
	int K = s->timers ? EXPLORE_BOUND_FALLBACK : s->K;
	bool unbounded = s->unbounded && !s->timers;

	if (unbounded)
		snprintf(bound, sizeof(bound), "any number of preemptions");
	else
		snprintf(bound, sizeof(bound), "at most %d %s", K,
			 plural(K, "preemption", "preemptions"));
	fprintf(f, "explore: %s [%s]: ", name, s->k->name);
	if (s->timers)
		fprintf(f,
			"(it arms timers, whose firing points make every trace too many: every "
			"schedule within %d preemptions instead) ",
			K);
	if (s->found) {
		fprintf(f, "found %s with %d %s after %lld %s (%lld %s)", s->verdict,
			explore_found.npreempts,
			plural(explore_found.npreempts, "preemption", "preemptions"), s->explored,
			plural(s->explored, "schedule", "schedules"), s->traces,
			plural(s->traces, "trace", "traces"));
		for (int i = 0; i < explore_found.npreempts; i++) {
			char buf[80];
			fprintf(f, "%s%s", i ? ", " : ": ",
				prog_preempt_str(&explore_found.preempts[i], buf, sizeof(buf)));
		}
	} else if (s->interrupted) {
		fprintf(f,
			"interrupted after %lld %s (%lld %s), at %d %s: no finding so far, not "
			"every schedule with %s run",
			s->explored, plural(s->explored, "schedule", "schedules"), s->traces,
			plural(s->traces, "trace", "traces"), s->level,
			plural(s->level, "preemption", "preemptions"), bound);
	} else if (s->budget_hit) {
		fprintf(f,
			"no finding in %lld %s (%s), %lld %s: not every schedule with %s was run",
			s->explored, plural(s->explored, "schedule", "schedules"),
			s->full ? "the tree of choice points is full" : "--max-schedules",
			s->traces, plural(s->traces, "trace", "traces"), bound);
	} else if (!s->reduce) {
		fprintf(f, "no finding within %d %s: %lld %s (no reduction)", K,
			plural(K, "preemption", "preemptions"), s->explored,
			plural(s->explored, "schedule", "schedules"));
	} else if (unbounded && !s->bound_hit) {
		fprintf(f, "no finding in %lld %s (unbounded): %lld %s", s->traces,
			plural(s->traces, "trace", "traces"), s->explored,
			plural(s->explored, "schedule", "schedules"));
	} else if (unbounded) {
		fprintf(f,
			"no finding in %lld %s with at most %d preemptions (what a case holds; "
			"some traces need more): %lld %s",
			s->traces, plural(s->traces, "trace", "traces"), MAX_K, s->explored,
			plural(s->explored, "schedule", "schedules"));
	} else {
		fprintf(f, "no finding within %d %s: %lld %s, %lld %s%s", K,
			plural(K, "preemption", "preemptions"), s->traces,
			plural(s->traces, "trace", "traces"), s->explored,
			plural(s->explored, "schedule", "schedules"),
			s->bound_hit ? "" : " (no trace needs more: unbounded)");
	}
	fprintf(f, "%s\n", shard);
}

static long long num_opt(const char *a, size_t skip, long long lo, long long hi, const char *what,
			 int argn)
{
	char *end;

	errno = 0;
	long long v = strtoll(a + skip, &end, 10);
	if (*end || end == a + skip || errno || v < lo || v > hi || a[skip] == '-')
		die_usage(what, a, argn);
	return v;
}

/* ---- --check-reduction: the reduction loses nothing ---- */

/* What a run ended in, as equivalent runs share it: each task's own events in order,
 * every op's return value and what each load read, the verdict, and what the address
 * space holds (mm_state_digest(), ref/mm.h: PTEs, pages, their data): the trace digest
 * of the end state, whatever the order of independent steps. A spinner's wait for a
 * spinlock is left out: it changes nothing, and the search offers no switch to a task
 * whose try must fail (must_fail() in explore.c), so where a run of it waits, the
 * equivalent run the search makes may not. A run whose tasks took turns past its step
 * budget (sim_turns_from()) is compared by the rest alone, without its events: from
 * there the scheduler switches at a count of every task's points, not where a schedule
 * says, so two runs the search holds equivalent reach the budget with different steps
 * behind them and go round a retry loop a different number of times (2.6.28's
 * get_futex_key() on the ZERO_PAGE, which loops until the fault it waits for runs). So
 * is a run whose trace dropped its first events (more than it keeps): which ones it
 * kept depends on how many came before. */

static uint64_t end_state(const struct program *q, const struct run_result *r)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);
	uint64_t task[NLABELS] = {0}, h = 0xcbf29ce484222325ULL;

	if (dropped || sim_turns_from())
		n = 0; /* compared without its events (above) */
	for (int i = 0; i < n; i++) {
		const struct sim_trace_ev *e = &ev[i];
		if (e->kind == EV_PREEMPT || e->task > SIM_MAX_TASKS || fp_spin_wait(e))
			continue;
		uint64_t t = sim_hash_mix(task[e->task], (uint64_t)e->kind << 32 |
							     (uint64_t)e->op << 16 | e->point);
		t = sim_hash_mix(sim_hash_mix(t, fp_str_hash(e->fn)), fp_str_hash(e->obj));
		task[e->task] = sim_hash_mix(sim_hash_mix(t, (uint64_t)e->arg), (uint64_t)e->arg2);
	}
	for (int t = 0; t < NLABELS; t++)
		h = sim_hash_mix(h, task[t]);
	for (int i = 0; i < q->nops; i++) /* an op that did not return keeps an old value */
		h = sim_hash_mix(sim_hash_mix(sim_hash_mix(h, r->ran[i] ? (uint64_t)r->ret[i] : 0),
					      r->loaded[i]),
				 r->ran[i]);
	return sim_hash_mix(sim_hash_mix(h, fp_str_hash(r->verdict)), r->mm_digest);
}

static struct {
	uint64_t *v;
	size_t n, cap;
	bool want; /* only runs that are traces (a run a sleep set cut short is not) */
	long long blocked_seen;
} outcomes;

static void note_outcome(struct search *s, const struct program *q)
{
	if (outcomes.want && s->blocked != outcomes.blocked_seen) {
		outcomes.blocked_seen = s->blocked;
		return;
	}
	outcomes.v = explore_grow(outcomes.v, &outcomes.cap, outcomes.n + 1, sizeof(*outcomes.v));
	outcomes.v[outcomes.n++] = end_state(q, &s->r);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The distinct outcomes of one whole search (no stop at a finding), sorted, in *out. */
static size_t outcome_set(struct search *s, bool reduce, uint64_t **out)
{
	s->reduce = reduce;
	s->collect = true;
	outcomes.n = 0;
	outcomes.want = reduce;
	outcomes.blocked_seen = 0;
	explore_on_outcome = note_outcome;
	explore_run_search(s);
	explore_on_outcome = NULL;
	s->collect = false;
	qsort(outcomes.v, outcomes.n, sizeof(*outcomes.v), by_u64);
	size_t m = 0;
	for (size_t i = 0; i < outcomes.n; i++)
		if (!m || outcomes.v[i] != outcomes.v[m - 1])
			outcomes.v[m++] = outcomes.v[i];
	*out = malloc(m * sizeof(**out) + 1);
	if (!*out)
		abort();
	memcpy(*out, outcomes.v, m * sizeof(**out));
	return m;
}

/* After a difference: the schedules (without the reduction) of the outcomes missing
 * with it, the first of each, at most three. */
static struct {
	uint64_t *v;
	size_t n;
	int shown;
	FILE *f;
} lost;

static void show_lost(struct search *s, const struct program *q)
{
	uint64_t h = end_state(q, &s->r);

	for (size_t i = 0; i < lost.n && lost.shown < 3; i++) {
		if (lost.v[i] != h)
			continue;
		lost.v[i] = lost.v[--lost.n]; /* the first of this outcome only */
		lost.shown++;
		fprintf(lost.f, "explore:   missing with the reduction: %s, the outcome of",
			s->r.verdict);
		for (int j = 0; j < q->npreempts; j++) {
			char buf[80];
			fprintf(lost.f, "%s%s", j ? ", " : " ",
				prog_preempt_str(&q->preempts[j], buf, sizeof(buf)));
		}
		fprintf(lost.f, "%s\n", q->npreempts ? "" : " the sequential run");
		return;
	}
}

/* Every outcome without the reduction is one with it, and no other: how many differ. */
static long long check_one(struct search *s, FILE *f, const char *name)
{
	uint64_t *with, *without;
	size_t nw = outcome_set(s, true, &with);
	long long traces = s->traces, runs = s->explored;
	bool cut = s->budget_hit, all = s->unbounded, more = s->bound_hit && !s->timers,
	     timers = s->timers;
	/* every trace: against every schedule within EXPLORE_BOUND_FALLBACK, which it covers */
	if (all) {
		s->unbounded = false;
		s->K = EXPLORE_BOUND_FALLBACK;
	}
	size_t no = outcome_set(s, false, &without);
	long long full = s->explored;
	long long missing = 0, extra = 0;
	size_t i = 0, j = 0;
	cut |= s->budget_hit;
	while (i < nw || j < no) {
		if (j == no || (i < nw && with[i] < without[j]))
			extra++, i++;
		else if (i == nw || without[j] < with[i])
			missing++, j++;
		else
			i++, j++;
	}
	if (missing && !cut) { /* say which: run the search without the reduction again */
		lost.v = malloc((size_t)missing * sizeof(*lost.v) + 1);
		if (!lost.v)
			abort();
		lost.n = 0;
		for (i = 0, j = 0; j < no;) {
			if (i < nw && with[i] < without[j])
				i++;
			else if (i < nw && with[i] == without[j])
				i++, j++;
			else
				lost.v[lost.n++] = without[j++];
		}
		lost.shown = 0;
		lost.f = f;
		s->reduce = false;
		s->collect = true;
		explore_on_outcome = show_lost;
		explore_run_search(s);
		explore_on_outcome = NULL;
		s->collect = false;
		free(lost.v);
	}
	free(with);
	free(without);
	if (all) {
		s->unbounded = true;
		s->K = MAX_K;
		fprintf(
		    f,
		    "explore: %s [%s]: --check-reduction, every trace%s: %zu %s in %lld %s (%lld "
		    "%s%s), %zu within %d preemptions without the reduction (%lld %s): %lld "
		    "missing%s\n",
		    name, s->k->name,
		    timers ? " (it arms timers: searched within the same bound instead)" : "", nw,
		    plural((long long)nw, "outcome", "outcomes"), traces,
		    plural(traces, "trace", "traces"), runs, plural(runs, "schedule", "schedules"),
		    more ? ", some traces need more than 15 preemptions" : "", no,
		    EXPLORE_BOUND_FALLBACK, full, plural(full, "schedule", "schedules"), missing,
		    cut ? " (cut by --max-schedules: not compared)" : "");
		s->reduce = true;
		return cut ? 0 : missing;
	}
	fprintf(f,
		"explore: %s [%s]: --check-reduction at %d %s: %zu %s with the reduction (%lld "
		"%s, %lld %s), %zu without (%lld %s): %lld missing, %lld extra%s\n",
		name, s->k->name, s->K, plural(s->K, "preemption", "preemptions"), nw,
		plural((long long)nw, "outcome", "outcomes"), traces,
		plural(traces, "trace", "traces"), runs, plural(runs, "schedule", "schedules"), no,
		full, plural(full, "schedule", "schedules"), missing, extra,
		cut ? " (cut by --max-schedules: not compared)" : "");
	s->reduce = true;
	return cut ? 0 : missing + extra;
}

/* A small random program (the reduction check): 2-3 tasks, 1-4 ops each and at most
 * MAX_OPS in all (--random-ops), every kind of op, on one or two small mappings that
 * task 1 makes first (most of the time): private or shared, anonymous or of a file (half
 * the programs declare one, opened read-only or read-write), one mapping in four
 * read-only. */
static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rnd_state >> 33) % n;
}

static void random_program(struct program *p, int max_ops)
{
	memset(p, 0, sizeof(*p));
	p->ntasks = 2 + (int)rnd(2);
	if (rnd(2)) {
		p->nfiles = 1;
		p->files[0] = (struct file_spec){
		    .pages = (uint8_t)(1 + rnd(2)), .fill = (int16_t)rnd(3), .readonly = rnd(2)};
	}
	int nmaps = 0;
	for (int t = 1; t <= p->ntasks; t++) {
		int nops = 1 + (int)rnd(4), room = max_ops - p->nops - (p->ntasks - t);
		nops = nops < room ? nops : room; /* at least one for each task to come */
		for (int i = 0; i < nops; i++) {
			struct op *o = &p->ops[p->nops++];
			o->task = (uint8_t)t;
			o->kind = (uint8_t)(t == 1 && i == 0 && rnd(4) ? OP_MMAP : rnd(OP_NKINDS));
			if (o->kind == OP_MMAP && nmaps >= 2)
				o->kind = OP_STORE;
			int m = nmaps ? (int)rnd((unsigned)nmaps) : -1;
			o->a = (struct uref){.map = m < 0 || !rnd(8) ? PROG_NULL_MAP : (uint8_t)m,
					     .page = (uint8_t)rnd(2),
					     .word = (uint8_t)rnd(2)};
			o->b = (struct uref){.map = m < 0 ? PROG_NULL_MAP : (uint8_t)m,
					     .page = (uint8_t)rnd(2),
					     .word = (uint8_t)(2 + rnd(2))};
			switch (o->kind) {
			case OP_MMAP:
				/* prot (bits 0-2), shared (bit 3), the file's fd (bits 4-5) */
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)((rnd(4) ? 3 : 1) | (rnd(2) ? 8 : 0) |
						 (p->nfiles && rnd(2) ? 1 << 4 : 0));
				nmaps++;
				break;
			case OP_MUNMAP:
			case OP_MADVISE:
			case OP_MINCORE:
			case OP_MLOCK:
				o->x = (uint8_t)rnd(2);
				break;
			case OP_STORE:
			case OP_FUTEX_WAKE:
			case OP_POKEDATA:
				o->x = (uint8_t)rnd(3);
				break;
			case OP_FUTEX_WAIT:
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)(rnd(3) ? 0 : 1 + rnd(3));
				break;
			case OP_FUTEX_REQUEUE:
			case OP_FUTEX_CMP_REQUEUE:
				o->x = (uint8_t)(rnd(2) | rnd(2) << 4);
				o->y = (uint8_t)rnd(2);
				break;
			case OP_MPROTECT:
			case OP_GET_MEMPOLICY:
				o->x = (uint8_t)rnd(2);
				o->y = (uint8_t)rnd(4);
				break;
			case OP_KILL:
				o->x = (uint8_t)rnd((unsigned)p->ntasks);
				break;
			case OP_SLEEP:
				o->x = (uint8_t)(1 + rnd(3));
				break;
			default:
				break;
			}
		}
	}
	prog_canonicalize(p);
}

/* --check-reduction over N random programs: every kernel asked, bounds 0..K. */
static int check_random(struct search *s, const struct kernel_config *one, long long n, int max_ops,
			unsigned long long seed)
{
	static struct program p;
	long long checks = 0, cut = 0, differ = 0;
	int K = s->K;

	rnd_state = seed;
	s->p = &p;
	for (long long i = 0; i < n && !explore_stop; i++) {
		random_program(&p, max_ops);
		char name[64];
		snprintf(name, sizeof(name), "random program %lld (seed %llu)", i + 1, seed);
		for_each_kernel (kc) {
			if (one && kc != one)
				continue;
			s->k = kc;
			for (s->K = s->unbounded ? K : 0; s->K <= K; s->K++) {
				FILE *mem = tmpfile();
				long long d = check_one(s, mem ? mem : stderr, name);
				checks++;
				cut += s->budget_hit;
				if (d && mem) {
					differ++;
					rewind(mem);
					for (int ch; (ch = fgetc(mem)) != EOF;)
						fputc(ch, stdout);
					prog_print(&p, stdout);
				}
				if (mem)
					fclose(mem);
			}
			s->K = K;
		}
	}
	char bounds[64];
	if (s->unbounded)
		snprintf(bounds, sizeof(bounds), "every trace against %d preemptions",
			 EXPLORE_BOUND_FALLBACK);
	else
		snprintf(bounds, sizeof(bounds), "bounds 0..%d", K);
	char ops[32] = "";
	if (max_ops < 12)
		snprintf(ops, sizeof(ops), " of at most %d ops", max_ops);
	printf("explore: --check-reduction: %lld random %s%s (seed %llu), %s: %lld %s, %lld cut "
	       "by --max-schedules, %lld with a difference\n",
	       n, plural(n, "program", "programs"), ops, seed, bounds, checks,
	       plural(checks, "check", "checks"), cut, differ);
	return differ ? 1 : 0;
}

static int cmd_explore(int argc, char **argv)
{
	const struct kernel_config *k = NULL;
	const char *out = NULL, *in = NULL;
	bool all_kernels = false, check = false;
	int kernel_argn = 0, shard_argn = 0;
	long long random = 0;
	int random_ops = 12, random_ops_argn = 0;
	unsigned long long seed = 1;
	static struct search s;

	s.K = EXPLORE_DEFAULT_PREEMPTIONS;
	s.nshards = 1;
	s.reduce = true;
	/* lockdep's prediction needs no schedule: by default it is left out, else the
	 * sequential run would "find" it and end the search */
	s.oracles = ORACLES_DEFAULT & ~ORACLE_LOCKDEP;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--kernel=", 9)) {
			k = kernel_arg(a + 9);
			kernel_argn = i + 1;
		} else if (!strcmp(a, "--all-kernels"))
			all_kernels = true;
		else if (!strcmp(a, "--preemptions=all")) {
			s.K = MAX_K;
			s.unbounded = true;
		} else if (!strncmp(a, "--preemptions=", 14)) {
			s.K = (int)num_opt(a, 14, 0, MAX_K,
					   "--preemptions=K with K in 0..15 or all", i + 1);
			s.unbounded = false;
		} else if (!strncmp(a, "--oracles=", 10))
			s.oracles = oracles_arg(a, a + 10, i + 1);
		else if (!strncmp(a, "--max-schedules=", 16))
			s.max = num_opt(a, 16, 1, 1000000000000LL,
					"--max-schedules=M with M in 1..1000000000000", i + 1);
		else if (!strncmp(a, "--shard=", 8)) {
			unsigned si, sn;
			char c;
			if (sscanf(a + 8, "%u/%u%c", &si, &sn, &c) != 2 || a[8] == '-' || sn < 1 ||
			    sn > 1000000 || si < 1 || si > sn || strchr(a + 8, '+') ||
			    strchr(a + 8, ' '))
				die_usage("--shard=I/N with 1 <= I <= N <= 1000000", a, i + 1);
			s.shard = si - 1;
			s.nshards = sn;
			shard_argn = i + 1;
		} else if (!strcmp(a, "--no-reduction"))
			s.reduce = false;
		else if (!strcmp(a, "--check-reduction"))
			check = true;
		else if (!strncmp(a, "--random=", 9))
			random = num_opt(a, 9, 1, 1000000000, "--random=N with N in 1..1000000000",
					 i + 1);
		else if (!strncmp(a, "--random-ops=", 13))
			random_ops = (int)num_opt(a, 13, 3, 12, "--random-ops=M with M in 3..12",
						  random_ops_argn = i + 1);
		else if (!strncmp(a, "--seed=", 7))
			seed = (unsigned long long)num_opt(
			    a, 7, 0, 1000000000000LL, "--seed=S with S in 0..1000000000000", i + 1);
		else if (!strncmp(a, "--sample=", 9)) {
			s.sampling = true;
			s.rng = (uint64_t)num_opt(a, 9, 0, 1000000000000LL,
						  "--sample=S with S in 0..1000000000000", i + 1);
		} else if (!strcmp(a, "--quiet"))
			s.quiet = true;
		else if (!strcmp(a, "-o") && i + 1 < argc)
			out = argv[++i];
		else
			cli_operand(
			    &in, a, i + 1,
			    "--kernel=NAME, --all-kernels, --preemptions=K|all, --oracles=LIST, "
			    "--shard=I/N, --max-schedules=M, --no-reduction, --check-reduction, "
			    "--random=N, --random-ops=M, --seed=S, --sample=S, --quiet, -o OUT or "
			    "a CASE",
			    "one CASE");
	}
	if (all_kernels && kernel_argn)
		die_usage("--kernel=NAME or --all-kernels, not both", argv[kernel_argn - 1],
			  kernel_argn);
	if (s.nshards > 1 && (s.reduce || s.unbounded))
		die_usage("--shard=I/N with --no-reduction and a bound (the reduction's runs "
			  "depend on each other)",
			  argv[shard_argn - 1], shard_argn);
	if (all_kernels && out) {
		fprintf(stderr,
			"snafu explore: expected no -o with --all-kernels (one line each)\n");
		return 2;
	}
	if (random_ops_argn && !random)
		die_usage("--random-ops=M with --random=N", argv[random_ops_argn - 1],
			  random_ops_argn);
	if (random && (!check || in)) {
		fprintf(stderr, "snafu explore: expected --random=N with --check-reduction and no "
				"CASE\n");
		return 2;
	}
	if (check && (out || s.nshards > 1 || !s.reduce || s.sampling)) {
		fprintf(stderr, "snafu explore: expected --check-reduction without -o, --shard, "
				"--no-reduction, --sample\n");
		return 2;
	}
	if (s.sampling && s.nshards > 1) {
		fprintf(stderr, "snafu explore: expected --sample=S without --shard (shards split "
				"the search's own order)\n");
		return 2;
	}
	if (!in && !random) {
		fprintf(stderr, "snafu explore: expected a CASE\n");
		return 2;
	}
	if (out && !case_out_ok(out))
		return 2;
	signal(SIGINT, explore_on_signal);
	signal(SIGTERM, explore_on_signal);
	/* the reduction reads steps' resources; lockdep's graph ties every lock together */
	if (s.oracles & ORACLE_LOCKDEP) {
		if (check) {
			fprintf(stderr, "snafu explore: expected --check-reduction without lockdep "
					"in --oracles (the reduction is off with it)\n");
			return 2;
		}
		s.reduce = false;
	}
	if (random) {
		s.quiet = true;
		int st = check_random(&s, k, random, random_ops, seed);
		return explore_stop ? 130 : st;
	}
	static struct program p;
	load_case(in, &p);
	p.npreempts = 0; /* its own schedule is not the question */
	s.p = &p;
	const char *name = case_name(in);
	char shard[64] = "";
	if (s.nshards > 1)
		snprintf(shard, sizeof(shard), " (shard %u/%u)", s.shard + 1, s.nshards);

	if (check || all_kernels) {
		int status = 0;
		uint64_t sample_seed = s.rng;
		for_each_kernel (kc) {
			if (!all_kernels && kc != (k ? k : kernel_by_name(SNAFU_DEFAULT_KERNEL)))
				continue;
			s.k = kc;
			s.rng = sample_seed; /* --sample=S: each kernel from stream S */
			if (check && s.unbounded)
				status |= check_one(&s, stdout, name) != 0;
			else if (check) {
				int K = s.K;
				for (s.K = 0; s.K <= K && !explore_stop; s.K++)
					status |= check_one(&s, stdout, name) != 0;
				s.K = K;
			} else {
				explore_run_search(&s);
				say(stdout, &s, name, shard);
				status |= s.found;
			}
			fflush(stdout);
			if (explore_stop)
				return 130;
		}
		return status;
	}
	s.k = k ? k : kernel_by_name(SNAFU_DEFAULT_KERNEL);
	explore_run_search(&s);
	/* the messages go to stdout, unless the case does (-o -) */
	FILE *msg = out && !strcmp(out, "-") ? stderr : stdout;
	if (!s.found) {
		say(msg, &s, name, shard);
		return s.interrupted ? 130 : 0;
	}
	/* the report, as snafu replay prints it */
	struct run_opts traced = {.trace = true, .oracles = s.oracles};
	prog_run(&explore_found, s.k, &traced, &s.r);
	prog_report(msg, s.k);
	say(msg, &s, name, shard);
	fflush(msg);
	if (!out)
		return 1;
	char note[256];
	snprintf(note, sizeof(note), "found by snafu explore with %d %s after %lld schedules\n",
		 explore_found.npreempts,
		 plural(explore_found.npreempts, "preemption", "preemptions"), s.explored);
	char verdict[sizeof(s.verdict)];
	snprintf(verdict, sizeof(verdict), "%s", s.verdict);
	int st = case_write_minimized_note(&explore_found, s.k, verdict, s.oracles, name,
					   "snafu explore", note, out);
	if (st)
		return st;
	if (strcmp(out, "-"))
		fprintf(msg, "explore: minimized case: %s\n", out);
	return 1;
}

/* ---- snafu evaluate --explore: every saved program on every listed kernel ---- */

/* What one search of one program on one kernel gave (a worker's record). */
struct eval_res {
	int prog, kern;
	bool found, cut;
	int npreempts;
	struct sim_preempt pre[MAX_K + 1]; /* the finding's schedule */
	long long explored, traces;
	bool bound_hit, full;
	char verdict[160];
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The saved cases: the .case files of SNAFU_SOURCE_DIR/repro/cases, sorted by name. */
static int saved_cases(char ***out)
{
#ifdef SNAFU_SOURCE_DIR
	const char *dir = SNAFU_SOURCE_DIR "/repro/cases";
#else
	const char *dir = "repro/cases";
#endif
	DIR *d = opendir(dir);
	char **v = NULL, cwd[4096];
	int n = 0;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	if (!d) {
		fprintf(stderr, "snafu evaluate --explore: %s: %s (give the cases)\n", dir,
			strerror(errno));
		exit(2);
	}
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".case"))
			continue;
		v = realloc(v, (size_t)(n + 1) * sizeof(*v));
		char *path = malloc(strlen(dir) + len + 2);
		if (!v || !path)
			abort();
		sprintf(path, "%s/%s", dir, e->d_name);
		size_t c = strlen(cwd);
		if (c > 1 && !strncmp(path, cwd, c) && path[c] == '/') /* repro/cases/X.case */
			memmove(path, path + c + 1, strlen(path + c + 1) + 1);
		v[n++] = path;
	}
	closedir(d);
	qsort(v, (size_t)n, sizeof(*v), by_name);
	*out = v;
	return n;
}

/* A case's file name without its directory and ".case". */
static const char *short_name(const char *path)
{
	static char buf[8][128];
	static int next;
	const char *slash = strrchr(path, '/');
	char *b = buf[next++ % 8];

	snprintf(b, sizeof(buf[0]), "%s", slash ? slash + 1 : path);
	size_t n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".case"))
		b[n - 5] = 0;
	return b;
}

/* The table: per kernel, how many programs held within K, were cut or gave a finding,
 * the schedules behind it, and the findings. */
static void eval_table(const struct eval_res *res, int nres, char **cases, int ncases,
		       const struct kernel_config **ks, int nk, int K, long long max, bool md)
{
	if (md)
		printf("\n| kernel | programs | no finding within %d | cut at %lld schedules | "
		       "with a finding | schedules | traces | findings |\n|---|--:|--:|--:|--:|"
		       "--:|--:|---|\n",
		       K, max);
	else
		printf("\n%-18s %8s %8s %6s %8s %10s %8s  %s\n", "kernel", "programs", "held",
		       "cut", "findings", "schedules", "traces", "what (program: signature)");
	for (int ki = 0; ki < nk; ki++) {
		int held = 0, cut = 0, found = 0;
		long long explored = 0, traces = 0;
		char what[4096] = "";
		size_t w = 0;
		for (int i = 0; i < nres; i++) {
			const struct eval_res *r = &res[i];
			if (r->kern != ki)
				continue;
			explored += r->explored;
			traces += r->traces;
			found += r->found;
			cut += !r->found && r->cut;
			held += !r->found && !r->cut;
		}
		/* the findings by signature, each with its programs: "SIG (a, b); SIG2 (c)" */
		for (int i = 0; i < nres && w < sizeof(what); i++) {
			const struct eval_res *r = &res[i], *e;
			if (r->kern != ki || !r->found)
				continue;
			for (e = res; e < r; e++)
				if (e->kern == ki && e->found && !strcmp(e->verdict, r->verdict))
					break;
			if (e < r)
				continue; /* listed with the first program that gave it */
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s (", w ? "; " : "",
					      r->verdict);
			for (e = r; e < res + nres && w < sizeof(what); e++)
				if (e->kern == ki && e->found && !strcmp(e->verdict, r->verdict))
					w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%s",
							      e == r ? "" : ", ",
							      short_name(cases[e->prog]));
			if (w < sizeof(what))
				w += (size_t)snprintf(what + w, sizeof(what) - w, ")");
		}
		if (md)
			printf("| `%s` | %d | %d | %d | %d | %lld | %lld | %s |\n", ks[ki]->name,
			       ncases, held, cut, found, explored, traces, w ? what : "-");
		else
			printf("%-18s %8d %8d %6d %8d %10lld %8lld  %s\n", ks[ki]->name, ncases,
			       held, cut, found, explored, traces, w ? what : "-");
	}
}

int explore_evaluate(int argc, char **argv)
{
	static struct search s;
	const struct kernel_config *one = NULL;
	const struct kernel_config *ks[64];
	char **cases = NULL;
	int ncases = 0, nk = 0;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool md = false;

	s.K = EXPLORE_DEFAULT_PREEMPTIONS;
	s.nshards = 1;
	s.reduce = true;
	s.max = EXPLORE_EVALUATE_MAX_SCHEDULES;
	s.quiet = true; /* many searches at once: the lines say it all */
	s.oracles = ORACLES_DEFAULT & ~ORACLE_LOCKDEP;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--explore"))
			continue;
		if (!strncmp(a, "--explore=", 10))
			s.K = (int)num_opt(a, 10, 0, MAX_K, "--explore=K with K in 0..15", i + 1);
		else if (!strncmp(a, "--kernel=", 9))
			one = kernel_arg(a + 9);
		else if (!strncmp(a, "--oracles=", 10))
			s.oracles = oracles_arg(a, a + 10, i + 1);
		else if (!strncmp(a, "--max-schedules=", 16))
			s.max = num_opt(a, 16, 1, 1000000000000LL,
					"--max-schedules=M with M in 1..1000000000000", i + 1);
		else if (!strncmp(a, "--jobs=", 7))
			jobs = (long)num_opt(a, 7, 1, 1024, "--jobs=J with J in 1..1024", i + 1);
		else if (!strcmp(a, "--markdown"))
			md = true;
		else if (a[0] == '-')
			die_usage(
			    "--explore[=K], --kernel=NAME, --oracles=LIST, --max-schedules=M, "
			    "--jobs=J, --markdown or a CASE",
			    a, i + 1);
		else {
			cases = realloc(cases, (size_t)(ncases + 1) * sizeof(*cases));
			if (!cases)
				abort();
			cases[ncases++] = argv[i];
		}
	}
	bool own_cases = !ncases;
	if (own_cases)
		ncases = saved_cases(&cases);
	if (s.oracles & ORACLE_LOCKDEP)
		s.reduce = false;
	if (one)
		ks[nk++] = one;
	else
		for_each_kernel (k)
			ks[nk++] = k;
	/* every case parses before any search starts (exit 2 on the first that does not) */
	static struct program *progs;
	progs = calloc((size_t)ncases, sizeof(*progs));
	if (!progs)
		abort();
	for (int c = 0; c < ncases; c++) {
		load_case(cases[c], &progs[c]);
		progs[c].npreempts = 0;
	}
	int npairs = ncases * nk;
	if (jobs > npairs)
		jobs = npairs;
	if (jobs < 1)
		jobs = 1;
	printf("explore: %d %s x %d %s, at most %d %s, at most %lld %s each, %ld %s\n", ncases,
	       plural(ncases, "program", "programs"), nk, plural(nk, "kernel", "kernels"), s.K,
	       plural(s.K, "preemption", "preemptions"), s.max,
	       plural(s.max, "schedule", "schedules"), jobs, plural(jobs, "process", "processes"));
	fflush(stdout);

	/* the workers: worker j takes the pairs j, j + J, ... and writes its records to a
	 * file of its own; the lines and the table come from them, in order */
	FILE *rec[1024];
	pid_t pid[1024];
	for (long j = 0; j < jobs; j++) {
		rec[j] = tmpfile();
		if (!rec[j]) {
			fprintf(stderr, "snafu evaluate --explore: tmpfile: %s\n", strerror(errno));
			return 2;
		}
		pid[j] = fork();
		if (pid[j] < 0) {
			fprintf(stderr, "snafu evaluate --explore: fork: %s\n", strerror(errno));
			return 2;
		}
		if (pid[j])
			continue;
		for (int i = (int)j; i < npairs; i += (int)jobs) {
			struct eval_res r = {.prog = i / nk, .kern = i % nk};
			s.p = &progs[r.prog];
			s.k = ks[r.kern];
			explore_run_search(&s);
			r.found = s.found;
			r.cut = s.budget_hit;
			r.npreempts = s.found ? explore_found.npreempts : 0;
			memcpy(r.pre, explore_found.preempts,
			       sizeof(r.pre[0]) * (size_t)r.npreempts);
			r.explored = s.explored;
			r.traces = s.traces;
			r.bound_hit = s.bound_hit;
			r.full = s.full;
			snprintf(r.verdict, sizeof(r.verdict), "%s", s.found ? s.verdict : "ok");
			fwrite(&r, sizeof(r), 1, rec[j]);
		}
		fflush(rec[j]);
		_exit(0);
	}
	int failed = 0;
	for (long j = 0; j < jobs; j++) {
		int st;
		if (waitpid(pid[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "snafu evaluate --explore: worker %ld failed (status %d)\n",
				j + 1, st);
			failed = 1;
		}
	}
	struct eval_res *res = calloc((size_t)npairs, sizeof(*res));
	if (!res)
		abort();
	int nres = 0;
	for (long j = 0; j < jobs; j++) {
		rewind(rec[j]);
		struct eval_res r;
		while (fread(&r, sizeof(r), 1, rec[j]) == 1 && nres < npairs)
			res[r.prog * nk + r.kern] = r, nres++;
		fclose(rec[j]);
	}
	for (int i = 0; i < npairs; i++) {
		struct search t = {.K = s.K, .max = s.max, .nshards = 1};
		const struct eval_res *r = &res[i];
		t.k = ks[r->kern];
		t.found = r->found;
		t.budget_hit = r->cut;
		t.explored = r->explored;
		t.traces = r->traces;
		t.bound_hit = r->bound_hit;
		t.full = r->full;
		t.reduce = s.reduce;
		snprintf(t.verdict, sizeof(t.verdict), "%s", r->verdict);
		explore_found.npreempts = r->npreempts;
		memcpy(explore_found.preempts, r->pre, sizeof(r->pre[0]) * (size_t)r->npreempts);
		say(stdout, &t, case_name(cases[r->prog]), "");
	}
	eval_table(res, npairs, cases, ncases, ks, nk, s.K, s.max, md);
	free(res);
	free(progs);
	if (own_cases)
		for (int c = 0; c < ncases; c++)
			free(cases[c]);
	free(cases);
	return failed || nres != npairs ? 1 : 0;
}
#endif

const struct cli_command explore_command = {"explore", cmd_explore, true, explore_value_opts,
					    explore_help};
