/* Lockdep on the model: the rules of Linux's lock validator (kernel/lockdep.c, 2.6.18 on)
 * and of might_fault() (mm/memory.c, 2.6.27), applied to the 2.6.11 kernels of
 * ref/kernels.c, in every run. Also the held-lock stacks and what each task sleeps on,
 * which the hung-task report reads (ref/hung_task.c).
 *
 * What lockdep does, and what this file does the same way:
 *  - Locks fall into classes: lockdep keys a class by the lock's static key and its
 *    subclass; the model by the lock's name and subclass ("&mm->mmap_sem", "&bh->lock"
 *    nested 1 by spin_lock_nested()). Classes live for the process.
 *  - Each task has a stack of held locks (held_lock: the class, read or not, trylock,
 *    the acquiring function as the acquire_ip).
 *  - __lock_acquire() checks a lock before it is taken, except a trylock, which is only
 *    pushed ("trylock can be done in any order"):
 *    check_deadlock(): the task already holds the class. Allowed only when the new
 *      acquisition is a recursive read (read == 2, rwlock_acquire_read()) and the held
 *      one a read; an rwsem's down_read() is read == 1 (rwsem_acquire_read()), so a
 *      second down_read() of a class held for read is "possible recursive locking
 *      detected" (print_deadlock_bug()). The model annotates down_read() as lockdep
 *      does on a fair rwsem (2.6.11's, RWSEM_FAIR) and as a recursive read where the
 *      kernel's rwsem admits the holder again (rwsem-lockdepth) or any reader past a
 *      waiting writer (rwsem-reader-pref): see lockdep_rwsem_read().
 *    check_prevs_add(): a dependency prev -> next from the topmost held lock that is not
 *      a recursive read (and from every trylock above it); check_prev_add() first looks
 *      whether next already reaches prev in the graph (check_noncircular()): "possible
 *      circular locking dependency detected" (print_circular_bug_header()). A recursive
 *      read adds no dependency. The model's graph is one run's (the fuzzer's programs are
 *      independent), as bitmasks; a dependency already in it was checked when added,
 *      which is what lockdep's chain cache saves too.
 *  - After the first report lockdep turns itself off (debug_locks_off()): one report a
 *    run.
 *  - might_fault() (mm/memory.c, 2.6.27, under CONFIG_PROVE_LOCKING): every user access
 *    that may fault is annotated as might_lock_read(&current->mm->mmap_sem), a read
 *    acquisition and its release, unless in_atomic() (page faults disabled: the
 *    inatomic copy of get_futex_value_locked() has no annotation at all) or there is no
 *    mm. The pf-mmap-sem kernel's fault handler takes no mmap_sem while PF_MMAP_SEM is
 *    set, so its annotation would not either.
 * Not modelled: irq-safety (the model has no interrupts), lock_chains, usage bits, stack
 * traces (the acquiring function stands for them), the limits of 2.6.18 (MAX_LOCK_DEPTH
 * is MAX_HELD_LOCKS here; more than LOCKDEP_MAX_CLASSES classes turns checking off).
 */
#include "lockdep.h"
#include "kernels.h"
#include "mm.h"
#include "report.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

#define NO_CLASS 0xff

/* Real threads (sim/native.c) update the graph from every task's thread: one lock for
 * it. The simulator runs one task at a time and never switches inside this file, but
 * under ThreadSanitizer its fibers switch without synchronizing (sim/fiber.c), so the
 * lock is there too, to tell TSan that the tasks take turns. */
#include "../sim/tsan.h"
#if defined(SNAFU_NATIVE) || defined(SNAFU_TSAN)
#include <sched.h>
static atomic_flag graph_mutex = ATOMIC_FLAG_INIT;
static void graph_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&graph_mutex, memory_order_acquire))
		sched_yield();
}
static void graph_unlock(void)
{
	atomic_flag_clear_explicit(&graph_mutex, memory_order_release);
}
#else
static inline void graph_lock(void)
{
}
static inline void graph_unlock(void)
{
}
#endif

struct lock_class {
	const char *name; /* a string that lives as long as the process */
	unsigned subclass;
};
static struct lock_class classes[LOCKDEP_MAX_CLASSES];
static int nclasses;

/* This run's dependency graph: after[a] has bit b once a task took a lock of class b
 * while it held one of class a; dep_at[a][b] says where, the first time. */
struct dep_site {
	const char *prev_site, *next_site;
	int task;
	uint16_t op, point;
};
static uint32_t after[LOCKDEP_MAX_CLASSES];
static struct dep_site dep_at[LOCKDEP_MAX_CLASSES][LOCKDEP_MAX_CLASSES];

/* Checking on, and no report yet this run (debug_locks). */
static _Atomic bool active;
static struct lockdep_prediction pred;
static char body[4096];
static size_t blen;

