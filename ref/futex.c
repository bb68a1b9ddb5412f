/* kernel/futex.c as of February/March 2005: what every release here has the same (the
 * hash, the keys, queue_me(), unqueue_me(), wake_futex(), futex_wake(), the parts of
 * futex_wait() and futex_requeue() that no release changed) and do_futex(), which runs
 * the kernel's own futex_wait and futex_requeue (kcfg->futex, ref/kernels.h). Each
 * release's own paths are in a file named for it (ref/futex-2.6.11-rc4.c, ...;
 * docs/kernel-facts.md). The step order follows the real file so the two read side by
 * side. The fo_*() calls tell the oracles (ref/futex_oracle.c) what happened; they change
 * nothing in the run.
 *
 * Not modelled: FUTEX_FD (returns -ENOSYS here), non-linear shared mappings, key
 * reference counts (inodes here outlive every waiter of a run). The timeout is taken
 * in ticks of the virtual clock rather than copied in as a timespec.
 */
#include "futex_int.h"

#include <string.h>

#define FUTEX_HASHBITS 8

static struct futex_hash_bucket futex_queues[1 << FUTEX_HASHBITS];

/* 2.6.11's futex_q lives on futex_wait()'s stack. The model keeps each task's in a ring
 * instead, so that the memory outlives the call and a waker's late touch finds it dead
 * rather than reused stack: caught until the task has begun FUTEX_Q_RING more waits. */
#define FUTEX_Q_RING 8
static struct futex_q futex_q_stack[SIM_MAX_TASKS + 1][FUTEX_Q_RING];
static unsigned futex_q_next[SIM_MAX_TASKS + 1];

/* The buckets hash_futex() handed out since the last futex_init(): only those need
 * their initial state back (all of them the first time). A bit set with an atomic OR:
 * on real threads (snafu stress) tasks hash at once. */
static uint64_t futex_queues_used[(1 << FUTEX_HASHBITS) / 64];
static bool futex_queues_ready;

void futex_init(void)
{
	fo_reset();
	for (int i = 0; i < (1 << FUTEX_HASHBITS); i++) {
		if (futex_queues_ready && !(futex_queues_used[i / 64] >> (i % 64) & 1))
			continue;
		spin_lock_init(&futex_queues[i].lock, "&bh->lock");
		futex_queues[i].lock.array = "futex_queues"; /* for lockdep's instance reports */
		futex_queues[i].lock.index = i;
		futex_queues[i].nqueued = 0;
		INIT_LIST_HEAD(&futex_queues[i].chain);
	}
	memset(futex_queues_used, 0, sizeof(futex_queues_used));
	futex_queues_ready = true;
	memset(futex_q_next, 0, sizeof(futex_q_next));
}

/* futex_wait()'s `struct futex_q q;`: the calling task's next one, live. */
static struct futex_q *futex_q_get(void)
{
	struct task_struct *tsk = current;
	struct futex_q *q = &futex_q_stack[tsk->pid][futex_q_next[tsk->pid]++ % FUTEX_Q_RING];

	memset(q, 0, sizeof(*q));
	q->state = FQ_LIVE;
	q->owner = tsk->pid;
	return q;
}

/* futex_wait() returned: its frame, and q with it, is gone. */
static void futex_q_put(struct futex_q *q)
{
	q->state = FQ_DEAD;
	q->returned_op = current->sim.op;
	q->returned_point = current->sim.op_points;
}

