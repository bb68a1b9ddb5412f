/* The futex oracles' judgement at the end of a run (the definitions: ref/futex_oracle.c
 * and docs/oracles.md): which wake call lost a wake-up or returned a wrong result, from
 * the books the hooks kept (ref/futex_oracle_int.h), and its report; the interleaving
 * features of the waiters' fates; the read-only views for other tools. */
#include "futex_oracle_int.h"
#include "report.h"
#include "../sim/icov.h"

#include <string.h>

/* ---- the judgement ---- */

static struct task_struct *task_of(int id)
{
	return (struct task_struct *)sim_task(id);
}

static const char *state_of(const struct task_struct *t)
{
	return t->sim.state == SIM_DONE           ? "exited"
	       : t->state == TASK_UNINTERRUPTIBLE ? "D"
	       : t->state == TASK_INTERRUPTIBLE   ? "S"
						  : "R";
}

/* S's record, if its task is still in the futex_wait the wake call saw, and asleep */
static const struct fo_wait *asleep_in(const struct fo_ref *s)
{
	const struct fo_wait *w = &fo.wait[s->task];

	return w->active && w->serial == s->serial && w->asleep ? w : NULL;
}

/* S, still in the futex_wait the wake call saw, asleep on the same key. */
static bool still_asleep(const struct fo_ref *s, const struct futex_key *key)
{
	const struct fo_wait *w = asleep_in(s);

	return w && same_key(&w->key, key);
}

#define OP_POINT_NOTE                                                                     \
	"(op.point: a task's op and scheduling point, as `snafu replay --trace` numbers " \
	"them)\n"

/* TASK, asleep at the end in its futex_wait: since when. */
static void asleep_line(int task)
{
	const struct fo_wait *w = &fo.wait[task];
	struct task_struct *t = task_of(task);

	finding_printf("%s (pid %d) state %s, in %s, asleep in futex_wait(0x%lx, val %d) since "
		       "%u.%u\n",
		       t->comm, t->pid, state_of(t), t->syscall ? t->syscall : "user mode",
		       w->uaddr, w->val, w->slept_at.op, w->slept_at.point);
}

/* S, asleep at the end: since when, and what it read when. */
static void sleeper_lines(const struct fo_ref *s, const struct fo_wake *r)
{
	const struct fo_wait *w = &fo.wait[s->task];

	asleep_line(s->task);
	finding_printf("  read %u, its val, at %u.%u, before the %s below (%s, %u.%u): it "
		       "waited from then on\n",
		       w->curval, w->read_at.op, w->read_at.point, r->op, task_of(r->task)->comm,
		       r->at.op, r->at.point);
}

/* The wake call: who, where, what it could wake, what it returned, whom it woke. */
static void wake_line(const struct fo_wake *r)
{
	struct task_struct *t = task_of(r->task);

	finding_printf("%s (pid %d) %s(0x%lx), which may wake %d, at %u.%u: returned %ld", t->comm,
		       t->pid, r->op, r->uaddr, r->budget, r->at.op, r->at.point, r->ret);
	if (!r->nwoken)
		finding_printf(", woke nobody\n");
	for (int i = 0; i < r->nwoken; i++)
		finding_printf("%s%s", i ? ", " : ", woke ", task_of(r->woken[i].task)->comm);
	if (r->nwoken)
		finding_printf("\n");
}

