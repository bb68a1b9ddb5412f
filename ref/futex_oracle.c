/* The futex oracles: a lost wake-up, and a wrong result from FUTEX_CMP_REQUEUE, judged at
 * the end of a run from what ref/futex.c told them (ref/futex_oracle.h). The definitions,
 * their sources and what they leave out are in docs/oracles.md; in short:
 *
 * Lost wake-up (tokens lost-wakeup--{absorbed,missed,slept}--futex_wait). FUTEX_WAIT is taken to be
 * atomic, as the 2004-2005 LKML thread "Futex queue_me/get_user ordering" settled (Jakub Jelinek
 * and Ingo Molnar against Jamie Lokier's token-passing reading, March 2005; 2.6.12 made it so): a
 * waiter waits from the moment it reads a word equal to val, and a waiter that reads another value
 * never waits. A FUTEX_WAKE (or the wake half of a requeue) on key K that may wake `budget` waiters
 * owes its wake-ups to the waiters of K at that moment. It is lost when
 *  - absorbed: it woke a waiter W that read, in the same round of its futex_wait, a value
 *    other than its val (before or after the wake: 2.6.11 queues before it reads, so a
 *    waker can unlink W in between, and W's unqueue_me() then returns 0), while a waiter
 *    S of K that had already read its val, and was queued, was passed over; or
 *  - missed: it woke fewer than its budget while a waiter S of K had read its val but had
 *    not queued yet (2.6.10-seto reads before queue_me()), and the word no longer held
 *    what S had read: it changed between S's read and the wake;
 * and in both, S is still asleep in that same futex_wait when the run ends; or
 *  - slept: it woke a waiter S that then went to sleep in that same round anyway, and S
 *    is still asleep when the run ends (2.6.11 sleeps only while still queued); or
 *  - rekeyed: it woke fewer than its budget while a waiter S, queued with its val read,
 *    waited on the same futex as the contract names it (contract_key(): the word's
 *    address in a private mapping or for a private call, its file and offset in a shared
 *    mapping), but under another kernel key (2.6.28 keys a word of a private file
 *    mapping on the file's page until COW makes it anonymous), and S is still asleep
 *    in that same futex_wait when the run ends.
 * Nothing here looks at time: only the order of the hooks' calls, the wake's budget and
 * return value, and the word's contents (peek_word()).
 *
 * Wrong results (tokens wrong-result--futex_*):
 *  - futex_cmp_requeue: FUTEX_CMP_REQUEUE returns -EAGAIN only when *uaddr1 != val. 2.6.7
 *    to 2.6.11 also return it when the bucket's nqueued count moved during the call
 *    (another waiter queued), though the word equalled val: the call read val, and the
 *    word still held val when it returned -EAGAIN;
 *  - futex_wake, futex_requeue: a wake call's return value is not what it did (FUTEX_WAKE
 *    returns the waiters it woke; a requeue wakes the first nr_wake, moves the others and
 *    returns both counts);
 *  - futex_wait: a waiter that a wake call woke (and counted) returned anything but 0.
 */
#include "futex_oracle.h"
#include "kernels.h"
#include "mm.h"
#include "report.h"
#include "../sim/icov.h"

#include <stddef.h>
#include <string.h>

#ifdef SNAFU_NATIVE
#define fo_off() true /* real threads: the hooks would race; no oracles there */
#else
#define fo_off() false
#endif

#define FO_MAX_WAKES  64 /* wake calls kept per run; later ones are not judged */
#define FO_MAX_QUEUES 64 /* queue_me() calls kept, to name them in a wrong-result report */

enum fo_read { FO_UNREAD, FO_MATCH, FO_MISMATCH };

/* Where a task was: its op and scheduling point (`snafu replay --trace` numbers them so). */
struct fo_when {
	uint16_t op, point;
};

