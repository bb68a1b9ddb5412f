/* snafu confirm CASE [--kernel=NAME] [--runs=N] [-o OUT.case]: lockdep predicts a deadlock
 * from one run (ref/lockdep.c) without needing the schedule that deadlocks; this looks
 * for that schedule, and for a run whose verdict is a real deadlock whose wait-for cycle
 * goes through a lock of the predicted classes.
 *
 * The search is systematic, cheapest first, and every run counts toward --runs:
 *  1. one preemption: each task with ops, each of its ops (the predicting task's op at
 *     the report first), each point of the op (1 up to the op's last), to each other
 *     task; first in the case as it is, then with a writer added: an `mmap` (1 page,
 *     private), the smallest op that takes mmap_sem for write, in a task other than the
 *     predicting one (an idle task, a new one, or appended to another task's ops). A
 *     recursive read on a fair rwsem deadlocks only if a writer queues between the two
 *     reads;
 *  2. two preemptions: every pair of the single preemptions that fired in step 1, on
 *     the same programs.
 * The case's own preemptions stay (the added ones come after them). The first run that
 * deadlocks is minimized as `snafu minimize` does (prog/minimize.c, tools/casefile.c),
 * keeping its signature, and written beside the input (CASE without .case, then
 * .confirmed.case) or to OUT.
 *
 * Exit status: 0 confirmed (the case written), 1 not confirmed within the budget (or the
 * whole search space without a deadlock), 2 bad usage or an input whose verdict is not a
 * lockdep prediction.
 */
#include "confirm.h"

#include "../prog/exec.h"
#include "../ref/lockdep.h"
#include "../ref/report.h"
#include "casefile.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SINGLES  4096
#define MAX_VARIANTS 4
#define MAX_PREEMPTS (SIM_MAX_PREEMPTS - 1) /* what the text form holds */

const char *const confirm_value_opts[] = {"--kernel", "--runs", "-o", NULL};

const char confirm_help[] =
    "  confirm [--kernel=NAME] [--runs=N] [-o OUT.case] CASE\n"
    "                          for a case whose verdict is a lockdep prediction\n"
    "                          (lockdep--...), search for a schedule that deadlocks:\n"
    "                          every single preemption, with and without an added writer\n"
    "                          (an mmap in another task), then every pair; minimize the\n"
    "                          first deadlock into CASE.confirmed.case (or OUT); exit 0\n"
    "                          confirmed, 1 not confirmed, 2 bad usage\n"
    "      --kernel=NAME       kernel to run (default " SNAFU_DEFAULT_KERNEL ")\n"
    "      --runs=N            executions to try at most (default 20000)\n";

struct search {
	const struct kernel_config *k;
	struct lockdep_prediction pred; /* the input's */
	long long runs, budget;
	struct run_result r;
	struct program found;
	char verdict[160];
	char how[256]; /* "1 preemption and a writer added (mmap in task 2)" */
};

/* Does the run just made deadlock through one of the predicted classes? */
static bool deadlocks(struct search *s)
{
	int tasks[SIM_MAX_TASKS + 1];
	const char *fns[SIM_MAX_TASKS + 1], *locks[SIM_MAX_TASKS + 1];

	if (s->r.result != SIM_HANG || strncmp(s->r.verdict, "deadlock--", 10))
		return false;
	int n = hung_task_cycle(tasks, fns, locks);
	for (int i = 0; i < n; i++)
		if (locks[i] &&
		    (!strcmp(locks[i], s->pred.locks[0]) || !strcmp(locks[i], s->pred.locks[1])))
			return true;
	return false;
}

/* Run q; true when it confirms (s->found and s->verdict then hold it). */
static bool try_run(struct search *s, const struct program *q)
{
	struct run_opts o = {.no_digest = true};

	s->runs++;
	prog_run(q, s->k, &o, &s->r);
	if (!deadlocks(s))
		return false;
	s->found = *q;
	snprintf(s->verdict, sizeof(s->verdict), "%s", s->r.verdict);
	return true;
}

