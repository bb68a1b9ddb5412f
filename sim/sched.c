/* The scheduler: who runs next, the virtual clock, and the step budget.
 *
 * Policy (the only source of nondeterminism is the schedule stream):
 *  - at every scheduling point the stream may name another runnable task to switch to;
 *  - otherwise the current task keeps running until it blocks or ends;
 *  - then the lowest-numbered runnable task runs;
 *  - when nobody can run, the earliest timer fires (virtual time jumps forward); the
 *    stream may also fire it at any point (`to timer`), as a timer interrupt could;
 *  - when nobody can run and no timer is pending, the hang callback judges.
 */
#include "sim.h"
#include "fiber.h"
#include "icov.h"
#include "tsan.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct sim_task *sim_cur;

/* ThreadSanitizer's view (fibers switch with no implied synchronisation): what main
 * set up happens before each task starts (world_start), and what a task did before it
 * last blocked or ended happens before main looks at the remains (world_end). Between
 * tasks only the modelled locks and wake-ups order anything. */
static char world_start, world_end;

static struct sim_sched {
	struct sim_config cfg;
	struct sim_task *tasks[SIM_MAX_TASKS];
	int ntasks;
	struct sim_fiber *fibers[SIM_MAX_TASKS]; /* reused between runs */
	struct sim_task *next;                   /* chosen by a preemption */
	enum sim_result stop;
	bool stopping;
	uint64_t now;
	uint64_t steps;
	bool picked_timer; /* stream_pick()'s pick is a timer that fired */
	/* past the step budget, the tasks take turns in rounds of a budget each, this one
	 * from fair_start to fair_end (sim_point()) */
	bool fair;
	uint64_t fair_start, fair_end;
	uint64_t turns_from;             /* the first round's fair_start */
	uint8_t prio[SIM_MAX_TASKS + 1]; /* PCT: the priorities now */
} S;

/* for the gdb helpers (repro/snafu-gdb.py): the task table by an unambiguous name */
struct sim_sched *const sim_gdb_sched = &S;
struct sim_decision sim_last_preempt, sim_last_switch;
int (*sim_point_hook)(const struct sim_task *t);
uint32_t sim_touched[SIM_MAX_TASKS + 1], sim_moves[SIM_MAX_TASKS + 1];
uint64_t sim_touched_pages[SIM_MAX_TASKS + 1];

void sim_touch(uint32_t what)
{
	sim_touched[sim_cur ? sim_cur->id : 0] |= what;
}

void sim_touch_range(unsigned long start, unsigned long end)
{
	int id = sim_cur ? sim_cur->id : 0;

	if (end != start) /* an end below the start wraps: every page */
		sim_touched_pages[id] |=
		    end > start ? sim_page_buckets(start >> 12, (end - 1) >> 12) : ~(uint64_t)0;
	sim_touch(SIM_TOUCH_RANGE);
}

void sim_touch_task_at(const void *base, size_t offset)
{
	int id;

	memcpy(&id, (const char *)base + offset, sizeof(id));
	sim_touch(SIM_TOUCH_TASK(id));
}

void sim_touch_rec_self(void)
{
	if (sim_cur)
		sim_touch(SIM_TOUCH_REC(sim_cur->id));
}

void sim_touch_rec(int id)
{
	sim_touch(SIM_TOUCH_REC(id));
}

void sim_init(const struct sim_config *cfg)
{
	S.cfg = *cfg;
	S.ntasks = 0;
	S.next = NULL;
	S.stopping = false;
	S.now = 0;
	S.steps = 0;
	S.fair = false;
	S.turns_from = 0;
	sim_cur = NULL;
	memset(sim_touched, 0, sizeof(sim_touched));
	memset(sim_touched_pages, 0, sizeof(sim_touched_pages));
	memset(sim_moves, 0, sizeof(sim_moves));
	sim_last_preempt = (struct sim_decision){0};
	sim_last_switch = (struct sim_decision){0};
	sim_tracing = cfg->trace;
	sim_digesting = cfg->trace || !cfg->no_digest;
	sim_traced = sim_digesting || sim_icov;
	sim_icov_reset();
	fiber_main();
	sim_trace_reset();
	if (cfg->pre_status)
		memset(cfg->pre_status, 0, sizeof(*cfg->pre_status) * (size_t)cfg->npreempts);
	if (cfg->pct) {
		memcpy(S.prio, cfg->pct->prio, sizeof(S.prio));
		*cfg->pct->nout = 0;
	}
}

