/* The user side of a run: each task executes its ops as system calls into ref/.
 *
 * Syscall entry and exit are scheduling points. A pending signal is delivered on the way
 * back to user mode (the handler does nothing). A user-mode fault ends the op with a
 * recorded SIGSEGV instead of killing the process.
 */
#include "exec.h"
#include "ops.h"

#include "../ref/futex.h"
#include "../ref/futex_oracle.h"
#include "../ref/mempolicy.h"
#include "../ref/integrity.h"
#include "../ref/mm.h"
#include "../ref/ptrace.h"
#include "../ref/report.h"
#include "../ref/uaccess.h"

#include <stdatomic.h>
#include <string.h>

#define STEPS_PER_CALL 4096 /* step budget per system call before calling it livelock */

static struct {
	const struct program *p;
	struct task_struct tasks[PROG_MAX_TASKS];
	struct mm_struct *mm;
	_Atomic unsigned long map_addr[PROG_MAX_MAPS]; /* where each mapping landed; 0 before */
	_Atomic uint64_t iterations;
	char desc[PROG_MAX_OPS][64]; /* each call's arguments for the trace (prog/ops.c) */
	long ret[PROG_MAX_OPS];
	bool ran[PROG_MAX_OPS];
	uint32_t loaded[PROG_MAX_OPS];
	int cur[PROG_MAX_TASKS + 1]; /* each task's op now (by pid), for a livelock's name */
	bool loop;
} R;

static unsigned long uaddr(const struct uref *u)
{
	unsigned long base = u->map == PROG_NULL_MAP ? 0 : R.map_addr[u->map];

	return base + u->page * PAGE_SIZE + u->word * 4u + (u->misaligned ? 2u : 0u);
}

static void sys_enter(const char *name, const char *detail)
{
	current->syscall = name;
	sim_trace(EV_SYSCALL, name, detail, 0, 0);
	sched_point(name);
}

static void sys_exit(long ret)
{
	struct task_struct *tsk = current;

	sim_trace(EV_SYSRET, tsk->syscall, NULL, ret, 0);
	sched_point("syscall exit");
	tsk->syscall = NULL;
	sim_touch_task(tsk, pid); /* sigpending, which send_sig() sets */
	if (tsk->sigpending) {    /* do_signal() on the way out */
		tsk->sigpending = false;
		tsk->signals_delivered++;
		sim_trace(EV_SIGNAL, "signal delivered", tsk->comm, 0, 0);
	}
}

int prog_wake_op_args(const struct op *o, int *nr_wake, int *nr_wake2)
{
	const struct op_desc *d = &op_table[OP_FUTEX_WAKE_OP];
	int arg[OP_MAX_ARGS];

	for (int k = 0; k < OP_MAX_ARGS && d->args[k].name; k++)
		arg[k] = op_arg_get(o, &d->args[k]);
	/* args: A, B, nr_wake, nr_wake2, op, shift, oparg, cmp, cmparg (prog/ops.c) */
	*nr_wake = arg[2];
	*nr_wake2 = arg[3];
	return FUTEX_OP(arg[4] | (arg[5] ? FUTEX_OP_OPARG_SHIFT : 0), arg[6], arg[7], arg[8]);
}

int prog_futex_cmd(const struct op *o, int cmd)
{
	return cmd | (op_arg_get(o, &op_arg_private) ? FUTEX_PRIVATE_FLAG : 0);
}