/* q with an `mmap` (1 page, read-write, private) appended to task u's ops. */
static void add_writer(const struct program *p, struct program *q, int u)
{
	*q = *p;
	struct op *o = &q->ops[q->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = OP_MMAP;
	o->task = (uint8_t)u;
	o->a.map = o->b.map = PROG_NULL_MAP;
	o->x = 0; /* 1 page */
	o->y = 3; /* PROT_READ | PROT_WRITE, private */
	if (u > q->ntasks)
		q->ntasks = u;
	prog_canonicalize(q); /* the ops by task, the mappings renumbered */
}

/* The programs to search: the case as it is, then with a writer in each task other than
 * the predicting one (idle tasks and a new task first). */
static int variants(const struct program *p, const struct search *s, struct program v[MAX_VARIANTS],
		    char what[MAX_VARIANTS][64])
{
	int n = 0, order[PROG_MAX_TASKS + 1], no = 0;

	v[n] = *p;
	snprintf(what[n++], 64, "%s", "");
	if (p->nops >= PROG_MAX_OPS || p->nmaps >= PROG_MAX_MAPS)
		return n;
	for (int pass = 0; pass < 2; pass++) /* idle or new tasks, then busy ones */
		for (int u = 1; u <= PROG_MAX_TASKS && u <= p->ntasks + 1; u++)
			if (u != s->pred.task &&
			    (task_instances(p, u) == 0 || u > p->ntasks) == (pass == 0))
				order[no++] = u;
	for (int i = 0; i < no && n < MAX_VARIANTS; i++) {
		add_writer(p, &v[n], order[i]);
		snprintf(what[n++], 64, " and a writer added (mmap in task %d)", order[i]);
	}
	return n;
}

struct single {
	struct sim_preempt pre;
};

/* Every single preemption of q, the predicting task's reported op first; those that
 * fired go to out[] (for the pairs). True when one confirmed. */
static bool singles(struct search *s, const struct program *q, struct single *out, int *nout)
{
	static struct program c;
	int base = q->npreempts;

	*nout = 0;
	if (base + 1 > MAX_PREEMPTS)
		return false;
	for (int pass = 0; pass < 2; pass++) {
		for (int t = 1; t <= q->ntasks; t++) {
			int n = task_instances(q, t);
			for (int op = 1; op <= n; op++) {
				bool first = t == s->pred.task && op == s->pred.op;
				if (first != (pass == 0))
					continue;
				for (int point = 1; point <= PREEMPT_MAX_POINT; point++) {
					bool past_end = false;
					for (int u = 1; u <= q->ntasks && !past_end; u++) {
						if (u == t)
							continue;
						if (s->runs >= s->budget)
							return false;
						c = *q;
						c.preempts[base] =
						    (struct sim_preempt){.task = (uint8_t)t,
									 .op = (uint16_t)op,
									 .point = (uint16_t)point,
									 .to = (uint8_t)u};
						c.npreempts = base + 1;
						if (try_run(s, &c))
							return true;
						const struct sim_preempt_status *st =
						    &s->r.pre[base];
						if (st->fired && *nout < MAX_SINGLES)
							out[(*nout)++].pre = c.preempts[base];
						/* the op has fewer points: none further fires */
						past_end = !st->fired && st->reached &&
							   st->op_ended && st->points < point;
					}
					if (past_end)
						break;
				}
			}
		}
	}
	return false;
}

static bool pairs(struct search *s, const struct program *q, const struct single *one, int n)
{
	static struct program c;
	int base = q->npreempts;

	if (base + 2 > MAX_PREEMPTS)
		return false;
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			const struct sim_preempt *a = &one[i].pre, *b = &one[j].pre;
			if (a->task == b->task && a->op == b->op && a->point == b->point)
				continue; /* one point, one switch */
			if (s->runs >= s->budget)
				return false;
			c = *q;
			c.preempts[base] = *a;
			c.preempts[base + 1] = *b;
			c.npreempts = base + 2;
			if (try_run(s, &c))
				return true;
		}
	}
	return false;
}

/* The whole search; true when confirmed. *EXHAUSTED: every candidate was tried. */
static bool search(struct search *s, const struct program *p, bool *exhausted)
{
	static struct program v[MAX_VARIANTS];
	static struct single one[MAX_VARIANTS][MAX_SINGLES];
	char what[MAX_VARIANTS][64];
	int n = variants(p, s, v, what), none[MAX_VARIANTS] = {0};

	*exhausted = false;
	/* an added writer alone, in the order the tasks run without preemptions */
	for (int i = 1; i < n; i++) {
		if (s->runs >= s->budget)
			return false;
		if (try_run(s, &v[i])) {
			snprintf(s->how, sizeof(s->how), "no preemption added%s", what[i]);
			return true;
		}
	}
	for (int i = 0; i < n; i++) {
		if (singles(s, &v[i], one[i], &none[i])) {
			snprintf(s->how, sizeof(s->how), "1 preemption%s", what[i]);
			return true;
		}
		if (s->runs >= s->budget)
			return false;
	}
	for (int i = 0; i < n; i++) {
		if (pairs(s, &v[i], one[i], none[i])) {
			snprintf(s->how, sizeof(s->how), "2 preemptions%s", what[i]);
			return true;
		}
		if (s->runs >= s->budget)
			return false;
	}
	*exhausted = true;
	return false;
}

/* OUT's default: beside IN, its .case (or .input) replaced by .confirmed.case. */
static void default_out(const char *in, char *buf, size_t len)
{
	size_t n = strlen(in);

	if (n > 5 && !strcmp(in + n - 5, ".case"))
		n -= 5;
	else if (n > 6 && !strcmp(in + n - 6, ".input"))
		n -= 6;
	snprintf(buf, len, "%.*s.confirmed.case", (int)n, in);
}

int cmd_confirm(int argc, char **argv)
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
	static struct search s;
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
	bool found = search(&s, &p, &exhausted);
	/* the preemptions added, as the text form writes them */
	for (int i = p.npreempts; found && i < s.found.npreempts; i++) {
		char line[80];
		size_t n = strlen(s.how);
		snprintf(s.how + n, sizeof(s.how) - n, "%s%s", i == p.npreempts ? ": " : ", ",
			 prog_preempt_str(&s.found.preempts[i], line, sizeof(line)));
	}
	if (!found) {
		if (exhausted)
			fprintf(msg,
				"confirm: %s [%s]: %s: not confirmed: none of the %lld schedules "
				"deadlocks (every single preemption and every pair of those that "
				"fired, with and without an added writer)\n",
				name, k->name, predicted, s.runs);
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