__attribute__((noinline, noreturn)) static void futex_q_used_after_wake(const struct futex_q *q,
									const char *fn)
{
	const struct task_struct *t = current;
	char token[128], rel[160] = "", ret[96] = "", held[1024];

	snprintf(token, sizeof(token), "use-after-wake--futex_q--%s", fn);
	if (q->released_by)
		snprintf(
		    rel, sizeof(rel),
		    "  wake_futex() by T%d cleared its lock_ptr at %u.%u: from then on T%d may "
		    "return at any moment\n",
		    q->released_by, q->released_op, q->released_point, q->owner);
	else if (!q->lock_ptr) /* cleared, and the waker is still at it */
		snprintf(rel, sizeof(rel),
			 "  its lock_ptr is already NULL: from then on T%d may return at any "
			 "moment\n",
			 q->owner);
	if (q->state == FQ_DEAD)
		snprintf(ret, sizeof(ret), "  T%d's futex_wait returned at %u.%u\n", q->owner,
			 q->returned_op, q->returned_point);
	held_locks_text(t, held, sizeof(held));
	kernel_bug(q->state == FQ_DEAD ? "BUG: futex_q used after its waiter returned"
				       : "BUG: futex_q used after wake_futex() released it",
		   token,
		   "%s (pid %d)%s%s, op %u point %u (scheduling point %llu), touches in %s the "
		   "futex_q of T%d's futex_wait:\n%s%s"
		   "(op.point: a task's op and scheduling point, as `snafu replay --trace` "
		   "numbers them)\n\n%s\n"
		   "2.6.11 kernel/futex.c, wake_futex(): \"Afterwards, the futex_q must not be "
		   "accessed.\"\nIt lives on its waiter's stack, and the waiter returns as soon "
		   "as it sees lock_ptr\nNULL, taking no lock: the touch needs no schedule to find "
		   "it gone.",
		   t->comm, t->pid, t->syscall ? ", in " : "", t->syscall ? t->syscall : "",
		   t->sim.op, t->sim.op_points, (unsigned long long)sim_steps(), fn, q->owner, rel,
		   ret, held);
}

/* A waker is about to touch q (wake_futex(), a requeue's move, a walk of the chain): it
 * must still be live, and its lock_ptr still set: a waker finds q on a chain, and every
 * path sets lock_ptr before it queues (queue_me(), 2.6.12-jj's queue_lock()), so a NULL
 * lock_ptr there means that q was handed back to its waiter already. */
static inline void futex_q_touch(const struct futex_q *q, const char *fn)
{
	if (unlikely(q->state != FQ_LIVE || !q->lock_ptr))
		futex_q_used_after_wake(q, fn);
}

/* include/linux/jhash.h (Bob Jenkins' lookup2), as 2.6.11 hashes futex keys; laid out as
 * in Linux, three steps a line. */
/* clang-format off */
#define __jhash_mix(a, b, c)                                                                       \
	do {                                                                                       \
		a -= b; a -= c; a ^= (c >> 13);                                                    \
		b -= c; b -= a; b ^= (a << 8);                                                     \
		c -= a; c -= b; c ^= (b >> 13);                                                    \
		a -= b; a -= c; a ^= (c >> 12);                                                    \
		b -= c; b -= a; b ^= (a << 16);                                                    \
		c -= a; c -= b; c ^= (b >> 5);                                                     \
		a -= b; a -= c; a ^= (c >> 3);                                                     \
		b -= c; b -= a; b ^= (a << 10);                                                    \
		c -= a; c -= b; c ^= (b >> 15);                                                    \
	} while (0)
/* clang-format on */

static uint32_t jhash2(const uint32_t *k, uint32_t length, uint32_t initval)
{
	uint32_t a = 0x9e3779b9, b = 0x9e3779b9, c = initval, len = length;

	while (len >= 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		__jhash_mix(a, b, c);
		k += 3;
		len -= 3;
	}
	c += length * 4;
	switch (len) {
	case 2:
		b += k[1];
		/* fall through */
	case 1:
		a += k[0];
		break;
	}
	__jhash_mix(a, b, c);
	return c;
}

/* i386: word and ptr are two 32-bit words. */
struct futex_hash_bucket *hash_futex(const struct futex_key *key)
{
	uint32_t k[2] = {(uint32_t)key->word, (uint32_t)key->ptr};
	uint32_t hash = jhash2(k, 2, (uint32_t)key->offset) & ((1 << FUTEX_HASHBITS) - 1);