static void task_entry(void *arg)
{
	struct sim_task *t = arg;

	tsan_acquire(&world_start);
	t->fn(t);
	tsan_release(&world_end);
	t->state = SIM_DONE;
	fiber_switch(t->fiber, fiber_main());
	abort(); /* a finished task is never switched to again */
}

struct sim_task *sim_spawn(struct sim_task *t, void (*fn)(struct sim_task *))
{
	int i = S.ntasks;

	if (i >= SIM_MAX_TASKS)
		abort();
	t->id = i + 1;
	t->state = SIM_RUNNABLE;
	t->points = 0;
	t->op = 0;
	t->op_points = 0;
	t->op_step = 0;
	t->spinning_on = NULL;
	t->trying = NULL;
	t->timer_at = SIM_NO_DEADLINE;
	t->timed_out = false;
	t->fn = fn;
	if (!S.fibers[i])
		S.fibers[i] = fiber_create(task_entry, t);
	else
		fiber_reset(S.fibers[i], task_entry, t);
	t->fiber = S.fibers[i];
	S.tasks[S.ntasks++] = t;
	return t;
}

int sim_ntasks(void)
{
	return S.ntasks;
}

struct sim_task *sim_task(int id)
{
	return id >= 1 && id <= S.ntasks ? S.tasks[id - 1] : NULL;
}

uint64_t sim_now(void)
{
	return S.now;
}

uint64_t sim_steps(void)
{
	return S.steps;
}

uint64_t sim_turns_from(void)
{
	return S.turns_from;
}

static void to_scheduler(void)
{
	fiber_switch(sim_cur->fiber, fiber_main());
	if (S.stopping) /* never resumed after a stop; kept as a guard */
		abort();
}

void sim_stop(enum sim_result why)
{
	tsan_release(&world_end);
	S.stop = why;
	S.stopping = true;
	fiber_switch(sim_cur->fiber, fiber_main());
	abort();
}

/* The blocked task whose timer is due first, if any. */
static struct sim_task *earliest_timer(void)
{
	struct sim_task *first = NULL;

	for (int i = 0; i < S.ntasks; i++) {
		struct sim_task *t = S.tasks[i];
		if (t->state == SIM_BLOCKED && t->timer_at != SIM_NO_DEADLINE &&
		    (!first || t->timer_at < first->timer_at))
			first = t;
	}
	return first;
}

/* Fire the earliest timer: the clock jumps to it, its task can run, timed out. */
static struct sim_task *fire_timer(void)
{
	struct sim_task *first = earliest_timer();

	if (!first)
		return NULL;
	if (first->timer_at > S.now)
		S.now = first->timer_at;
	first->timed_out = true;
	first->state = SIM_RUNNABLE;
	sim_moves[first->id]++;
	first->timer_at = SIM_NO_DEADLINE;
	struct sim_task *saved = sim_cur;
	sim_cur = first;
	sim_trace(EV_TIMER, "timer", NULL, (long)S.now, 0);
	sim_cur = saved;
	return first;
}

#define SIM_FAIR_ROUNDS 8 /* rounds of turns past the step budget, at most */

/* Whether a task other than t can run, or a timer can fire to let one. */
static bool others_can_run(const struct sim_task *t)
{
	for (int i = 0; i < S.ntasks; i++)
		if (S.tasks[i] != t && S.tasks[i]->state == SIM_RUNNABLE)
			return true;
	return earliest_timer() != NULL;
}

