/* The futex oracles: a lost wake-up, and a wrong result from FUTEX_CMP_REQUEUE, judged at
 * the end of a run from what ref/futex.c told them (ref/futex_oracle.h). This file keeps
 * the books (the hooks, ref/futex_oracle_int.h) and the interleaving features of their
 * events; ref/futex_oracle_judge.c judges them and writes the report. The definitions,
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
#include "futex_oracle_int.h"
#include "mm.h"
#include "report.h"
#include "../sim/icov.h"

#include <stddef.h>
#include <string.h>

struct fo_books fo;

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
