/* Minimizing a program that has a finding, keeping its signature (the DEDUP token).
 *
 * libFuzzer's -minimize_crash only shortens bytes; this works on the program: drop
 * preemptions, drop whole tasks, drop ops, give a task's ops to another, shrink
 * mappings, clear each-page, simplify operands and files, repeating until nothing more
 * can go. A candidate is kept only if
 * it gives the very same verdict. Preemptions follow the ops they sit in when other
 * ops go (a preemption names an op by its number within its task).
 */
#include "minimize.h"
#include "ops.h"

#include <string.h>

static int instance_start(const struct program *p, int op)
{
	int s = 0;

	for (int i = 0; i < op; i++)
		if (p->ops[i].task == p->ops[op].task)
			s += op_instances(p, i);
	return s;
}

/* The op of `old` a preemption sits in, and its run within that op; -1 if none. */
static int locate(const struct program *old, const struct sim_preempt *s, int *off)
{
	int inst = s->op - 1;

	for (int i = 0; i < old->nops; i++) {
		if (old->ops[i].task != s->task)
			continue;
		int k = op_instances(old, i);
		if (inst < k) {
			*off = inst;
			return i;
		}
		inst -= k;
	}
	return -1;
}

/* Carry the preemptions of `old` over to `nw`, whose op j came from old op newidx^-1
 * and whose task t came from old task tmap^-1. */
static void remap_preempts(const struct program *old, struct program *nw, const int *newidx,
			   const int *tmap)
{
	nw->npreempts = 0;
	for (int i = 0; i < old->npreempts; i++) {
		struct sim_preempt s = old->preempts[i];
		int off, o = locate(old, &s, &off);
		if (o < 0 || newidx[o] < 0 || !tmap[s.task] ||
		    (s.to != SIM_TO_TIMER && !tmap[s.to]))
			continue;
		int j = newidx[o];
		if (off >= op_instances(nw, j))
			continue;
		s.op = (uint16_t)(instance_start(nw, j) + off + 1);
		s.task = (uint8_t)tmap[s.task];
		s.to = s.to == SIM_TO_TIMER ? SIM_TO_TIMER : (uint8_t)tmap[s.to];
		nw->preempts[nw->npreempts++] = s;
	}
}

/* The task an op names (kill's), which follows the tasks' renumbering; 0 if none. */
static int target_of(const struct op *o)
{
	const struct op_arg *t = op_arg_by_code(o->kind, CODE_TASK);

	return t ? op_arg_get(o, t) : 0;
}

static void set_target(struct op *o, int task)
{
	op_arg_set(o, op_arg_by_code(o->kind, CODE_TASK), task);
}

static void identity(int *newidx, int *tmap, const struct program *p)
{
	for (int i = 0; i < p->nops; i++)
		newidx[i] = i;
	for (int t = 0; t <= PROG_MAX_TASKS; t++)
		tmap[t] = t <= p->ntasks ? t : 0;
}

/* Remove the ops for which drop[i] is set, renumbering mappings and tasks. */
static void remove_ops(const struct program *old, struct program *nw, const bool *drop,
		       const int *tmap)
{
	int newidx[PROG_MAX_OPS], mapidx[PROG_MAX_MAPS], n = 0, m = 0, k = 0;

	*nw = *old;
	for (int i = 0; i < old->nops; i++) {
		if (old->ops[i].kind == OP_MMAP)
			mapidx[k++] = drop[i] ? -1 : m++;
		newidx[i] = drop[i] ? -1 : n++;
	}
	n = 0;
	for (int i = 0; i < old->nops; i++) {
		if (drop[i])
			continue;
		struct op o = old->ops[i];
		struct uref *refs[2] = {op_uses_a(o.kind) ? &o.a : NULL,
					op_uses_b(o.kind) ? &o.b : NULL};
		for (int r = 0; r < 2; r++)
			if (refs[r] && refs[r]->map != PROG_NULL_MAP)
				refs[r]->map = mapidx[refs[r]->map] < 0
						   ? PROG_NULL_MAP
						   : (uint8_t)mapidx[refs[r]->map];
		o.task = (uint8_t)tmap[o.task];
		int target = target_of(&o);
		if (target)
			set_target(&o, tmap[target] ? tmap[target] : 1);
		nw->ops[n++] = o;
	}
	nw->nops = n;
	nw->nmaps = m;
	remap_preempts(old, nw, newidx, tmap);
}