	__atomic_fetch_or(&futex_queues_used[hash / 64], (uint64_t)1 << (hash % 64),
			  __ATOMIC_RELAXED);
	return &futex_queues[hash];
}

static bool match_futex(const struct futex_key *a, const struct futex_key *b)
{
	return a->word == b->word && a->ptr == b->ptr && a->offset == b->offset;
}

/* Caller holds mmap_sem for read. */
int get_futex_key(unsigned long uaddr, struct futex_key *key)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	key->offset = (int)(uaddr % PAGE_SIZE);
	if (unlikely((key->offset % sizeof(uint32_t)) != 0))
		return -EINVAL;
	uaddr -= (unsigned long)key->offset;

	vma = find_extend_vma(mm, uaddr);
	if (unlikely(!vma))
		return -EFAULT;
	if (unlikely((vma->vm_flags & (VM_IO | VM_READ)) != VM_READ))
		return (vma->vm_flags & VM_IO) ? -EPERM : -EACCES;

	if (likely(!(vma->vm_flags & VM_MAYSHARE))) {
		key->ptr = mm->id;
		key->word = uaddr;
		return 0;
	}
	key->ptr = vma->vm_file->i_ino;
	key->offset++; /* bit 0 of offset: an inode-based key */
	key->word = ((uaddr - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
	return 0;
}

/* The 2.6.11 fix: read the word with the preempt count raised, so a fault cannot take
 * mmap_sem; the caller handles -EFAULT by dropping mmap_sem and faulting it in. */
int get_futex_value_locked(uint32_t *dest, unsigned long from)
{
	unsigned long ret;

	inc_preempt_count();
	ret = __copy_from_user_inatomic(dest, from, sizeof(uint32_t));
	dec_preempt_count();
	return ret ? -EFAULT : 0;
}

/* wake_futex: take the waiter off the list, wake it, and only then clear lock_ptr:
 * the waiter may return (and its futex_q vanish) as soon as lock_ptr is NULL.
 * "The hash bucket lock must be held when this is called. Afterwards, the futex_q must
 * not be accessed." */
static void wake_futex(struct futex_q *q)
{
	kframe(); /* kernel/futex.c, wake_futex() */
	futex_q_touch(q, __func__);
	sim_touch_task(q, owner); /* its list and lock_ptr, which it reads unlocked */
	fo_woken(q);
	/* every touch is checked, as KASAN would: the store to lock_ptr must come last */
	futex_q_touch(q, __func__);
	futex_chain_del_init(q);
	futex_q_touch(q, __func__);
	if (q->waiter)
		wake_up_process(q->waiter);
	/* the model's books, before the store that hands q back to its waiter */
	q->state = FQ_RELEASED;
	q->released_by = current->pid;
	q->released_op = current->sim.op;
	q->released_point = current->sim.op_points;
	q->lock_ptr = NULL;
}

void queue_me(struct futex_q *q)
{
	kframe(); /* kernel/futex.c, queue_me() */
	struct futex_hash_bucket *bh = hash_futex(&q->key);

	q->waiter = NULL;
	q->lock_ptr = &bh->lock;
	spin_lock(&bh->lock);
	sim_touch(SIM_TOUCH_QUEUES); /* nqueued, which futex_requeue() reads unlocked */
	bh->nqueued++;
	futex_chain_add(q, bh);
	fo_queued(q, bh);
	spin_unlock(&bh->lock);
}

/* The futex_q's contract, broken: a waiter that finds its lock_ptr NULL (woken: it may
 * return and its futex_q, on its stack, is gone) must be off every list, or a later walk
 * of the chain follows it into a dead stack frame. wake_futex() unlinks before it clears
 * lock_ptr (2.6.11 kernel/futex.c: list_del_init(), then q->lock_ptr = NULL, "the
 * futex_q must not be accessed" after). tests/test_contracts.c breaks it with
 * futex_test_relist(). */
__attribute__((noinline, noreturn)) static void futex_q_bug(const struct futex_q *q,
							    const char *rule, const char *what)
{
	contract_bug("futex", rule,
		     "%s\nT%d's futex_q, woken by T%d at %u.%u (2.6.11 kernel/futex.c, "
		     "wake_futex() and unqueue_me(): %s)\n",
		     what, q->owner, q->released_by, q->released_op, q->released_point, kcfg->name);
}

/* Returns 1 if we were still queued (and are now unqueued), 0 if a waker got us first. */
int unqueue_me(struct futex_q *q)
{
	kframe(); /* kernel/futex.c, unqueue_me() */
	spinlock_t *lock_ptr;
	int ret = 0;

retry:
	lock_ptr = q->lock_ptr;
	sim_touch_task(q, owner); /* lock_ptr, which a waker clears or moves */
	if (lock_ptr) {
		spin_lock(lock_ptr);
		/* a requeue may have moved us to another bucket meanwhile */
		if (unlikely(lock_ptr != q->lock_ptr)) {
			spin_unlock(lock_ptr);
			goto retry;
		}
		futex_chain_del(q); /* asserts lock_ptr is the lock of q's chain */
		fo_unqueued(q);
		spin_unlock(lock_ptr);
		ret = 1;
	} else if (unlikely(!list_empty(&q->list))) {
		futex_q_bug(q, "woken-but-queued",
			    "a waiter woken (lock_ptr NULL) is still on a futex chain");
	}
	return ret;
}

static int futex_wake(unsigned long uaddr, int nr_wake)
{
	kframe(); /* kernel/futex.c, futex_wake() */
	struct mm_struct *mm = current->mm;
	struct futex_hash_bucket *bh;
	struct futex_q *this, *next;
	struct futex_key key;
	int ret;

	down_read(&mm->mmap_sem);
	ret = get_futex_key(uaddr, &key);
	if (unlikely(ret != 0))
		goto out;
	bh = hash_futex(&key);
	/* a test-only kernel first asks "any waiters?" without the lock, a plain read of what
	 * queue_me() writes under it: the data race tests/test_tsan.sh wants reported. (Not
	 * a walk of the list without the lock: on real threads that follows a futex_q off a
	 * stack its waiter has left, and the corrupted stack could kill the process before
	 * ThreadSanitizer says why.) */
	if (kcfg->test_futex_wake_unlocked && (sim_touch(SIM_TOUCH_QUEUES_RD), !bh->nqueued))
		goto out;
	spin_lock(&bh->lock);
	fo_wake_begin("FUTEX_WAKE", uaddr, &key, nr_wake > 1 ? nr_wake : 1);
	list_for_each_entry_safe(this, next, &bh->chain, list, struct futex_q)
	{
		futex_q_touch(this, __func__);
		if (match_futex(&this->key, &key)) {
			wake_futex(this);
			if (++ret >= nr_wake) /* wakes one even when nr_wake is 0 */
				break;
		}
	}
	fo_wake_end(ret);
	spin_unlock(&bh->lock);
out:
	up_read(&mm->mmap_sem);
	return ret;
}

/* include/asm-i386/futex.h (2.6.14 to 2.6.18), futex_atomic_op_inuser(): the operation
 * on the word at uaddr, a locked instruction with page faults disabled (the preempt count
 * raised), then the comparison of the old value: 1 or 0, or -EFAULT (the word cannot be
 * written without a fault), or -ENOSYS for an operation or a comparison the encoding has
 * no name for. A bad comparison comes after the write, which stays. Simplified: a CPU
 * with BSWAP (an i486 or later), so no -ENOSYS for an i386. */
static uint32_t op_set(uint32_t old, int oparg)
{
	(void)old;
	return (uint32_t)oparg;
}
static uint32_t op_add(uint32_t old, int oparg)
{
	return old + (uint32_t)oparg;
}
static uint32_t op_or(uint32_t old, int oparg)
{
	return old | (uint32_t)oparg;
}
static uint32_t op_andn(uint32_t old, int oparg)
{
	return old & ~(uint32_t)oparg;
}
static uint32_t op_xor(uint32_t old, int oparg)
{
	return old ^ (uint32_t)oparg;
}

int futex_atomic_op_inuser(int encoded_op, unsigned long uaddr)
{
	static uint32_t (*const apply[])(uint32_t, int) = {
	    [FUTEX_OP_SET] = op_set,   [FUTEX_OP_ADD] = op_add, [FUTEX_OP_OR] = op_or,
	    [FUTEX_OP_ANDN] = op_andn, [FUTEX_OP_XOR] = op_xor,
	};
	int op = (encoded_op >> 28) & 7;
	int cmp = (encoded_op >> 24) & 15;
	int oparg = (int32_t)((uint32_t)encoded_op << 8) >> 20;
	int cmparg = (int32_t)((uint32_t)encoded_op << 20) >> 20;
	uint32_t oldval = 0;
	int ret;

	/* `1 << oparg`: x86's shl takes the count mod 32, which this says in C */
	if ((uint32_t)encoded_op & (uint32_t)FUTEX_OP_OPARG_SHIFT << 28)
		oparg = (int)(1u << (oparg & 31));
	if (!access_ok(uaddr, sizeof(int)))
		return -EFAULT;
	inc_preempt_count();
	ret = op <= FUTEX_OP_XOR ? __futex_rmw_inatomic(uaddr, apply[op], oparg, &oldval) : -ENOSYS;
	dec_preempt_count();
	if (!ret)
		wo_applied(oldval);
	if (!ret) {
		int old = (int)oldval;
		switch (cmp) {
		case FUTEX_OP_CMP_EQ:
			return old == cmparg;
		case FUTEX_OP_CMP_NE:
			return old != cmparg;
		case FUTEX_OP_CMP_LT:
			return old < cmparg;
		case FUTEX_OP_CMP_GE:
			return old >= cmparg;
		case FUTEX_OP_CMP_LE:
			return old <= cmparg;
		case FUTEX_OP_CMP_GT:
			return old > cmparg;
		default:
			return -ENOSYS;
		}
	}
	return ret;
}

/* futex_wake_op()'s walk of one chain (and 2.6.22's futex_wake()'s), with its bucket
 * lock held: wake the waiters on key, from the (ret + 1)-th on, until ++ret >= nr (so
 * one even where nr is 0); the oracles count them as a wake of their own (name: the
 * op; fn: the kernel function, for a touch of a futex_q gone). Returns ret. */
int futex_wake_chain(const char *fn, const char *name, unsigned long uaddr,
		     struct futex_hash_bucket *bh, const struct futex_key *key, int nr, int ret)
{
	struct futex_q *this, *next;
	int first = ret;

	fo_wake_begin(name, uaddr, key, nr > 1 ? nr : 1);
	list_for_each_entry_safe(this, next, &bh->chain, list, struct futex_q)
	{
		futex_q_touch(this, fn);
		if (match_futex(&this->key, key)) {
			wake_futex(this);
			if (++ret >= nr)
				break;
		}
	}
	fo_wake_end(ret - first);
	return ret;
}

/* Both buckets, in address order (the array index order), each once. The second is
 * taken nested for lockdep, as double_lock_hb() does from 2.6.18 (ref/lockdep.c). */
void lock_two_buckets(struct futex_hash_bucket *bh1, struct futex_hash_bucket *bh2)
{
	if (bh1 < bh2) {
		spin_lock(&bh1->lock);
		spin_lock_nested(&bh2->lock, SINGLE_DEPTH_NESTING);
	} else {
		spin_lock(&bh2->lock);
		if (bh1 > bh2)
			spin_lock_nested(&bh1->lock, SINGLE_DEPTH_NESTING);
	}
}

void unlock_two_buckets(struct futex_hash_bucket *bh1, struct futex_hash_bucket *bh2)
{
	spin_unlock(&bh1->lock);
	if (bh1 != bh2)
		spin_unlock(&bh2->lock);
}

/* ---- the parts of futex_wait() and futex_requeue() that no release here changed ----
 * (ref/futex_int.h says what each does; each release's file calls them from its own
 * futex_wait and futex_requeue, whose frame they run in) */

#undef KFUNC
#define KFUNC "futex_wait"

int futex_wait_key(unsigned long uaddr, struct futex_q *q)
{
	int ret;

	ret = get_futex_key(uaddr, &q->key);
	if (likely(ret == 0))
		fo_wait_round(q, &q->key);
	return ret;
}

int futex_wait_sleep(struct futex_q *q, unsigned long uaddr, int64_t time)
{
	struct mm_struct *mm = current->mm;

	/* Now the futex is queued and we have checked the data, we don't want to hold
	 * mmap_sem while we sleep. */
	up_read(&mm->mmap_sem);
	return futex_wait_queued(q, uaddr, time);
}

int futex_wait_queued(struct futex_q *q, unsigned long uaddr, int64_t time)
{
	set_current_state(TASK_INTERRUPTIBLE);
	q->waiter = current;                            /* add_wait_queue(&q.waiters, &wait) */
	if (likely(!data_race(list_empty(&q->list)))) { /* "safe here without any lock" */
		set_blocked_on(q, "futex", "futex_wait", "futex_wait");
		sim_trace(EV_SLEEP, "futex_wait", NULL, (long)uaddr, 0);
		fo_asleep();
		time = schedule_timeout(time);
		fo_awake();
		clear_blocked_on();
	}
	set_current_state(TASK_RUNNING);

	/* If we were woken (and unqueued), we succeeded, whatever. */
	if (!unqueue_me(q))
		return 0;
	if (time == 0)
		return -ETIMEDOUT;
	/* We expect signal_pending(current), but another thread may have handled it.
	 * (2.6.22 returns -ERESTARTSYS, -ERESTART_RESTARTBLOCK with a timeout: the
	 * model's signal has a handler without SA_RESTART, for which do_signal() makes
	 * either -EINTR, as the user sees it here.) */
	return -EINTR;
}

int futex_wait_unqueue(struct futex_q *q, int ret)
{
	struct mm_struct *mm = current->mm;

	/* If we were woken (and unqueued), we succeeded, whatever. */
	if (!unqueue_me(q))
		ret = 0;
	up_read(&mm->mmap_sem);
	return ret;
}

int futex_wait_compare(struct futex_q *q, unsigned long uaddr, int val, uint32_t curval,
		       int64_t time)
{
	fo_read(curval);
	if ((int)curval != val)
		return futex_wait_unqueue(q, -EWOULDBLOCK);
	return futex_wait_sleep(q, uaddr, time);
}

#undef KFUNC
#define KFUNC "futex_requeue"

int futex_requeue_keys(unsigned long uaddr1, unsigned long uaddr2, struct futex_key *key1,
		       struct futex_key *key2, struct futex_hash_bucket **bh1,
		       struct futex_hash_bucket **bh2)
{
	int ret;

	ret = get_futex_key(uaddr1, key1);
	if (unlikely(ret != 0))
		return ret;
	ret = get_futex_key(uaddr2, key2);
	if (unlikely(ret != 0))
		return ret;

	*bh1 = hash_futex(key1);
	*bh2 = hash_futex(key2);
	return 0;
}

unsigned int futex_requeue_nqueued(struct futex_hash_bucket *bh1, const int *valp)
{
	unsigned int nqueued;

	/* nqueued is read before *uaddr1 and compared again under the bucket locks, so the
	 * value can be read without holding them. A real race, on purpose: 2.6.11's
	 * kernel/futex.c futex_requeue() reads bh1->nqueued with no lock (then smp_mb())
	 * while queue_me() increments it under bh->lock; the check under the locks
	 * (futex_requeue_compare()) catches a change. Marked like futex_wait's list_empty(&q.list),
	 * so TSan does not report it (tests/tsan/futex-requeue-nqueued.case). */
	nqueued = data_race(bh1->nqueued);
	sim_touch(SIM_TOUCH_QUEUES_RD);
	if (valp)
		fo_cmp_sample(bh1, nqueued);
	return nqueued;
}

int futex_requeue_compare(unsigned long uaddr1, const struct futex_key *key1,
			  const struct futex_key *key2, struct futex_hash_bucket *bh1,
			  struct futex_hash_bucket *bh2, int nr_wake, int nr_requeue,
			  const int *valp, uint32_t curval, unsigned int nqueued)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (likely(valp != NULL) && (int)curval != *valp) {
		ret = -EAGAIN;
		goto out;
	}

	lock_two_buckets(bh1, bh2);
	if (unlikely(nqueued != bh1->nqueued && valp != NULL)) {
		/* the word equalled *valp when read; a waiter queued in bh1 meanwhile */
		fo_cmp_eagain(uaddr1, *valp, (uint32_t)*valp, bh1->nqueued);
		ret = -EAGAIN;
	} else {
		ret = futex_requeue_waiters(uaddr1, key1, key2, bh1, bh2, nr_wake, nr_requeue,
					    valp != NULL, REQUEUE_MOVES);
	}
	unlock_two_buckets(bh1, bh2);
out:
	up_read(&mm->mmap_sem);
	return ret;
}