static void report_absorbed(const struct fo_wake *r, const struct fo_ref *w, const struct fo_ref *s)
{
	const struct task_struct *wt = task_of(w->task), *st = task_of(s->task);

	finding_begin("lost wake-up in futex_wait", "lost-wakeup--absorbed--futex_wait");
	finding_printf(OP_POINT_NOTE);
	sleeper_lines(s, r);
	finding_printf("  queued at %u.%u; passed over, and still asleep when the run ended\n",
		       fo.wait[s->task].queued_at.op, fo.wait[s->task].queued_at.point);
	finding_call_trace(st);
	wake_line(r);
	finding_printf("%s (pid %d) in futex_wait(0x%lx, val %d): queued at %u.%u, ", wt->comm,
		       wt->pid, r->uaddr, w->val, w->queued_at.op, w->queued_at.point);
	if (w->read_after)
		finding_printf("woken before it read the word, then read %u at %u.%u\n", w->curval,
			       w->read_at.op, w->read_at.point);
	else
		finding_printf("read %u at %u.%u, woken as it was about to unqueue itself\n",
			       w->curval, w->read_at.op, w->read_at.point);
	finding_printf("  %u is not its val: it was never to sleep", w->curval);
	if (w->returned)
		finding_printf("; its futex_wait returned %ld, not -EWOULDBLOCK", w->ret);
	finding_printf("\n\nthe wake-up was spent on %s, which was not waiting (its value did "
		       "not match), while %s, waiting on the same futex, was passed over and slept "
		       "on\n",
		       wt->comm, st->comm);
}

static void report_missed(const struct fo_wake *r, const struct fo_ref *s)
{
	const struct task_struct *st = task_of(s->task);

	finding_begin("lost wake-up in futex_wait", "lost-wakeup--missed--futex_wait");
	finding_printf(OP_POINT_NOTE);
	sleeper_lines(s, r);
	finding_printf("  queued only at %u.%u, after it; still asleep when the run ended\n",
		       fo.wait[s->task].queued_at.op, fo.wait[s->task].queued_at.point);
	finding_call_trace(st);
	wake_line(r);
	finding_printf("  by then the word held %u, not the %u %s had read\n", s->now, s->curval,
		       st->comm);
	finding_printf("\nthe word changed after %s read it and before the wake-up, which did not "
		       "find %s: it had read the word but not yet queued itself\n",
		       st->comm, st->comm);
}

/* The lost wake-up, if there is one: the first wake record (in call order) that spent a
 * wake-up on a mismatching waiter *W while a passed-over waiter *S sleeps on (absorbed),
 * or missed a waiter *S that sleeps on (missed: *W NULL). The judge and the read-only
 * view (futex_oracle_lost) both pick it here. */
static bool find_lost(const struct fo_wake **rp, const struct fo_ref **wp, const struct fo_ref **sp)
{
	for (int i = 0; i < fo.nwakes; i++) {
		const struct fo_wake *r = &fo.wakes[i];
		*rp = r;
		for (int a = 0; a < r->nwoken; a++) {
			if (!r->woken[a].absorbed)
				continue;
			for (int p = 0; p < r->npassed; p++)
				if (still_asleep(&r->passed[p], &r->key)) {
					*wp = &r->woken[a];
					*sp = &r->passed[p];
					return true;
				}
		}
		for (int m = 0; m < r->nmissed; m++)
			if (still_asleep(&r->missed[m], &r->key)) {
				*wp = NULL;
				*sp = &r->missed[m];
				return true;
			}
	}
	return false;
}

/* The first wake record that woke fewer than it may while a waiter of its futex by the
 * contract, queued under another kernel key, sleeps on in that futex_wait to the end
 * (and under that other key still). */
static bool find_rekeyed(const struct fo_wake **rp, const struct fo_ref **sp)
{
	for (int i = 0; i < fo.nwakes; i++) {
		const struct fo_wake *r = &fo.wakes[i];
		for (int k = 0; k < r->nrekeyed; k++) {
			const struct fo_wait *w = asleep_in(&r->rekeyed[k]);
			if (w && !same_key(&w->key, &r->key)) {
				*rp = r;
				*sp = &r->rekeyed[k];
				return true;
			}
		}
	}
	return false;
}

/* A key as get_futex_key() made it: which kind, and its two words */
static void key_line(const struct futex_key *k)
{
	if (k->offset & 1)
		finding_printf("  its key: inode %lu, page %lu of its file\n", k->ptr, k->word);
	else
		finding_printf("  its key: mm %lu, address 0x%lx%s\n", k->ptr, k->word,
			       k->offset & 2 ? " (a shared futex in private memory)" : "");
}