struct minimizer {
	const struct kernel_config *k;
	const char *verdict;
	unsigned oracles;
	int runs;
};

static bool same_finding(struct minimizer *mz, const struct program *p)
{
	struct run_opts o = {.oracles = mz->oracles};
	struct run_result r;

	mz->runs++;
	prog_run(p, mz->k, &o, &r);
	return !strcmp(r.verdict, mz->verdict);
}

static bool try_candidate(struct minimizer *mz, struct program *p, const struct program *cand)
{
	if (!same_finding(mz, cand))
		return false;
	*p = *cand;
	return true;
}

static bool pass_preempts(struct minimizer *mz, struct program *p, struct program *c)
{
	bool progress = false;

	for (int i = p->npreempts - 1; i >= 0; i--) {
		*c = *p;
		memmove(&c->preempts[i], &c->preempts[i + 1],
			sizeof(c->preempts[0]) * (size_t)(c->npreempts - i - 1));
		c->npreempts--;
		progress |= try_candidate(mz, p, c);
	}
	return progress;
}

/* Renumber tasks a <-> b (ops regroup, mappings renumber, preemptions follow). */
static void swap_tasks(const struct program *p, struct program *c, int a, int b)
{
	*c = *p;
	for (int i = 0; i < c->nops; i++) {
		struct op *o = &c->ops[i];
		o->task = (uint8_t)(o->task == a ? b : o->task == b ? a : o->task);
		int target = target_of(o);
		if (target == a || target == b)
			set_target(o, target == a ? b : a);
	}
	for (int i = 0; i < c->npreempts; i++) {
		struct sim_preempt *s = &c->preempts[i];
		s->task = (uint8_t)(s->task == a ? b : s->task == b ? a : s->task);
		s->to = (uint8_t)(s->to == a ? b : s->to == b ? a : s->to);
	}
	prog_canonicalize(c);
}

/* Who runs first matters without a schedule: with the tasks swapped, one preemption
 * fewer may do. */
static bool pass_swap_tasks(struct minimizer *mz, struct program *p, struct program *c)
{
	if (!p->npreempts)
		return false;
	for (int a = 1; a <= p->ntasks; a++) {
		for (int b = a + 1; b <= p->ntasks; b++) {
			for (int i = 0; i < p->npreempts; i++) {
				swap_tasks(p, c, a, b);
				memmove(&c->preempts[i], &c->preempts[i + 1],
					sizeof(c->preempts[0]) * (size_t)(c->npreempts - i - 1));
				c->npreempts--;
				if (try_candidate(mz, p, c))
					return true;
			}
		}
	}
	return false;
}

/* A preemption deep inside an each-page op moves to the op's first run, so that the
 * op (and its mapping) can shrink afterwards. */
static bool pass_preempt_first_run(struct minimizer *mz, struct program *p, struct program *c)
{
	bool progress = false;

	for (int i = 0; i < p->npreempts; i++) {
		int off;
		if (locate(p, &p->preempts[i], &off) < 0 || off == 0)
			continue;
		*c = *p;
		c->preempts[i].op = (uint16_t)(c->preempts[i].op - off);
		progress |= try_candidate(mz, p, c);
	}
	return progress;
}

static bool pass_tasks(struct minimizer *mz, struct program *p, struct program *c)
{
	bool progress = false;

	for (int t = p->ntasks; t >= 1 && p->ntasks > 2; t--) {
		bool drop[PROG_MAX_OPS];
		int tmap[PROG_MAX_TASKS + 1] = {0};
		for (int u = 1; u <= p->ntasks; u++)
			tmap[u] = u < t ? u : u == t ? 0 : u - 1;
		for (int i = 0; i < p->nops; i++)
			drop[i] = p->ops[i].task == t || target_of(&p->ops[i]) == t;
		remove_ops(p, c, drop, tmap);
		c->ntasks = p->ntasks - 1;
		progress |= try_candidate(mz, p, c);
	}
	return progress;
}

/* Task t's ops run by task u, in program order with u's own (t's first where t < u):
 * one task fewer, as a task that only maps the word the others use. Tasks above t
 * renumber down; t's preemptions become u's, and one between t and u goes. */