/* One task's futex_wait: the one in progress, or its last. */
struct fo_wait {
	bool active; /* in futex_wait */
	unsigned serial;
	unsigned long uaddr;
	int val;
	const void *q;
	struct futex_key key;  /* now: a requeue changes it */
	struct futex_key ckey; /* the contract's key, as the round began (contract_key()) */
	bool queued;           /* on a bucket list now */
	bool round_queued;     /* queued at some moment of this round */
	enum fo_read read;     /* this round's read */
	uint32_t curval;
	int woken_by; /* the wake record that woke it in this round; -1: none */
	bool asleep;
	struct fo_when queued_at, read_at, slept_at;
	long ret; /* what its futex_wait returned, once it has (interleaving coverage) */
};

/* A futex_wait as one wake call saw it. */
struct fo_ref {
	int task;
	unsigned serial;
	int val;
	enum fo_read read; /* woken: its read in that round, so far */
	uint32_t curval;
	bool read_after; /* woken before it read the word */
	bool absorbed;   /* woken, and its read did not match */
	bool returned;   /* woken: its futex_wait returned ret */
	long ret;
	uint32_t now; /* missed: what the word held at the wake */
	struct fo_when queued_at, read_at;
};

/* One wake call: FUTEX_WAKE, or a requeue's wake half. */
struct fo_wake {
	int task;
	const char *op;
	unsigned long uaddr;
	struct futex_key key, ckey; /* the kernel's and the contract's */
	int budget;
	struct fo_when at;
	long ret;
	int nwoken, nmoved, npassed, nmissed, nrekeyed;
	struct fo_ref woken[SIM_MAX_TASKS], passed[SIM_MAX_TASKS], missed[SIM_MAX_TASKS],
	    rekeyed[SIM_MAX_TASKS];
};

struct fo_queue {
	int task;
	const void *bucket;
	unsigned long uaddr;
	struct fo_when at;
};

/* The first futex_wait that a wake call woke and that returned anything but 0. */
struct fo_woken_ret {
	bool seen;
	int task;
	unsigned long uaddr;
	int val;
	long ret;
	int wake; /* the wake record that woke it */
	struct fo_when at;
};

/* The first FUTEX_CMP_REQUEUE that returned -EAGAIN from the nqueued test. */
struct fo_eagain {
	bool seen;
	int task;
	unsigned long uaddr;
	int val;
	uint32_t curval, now;
	bool now_ok; /* a VMA covered uaddr1 at the time: `now` is the word */
	unsigned then_nq, now_nq;
	int first_queue, last_queue; /* fo.queues[first..last) went into that bucket, maybe */
	const void *bucket;
	struct fo_when at;
};

static struct fo_books {
	unsigned serials;
	struct fo_wait wait[SIM_MAX_TASKS + 1];
	bool private_call[SIM_MAX_TASKS + 1]; /* each task's futex call: FUTEX_PRIVATE_FLAG */
	int nwakes;
	struct fo_wake *cur; /* the wake call walking a bucket now (under its lock) */
	int nqueues;
	/* FUTEX_CMP_REQUEUE: the bucket each task sampled, and how many queue_me() calls
	 * had been logged then */
	const void *cmp_bucket[SIM_MAX_TASKS + 1];
	unsigned cmp_nq[SIM_MAX_TASKS + 1];
	int cmp_queues[SIM_MAX_TASKS + 1];
	struct fo_eagain eagain;
	struct fo_woken_ret woken_ret;
	/* interleaving coverage: the last futex event, and whose */
	uint32_t last_ev;
	int last_task;
	/* last: used up to nwakes and nqueues, each record written whole when it is made,
	 * so that a run resets only what comes before them (wakes[] is 77 KB) */
	struct fo_wake wakes[FO_MAX_WAKES];
	struct fo_queue queues[FO_MAX_QUEUES];
} fo;

/* The oracles watch the model; ThreadSanitizer is to judge the model alone. */
#define FO_BEGIN()              \
	do {                    \
		if (fo_off())   \
			return; \
		sim_hw_begin(); \
	} while (0)
#define FO_END() sim_hw_end()

static int me(void)
{
	return current->pid;
}

static struct fo_when now_at(void)
{
	struct task_struct *t = current;

	return (struct fo_when){.op = t->sim.op, .point = t->sim.op_points};
}

static bool same_key(const struct futex_key *a, const struct futex_key *b)
{
	return a->word == b->word && a->ptr == b->ptr && a->offset == b->offset;
}

