#include "harness.h"

#include "../ref/futex.h"
#include "../ref/mm.h"
#include "../ref/report.h"

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

void run_text(const char *text, const char *kernel, struct run_result *r)
{
	static struct program p;
	char err[256];
	const struct kernel_config *k = kernel_by_name(kernel);

	if (mm) { /* a run_tasks() run left its mm: tear it down before this run */
		mmput(mm);
		mm = NULL;
	}
	if (!k || prog_parse(text, &p, err, sizeof(err))) {
		fprintf(stderr, "harness: bad test program (%s): %s\n", kernel,
			k ? err : "unknown kernel");
		abort();
	}
	/* The unit tests check what the kernel does and the deadlock oracle: a verdict "ok"
	 * there means no deadlock, hang, BUG or livelock. Lockdep's prediction, which
	 * every get_user() under mmap_sem makes on 2.6.11-rc4 and olof-rfc, has tests of
	 * its own (tests/test_lockdep.c, the lockdep cases of repro/cases/). */
	struct run_opts o = {.trace = true, .oracles = ORACLES_DEFAULT & ~ORACLE_LOCKDEP};
	prog_run(&p, k, &o, r);
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