static void report_rekeyed(const struct fo_wake *r, const struct fo_ref *s)
{
	const struct fo_wait *w = &fo.wait[s->task];
	const struct task_struct *st = task_of(s->task);

	finding_begin("lost wake-up in futex_wait", "lost-wakeup--rekeyed--futex_wait");
	finding_printf(OP_POINT_NOTE);
	sleeper_lines(s, r);
	finding_printf("  queued at %u.%u; still asleep when the run ended\n", w->queued_at.op,
		       w->queued_at.point);
	key_line(&w->key);
	finding_call_trace(st);
	wake_line(r);
	key_line(&r->key);
	finding_printf(
	    "\nboth name the word at 0x%lx, one futex by the contract (futex(2)), but the "
	    "kernel keyed them apart: the wake-up looked for waiters under a key %s "
	    "was not queued on\n",
	    r->uaddr, st->comm);
}

/* The first wake record that woke a waiter which then went to sleep anyway, and is
 * still asleep in that futex_wait when the run ends: 2.6.11's futex_wait() sleeps only
 * "if (likely(!list_empty(&q.list)))", after add_wait_queue(), so that a wake before
 * the sleep is never lost ("This code thus has to rely on the futex_wake() code
 * removing us from hash when it wakes us up"). */
static bool find_slept(const struct fo_wake **rp, const struct fo_ref **sp)
{
	for (int i = 0; i < fo.nwakes; i++) {
		const struct fo_wake *r = &fo.wakes[i];
		for (int a = 0; a < r->nwoken; a++) {
			const struct fo_wait *w = asleep_in(&r->woken[a]);
			if (w && w->woken_by == i) {
				*rp = r;
				*sp = &r->woken[a];
				return true;
			}
		}
	}
	return false;
}

static void report_slept(const struct fo_wake *r, const struct fo_ref *s)
{
	const struct fo_wait *w = &fo.wait[s->task];
	struct task_struct *t = task_of(s->task);

	finding_begin("lost wake-up in futex_wait", "lost-wakeup--slept--futex_wait");
	finding_printf(OP_POINT_NOTE);
	asleep_line(s->task);
	finding_printf("  queued at %u.%u; woken by the %s below (%s, %u.%u) before it went to "
		       "sleep; still asleep when the run ended\n",
		       w->queued_at.op, w->queued_at.point, r->op, task_of(r->task)->comm, r->at.op,
		       r->at.point);
	finding_call_trace(t);
	wake_line(r);
	finding_printf("\nthe wake-up reached %s before it slept: off the chain and woken while it "
		       "was still running, it then went to sleep with nobody left to wake it\n",
		       t->comm);
}

static bool judge_lost(void)
{
	const struct fo_wake *r;
	const struct fo_ref *w, *s;

	if (find_lost(&r, &w, &s)) {
		if (w)
			report_absorbed(r, w, s);
		else
			report_missed(r, s);
		return true;
	}
	if (find_slept(&r, &s)) {
		report_slept(r, s);
		return true;
	}
	if (find_rekeyed(&r, &s)) {
		report_rekeyed(r, s);
		return true;
	}
	return false;
}

/* FUTEX_CMP_REQUEUE's -EAGAIN from the nqueued test with the word equal to val: when it
 * read it and when it returned */
static bool eagain_wrong(const struct fo_eagain *e)
{
	return e->seen && (int)e->curval == e->val && e->now_ok && (int)e->now == e->val;
}

/* A wake call whose return value is not what it did (kernel/futex.c, 2.6.11): FUTEX_WAKE
 * returns the waiters it woke, at most max(nr, 1); futex_requeue() wakes the first
 * nr_wake it finds, moves the ones after them, and returns woken + moved. */
static bool count_wrong(const struct fo_wake *r)
{
	int may = r->budget > 0 ? r->budget : 0;

	if (r->ret < 0)
		return r->nwoken || r->nmoved;
	return r->nwoken + r->nmoved != r->ret || r->nwoken > may || (r->nmoved && r->nwoken < may);
}

static const struct fo_wake *find_count_wrong(void)
{
	for (int i = 0; i < fo.nwakes; i++)
		if (count_wrong(&fo.wakes[i]))
			return &fo.wakes[i];
	return NULL;
}