static struct fo_wait *wait_of_q(const void *q)
{
	for (int t = 1; t <= SIM_MAX_TASKS; t++)
		if (fo.wait[t].active && fo.wait[t].q == q)
			return &fo.wait[t];
	return NULL;
}

static struct fo_ref *woken_ref(const struct fo_wait *w)
{
	if (w->woken_by < 0)
		return NULL;
	struct fo_wake *r = &fo.wakes[w->woken_by];
	int t = (int)(w - fo.wait);
	for (int i = 0; i < r->nwoken; i++)
		if (r->woken[i].task == t && r->woken[i].serial == w->serial)
			return &r->woken[i];
	return NULL;
}

/* ---- interleaving coverage (sim/icov.h): the futex events as features ----
 * Each event is a code and what it sees of the chain: the read states of the other
 * waiters queued on its key, and whether one of them has read its val without being
 * queued or sleeps. A feature per event and per pair of consecutive events (the same
 * task or another), so that a schedule that orders the same events anew is new
 * coverage. Books only: nothing here changes the run or the judgement. */
enum fo_ev {
	FE_QUEUED = 1,
	FE_READ,
	FE_ASLEEP,
	FE_AWAKE,
	FE_UNQUEUED,
	FE_WAIT_END,
	FE_WAKE_BEGIN,
	FE_WOKEN,
	FE_REQUEUED,
	FE_WAKE_END,
	FE_CMP_SAMPLE,
	FE_CMP_EAGAIN,
};

static uint32_t chain_state(const struct futex_key *key, int self)
{
	uint32_t s = 0;

	for (int t = 1; t <= SIM_MAX_TASKS; t++) {
		const struct fo_wait *w = &fo.wait[t];
		if (t == self || !w->active || !same_key(&w->key, key))
			continue;
		if (w->queued)
			s |= 1u << w->read; /* bits 0-2: unread, match, mismatch */
		else if (w->read == FO_MATCH)
			s |= 8; /* read its val, not queued (yet, or any more) */
		if (w->asleep)
			s |= 16;
	}
	return s;
}

static uint32_t ret_class(long ret)
{
	return ret == 0              ? 0
	       : ret == -EWOULDBLOCK ? 1
	       : ret == -ETIMEDOUT   ? 2
	       : ret == -EINTR       ? 3
				     : 4;
}

static void feature(enum fo_ev code, uint32_t detail)
{
	if (!sim_icov)
		return;
	uint32_t ev = icov_mix((uint32_t)code, detail);
	int t = me();
	sim_icov_hit(ICOV_FUTEX, ev);
	sim_icov_hit(ICOV_FUTEX, icov_mix(icov_mix(fo.last_ev, ev), t == fo.last_task));
	fo.last_ev = ev;
	fo.last_task = t;
}

/* the event of waiter w (the current task's futex_wait), with its chain */
static void wait_feature(enum fo_ev code, const struct fo_wait *w, uint32_t detail)
{
	if (sim_icov)
		feature(code, detail << 5 | chain_state(&w->key, me()));
}

/* The word at uaddr as the next read would find it, without a fault, a scheduling point
 * or a trace event: from the page the PTE holds (present, or swapped out and kept), else
 * from a shared mapping's page cache, else zeros (a page not there yet reads as zeros).
 * False when no VMA covers uaddr. */
static bool peek_word(unsigned long uaddr, uint32_t *val)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = mm ? find_extend_vma(mm, uaddr) : NULL;

	*val = 0;
	if (!vma)
		return false;
	struct page *page = page_seen_at(mm, vma, uaddr);
	if (page)
		memcpy(val, page->data + (uaddr & ~PAGE_MASK), sizeof(*val));
	return true;
}

/* The futex a call on uaddr names by the contract, whatever the release's key: what
 * 2.6.11's get_futex_key() makes of the VMA (futex(2): a private mapping's word is its
 * address in the process, a shared mapping's its file and offset), with bit 1 of the
 * offset for a call that is not FUTEX_PRIVATE_FLAG's in a private mapping, so that a
 * private and a shared call never meet (2.6.22's FUT_OFF_MMSHARED). No lock, as
 * peek_word(); no VMA: the address alone. */