/* Whether a task that can run is still in a call it began before step `since` (one
 * asleep there waits for another, which is the one to judge) */
static bool in_call_since(uint64_t since)
{
	for (int i = 0; i < S.ntasks; i++)
		if (S.tasks[i]->state == SIM_RUNNABLE && S.tasks[i]->op &&
		    S.tasks[i]->op_step < since)
			return true;
	return false;
}

/* Taking turns: the next task after t (by id, round) that can run; when no other can, the
 * earliest timer fires (virtual time moves on, as real time would); NULL: t runs on. */
static struct sim_task *fair_pick(const struct sim_task *t)
{
	for (int k = 1; k < S.ntasks; k++) {
		struct sim_task *u = S.tasks[(t->id - 1 + k) % S.ntasks];
		if (u->state == SIM_RUNNABLE)
			return u;
	}
	S.picked_timer = earliest_timer() != NULL;
	return fire_timer();
}

/* The preemption the stream holds for this task at this point, if any: the first one
 * that names this point and a task that can run. What becomes of the others goes to
 * cfg.pre_status (it changes nothing in the run). */
static struct sim_task *stream_pick(const struct sim_task *t)
{
	struct sim_preempt_status *status = S.cfg.pre_status;
	struct sim_task *pick = NULL;

	S.picked_timer = false;
	for (int i = 0; i < S.cfg.npreempts; i++) {
		const struct sim_preempt *p = &S.cfg.preempts[i];
		if (p->task != t->id || (p->op && p->op != t->op))
			continue;
		uint32_t at = p->op ? t->op_points : t->points;
		if (status && at > status[i].points)
			status[i].points = at > 65535 ? 65535 : (uint16_t)at;
		if (p->point != at)
			continue;
		if (p->to == SIM_TO_TIMER) {
			if (!pick && earliest_timer()) {
				pick = fire_timer();
				S.picked_timer = true;
				if (status)
					status[i].fired = true;
			} else if (status && !status[i].fired) {
				status[i].shadowed = pick != NULL;
				status[i].no_timer = !pick;
			}
			continue;
		}
		struct sim_task *to = sim_task(p->to);
		if (!pick && to && to != t && to->state == SIM_RUNNABLE) {
			pick = to;
			if (status)
				status[i].fired = true;
		} else if (status && !status[i].fired) {
			if (pick)
				status[i].shadowed = true;
			else if (to)
				status[i].to_state = (uint8_t)(to->state + 1);
		}
	}
	return pick;
}

/* PCT (sim.h): the priority change points at this step, then the task to switch to, if
 * a runnable one has a higher priority than t and a preemption can name the switch. */
static struct sim_task *pct_pick(struct sim_task *t)
{
	const struct sim_pct *pct = S.cfg.pct;
	struct sim_task *best = t;

	for (int j = 0; j < pct->nchange; j++)
		if (pct->change[j] == S.steps)
			S.prio[t->id] = (uint8_t)(j + 1);
	if (!t->op || t->op_points > SIM_PCT_MAX_POINT || *pct->nout >= pct->max)
		return NULL;
	for (int i = 0; i < S.ntasks; i++) {
		struct sim_task *u = S.tasks[i];
		if (u->state == SIM_RUNNABLE && S.prio[u->id] > S.prio[best->id])
			best = u;
	}
	if (best == t)
		return NULL;
	pct->out[(*pct->nout)++] = (struct sim_preempt){
	    .task = (uint8_t)t->id, .op = t->op, .point = t->op_points, .to = (uint8_t)best->id};
	S.picked_timer = false;
	return best;
}

/* The run is over: where each preemption's task got to. */
static void finish_status(void)
{
	struct sim_preempt_status *status = S.cfg.pre_status;

	for (int i = 0; status && i < S.cfg.npreempts; i++) {
		const struct sim_preempt *p = &S.cfg.preempts[i];
		const struct sim_task *t = sim_task(p->task);
		if (!t)
			continue;
		status[i].task_ops = t->op;
		status[i].reached = !p->op || t->op >= p->op;
		status[i].op_ended = t->state == SIM_DONE || (p->op && t->op > p->op);
	}
}

