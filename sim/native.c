/* The native runtime: the same kernel model on real threads.
 *
 * One pthread per task, sim_cur per thread, spinlocks that really spin (C11 atomics),
 * sleeping and waking on a per-task mutex and condition variable around the task's
 * state word (the kernel's protocol: the waker sets TASK_RUNNING, then wakes). The
 * calling thread is khungtaskd: it looks every 100 ms for a task blocked in the kernel,
 * uninterruptibly or spinning, for longer than the threshold, and then asks the
 * kernel's hung-task judgement (ref/hung_task.c) for the report. Virtual ticks are
 * milliseconds here. There is no trace and no digest: real threads are not replayable.
 * Optional chaos: at scheduling points, seeded random yields and short sleeps widen
 * the races, in the spirit of rr's chaos mode.
 */
#include "sim.h"
#include "tsan.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

SIM_TLS struct sim_task *sim_cur;
bool sim_tracing, sim_digesting, sim_traced;

struct native_task {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic uint64_t blocked_since; /* ms; 0 while running */
	uint64_t rng;
};

static struct {
	struct sim_config cfg;
	struct sim_task *tasks[SIM_MAX_TASKS];
	struct native_task nt[SIM_MAX_TASKS];
	int ntasks;
	uint64_t start_ns;
	_Atomic uint64_t steps;
	_Atomic int stop; /* a checker stopped the run: its sim_result */
	_Atomic bool time_up;
	bool left; /* sim_run() returned with tasks not done (time up): sim_tasks_left() */
	_Atomic int done;
	uint64_t hung_since;
} N;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t sim_now(void)
{
	return (now_ns() - N.start_ns) / 1000000u;
}

uint64_t sim_steps(void)
{
	return N.steps;
}

uint64_t sim_turns_from(void)
{
	return 0; /* real threads have no step budget */
}

int sim_ntasks(void)
{
	return N.ntasks;
}

struct sim_task *sim_task(int id)
{
	return id >= 1 && id <= N.ntasks ? N.tasks[id - 1] : NULL;
}

static struct native_task *nt_of(const struct sim_task *t)
{
	return &N.nt[t->id - 1];
}

void sim_init(const struct sim_config *cfg)
{
	N.cfg = *cfg;
	if (!N.cfg.hang_ms)
		N.cfg.hang_ms = 2000;
	N.ntasks = 0;
	N.steps = 0;
	N.stop = SIM_OK;
	N.time_up = false;
	N.left = false;
	N.done = 0;
	N.start_ns = now_ns();
	sim_tracing = sim_digesting = sim_traced = false;
}

struct sim_task *sim_spawn(struct sim_task *t, void (*fn)(struct sim_task *))
{
	int i = N.ntasks++;
	struct native_task *nt = &N.nt[i];

	if (i >= SIM_MAX_TASKS)
		abort();
	t->id = i + 1;
	t->state = SIM_RUNNABLE;
	t->points = t->op = t->op_points = 0;
	t->fn = fn;
	t->spinning_on = NULL;
	N.tasks[i] = t;
	pthread_mutex_init(&nt->mu, NULL);
	pthread_cond_init(&nt->cv, NULL);
	nt->blocked_since = 0;
	nt->rng = N.cfg.chaos_seed * 0x9e3779b97f4a7c15ull + (uint64_t)t->id;
	return t;
}