/* A name seen under another pointer, or a new class: the slow path. */
__attribute__((noinline)) static int class_register(const char *name, unsigned subclass)
{
	for (int i = 0; i < nclasses; i++)
		if (classes[i].subclass == subclass && !strcmp(classes[i].name, name))
			return i;
	if (nclasses == LOCKDEP_MAX_CLASSES) /* MAX_LOCKDEP_KEYS too low: checking off */
		return -1;
	classes[nclasses] = (struct lock_class){name, subclass};
	return nclasses++;
}

/* The names are string literals: a pointer compare finds a class (in a handful). The
 * last one found first: lock_acquire() and lock_acquired() ask for the same in turn. */
static inline int class_of(const char *name, unsigned subclass)
{
	static int last;

	if (classes[last].name == name && classes[last].subclass == subclass)
		return last;
	for (int i = 0; i < nclasses; i++)
		if (classes[i].name == name && classes[i].subclass == subclass)
			return last = i;
	return class_register(name, subclass);
}

int lockdep_rwsem_read(void)
{
	return kcfg->rwsem == RWSEM_FAIR ? LD_READ : LD_READ_RECURSIVE;
}

void lockdep_reset(bool on)
{
	memset(after, 0, sizeof(after));
	memset(&pred, 0, sizeof(pred));
	blen = 0;
	body[0] = 0;
	atomic_store(&active, on);
}

const struct lockdep_prediction *lockdep_prediction(void)
{
	return &pred;
}

/* ---- the report ---- */

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(body) - blen;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(body + blen, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		blen += (size_t)n < room ? (size_t)n : room - 1;
}

/* A class's name for a token: "&mm->mmap_sem" -> "mmap_sem", "&bh->lock" -> "bh_lock",
 * a subclass as "-N". */
static const char *short_name(const char *name, unsigned subclass, char *buf, size_t len)
{
	const char *s = name[0] == '&' ? name + 1 : name, *arrow = strstr(s, "->"), *last = s;

	while (arrow) {
		const char *next = strstr(arrow + 2, "->");
		if (!next)
			break;
		s = arrow + 2;
		arrow = next;
	}
	if (arrow) {
		last = arrow + 2;
		if (!strcmp(last, "lock"))
			snprintf(buf, len, "%.*s_lock", (int)(arrow - s), s);
		else
			snprintf(buf, len, "%s", last);
	} else {
		snprintf(buf, len, "%s", last);
	}
	if (subclass)
		snprintf(buf + strlen(buf), len - strlen(buf), "-%u", subclass);
	return buf;
}

static const char *mode(int read)
{
	return read ? "read" : "write";
}

static const char *class_name(int c, char *buf, size_t len)
{
	if (!classes[c].subclass)
		return classes[c].name;
	snprintf(buf, len, "%s/%u", classes[c].name, classes[c].subclass);
	return buf;
}

/* The acquisition being checked. */
struct want {
	int class;
	const char *name, *site, *via; /* via: might_fault()'s user access, else NULL */
	int read;
};

static void say_wanted(const struct task_struct *t, const struct want *w)
{
	char cn[96];

	say("%s (pid %d) is trying to acquire %s (%s)", t->comm, t->pid,
	    class_name(w->class, cn, sizeof(cn)), mode(w->read));
	if (w->via)
		say(" in might_fault(), from %s() in %s", w->via, w->site);
	else
		say(" at %s", w->site);
	say(", op %u point %u (scheduling point %llu)\n", t->sim.op, t->sim.op_points,
	    (unsigned long long)sim_steps());
}

static void say_held(const struct task_struct *t)
{
	char cn[96];

	say("\n%s holds %d lock%s:\n", t->comm, t->nheld, t->nheld == 1 ? "" : "s");
	for (int i = 0; i < t->nheld; i++) {
		const struct held_lock *h = &t->held[i];
		say("  holds #%d: %s (%s), taken at %s%s\n", i,
		    h->class_id == NO_CLASS ? h->name : class_name(h->class_id, cn, sizeof(cn)),
		    mode(h->read), h->site, h->trylock ? " (trylock)" : "");
	}
}

/* A report: the run's prediction, and checking off (debug_locks_off()). Not static and
 * not inlined, so that gdb (and `snafu record`) can stop where a prediction is made. */
__attribute__((noinline)) void lockdep_bug(const struct task_struct *t, bool circular,
					   const struct held_lock *h, const struct want *w);