/* --stop-at-step (sim.h): the debugger stops in here, one frame below sim_point() */
__attribute__((noinline)) void sim_step_trap(uint64_t step, const char *site)
{
	(void)step;
	(void)site;
	raise(SIGTRAP);
}

void sim_point(const char *site)
{
	struct sim_task *t = sim_cur, *to;

	t->points++;
	t->op_points++;
	sim_trace(EV_POINT, site, NULL, 0, 0);
	if (++S.steps == S.cfg.stop_at_step) /* 0: never (steps start at 1) */
		sim_step_trap(S.steps, site);
	/* The step budget. A task still in its call then may only be waiting for one that the
	 * schedule never let run: here a task runs until it blocks, ends or is preempted,
	 * where a kernel gives the others their turn (other CPUs, cond_resched(), the timer
	 * tick). So unless nothing else can run, the tasks then take turns, timers firing
	 * when nobody else can run, and no schedule stream, PCT or search decides, in rounds
	 * of a budget each: a round at whose end a call is still running that began before
	 * it is a livelock, a round in which every call began is progress, and another round
	 * follows, up to SIM_FAIR_ROUNDS (then the run is a livelock all the same). */
	if (S.steps > S.cfg.step_budget) {
		if (!S.fair) {
			if (!others_can_run(t))
				sim_stop(SIM_LIVELOCK);
			S.fair = true;
			S.fair_start = S.turns_from = S.steps;
			S.fair_end = S.steps + S.cfg.step_budget;
		} else if (S.steps > S.fair_end) {
			if (in_call_since(S.fair_start) ||
			    S.steps > S.cfg.step_budget * (SIM_FAIR_ROUNDS + 1))
				sim_stop(SIM_LIVELOCK);
			S.fair_start = S.steps;
			S.fair_end = S.steps + S.cfg.step_budget;
		}
	}
	S.picked_timer = false;
	if (S.fair)
		to = fair_pick(t);
	else if (sim_point_hook) {
		int d = sim_point_hook(t);
		S.picked_timer = d == SIM_TO_TIMER;
		to = d == SIM_HOOK_CONTINUE ? NULL : S.picked_timer ? fire_timer() : sim_task(d);
	} else if (S.cfg.pct)
		to = pct_pick(t);
	else
		to = S.cfg.npreempts ? stream_pick(t) : NULL;
	if (to) {
		sim_trace(EV_PREEMPT, site, NULL, to->id, 0);
		sim_last_preempt = (struct sim_decision){.step = S.steps,
							 .from = t->id,
							 .to = to->id,
							 .op = t->op,
							 .point = t->op_points,
							 .why = S.picked_timer ? "timer"
								: S.fair       ? "turn"
									       : "preempt",
							 .site = site};
		S.next = to;
		to_scheduler();
	}
}

bool sim_should_stop(void)
{
	return false;
}

bool sim_tasks_left(void)
{
	return false;
}

uint64_t sim_hung_since(void)
{
	return S.now; /* virtual time stands still while everyone sleeps */
}

void sim_op_begin(void)
{
	sim_cur->op++;
	sim_cur->op_points = 0;
	sim_cur->op_step = S.steps;
}

void sim_block(void)
{
	tsan_release(&world_end);
	sim_cur->state = SIM_BLOCKED;
	sim_moves[sim_cur->id]++;
	to_scheduler();
}

bool sim_block_until(uint64_t deadline)
{
	struct sim_task *t = sim_cur;

	t->timer_at = deadline;
	t->timed_out = false;
	sim_block();
	t->timer_at = SIM_NO_DEADLINE;
	return t->timed_out;
}

void sim_wake(struct sim_task *t)
{
	tsan_release(t); /* the waker's writes happen before the wakee runs on */
	if (t->state != SIM_BLOCKED)
		return;
	t->state = SIM_RUNNABLE;
	sim_moves[t->id]++;
	t->timer_at = SIM_NO_DEADLINE;
}