static struct futex_key contract_key(unsigned long uaddr, bool private)
{
	sim_touch(SIM_TOUCH_PAGES_RD); /* the VMAs */
	struct mm_struct *mm = current->mm;
	struct futex_key k = {.offset = (int)(uaddr % PAGE_SIZE)};
	unsigned long address = uaddr - (unsigned long)k.offset;
	struct vm_area_struct *vma = mm && !private ? find_extend_vma(mm, address) : NULL;

	if (!vma || !(vma->vm_flags & VM_MAYSHARE)) {
		k.ptr = mm ? mm->id : 0;
		k.word = address;
		k.offset |= private ? 0 : 2;
		return k;
	}
	k.ptr = vma->vm_file->i_ino;
	k.word = ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	k.offset |= 1;
	return k;
}

/* The contract's key of a call on uaddr whose kernel key is KEY: KEY itself where the
 * release makes keys from the VMA as 2.6.11 does (struct futex_paths, key_from_page),
 * and so no look at the VMAs for snafu explore to order. */
static struct futex_key key_of_contract(unsigned long uaddr, const struct futex_key *key)
{
	return kcfg->futex->key_from_page ? contract_key(uaddr, fo.private_call[me()]) : *key;
}

void fo_call_begin(bool private)
{
	FO_BEGIN();
	fo.private_call[me()] = private;
	FO_END();
}

void fo_reset(void)
{
	memset(&fo, 0, offsetof(struct fo_books, wakes));
	wo_reset();
}

void fo_wait_begin(unsigned long uaddr, int val)
{
	FO_BEGIN();
	/* no sim_touch(): a waker's wait_of_q() looks for its futex_q, and this record has
	 * none until fo_wait_round(), so no other task's step sees this one (the serial
	 * only names the wait) */
	struct fo_wait *w = &fo.wait[me()];
	*w = (struct fo_wait){
	    .active = true, .serial = ++fo.serials, .uaddr = uaddr, .val = val, .woken_by = -1};
	FO_END();
}

void fo_wait_round(const void *q, const struct futex_key *key)
{
	FO_BEGIN();
	sim_touch_rec_self();
	struct fo_wait *w = &fo.wait[me()];
	w->q = q;
	w->key = *key;
	w->ckey = key_of_contract(w->uaddr, key);
	w->queued = w->round_queued = false;
	w->read = FO_UNREAD;
	w->woken_by = -1;
	FO_END();
}

void fo_queued(const void *q, const void *bucket)
{
	FO_BEGIN();
	sim_touch_rec_self();
	sim_touch(SIM_TOUCH_QUEUES);
	struct fo_wait *w = wait_of_q(q);
	if (w) {
		w->queued = w->round_queued = true;
		w->queued_at = now_at();
		if (fo.nqueues < FO_MAX_QUEUES)
			fo.queues[fo.nqueues++] = (struct fo_queue){
			    .task = me(), .bucket = bucket, .uaddr = w->uaddr, .at = w->queued_at};
		wait_feature(FE_QUEUED, w, w->read);
	}
	FO_END();
}

void fo_read(uint32_t curval)
{
	FO_BEGIN();
	sim_touch_rec_self();
	struct fo_wait *w = &fo.wait[me()];
	w->curval = curval;
	w->read = (int)curval == w->val ? FO_MATCH : FO_MISMATCH;
	w->read_at = now_at();
	struct fo_ref *ref = woken_ref(w); /* woken before it read: it reads now */
	if (ref) {
		sim_touch(SIM_TOUCH_WAKES);
		ref->read = w->read;
		ref->curval = curval;
		ref->read_at = w->read_at;
		ref->absorbed = w->read == FO_MISMATCH;
	}
	wait_feature(FE_READ, w, (uint32_t)w->read | (w->woken_by >= 0) << 2 | w->queued << 3);
	FO_END();
}

void fo_asleep(void)
{
	FO_BEGIN();
	struct fo_wait *w = &fo.wait[me()];
	w->asleep = true;
	w->slept_at = now_at();
	wait_feature(FE_ASLEEP, w, w->queued);
	FO_END();
}