static long run_op(const struct op *o, int idx, unsigned long a)
{
	const char *sys = op_table[o->kind].syscall; /* its name and trace: prog/ops.c */
	unsigned long b = uaddr(&o->b);
	long ret = 0;
	uint32_t v;

	if (sys)
		sys_enter(sys, R.desc[idx]);
	switch (o->kind) {
	case OP_MMAP: {
		/* the N-th file declared is fd N (ref/filemap.c); none: anonymous, or
		 * /dev/zero shared */
		int file = o->y >> 4 & 3;
		ret = sys_mmap2(0, (o->x + 1ul) * PAGE_SIZE, o->y & 7,
				(o->y & 8) ? MAP_SHARED : MAP_PRIVATE | (file ? 0 : MAP_ANONYMOUS),
				file ? file : -1, 0);
		if (ret > 0)
			R.map_addr[mmap_index_of(R.p, idx)] = (unsigned long)ret;
		break;
	}
	case OP_MUNMAP:
		ret = sys_munmap(a, (o->x + 1ul) * PAGE_SIZE);
		break;
	case OP_MPROTECT:
		ret = sys_mprotect(a, (o->x + 1ul) * PAGE_SIZE, o->y);
		break;
	case OP_LOAD:
		ret = user_load(a, &v);
		R.loaded[idx] = v;
		return ret;
	case OP_STORE:
		return user_store(a, o->x);
	case OP_FUTEX_WAIT:
		ret = do_futex(a, prog_futex_cmd(o, FUTEX_WAIT), o->x,
			       o->y ? o->y : MAX_SCHEDULE_TIMEOUT, 0, 0, 0);
		break;
	case OP_FUTEX_WAKE:
		ret = do_futex(a, prog_futex_cmd(o, FUTEX_WAKE), o->x, 0, 0, 0, 0);
		break;
	case OP_FUTEX_REQUEUE:
	case OP_FUTEX_CMP_REQUEUE:
		ret = do_futex(a,
			       prog_futex_cmd(o, o->kind == OP_FUTEX_REQUEUE ? FUTEX_REQUEUE
									     : FUTEX_CMP_REQUEUE),
			       o->x & 15, 0, b, o->x >> 4, o->y);
		break;
	case OP_FUTEX_WAKE_OP: {
		int nr_wake, nr_wake2;
		int encoded = prog_wake_op_args(o, &nr_wake, &nr_wake2);
		ret =
		    do_futex(a, prog_futex_cmd(o, FUTEX_WAKE_OP), nr_wake, 0, b, nr_wake2, encoded);
		break;
	}
	case OP_GET_MEMPOLICY:
		ret = sys_get_mempolicy(a, o->x ? a + 8 : 0, o->x ? 64 : 0,
					(o->y & MPOL_F_ADDR) ? b : 0, o->y);
		break;
	case OP_KILL:
		send_sig(&R.tasks[o->x % R.p->ntasks]);
		break;
	case OP_SLEEP:
		set_current_state(TASK_INTERRUPTIBLE);
		schedule_timeout(o->x);
		set_current_state(TASK_RUNNING);
		break;
	case OP_RECLAIM:
		/* kernel context, standing in for kswapd: no syscall around it */
		return shrink_page(current->mm, a);
	case OP_MADVISE:
		ret = sys_madvise(a, (o->x + 1ul) * PAGE_SIZE, MADV_DONTNEED);
		break;
	case OP_MINCORE:
		ret = sys_mincore(a, (o->x + 1ul) * PAGE_SIZE, b);
		break;
	case OP_MLOCK:
		ret = sys_mlock(a, (o->x + 1ul) * PAGE_SIZE);
		break;
	case OP_PEEKDATA:
		v = 0;
		ret = sys_ptrace(PTRACE_PEEKDATA, a, &v);
		R.loaded[idx] = v;
		break;
	case OP_POKEDATA:
		v = o->x;
		ret = sys_ptrace(PTRACE_POKEDATA, a, &v);
		break;
	}
	sys_exit(ret);
	return ret;
}

static void run_task_ops(struct task_struct *tsk);

static void task_main(struct sim_task *st)
{
	struct task_struct *tsk = (struct task_struct *)st;

	bool has_ops = false;

	for (int i = 0; i < R.p->nops; i++)
		has_ops |= R.p->ops[i].task == tsk->pid;
	do {
		run_task_ops(tsk);
		if (has_ops) /* an idle task runs once and counts no rounds */
			R.iterations++;
	} while (has_ops && R.loop && !sim_should_stop());
}

static void run_task_ops(struct task_struct *tsk)
{
	for (int i = 0; i < R.p->nops; i++) {
		const struct op *o = &R.p->ops[i];
		if (o->task != tsk->pid)
			continue;
		unsigned long a = uaddr(&o->a);
		int n = op_instances(R.p, i);
		R.cur[tsk->pid] = i;
		for (int k = 0; k < n; k++) {
			sim_op_begin();
			R.ret[i] = run_op(o, i, a + (unsigned long)k * PAGE_SIZE);
		}
		R.ran[i] = true;
	}
}