static void merge_tasks(const struct program *p, struct program *c, int t, int u)
{
	int tmap[PROG_MAX_TASKS + 1] = {0}, newidx[PROG_MAX_OPS], n = 0;

	for (int v = 1; v <= p->ntasks; v++) {
		int w = v == t ? u : v;
		tmap[v] = w < t ? w : w - 1;
	}
	*c = *p;
	for (int nt = 1; nt < p->ntasks; nt++) /* prog_canonicalize()'s order */
		for (int i = 0; i < p->nops; i++)
			if (tmap[p->ops[i].task] == nt)
				newidx[i] = n++;
	for (int i = 0; i < c->nops; i++) {
		struct op *o = &c->ops[i];
		o->task = (uint8_t)tmap[o->task];
		int target = target_of(o);
		if (target)
			set_target(o, tmap[target]);
	}
	c->ntasks = p->ntasks - 1;
	prog_canonicalize(c);
	remap_preempts(p, c, newidx, tmap);
	int k = 0;
	for (int i = 0; i < c->npreempts; i++)
		if (c->preempts[i].task != c->preempts[i].to)
			c->preempts[k++] = c->preempts[i];
	c->npreempts = k;
}

static bool pass_merge_tasks(struct minimizer *mz, struct program *p, struct program *c)
{
	for (int t = p->ntasks; t >= 1 && p->ntasks > 2; t--)
		for (int u = 1; u <= p->ntasks; u++) {
			if (u == t)
				continue;
			merge_tasks(p, c, t, u);
			if (try_candidate(mz, p, c))
				return true;
		}
	return false;
}

/* Once the program is small, an op that cannot go as it is may go if a preemption
 * moves: try every op and point of the preempted task for each preemption. */
#define RETARGET_MAX_OPS 8

static bool retarget(struct minimizer *mz, struct program *p, struct program *c)
{
	for (int k = 0; k < c->npreempts; k++) {
		struct sim_preempt keep = c->preempts[k];
		int n = task_instances(c, keep.task);
		for (int op = 1; op <= n && op <= 16; op++) {
			for (int point = 1; point <= PREEMPT_MAX_POINT; point++) {
				c->preempts[k].op = (uint16_t)op;
				c->preempts[k].point = (uint16_t)point;
				if (try_candidate(mz, p, c))
					return true;
			}
		}
		c->preempts[k] = keep;
	}
	return false;
}

static bool pass_ops(struct minimizer *mz, struct program *p, struct program *c)
{
	bool progress = false;
	int newidx[PROG_MAX_OPS], tmap[PROG_MAX_TASKS + 1];

	for (int i = p->nops - 1; i >= 0; i--) {
		bool drop[PROG_MAX_OPS] = {false};
		if (i >= p->nops)
			continue;
		drop[i] = true;
		identity(newidx, tmap, p);
		remove_ops(p, c, drop, tmap);
		if (try_candidate(mz, p, c) || (p->nops <= RETARGET_MAX_OPS && retarget(mz, p, c)))
			progress = true;
	}
	return progress;
}

/* Set the op's ARG_SHRINK arguments to their defaults; false if they were already. */
static bool shrink_args(struct op *o)
{
	const struct op_desc *d = &op_table[o->kind];
	struct op was = *o;

	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++)
		if (d->args[i].flags & ARG_SHRINK)
			op_arg_set(o, &d->args[i], d->args[i].def);
	return o->x != was.x || o->y != was.y;
}

/* Simpler operands: one page, no each-page, page and word 0, argument defaults. */
static bool pass_shrink(struct minimizer *mz, struct program *p, struct program *c)
{
	bool progress = false;
	int newidx[PROG_MAX_OPS], tmap[PROG_MAX_TASKS + 1];

	for (int i = 0; i < p->nops; i++) {
		for (int step = 0; step < 5; step++) {
			struct program old = *p;
			*c = *p;
			struct op *o = &c->ops[i];
			switch (step) {
			case 0:
				if (!op_has_pages(o->kind)) /* halve pages= */
					continue;
				if (o->x == 0)
					continue;
				o->x = o->x > 1 ? (uint8_t)(o->x / 2) : 0;
				break;
			case 1:
				if (!o->each_page)
					continue;
				o->each_page = false;
				break;
			case 2:
				if (!o->a.page && !o->a.word)
					continue;
				o->a.page = 0;
				o->a.word = 0;
				break;
			case 3:
				if (!o->b.page && !o->b.word)
					continue;
				o->b.page = 0;
				o->b.word = 0;
				break;
			case 4: /* no timeout, prot=rw private, ...: prog/ops.c */
				if (!shrink_args(o))
					continue;
				break;
			}
			identity(newidx, tmap, p);
			remap_preempts(&old, c, newidx, tmap);
			if (try_candidate(mz, p, c)) {
				progress = true;
				if (step == 0)
					step--; /* keep halving */
			}
		}
	}
	return progress;
}