int futex_requeue_waiters(unsigned long uaddr1, const struct futex_key *key1,
			  const struct futex_key *key2, struct futex_hash_bucket *bh1,
			  struct futex_hash_bucket *bh2, int nr_wake, int nr_requeue, bool cmp,
			  enum requeue_walk walk)
{
	struct futex_q *this, *next;
	struct list_head *head1;
	int ret = 0;

	head1 = &bh1->chain;
	fo_wake_begin(cmp ? "FUTEX_CMP_REQUEUE" : "FUTEX_REQUEUE", uaddr1, key1, nr_wake);
	list_for_each_entry_safe(this, next, head1, list, struct futex_q)
	{
		futex_q_touch(this, KFUNC);
		if (!match_futex(&this->key, key1))
			continue;
		if (++ret <= nr_wake) {
			wake_futex(this);
		} else if (walk == REQUEUE_SAME_BUCKET_STAYS && head1 == &bh2->chain) {
			/* 2.6.18: "If key1 and key2 hash to the same bucket, no need to
			 * requeue": the key changes, the waiter stays where it is */
			this->key = *key2;
			fo_requeued(this, key2);
			if (ret - nr_wake >= nr_requeue)
				break;
		} else {
			/* off bh1's chain, onto bh2's: futex_requeue() holds both locks */
			futex_chain_move(this, bh2);
			sim_touch_task(this, owner); /* its lock_ptr */
			this->lock_ptr = &bh2->lock;
			this->key = *key2;
			fo_requeued(this, key2);
			if (ret - nr_wake >= nr_requeue)
				break;
			/* Make sure to stop if key1 == key2 (gone in 2.6.18, which never moves
			 * a waiter within a bucket) */
			if (walk == REQUEUE_MOVES && head1 == &bh2->chain && head1 != &next->list)
				head1 = &this->list;
		}
	}
	fo_wake_end(ret);
	return ret;
}