static void (*progress_fn)(uint64_t now_ms, uint64_t iterations);

static void progress(void *ctx, uint64_t now_ms)
{
	(void)ctx;
	progress_fn(now_ms, R.iterations);
}

void prog_run(const struct program *p, const struct kernel_config *k, const struct run_opts *o,
	      struct run_result *r)
{
	uint64_t calls = 0;
	unsigned oracles = o->oracles ? o->oracles : ORACLES_DEFAULT;

	for (int i = 0; i < p->nops; i++)
		calls += (uint64_t)op_instances(p, i);
	struct sim_pct pct = {.nchange = p->pct.nchange,
			      .out = r->made,
			      .max = SIM_MAX_PREEMPTS - 1, /* what a case may hold */
			      .nout = &r->nmade};
	memcpy(pct.prio + 1, p->pct.prio, sizeof(p->pct.prio));
	memcpy(pct.change, p->pct.change, sizeof(pct.change));
	struct sim_config cfg = {
	    .preempts = o->no_schedule ? NULL : p->preempts,
	    .npreempts = o->no_schedule ? 0 : p->npreempts,
	    .pct = o->no_schedule || !p->pct.on ? NULL : &pct,
	    .step_budget = 10000 + calls * STEPS_PER_CALL,
	    .trace = o->trace,
	    .no_digest = o->no_digest,
	    .stop_at_step = o->stop_at_step,
	    .on_hang = (oracles & ORACLE_DEADLOCK) ? check_hung_tasks : NULL,
	    .wall_limit_ms = o->seconds * 1000,
	    .hang_ms = o->hang_ms,
	    .chaos_seed = o->chaos_seed,
	    .pre_status = r->pre,
	    .progress_ms = o->progress ? o->progress_ms : 0,
	    .progress = o->progress ? progress : NULL,
	};

	kcfg = k;
	progress_fn = o->progress;
#ifdef SNAFU_NATIVE
	r->npreempts = 0; /* real threads follow no schedule */
#else
	r->npreempts = cfg.npreempts;
#endif
	memset(r->pre, 0, sizeof(r->pre));
	r->nmade = 0;
	R.p = p;
	R.loop = o->loop;
	R.iterations = 0;
	/* relaxed: no task runs yet (real threads start after this); a seq_cst store is an
	 * xchg, and 255 of them were 9 % of the fuzzer's CPU */
	for (int i = 0; i < PROG_MAX_MAPS; i++)
		atomic_store_explicit(&R.map_addr[i], 0, memory_order_relaxed);
	memset(R.ran, 0, sizeof(R.ran[0]) * (size_t)p->nops);
	memset(R.loaded, 0, sizeof(R.loaded[0]) * (size_t)p->nops);
	memset(R.cur, 0, sizeof(R.cur));
	if (o->trace)
		for (int i = 0; i < p->nops; i++)
			op_trace_args(&p->ops[i], R.desc[i], sizeof(R.desc[i]));
	finding_reset();
	integrity_reset();
	lockdep_reset((oracles & ORACLE_LOCKDEP) || o->lockdep_guide);
	futex_init();
	R.mm = mm_alloc();
	files_open(R.mm, p->files, p->nfiles);
	sim_init(&cfg);
	for (int i = 0; i < p->ntasks; i++) {
		struct task_struct *t = &R.tasks[i];
		memset(t, 0, sizeof(*t));
		t->mm = R.mm;
		snprintf(t->comm, sizeof(t->comm), "T%d", i + 1);
		sim_spawn(&t->sim, task_main);
		t->pid = t->sim.id;
	}