__attribute__((noinline)) void lockdep_bug(const struct task_struct *t, bool circular,
					   const struct held_lock *h, const struct want *w)
{
	char a[64], b[64];

	atomic_store(&active, false);
	pred.made = true;
	pred.circular = circular;
	pred.task = t->pid;
	pred.op = t->sim.op;
	pred.point = t->sim.op_points;
	pred.step = sim_steps();
	pred.locks[0] = h->name;
	pred.locks[1] = w->name;
	pred.held_site = h->site;
	short_name(h->name, h->class_id == NO_CLASS ? 0 : classes[h->class_id].subclass, a,
		   sizeof(a));
	short_name(w->name, classes[w->class].subclass, b, sizeof(b));
	if (circular) {
		snprintf(pred.title, sizeof(pred.title),
			 "possible circular locking dependency detected");
		snprintf(pred.token, sizeof(pred.token), "lockdep--circular--%s--%s--%s", a, b,
			 h->site);
	} else {
		snprintf(pred.title, sizeof(pred.title), "possible recursive locking detected");
		snprintf(pred.token, sizeof(pred.token), "lockdep--recursive%s--%s--%s",
			 w->read && h->read ? "-read" : "", a, h->site);
	}
}

__attribute__((noinline)) static void
report_recursive(const struct task_struct *t, const struct held_lock *h, const struct want *w)
{
	char cn[96];

	lockdep_bug(t, false, h, w);
	say("lockdep (kernel/lockdep.c, check_deadlock()):\n");
	say_wanted(t, w);
	say("but it already holds a lock of that class:\n  %s (%s), taken at %s\n",
	    class_name(h->class_id, cn, sizeof(cn)), mode(h->read), h->site);
	say_held(t);
	if (w->read && h->read) {
		say("\n%s is a fair rwsem on kernel %s: a second down_read() by the task\n"
		    "that holds it queues behind any writer already waiting, which waits for the\n"
		    "first hold to go.\n",
		    w->name, kcfg->name);
		if (w->via)
			say("%s() may fault, and do_page_fault() then takes %s for read.\n", w->via,
			    w->name);
		say("Lockdep reports it whether or not a writer comes in between; `snafu "
		    "confirm`\nsearches for a schedule in which one does.\n");
	} else {
		say("\nA task that takes a lock it holds waits for itself.\n");
	}
}

/* The path from class `from` to class `to` in the graph, both included: its length
 * (0: none). */
static int path_to(int from, int to, int *path)
{
	int parent[LOCKDEP_MAX_CLASSES], queue[LOCKDEP_MAX_CLASSES], head = 0, tail = 0, n = 0;
	uint32_t seen = 1u << from;

	queue[tail++] = from;
	parent[from] = -1;
	while (head < tail) {
		int c = queue[head++];
		uint32_t next = after[c] & ~seen;
		while (next) {
			int d = __builtin_ctz(next);
			next &= next - 1;
			seen |= 1u << d;
			parent[d] = c;
			if (d == to) {
				int rev[LOCKDEP_MAX_CLASSES];
				for (int x = d; x >= 0; x = parent[x])
					rev[n++] = x;
				for (int i = 0; i < n; i++)
					path[i] = rev[n - 1 - i];
				return n;
			}
			queue[tail++] = d;
		}
	}
	return 0;
}

static void report_circular(const struct task_struct *t, const struct held_lock *h,
			    const struct want *w, const int *path, int n)
{
	char c1[96], c2[96], c3[96], c4[96];

	lockdep_bug(t, true, h, w);
	say("lockdep (kernel/lockdep.c, check_noncircular()):\n");
	say_wanted(t, w);
	say("but it already holds:\n  %s (%s), taken at %s\n",
	    class_name(h->class_id, c1, sizeof(c1)), mode(h->read), h->site);
	say("\nwhich lock already depends on the new lock; the dependency chain:\n");
	for (int i = 0; i + 1 < n; i++) {
		const struct dep_site *d = &dep_at[path[i]][path[i + 1]];
		say("  %s -> %s: T%d held %s (taken at %s) when it took %s at %s, op %u point "
		    "%u\n",
		    class_name(path[i], c1, sizeof(c1)), class_name(path[i + 1], c2, sizeof(c2)),
		    d->task, class_name(path[i], c3, sizeof(c3)), d->prev_site,
		    class_name(path[i + 1], c4, sizeof(c4)), d->next_site, d->op, d->point);
	}
	say_held(t);
	say("\nA task that holds %s and waits for %s, while this one holds %s\nand waits "
	    "for %s, deadlocks. Lockdep reports the order whether or not two tasks\nmeet "
	    "there; `snafu confirm` searches for a schedule in which they do.\n",
	    class_name(w->class, c1, sizeof(c1)), class_name(h->class_id, c2, sizeof(c2)),
	    class_name(h->class_id, c3, sizeof(c3)), w->name);
}

/* A dependency not in the graph yet: check_noncircular(), then add it. False when it
 * made a report. Out of line: its arrays stay out of the hot path's frame. */