#undef KFUNC
#define KFUNC __func__

/* do_futex(): the kernel's futex paths, those of the release that kcfg->futex names.
 * From 2.6.22 the command is op & FUTEX_CMD_MASK, and the paths take fshared: NULL
 * where FUTEX_PRIVATE_FLAG is set ("if (!(op & FUTEX_PRIVATE_FLAG)) fshared =
 * &current->mm->mmap_sem"); before, the flag makes a command no case knows. */
long do_futex(unsigned long uaddr, int op, int val, int64_t timeout, unsigned long uaddr2, int val2,
	      int val3)
{
	kframe(); /* kernel/futex.c, do_futex() */
	const struct futex_paths *f = kcfg->futex;
	struct rw_semaphore *fshared = &current->mm->mmap_sem;
	int cmd = op, ret;

	if (f->wait_fshared) {
		cmd = op & FUTEX_CMD_MASK;
		if (op & FUTEX_PRIVATE_FLAG)
			fshared = NULL;
	}
	fo_call_begin(!fshared);
	switch (cmd) {
	case FUTEX_WAIT: {
		struct futex_q *q = futex_q_get();
		fo_wait_begin(uaddr, val);
		ret = f->wait_fshared ? f->wait_fshared(q, uaddr, fshared, val, timeout)
				      : f->wait(q, uaddr, val, timeout);
		futex_q_put(q);
		fo_wait_end(ret);
		return ret;
	}
	case FUTEX_WAKE:
		return f->wake_fshared ? f->wake_fshared(uaddr, fshared, val)
				       : futex_wake(uaddr, val);
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE: {
		const int *cmpval = cmd == FUTEX_CMP_REQUEUE ? &val3 : NULL;
		return f->requeue_fshared
			   ? f->requeue_fshared(uaddr, fshared, uaddr2, val, val2, cmpval)
			   : f->requeue(uaddr, uaddr2, val, val2, cmpval);
	}
	case FUTEX_WAKE_OP:
		if (!f->wake_op && !f->wake_op_fshared)
			return -ENOSYS; /* before 2.6.14: do_futex()'s default */
		wo_begin(uaddr, uaddr2, val3);
		ret = f->wake_op_fshared
			  ? f->wake_op_fshared(uaddr, fshared, uaddr2, val, val2, val3)
			  : f->wake_op(uaddr, uaddr2, val, val2, val3);
		wo_end(ret);
		return ret;
	default: /* FUTEX_FD is not modelled; FUTEX_PRIVATE_FLAG before 2.6.22 */
		return -ENOSYS;
	}
}