static void *thread_main(void *arg)
{
	struct sim_task *t = arg;

	sim_cur = t;
	t->fn(t);
	t->state = SIM_DONE;
	N.done++;
	return NULL;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void sim_point(const char *site)
{
	struct sim_task *t = sim_cur;

	(void)site;
	t->points++;
	t->op_points++;
	N.steps++;
	if (N.cfg.chaos_seed) {
		uint64_t r = xorshift(&nt_of(t)->rng);
		if ((r & 15) == 0)
			sched_yield();
		else if ((r & 1023) == 1)
			usleep((useconds_t)(r >> 20) % 200);
	}
}

void sim_op_begin(void)
{
	sim_cur->op++;
	sim_cur->op_points = 0;
}

uint64_t sim_hung_since(void)
{
	return N.hung_since;
}

bool sim_should_stop(void)
{
	return N.time_up || N.stop != SIM_OK;
}

bool sim_tasks_left(void)
{
	return N.left;
}

static void mark_blocked(struct sim_task *t, bool blocked)
{
	nt_of(t)->blocked_since = blocked ? sim_now() + 1 : 0;
	t->state = blocked ? SIM_BLOCKED : SIM_RUNNABLE;
}

bool sim_sleep(_Atomic long *state, uint64_t deadline)
{
	struct sim_task *t = sim_cur;
	struct native_task *nt = nt_of(t);
	bool timed_out = false;
	struct timespec abs;

	if (deadline != SIM_NO_DEADLINE) {
		uint64_t ns = N.start_ns + deadline * 1000000u;
		abs.tv_sec = (time_t)(ns / 1000000000u);
		abs.tv_nsec = (long)(ns % 1000000000u);
	}
	pthread_mutex_lock(&nt->mu);
	mark_blocked(t, true);
	while (*state != 0 && !timed_out) {
		if (deadline !=
		    SIM_NO_DEADLINE) /* CLOCK_MONOTONIC: see the condattr in sim_spawn */
			timed_out = pthread_cond_timedwait(&nt->cv, &nt->mu, &abs) != 0;
		else
			pthread_cond_wait(&nt->cv, &nt->mu);
	}
	mark_blocked(t, false);
	pthread_mutex_unlock(&nt->mu);
	return timed_out && *state != 0;
}

void sim_wake(struct sim_task *t)
{
	struct native_task *nt = nt_of(t);

	pthread_mutex_lock(&nt->mu);
	pthread_cond_signal(&nt->cv);
	pthread_mutex_unlock(&nt->mu);
}

bool sim_spin_trylock(struct sim_spin *s)
{
	int expect = 0;

	return atomic_compare_exchange_strong_explicit(&s->locked, &expect, 1, memory_order_acquire,
						       memory_order_relaxed);
}

void sim_spin_lock(struct sim_spin *s)
{
	struct sim_task *t = sim_cur;

	t->spinning_on = s;
	mark_blocked(t, true);
	for (unsigned n = 0; !sim_spin_trylock(s); n++) {
		while (atomic_load_explicit(&s->locked, memory_order_relaxed))
			if (++n % 64 == 0)
				sched_yield(); /* two cores, many spinners: let the holder run */
	}
	mark_blocked(t, false);
	t->spinning_on = NULL;
}

void sim_spin_next(struct sim_spin *s)
{
	(void)s; /* real threads: nobody explores them */
}

void sim_spin_unlock(struct sim_spin *s)
{
	atomic_store_explicit(&s->locked, 0, memory_order_release);
}

void sim_hw_begin(void)
{
	tsan_ignore_begin();
}

void sim_hw_end(void)
{
	tsan_ignore_end();
}

void sim_stop(enum sim_result why)
{
	int ok = SIM_OK;

	atomic_compare_exchange_strong(&N.stop, &ok, (int)why);
	for (;;)
		pause(); /* the run is over; the process reports and exits */
}

/* khungtaskd: is any task blocked for longer than the threshold? */
static bool someone_hung(void)
{
	uint64_t now = sim_now();

	for (int i = 0; i < N.ntasks; i++) {
		uint64_t since = N.nt[i].blocked_since; /* may be newer than `now` */
		if (since && since <= now + 1 && now + 1 - since >= N.cfg.hang_ms) {
			N.hung_since = since - 1;
			return true;
		}
	}
	return false;
}

enum sim_result sim_run(void)
{
	for (int i = 0; i < N.ntasks; i++) {
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_destroy(&N.nt[i].cv);
		pthread_cond_init(&N.nt[i].cv, &ca);
		if (pthread_create(&N.nt[i].thread, NULL, thread_main, N.tasks[i]) != 0)
			abort();
	}
	uint64_t next_progress = N.cfg.progress_ms;
	for (;;) {
		usleep(100 * 1000);
		if (N.cfg.progress && N.cfg.progress_ms && sim_now() >= next_progress) {
			next_progress += N.cfg.progress_ms;
			N.cfg.progress(N.cfg.ctx, sim_now());
		}
		if (N.stop != SIM_OK)
			return (enum sim_result)N.stop; /* threads left parked */
		if (N.done == N.ntasks)
			break;
		if (N.cfg.wall_limit_ms && sim_now() >= N.cfg.wall_limit_ms)
			N.time_up = true;
		/* time is up and what is left sleeps interruptibly for good, or is only slow (a
		 * loaded machine): leave it, and the caller leaves its mm alone (it may still
		 * fault pages into it) */
		if (N.time_up && sim_now() >= N.cfg.wall_limit_ms + N.cfg.hang_ms) {
			N.left = N.done != N.ntasks;
			return SIM_OK;
		}
		if (someone_hung()) {
			/* the hung tasks stay where they are: read their state as it is */
			tsan_ignore_begin();
			bool hung = N.cfg.on_hang && N.cfg.on_hang(N.cfg.ctx);
			tsan_ignore_end();
			if (hung)
				return SIM_HANG;
		}
	}
	for (int i = 0; i < N.ntasks; i++)
		pthread_join(N.nt[i].thread, NULL);
	return SIM_OK;
}

/* No event log on real threads. */
void sim_trace_record(int kind, const char *fn, const char *obj, long arg, long arg2)
{
	(void)kind, (void)fn, (void)obj, (void)arg, (void)arg2;
}

void sim_trace_reset(void)
{
}

uint64_t sim_digest(void)
{
	return 0;
}

const struct sim_trace_ev *sim_trace_events(int *n, int *dropped)
{
	*n = *dropped = 0;
	return NULL;
}