void fo_awake(void)
{
	FO_BEGIN();
	struct fo_wait *w = &fo.wait[me()];
	w->asleep = false;
	wait_feature(FE_AWAKE, w, (uint32_t)(w->woken_by >= 0) | w->queued << 1);
	FO_END();
}

void fo_unqueued(const void *q)
{
	FO_BEGIN();
	sim_touch_rec_self();
	struct fo_wait *w = wait_of_q(q);
	if (w) {
		w->queued = false;
		wait_feature(FE_UNQUEUED, w, w->read);
	}
	FO_END();
}

void fo_wait_end(long ret)
{
	FO_BEGIN();
	sim_touch_rec_self();
	struct fo_wait *w = &fo.wait[me()];
	struct fo_ref *ref = woken_ref(w);
	if (ref) {
		sim_touch(SIM_TOUCH_WAKES);
		ref->returned = true;
		ref->ret = ret;
		if (ret != 0 && !fo.woken_ret.seen)
			fo.woken_ret = (struct fo_woken_ret){.seen = true,
							     .task = me(),
							     .uaddr = w->uaddr,
							     .val = w->val,
							     .ret = ret,
							     .wake = w->woken_by,
							     .at = now_at()};
	}
	wait_feature(FE_WAIT_END, w,
		     ret_class(ret) | (uint32_t)w->read << 3 | (uint32_t)(w->woken_by >= 0) << 5);
	w->ret = ret;
	w->active = w->queued = w->asleep = false;
	FO_END();
}

void fo_wake_begin(const char *op, unsigned long uaddr, const struct futex_key *key, int budget)
{
	FO_BEGIN();
	sim_touch(SIM_TOUCH_WAKES);
	fo.cur = NULL;
	if (fo.nwakes < FO_MAX_WAKES) {
		fo.cur = &fo.wakes[fo.nwakes++];
		*fo.cur = (struct fo_wake){.task = me(),
					   .op = op,
					   .uaddr = uaddr,
					   .key = *key,
					   .ckey = key_of_contract(uaddr, key),
					   .budget = budget,
					   .at = now_at()};
	}
	if (sim_icov)
		feature(FE_WAKE_BEGIN,
			(uint32_t)op[6] << 8 | (budget > 1) << 5 | chain_state(key, 0));
	FO_END();
}

void fo_woken(const void *q)
{
	FO_BEGIN();
	sim_touch(SIM_TOUCH_WAKES | SIM_TOUCH_RECS_RD); /* and the woken one's, below */
	struct fo_wait *w = wait_of_q(q);
	struct fo_wake *r = fo.cur;
	if (w) {
		sim_touch_rec((int)(w - fo.wait));
		w->queued = false;
		if (r && r->nwoken < SIM_MAX_TASKS) {
			w->woken_by = (int)(r - fo.wakes);
			r->woken[r->nwoken++] = (struct fo_ref){.task = (int)(w - fo.wait),
								.serial = w->serial,
								.val = w->val,
								.read = w->read,
								.curval = w->curval,
								.read_after = w->read == FO_UNREAD,
								.absorbed = w->read == FO_MISMATCH,
								.queued_at = w->queued_at,
								.read_at = w->read_at};
		}
		if (sim_icov)
			feature(FE_WOKEN, (uint32_t)w->read | w->asleep << 2 |
					      chain_state(&w->key, (int)(w - fo.wait)) << 3);
	}
	FO_END();
}

void fo_requeued(const void *q, const struct futex_key *key2)
{
	FO_BEGIN();
	sim_touch(SIM_TOUCH_WAKES | SIM_TOUCH_RECS_RD);
	struct fo_wait *w = wait_of_q(q);
	if (fo.cur)
		fo.cur->nmoved++;
	if (w) {
		sim_touch_rec((int)(w - fo.wait));
		w->key = *key2;
		w->ckey = *key2; /* the requeue names its futex: the contract's key is its */
		if (sim_icov)
			feature(FE_REQUEUED, (uint32_t)w->read | w->asleep << 2);
	}
	FO_END();
}