static void report_count(const struct fo_wake *r)
{
	bool op = !strcmp(r->op, "FUTEX_WAKE_OP"), wake = op || !strcmp(r->op, "FUTEX_WAKE");

	finding_begin(op     ? "wrong result from FUTEX_WAKE_OP"
		      : wake ? "wrong result from FUTEX_WAKE"
			     : "wrong result from futex_requeue",
		      op     ? "wrong-result--futex_wake_op"
		      : wake ? "wrong-result--futex_wake"
			     : "wrong-result--futex_requeue");
	finding_printf(OP_POINT_NOTE);
	wake_line(r);
	if (!wake)
		finding_printf("  and moved %d to the second futex\n", r->nmoved);
	if (wake)
		finding_printf("\n%s returns the number of waiters it woke: it returned %ld "
			       "and woke %d%s\n",
			       r->op, r->ret, r->nwoken, op ? " (on this futex)" : "");
	else
		finding_printf("\n%s wakes the first %d waiters it finds, then moves the rest, and "
			       "returns how many it woke and moved: it returned %ld, woke %d and "
			       "moved %d\n",
			       r->op, r->budget > 0 ? r->budget : 0, r->ret, r->nwoken, r->nmoved);
}

static void report_woken_ret(const struct fo_woken_ret *e)
{
	struct task_struct *t = task_of(e->task);

	finding_begin("wrong result from FUTEX_WAIT", "wrong-result--futex_wait");
	finding_printf(OP_POINT_NOTE);
	finding_printf("%s (pid %d) futex_wait(0x%lx, val %d) returned %ld at %u.%u\n", t->comm,
		       t->pid, e->uaddr, e->val, e->ret, e->at.op, e->at.point);
	if (e->wake >= 0 && e->wake < fo.nwakes)
		wake_line(&fo.wakes[e->wake]);
	finding_printf("\na waiter that a wake call took off the chain and counted was woken: "
		       "its futex_wait returns 0 (2.6.11 futex_wait(): \"If we were woken (and "
		       "unqueued), we succeeded, whatever.\"), or the waker's count is a "
		       "wake-up nobody received\n");
}

static bool judge_result(void)
{
	const struct fo_eagain *e = &fo.eagain;

	if (!eagain_wrong(e)) {
		const struct fo_wake *r = find_count_wrong();
		if (r) {
			report_count(r);
			return true;
		}
		if (fo.woken_ret.seen) {
			report_woken_ret(&fo.woken_ret);
			return true;
		}
		return wo_judge();
	}
	struct task_struct *t = task_of(e->task);
	finding_begin("wrong result from FUTEX_CMP_REQUEUE", "wrong-result--futex_cmp_requeue");
	finding_printf(OP_POINT_NOTE);
	finding_printf("%s (pid %d) FUTEX_CMP_REQUEUE(0x%lx, val %d) returned -EAGAIN at %u.%u\n",
		       t->comm, t->pid, e->uaddr, e->val, e->at.op, e->at.point);
	finding_printf("  it read %u, its val, and the word still held %u when it returned\n",
		       e->curval, e->now);
	finding_printf("  the -EAGAIN came from nqueued: the bucket's count went from %u to %u "
		       "during the call\n",
		       e->then_nq, e->now_nq);
	for (int i = e->first_queue; i < e->last_queue; i++)
		if (fo.queues[i].bucket == e->bucket)
			finding_printf("  %s queued a waiter there at %u.%u (futex_wait(0x%lx))\n",
				       task_of(fo.queues[i].task)->comm, fo.queues[i].at.op,
				       fo.queues[i].at.point, fo.queues[i].uaddr);
	finding_printf("\nFUTEX_CMP_REQUEUE is to fail with -EAGAIN only when *uaddr1 != val; "
		       "the word equalled val throughout the call\n");
	return true;
}

/* The fate of waiter s of wake call r when the run ended (interleaving coverage). */
static uint32_t fate(const struct fo_ref *s, const struct fo_wake *r)
{
	const struct fo_wait *w = &fo.wait[s->task];

	if (w->serial != s->serial)
		return 8; /* it returned, and waited again */
	if (w->active)
		return still_asleep(s, &r->key) ? 1 : w->asleep ? 2 : 3;
	return 4 + ret_class(w->ret);
}