	r->result = sim_run();
	r->digest = sim_digest();
	r->steps = sim_steps();
	r->segv = 0;
	r->iterations = R.iterations;
	sim_hw_begin(); /* the tasks are gone, or hung for good: look at what they left */
	/* interleaving coverage, if on (sim/icov.h) */
	futex_oracles_features();
	for (int i = 0; i < p->ntasks; i++)
		r->segv += R.tasks[i].segv;
	/* the oracles that judge a run that ended well (docs/oracles.md) */
	if (r->result == SIM_OK &&
	    futex_oracles_judge(oracles & ORACLE_LOST_WAKEUP, oracles & ORACLE_RESULT))
		r->result = SIM_ORACLE;
	if (r->result == SIM_OK && (oracles & ORACLE_INTEGRITY) && integrity_judge())
		r->result = SIM_ORACLE;
	if (r->result == SIM_LIVELOCK && !finding.found) {
		/* the task longest in its call names it (the first of those tied) */
		int looping = 1;
		for (int i = 1; i <= p->ntasks; i++) {
			const struct sim_task *t = &R.tasks[i - 1].sim,
					      *l = &R.tasks[looping - 1].sim;
			if (t->state != SIM_DONE &&
			    (l->state == SIM_DONE || t->op_points > l->op_points))
				looping = i;
		}
		livelock_finding(looping, op_table[p->ops[R.cur[looping]].kind].name);
	}
	if (r->result == SIM_OK && (oracles & ORACLE_LOCKDEP) && lockdep_prediction()->made) {
		/* nothing worse happened */
		lockdep_finding();
		r->result = SIM_PREDICTED;
	}
	memcpy(r->ret, R.ret, sizeof(R.ret[0]) * (size_t)p->nops);
	memcpy(r->ran, R.ran, sizeof(R.ran[0]) * (size_t)p->nops);
	memcpy(r->loaded, R.loaded, sizeof(R.loaded[0]) * (size_t)p->nops);
	snprintf(r->verdict, sizeof(r->verdict), "%s", r->result == SIM_OK ? "ok" : finding.token);
	r->unfired = 0;
	for (int i = 0; i < r->npreempts; i++)
		r->unfired += !r->pre[i].fired;
#ifdef SNAFU_NATIVE
	/* hung threads still sleep on this mm, or threads left running when time was up
	 * still use it: the process ends without freeing it */
	if (r->result != SIM_OK || sim_tasks_left()) {
		sim_hw_end();
		return;
	}
#endif
	r->mm_digest = o->mm_digest ? mm_state_digest(R.mm) : 0;
	mmput(R.mm);
	sim_hw_end();
}

void prog_resolve_schedule(struct program *p, const struct kernel_config *k, unsigned oracles)
{
	struct run_opts o = {.no_digest = true, .oracles = oracles};
	static struct run_result r;

	if (!p->pct.on)
		return;
	prog_run(p, k, &o, &r);
	memset(&p->pct, 0, sizeof(p->pct));
	p->npreempts = r.nmade;
	memcpy(p->preempts, r.made, sizeof(r.made[0]) * (size_t)r.nmade);
}

void prog_unfired_why(const struct program *p, const struct run_result *r, int i, char *buf,
		      size_t len)
{
	const struct sim_preempt *s = &p->preempts[i];
	const struct sim_preempt_status *st = &r->pre[i];
	int total = task_instances(p, s->task);

	if (st->fired)
		snprintf(buf, len, "it fired");
	else if (!st->reached && st->op_ended)
		snprintf(buf, len, "task %d has only %d op%s", s->task, total,
			 total == 1 ? "" : "s");
	else if (!st->reached && !st->task_ops)
		snprintf(buf, len, "the run ended before task %d began its first op", s->task);
	else if (!st->reached)
		snprintf(buf, len, "the run ended in task %d's op %d", s->task, st->task_ops);
	else if (st->shadowed)
		snprintf(buf, len, "an earlier preemption switched at that point");
	else if (st->no_timer)
		snprintf(buf, len, "no timer was pending at that point");
	else if (st->to_state)
		snprintf(buf, len, "task %d %s at that point", s->to,
			 st->to_state == SIM_DONE + 1 ? "had ended" : "was blocked");
	else if (st->op_ended && s->op)
		snprintf(buf, len, "task %d's op %d has only %d point%s", s->task, s->op,
			 st->points, st->points == 1 ? "" : "s");
	else if (st->op_ended)
		snprintf(buf, len, "task %d has only %d points", s->task, st->points);
	else
		snprintf(buf, len, "the run ended at point %d of task %d's op %d", st->points,
			 s->task, s->op);
}

void prog_report(FILE *out, const struct kernel_config *k)
{
	report_print(out, k->name);
}