void fo_wake_end(long ret)
{
	FO_BEGIN();
	sim_touch(SIM_TOUCH_WAKES | SIM_TOUCH_RECS_RD | SIM_TOUCH_PAGES_RD);
	struct fo_wake *r = fo.cur;
	fo.cur = NULL;
	if (!r) {
		FO_END();
		return;
	}
	r->ret = ret;
	for (int t = 1; t <= SIM_MAX_TASKS; t++) {
		struct fo_wait *w = &fo.wait[t];
		if (w->active && w->read == FO_MATCH && w->queued && !same_key(&w->key, &r->key) &&
		    same_key(&w->ckey, &r->ckey) && r->nwoken < r->budget) {
			/* waiting on this futex by the contract, queued under another key */
			r->rekeyed[r->nrekeyed++] =
			    (struct fo_ref){.task = t, .serial = w->serial, .curval = w->curval};
			continue;
		}
		if (!w->active || w->read != FO_MATCH || !same_key(&w->key, &r->key))
			continue;
		if (w->queued) { /* waiting, queued, and this call did not wake it */
			r->passed[r->npassed++] =
			    (struct fo_ref){.task = t, .serial = w->serial, .curval = w->curval};
			continue;
		}
		/* waiting since its read, yet not queued: the walk could not find it */
		uint32_t now;
		if (!w->round_queued && w->woken_by < 0 && r->nwoken < r->budget &&
		    peek_word(w->uaddr, &now) && now != w->curval)
			r->missed[r->nmissed++] = (struct fo_ref){
			    .task = t, .serial = w->serial, .curval = w->curval, .now = now};
	}
	if (sim_icov) {
		uint32_t absorbed = 0;
		for (int i = 0; i < r->nwoken; i++)
			absorbed |= r->woken[i].absorbed;
		feature(FE_WAKE_END,
			(uint32_t)(r->nwoken > 0) | absorbed << 1 |
			    (uint32_t)(r->npassed > 0) << 2 | (uint32_t)(r->nmissed > 0) << 3 |
			    (uint32_t)(r->nwoken < r->budget) << 4 | chain_state(&r->key, 0) << 5);
	}
	FO_END();
}

void fo_cmp_sample(const void *bucket, unsigned nqueued)
{
	FO_BEGIN();
	sim_touch(SIM_TOUCH_QUEUES_RD);
	fo.cmp_bucket[me()] = bucket;
	fo.cmp_nq[me()] = nqueued;
	fo.cmp_queues[me()] = fo.nqueues;
	if (sim_icov)
		feature(FE_CMP_SAMPLE, nqueued > 0);
	FO_END();
}

void fo_cmp_eagain(unsigned long uaddr1, int val, uint32_t curval, unsigned now)
{
	FO_BEGIN();
	sim_touch(SIM_TOUCH_QUEUES | SIM_TOUCH_PAGES_RD);
	struct fo_eagain *e = &fo.eagain;
	if (!e->seen) {
		*e = (struct fo_eagain){.seen = true,
					.task = me(),
					.uaddr = uaddr1,
					.val = val,
					.curval = curval,
					.then_nq = fo.cmp_nq[me()],
					.now_nq = now,
					.first_queue = fo.cmp_queues[me()],
					.last_queue = fo.nqueues,
					.bucket = fo.cmp_bucket[me()],
					.at = now_at()};
		e->now_ok = peek_word(uaddr1, &e->now);
	}
	if (sim_icov)
		feature(FE_CMP_EAGAIN, (int)curval == val);
	FO_END();
}

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

/* S, still in the futex_wait the wake call saw, asleep on the same key. */
static bool still_asleep(const struct fo_ref *s, const struct futex_key *key)
{
	const struct fo_wait *w = &fo.wait[s->task];

	return w->active && w->serial == s->serial && w->asleep && same_key(&w->key, key);
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
			const struct fo_wait *w = &fo.wait[r->rekeyed[k].task];
			if (w->active && w->serial == r->rekeyed[k].serial && w->asleep &&
			    !same_key(&w->key, &r->key)) {
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
			const struct fo_wait *w = &fo.wait[r->woken[a].task];
			if (w->active && w->serial == r->woken[a].serial && w->asleep &&
			    w->woken_by == i) {
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
