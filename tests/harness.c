#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int harness_passed, harness_failed;

static struct task_struct tasks[SIM_MAX_TASKS];
static task_fn bodies[SIM_MAX_TASKS];
static struct mm_struct *mm;

int harness_exit(void)
{
	printf("%d passed, %d failed\n", harness_passed, harness_failed);
	return harness_failed ? 1 : 0;
}

void harness_parse(const char *text, struct program *p)
{
	char err[PROG_ERR_LEN];

	if (prog_parse(text, p, err, sizeof(err))) {
		fprintf(stderr, "harness: bad test program: %s\n", err);
		abort();
	}
}

void run_text_with(const char *text, const char *kernel, unsigned oracles, struct run_result *r)
{
	static struct program p;
	const struct kernel_config *k = kernel_by_name(kernel);

	if (mm) { /* a run_tasks() run left its mm: tear it down before this run */
		mmput(mm);
		mm = NULL;
	}
	if (!k) {
		fprintf(stderr, "harness: bad test program: unknown kernel %s\n", kernel);
		abort();
	}
	harness_parse(text, &p);
	struct run_opts o = {.trace = true, .oracles = oracles};
	prog_run(&p, k, &o, r);
}

void run_text(const char *text, const char *kernel, struct run_result *r)
{
	/* The unit tests check what the kernel does and the deadlock oracle: a verdict "ok"
	 * there means no deadlock, hang, BUG or livelock. Lockdep's prediction, which
	 * every get_user() under mmap_sem makes on 2.6.11-rc4 and olof-rfc, has tests of
	 * its own (tests/test_lockdep.c, the lockdep cases of repro/cases/). */
	run_text_with(text, kernel, ORACLES_UNIT, r);
}

const char *harness_text_for(const char *text, const struct kernel_config *k)
{
	static char buf[4096];
	size_t n = 0;

	if (!k->futex->key_from_page)
		return text;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t l = end ? (size_t)(end - line) : strlen(line);
		if (n + l + 10 >= sizeof(buf)) {
			fprintf(stderr, "harness_text_for: a text of more than %zu bytes\n",
				sizeof(buf) - 10);
			abort();
		}
		memcpy(buf + n, line, l);
		n += l;
		if (!strncmp(line, "  futex_", 8)) {
			memcpy(buf + n, " private", 8);
			n += 8;
		}
		buf[n++] = '\n';
		line += l + (end ? 1 : 0);
	}
	buf[n] = 0;
	return buf;
}

bool want_ret(const struct run_result *r, int op, long want)
{
	return want == NOT_RUN ? !r->ran[op] : r->ran[op] && r->ret[op] == want;
}

int find_event(int from, int task, int op, int kind, const char *fn)
{
	int n, dropped;
	const struct sim_trace_ev *ev = sim_trace_events(&n, &dropped);

	if (from < 0)
		return -1;
	for (int i = from; i < n; i++)
		if ((!task || ev[i].task == task) && (!op || ev[i].op == op) &&
		    ev[i].kind == kind && (!fn || (ev[i].fn && !strcmp(ev[i].fn, fn))))
			return i;
	return -1;
}

int count_events(int kind, const char *fn)
{
	int c = 0;

	for (int i = find_event(0, 0, 0, kind, fn); i >= 0; i = find_event(i + 1, 0, 0, kind, fn))
		c++;
	return c;
}

uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void body(struct sim_task *t)
{
	bodies[t->id - 1]();
}

enum sim_result run_tasks(int n, const task_fn *fns, const struct sim_preempt *pre, int npre)
{
	struct sim_config cfg = {
	    .preempts = pre,
	    .npreempts = npre,
	    .step_budget = 1000000,
	    .trace = true,
	    .on_hang = check_hung_tasks,
	};

	if (mm)
		mmput(mm);
	finding_reset();
	lockdep_reset(true);
	futex_init();
	mm = mm_alloc();
	/* the tests' files: fd 1 and 2 read-write, fd 3 read-only, 4 pages of the pattern */
	static const struct file_spec files[NR_FILES] = {
	    {FILE_MAX_PAGES, FILE_PATTERN, false},
	    {FILE_MAX_PAGES, FILE_PATTERN, false},
	    {FILE_MAX_PAGES, FILE_PATTERN, true},
	};
	files_open(mm, files, NR_FILES);
	sim_init(&cfg);
	for (int i = 0; i < n; i++) {
		memset(&tasks[i], 0, sizeof(tasks[i]));
		tasks[i].mm = mm;
		snprintf(tasks[i].comm, sizeof(tasks[i].comm), "T%d", i + 1);
		bodies[i] = fns[i];
		sim_spawn(&tasks[i].sim, body);
		tasks[i].pid = tasks[i].sim.id;
	}
	return sim_run();
}

struct task_struct *harness_task(int id)
{
	return &tasks[id - 1];
}

struct mm_struct *harness_mm(void)
{
	return mm;
}

char order[256];

void note(const char *what)
{
	size_t n = strlen(order);

	snprintf(order + n, sizeof(order) - n, "%sT%d:%s", n ? " " : "", current->pid, what);
}

void nap(int64_t ticks)
{
	set_current_state(TASK_INTERRUPTIBLE);
	schedule_timeout(ticks);
}

void harness_finding(enum sim_result res, const char *token, const char *what)
{
	CHECK(res == SIM_STOPPED && finding.found && !strcmp(finding.token, token),
	      "%s [%s]: result %d, token '%s', want '%s'", what, kcfg->name, res,
	      finding.found ? finding.token : "(none)", token);
}

void harness_no_finding(enum sim_result res, const char *what)
{
	CHECK(res == SIM_OK && !finding.found, "%s [%s]: result %d, finding '%s'", what, kcfg->name,
	      res, finding.found ? finding.token : "(none)");
}