__attribute__((noinline)) static bool prev_add_new(const struct task_struct *t,
						   const struct held_lock *h, const struct want *w)
{
	int p = h->class_id, c = w->class, path[LOCKDEP_MAX_CLASSES], n;

	n = path_to(c, p, path);
	if (n) {
		report_circular(t, h, w, path, n);
		return false;
	}
	if (w->read == LD_READ_RECURSIVE || h->ld_read == LD_READ_RECURSIVE)
		return true; /* recursive reads store no dependency */
	after[p] |= 1u << c;
	dep_at[p][c] = (struct dep_site){h->site, w->site, t->pid, t->sim.op, t->sim.op_points};
	return true;
}

/* check_prev_add(): the dependency prev -> wanted. False when it made a report. */
static inline bool check_prev_add(const struct task_struct *t, const struct held_lock *h,
				  const struct want *w)
{
	if (h->class_id == NO_CLASS || (after[h->class_id] & (1u << w->class)))
		return true; /* in the graph already, and checked when it went in */
	return prev_add_new(t, h, w);
}

static void check_acquire(const struct task_struct *t, const struct want *w)
{
	/* check_deadlock(): a lock of this class held already */
	for (int i = 0; i < t->nheld; i++) {
		const struct held_lock *h = &t->held[i];
		if (h->class_id != w->class)
			continue;
		if (w->read == LD_READ_RECURSIVE && h->ld_read)
			return; /* read after read: allowed, and no new dependency */
		report_recursive(t, h, w);
		return;
	}
	/* check_prevs_add(): from the topmost lock that is not a recursive read, and from
	 * each trylock above it */
	for (int i = t->nheld - 1; i >= 0; i--) {
		const struct held_lock *h = &t->held[i];
		if (h->ld_read == LD_READ_RECURSIVE)
			continue;
		if (!check_prev_add(t, h, w) || !h->trylock)
			break;
	}
}

static void check(const char *name, unsigned subclass, const char *site, int read, const char *via)
{
	if (!atomic_load_explicit(&active, memory_order_relaxed))
		return;
	graph_lock();
	int c = atomic_load_explicit(&active, memory_order_relaxed) ? class_of(name, subclass) : -1;
	if (c >= 0) {
		struct want w = {c, name, site, via, read};
		check_acquire(current, &w);
	}
	graph_unlock();
}

void lock_acquire(const void *lock, const char *name, unsigned subclass, const char *site, int read)
{
	(void)lock;
	check(name, subclass, site, read, NULL);
}

void might_fault(const char *fn, const char *caller)
{
	struct task_struct *t = current;

	if (!atomic_load_explicit(&active, memory_order_relaxed) || in_atomic() || !t->mm)
		return;
	if (kcfg->pf_mmap_sem && (t->flags & PF_MMAP_SEM))
		return; /* that fault handler takes no mmap_sem: nothing to annotate */
	check(t->mm->mmap_sem.name, 0, caller, lockdep_rwsem_read(), fn);
}

void lockdep_finding(void)
{
	finding_begin(pred.title, pred.token);
	finding_printf("%s", body);
}

/* ---- the held-lock stacks, and what a task sleeps on (lockdep-lite) ---- */

void lock_acquired(const void *lock, const char *name, unsigned subclass, const char *site,
		   int read, bool trylock)
{
	struct task_struct *tsk = current;
	int c = -1;

	if (tsk->nheld == MAX_HELD_LOCKS)
		kernel_bug("BUG: MAX_HELD_LOCKS too low", "max-held-locks", "%s holds %d locks",
			   tsk->comm, tsk->nheld);
	if (atomic_load_explicit(&active, memory_order_relaxed)) {
		graph_lock();
		c = class_of(name, subclass);
		graph_unlock();
	}
	struct held_lock *h = &tsk->held[tsk->nheld++];
	h->lock = lock;
	h->name = name;
	h->site = site;
	h->read = read != LD_WRITE;
	h->class_id = (uint8_t)(c < 0 ? NO_CLASS : c);
	h->ld_read = (uint8_t)read;
	h->trylock = trylock;
}

void lock_released(const void *lock)
{
	struct task_struct *tsk = current;

	for (int i = tsk->nheld - 1; i >= 0; i--) {
		if (tsk->held[i].lock == lock) {
			memmove(&tsk->held[i], &tsk->held[i + 1],
				sizeof(tsk->held[0]) * (size_t)(tsk->nheld - i - 1));
			tsk->nheld--;
			return;
		}
	}
	kernel_bug("BUG: bad unlock balance detected!", "bad-unlock-balance",
		   "%s is trying to release a lock it does not hold", tsk->comm);
}

void set_blocked_on(const void *lock, const char *name, const char *fn, const char *site)
{
	struct task_struct *tsk = current;

	tsk->blocked_on = lock;
	tsk->blocked_name = name;
	tsk->blocked_fn = fn;
	tsk->blocked_site = site;
}

void clear_blocked_on(void)
{
	current->blocked_on = NULL;
}