/* ---- tests only (tests/test_assert.c) ---- */

struct futex_q *futex_test_first_waiter(unsigned long uaddr)
{
	struct mm_struct *mm = current->mm;
	struct futex_q *this, *next, *found = NULL;
	struct futex_hash_bucket *bh;
	struct futex_key key;

	down_read(&mm->mmap_sem);
	if (get_futex_key(uaddr, &key) == 0) {
		bh = hash_futex(&key);
		spin_lock(&bh->lock);
		list_for_each_entry_safe(this, next, &bh->chain, list, struct futex_q)
		{
			if (match_futex(&this->key, &key)) {
				found = this;
				break;
			}
		}
		spin_unlock(&bh->lock);
	}
	up_read(&mm->mmap_sem);
	return found;
}

spinlock_t *futex_test_bucket_lock(unsigned long uaddr)
{
	struct mm_struct *mm = current->mm;
	struct futex_key key;
	int ret;

	down_read(&mm->mmap_sem);
	ret = get_futex_key(uaddr, &key);
	up_read(&mm->mmap_sem);
	return ret ? NULL : &hash_futex(&key)->lock;
}

void futex_test_wake(struct futex_q *q)
{
	wake_futex(q);
}

void futex_test_set_lock_ptr(struct futex_q *q, spinlock_t *lock)
{
	q->lock_ptr = lock;
}

void futex_test_relist(struct futex_q *q)
{
	futex_chain_add(q, hash_futex(&q->key));
}

static struct futex_hash_bucket *bucket_of(spinlock_t *lock)
{
	return container_of(lock, struct futex_hash_bucket, lock);
}

void futex_test_chain_add(struct futex_q *q, spinlock_t *lock)
{
	futex_chain_add(q, bucket_of(lock));
}

void futex_test_chain_del(struct futex_q *q)
{
	futex_chain_del(q);
}

void futex_test_chain_del_init(struct futex_q *q)
{
	futex_chain_del_init(q);
}

void futex_test_chain_move(struct futex_q *q, spinlock_t *lock)
{
	futex_chain_move(q, bucket_of(lock));
}