/* Whether an op of p names file fd (an mmap's file=). */
static bool file_used(const struct program *p, int fd)
{
	for (int i = 0; i < p->nops; i++) {
		const struct op_desc *d = &op_table[p->ops[i].kind];
		for (int k = 0; k < OP_MAX_ARGS && d->args[k].name; k++)
			if (d->args[k].type == ARG_FILE &&
			    op_arg_get(&p->ops[i], &d->args[k]) == fd)
				return true;
	}
	return false;
}

/* Fewer, simpler files: the last ones while no op names them; then each file one page,
 * the pattern for its bytes, opened read-write, where the finding stays. */
static bool pass_files(struct minimizer *mz, struct program *p, struct program *c)
{
	bool progress = false;

	for (*c = *p; c->nfiles && !file_used(c, c->nfiles);)
		c->nfiles--;
	if (c->nfiles < p->nfiles)
		progress |= try_candidate(mz, p, c);
	for (int i = 0; i < p->nfiles; i++)
		for (int step = 0; step < 3; step++) {
			*c = *p;
			struct file_spec *f = &c->files[i];
			if (step == 0 && f->pages > 1)
				f->pages = 1;
			else if (step == 1 && f->fill != FILE_PATTERN)
				f->fill = FILE_PATTERN;
			else if (step == 2 && f->readonly)
				f->readonly = false;
			else
				continue;
			progress |= try_candidate(mz, p, c);
		}
	return progress;
}

/* On how many listed kernels preemption i of p does not fire. */
static int kernels_unfired(struct minimizer *mz, const struct program *p, int i)
{
	struct run_opts o = {.oracles = mz->oracles};
	struct run_result r;
	int n = 0;

	for_each_kernel (kc) {
		mz->runs++;
		prog_run(p, kc, &o, &r);
		n += !r.pre[i].fired;
	}
	return n;
}

/* A preemption at a point its op does not reach on some listed kernel (a PCT schedule
 * switches anywhere up to point 32) leaves that kernel without an expect line: the
 * earliest point that keeps the finding and fires on more kernels is taken. Preemptions
 * that fire everywhere stay where they are. */
static void pass_portable_points(struct minimizer *mz, struct program *p, struct program *c)
{
	for (int i = 0; i < p->npreempts; i++) {
		int unfired = kernels_unfired(mz, p, i);
		for (int q = 1; unfired && q < p->preempts[i].point; q++) {
			*c = *p;
			c->preempts[i].point = (uint16_t)q;
			if (same_finding(mz, c) && kernels_unfired(mz, c, i) < unfired) {
				*p = *c;
				break;
			}
		}
	}
}

int prog_minimize(struct program *p, const struct kernel_config *k, const char *verdict,
		  unsigned oracles)
{
	static struct program cand;
	struct minimizer mz = {.k = k, .verdict = verdict, .oracles = oracles};

	prog_resolve_schedule(p, k, oracles); /* a PCT schedule: the preemptions it made */
	if (!same_finding(&mz, p))
		return -1;
	for (int round = 0; round < 32; round++) {
		bool progress = false;
		progress |= pass_preempts(&mz, p, &cand);
		progress |= pass_preempt_first_run(&mz, p, &cand);
		progress |= pass_swap_tasks(&mz, p, &cand);
		progress |= pass_tasks(&mz, p, &cand);
		progress |= pass_ops(&mz, p, &cand);
		progress |= pass_merge_tasks(&mz, p, &cand);
		progress |= pass_shrink(&mz, p, &cand);
		progress |= pass_files(&mz, p, &cand);
		if (!progress)
			break;
	}
	pass_portable_points(&mz, p, &cand);
	return mz.runs;
}