bool sim_sleep(_Atomic long *state, uint64_t deadline)
{
	struct sim_task *t = sim_cur;
	bool timed_out = false;

	while (*state != 0 && !timed_out) {
		timed_out =
		    deadline != SIM_NO_DEADLINE ? sim_block_until(deadline) : (sim_block(), false);
		sim_touch(SIM_TOUCH_TASK(t->id)); /* reads its state word again */
	}
	tsan_acquire(t);
	return timed_out && *state != 0;
}

/* Spinners wait in the simulator; the unlock makes them runnable to try again. */
bool sim_spin_trylock(struct sim_spin *s)
{
	if (s->locked)
		return false;
	s->locked = 1;
	tsan_acquire(s);
	return true;
}

void sim_spin_lock(struct sim_spin *s)
{
	struct sim_task *t = sim_cur;

	while (!sim_spin_trylock(s)) {
		t->spinning_on = s;
		sim_block();
	}
	t->spinning_on = NULL;
}

void sim_spin_next(struct sim_spin *s)
{
	if (sim_cur)
		sim_cur->trying = s;
}

void sim_spin_unlock(struct sim_spin *s)
{
	tsan_release(s);
	s->locked = 0;
	for (int i = 0; i < S.ntasks; i++)
		if (S.tasks[i]->spinning_on == s)
			sim_wake(S.tasks[i]);
}

void sim_hw_begin(void)
{
	tsan_ignore_begin();
}

void sim_hw_end(void)
{
	tsan_ignore_end();
}

static struct sim_task *lowest_runnable(void)
{
	for (int i = 0; i < S.ntasks; i++)
		if (S.tasks[i]->state == SIM_RUNNABLE)
			return S.tasks[i];
	return NULL;
}

/* sim_run()'s reasons for a switch, for interleaving coverage (sim/icov.h) */
static int why_code(const char *why)
{
	switch (why[0]) {
	case 'p':
		return ICOV_WHY_PREEMPT;
	case 'b':
		return ICOV_WHY_BLOCKED;
	case 'd':
		return ICOV_WHY_DONE;
	default:
		return ICOV_WHY_TIMER;
	}
}

enum sim_result sim_run(void)
{
	struct sim_task *t = NULL, *ran = NULL; /* ran: the task that ran last */
	const char *why = "start";

	tsan_release(&world_start);
	for (;;) {
		if (S.next) {
			t = S.next;
			S.next = NULL;
			why = "preempt";
		} else if (!t || t->state != SIM_RUNNABLE) {
			if (t)
				why = t->state == SIM_DONE ? "done" : "blocked";
			t = lowest_runnable();
		}
		if (!t) {
			if (fire_timer()) {
				why = "timer";
				continue;
			}
			bool all_done = true;
			for (int i = 0; i < S.ntasks; i++)
				if (S.tasks[i]->state != SIM_DONE)
					all_done = false;
			tsan_acquire(&world_end);
			finish_status();
			if (all_done || !S.cfg.on_hang)
				return SIM_OK;
			/* the watchdog reads a frozen world; it races with nothing */
			tsan_ignore_begin();
			bool hung = S.cfg.on_hang(S.cfg.ctx);
			tsan_ignore_end();
			return hung ? SIM_HANG : SIM_OK;
		}
		if (t != ran) { /* the last switch, for the gdb helpers */
			sim_last_switch = (struct sim_decision){
			    .step = S.steps, .from = ran ? ran->id : 0, .to = t->id, .why = why};
			if (sim_icov && ran)
				sim_icov_switch(why_code(why), ran->id, t->id);
		}
		ran = t;
		sim_cur = t;
		fiber_switch(fiber_main(), t->fiber);
		sim_cur = NULL;
		if (S.stopping) {
			tsan_acquire(&world_end);
			finish_status();
			return S.stop;
		}
	}
}