void futex_oracles_features(void)
{
	if (fo_off() || !sim_icov)
		return;
	for (int i = 0; i < fo.nwakes; i++) {
		const struct fo_wake *r = &fo.wakes[i];
		uint32_t absorbed = 0;
		for (int a = 0; a < r->nwoken; a++) {
			const struct fo_ref *w = &r->woken[a];
			absorbed |= w->absorbed;
			sim_icov_hit(ICOV_FATE,
				     icov_mix(1, (uint32_t)w->read | w->read_after << 2 |
						     w->absorbed << 3 | w->returned << 4 |
						     ret_class(w->ret) << 5));
		}
		for (int p = 0; p < r->npassed; p++)
			sim_icov_hit(ICOV_FATE,
				     icov_mix(2, absorbed | fate(&r->passed[p], r) << 1));
		for (int m = 0; m < r->nmissed; m++)
			sim_icov_hit(ICOV_FATE, icov_mix(3, fate(&r->missed[m], r)));
	}
}

bool futex_oracles_judge(bool lost, bool result)
{
	if (fo_off())
		return false;
	return (lost && judge_lost()) || (result && judge_result());
}

/* ---- read-only views (futex_oracle.h): what judge_lost() and judge_result() pick ---- */

static struct fo_view_at view_at(int task, struct fo_when at)
{
	return (struct fo_view_at){.task = task, .op = at.op, .point = at.point};
}

static void view_wake(struct fo_lost_view *v, const struct fo_wake *r)
{
	v->wake = view_at(r->task, r->at);
	v->wake_record = (int)(r - fo.wakes);
	v->call = r->op;
	v->uaddr = r->uaddr;
	v->budget = r->budget;
	v->ret = r->ret;
	v->nwoken = r->nwoken;
	for (int i = 0; i < r->nwoken; i++)
		v->woken[i] = r->woken[i].task;
}

static void view_sleeper(struct fo_lost_view *v, const struct fo_ref *s)
{
	const struct fo_wait *w = &fo.wait[s->task];

	v->sleeper_read = view_at(s->task, w->read_at);
	v->sleeper_queued = view_at(s->task, w->queued_at);
	v->sleeper_slept = view_at(s->task, w->slept_at);
	v->sleeper_val = w->val;
	v->sleeper_curval = s->curval;
}

bool futex_oracle_lost(struct fo_lost_view *v)
{
	const struct fo_wake *r;
	const struct fo_ref *w, *s;

	memset(v, 0, sizeof(*v));
	if (fo_off() || !find_lost(&r, &w, &s))
		return false;
	view_wake(v, r);
	view_sleeper(v, s);
	if (w) {
		v->spent_queued = view_at(w->task, w->queued_at);
		v->spent_read = view_at(w->task, w->read_at);
		v->spent_val = w->val;
		v->spent_curval = w->curval;
		v->spent_read_after = w->read_after;
		v->spent_returned = w->returned;
		v->spent_ret = w->ret;
	} else {
		v->missed = true;
		v->word_at_wake = s->now;
	}
	return true;
}

bool futex_oracle_wrong_result(struct fo_eagain_view *v)
{
	const struct fo_eagain *e = &fo.eagain;

	memset(v, 0, sizeof(*v));
	if (fo_off() || !eagain_wrong(e))
		return false;
	v->call = view_at(e->task, e->at);
	v->uaddr = e->uaddr;
	v->val = e->val;
	v->curval = e->curval;
	v->now = e->now;
	v->then_nq = e->then_nq;
	v->now_nq = e->now_nq;
	for (int i = e->first_queue; i < e->last_queue && v->nqueuers < FO_VIEW_MAX_QUEUERS; i++)
		if (fo.queues[i].bucket == e->bucket) {
			v->queuers[v->nqueuers] = view_at(fo.queues[i].task, fo.queues[i].at);
			v->queuer_uaddr[v->nqueuers++] = fo.queues[i].uaddr;
		}
	return true;
}
