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
 * Not modelled: irq-safety (the model has no interrupts), lock_chains, usage bits, the
 * stack trace saved with each dependency and held lock (the acquiring function stands for
 * it; the report's "stack backtrace:" is the task's shadow call stack, ref/kernel.h), the
 * limits of 2.6.18 (MAX_LOCK_DEPTH is MAX_HELD_LOCKS here; more than LOCKDEP_MAX_CLASSES
 * classes turns checking off).
 *
 * Beyond lockdep, one rule it cannot make from classes: the circular rule applied to
 * the spinlocks of one class (one name, any subclass) as instances. Every futex bucket's
 * lock is &bh->lock, and futex_requeue() takes its second with spin_lock_nested(), which
 * tells lockdep the order within the class is safe; it is only because every task takes
 * two buckets in address order (2.6.11 kernel/futex.c, futex_requeue()). So a task that
 * takes instance B while it holds instance A, after some task took A while holding B,
 * is "possible circular locking dependency detected", token
 * lockdep--circular--CLASS--CLASS--SITE (the class twice: no class-level circle has
 * that). The dependencies are the run's, like the class graph's.
 *
 * And lock_assert_held() (lockdep_assert_held()), which reads the held-lock stacks only:
 * always on, a finding of its own (kernel_bug()), not a prediction.
 */
#include "lockdep.h"
#include "kernels.h"
#include "mm.h"
#include "report.h"
#include "spinlock.h"

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
/* The first class registered with the same name: equal for the subclasses of one lock
 * (&bh->lock and &bh->lock/1), as the instance rule asks. */
static uint8_t class_base[LOCKDEP_MAX_CLASSES];

/* This run's dependency graph: after[a] has bit b once a task took a lock of class b
 * while it held one of class a; dep_at[a][b] says where, the first time. */
struct dep_site {
	const char *prev_site, *next_site;
	int task;
	uint16_t op, point;
};
static uint32_t after[LOCKDEP_MAX_CLASSES];
static struct dep_site dep_at[LOCKDEP_MAX_CLASSES][LOCKDEP_MAX_CLASSES];

/* This run's dependencies between instances of one class (the same name, any
 * subclass): a task took spinlock `to` while it held `from`; at: where, the first time.
 * Few: in the model only futex_requeue() nests two locks of a class. Past
 * LOCKDEP_MAX_INST the rest go unrecorded. */
#define LOCKDEP_MAX_INST 32
struct inst_dep {
	const struct spinlock *from, *to;
	uint8_t from_class, to_class;
	struct dep_site at;
};
static struct inst_dep inst[LOCKDEP_MAX_INST];
static int ninst;

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
	class_base[nclasses] = (uint8_t)nclasses;
	for (int i = 0; i < nclasses; i++)
		if (!strcmp(classes[i].name, name)) {
			class_base[nclasses] = (uint8_t)i;
			break;
		}
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
	ninst = 0;
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
	const struct spinlock *spin; /* the lock, if a spinlock (the instance rule) */
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

/* "T1 holds 2 locks:" and a line for each, into buf. */
void held_locks_text(const struct task_struct *t, char *buf, size_t len)
{
	char cn[96];
	size_t n;

	snprintf(buf, len, "%s holds %d lock%s%s\n", t->comm, t->nheld, t->nheld == 1 ? "" : "s",
		 t->nheld ? ":" : "");
	for (int i = 0; i < t->nheld && (n = strlen(buf)) < len; i++) {
		const struct held_lock *h = &t->held[i];
		const struct spinlock *l = h->spin ? h->lock : NULL;
		char in[48] = "";
		if (l && l->array) /* which of the class: " (futex_queues[17])" */
			snprintf(in, sizeof(in), " (%s[%d])", l->array, l->index);
		snprintf(buf + n, len - n, "  holds #%d: %s%s (%s), taken at %s%s\n", i,
			 h->class_id == NO_CLASS ? h->name
						 : class_name(h->class_id, cn, sizeof(cn)),
			 in, mode(h->read), h->site, h->trylock ? " (trylock)" : "");
	}
}

static void say_held(const struct task_struct *t)
{
	char buf[1024];

	held_locks_text(t, buf, sizeof(buf));
	say("\n%s", buf);
}

/* A report: the run's prediction, and checking off (debug_locks_off()). Not static and
 * not inlined, so that gdb (and `snafu record`) can stop where a prediction is made. */
__attribute__((noinline)) void lockdep_bug(const struct task_struct *t, bool circular,
					   bool instances, const struct held_lock *h,
					   const struct want *w);
__attribute__((noinline)) void lockdep_bug(const struct task_struct *t, bool circular,
					   bool instances, const struct held_lock *h,
					   const struct want *w)
{
	char a[64], b[64];

	atomic_store(&active, false);
	pred.made = true;
	pred.circular = circular;
	pred.instances = instances;
	pred.task = t->pid;
	pred.op = t->sim.op;
	pred.point = t->sim.op_points;
	pred.step = sim_steps();
	pred.locks[0] = h->name;
	pred.locks[1] = w->name;
	pred.held_site = h->site;
	pred.stack = t->kstack; /* a copy: formatted only if the report becomes the verdict */
	pred.syscall = t->syscall;
	/* the instance rule names the class alone, twice */
	short_name(h->name,
		   h->class_id == NO_CLASS || instances ? 0 : classes[h->class_id].subclass, a,
		   sizeof(a));
	short_name(w->name, instances ? 0 : classes[w->class].subclass, b, sizeof(b));
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

	lockdep_bug(t, false, false, h, w);
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

	lockdep_bug(t, true, false, h, w);
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

/* ---- the instance rule: check_noncircular() on the spinlocks of one class ---- */

/* How a report names an instance: "&bh->lock/1 (futex_queues[17])"; a lock of no array
 * by the order in which this run's instance dependencies first met it. */
static const char *inst_name(const struct spinlock *l, int class, char *buf, size_t len)
{
	const struct spinlock *seen[2 * LOCKDEP_MAX_INST];
	char cnb[96];
	const char *cn = class_name(class, cnb, sizeof(cnb));
	int k = 0;

	if (l->array) {
		snprintf(buf, len, "%s (%s[%d])", cn, l->array, l->index);
		return buf;
	}
	for (int i = 0; i < ninst; i++) {
		const struct spinlock *x[2] = {inst[i].from, inst[i].to};
		for (int j = 0; j < 2; j++) {
			int s = 0;
			while (s < k && seen[s] != x[j])
				s++;
			if (s == k)
				seen[k++] = x[j];
		}
	}
	int n = 0;
	while (n < k && seen[n] != l)
		n++;
	snprintf(buf, len, "%s (instance #%d)", cn, n + 1);
	return buf;
}

/* The dependencies that lead from instance a to instance b (indices into inst[], in
 * order): their number, 0 if none. A breadth-first search over at most
 * LOCKDEP_MAX_INST edges. */
static int inst_path(const struct spinlock *a, const struct spinlock *b, int *path)
{
	int parent[LOCKDEP_MAX_INST], queue[LOCKDEP_MAX_INST], head = 0, tail = 0;
	bool used[LOCKDEP_MAX_INST] = {false};

	for (int i = 0; i < ninst; i++)
		if (inst[i].from == a) {
			used[i] = true;
			parent[i] = -1;
			queue[tail++] = i;
		}
	while (head < tail) {
		int e = queue[head++];
		if (inst[e].to == b) {
			int rev[LOCKDEP_MAX_INST], n = 0;
			for (int x = e; x >= 0; x = parent[x])
				rev[n++] = x;
			for (int i = 0; i < n; i++)
				path[i] = rev[n - 1 - i];
			return n;
		}
		for (int i = 0; i < ninst; i++)
			if (!used[i] && inst[i].from == inst[e].to) {
				used[i] = true;
				parent[i] = e;
				queue[tail++] = i;
			}
	}
	return 0;
}

__attribute__((noinline)) static void report_circular_inst(const struct task_struct *t,
							   const struct held_lock *h,
							   const struct want *w, const int *path,
							   int n)
{
	const struct spinlock *held = h->lock;
	char c1[160], c2[160], c3[160], c4[160];

	lockdep_bug(t, true, true, h, w);
	say("lockdep (kernel/lockdep.c, check_noncircular()), on the instances of one class:\n");
	say("%s (pid %d) is trying to acquire %s (%s) at %s, op %u point %u (scheduling point "
	    "%llu)\n",
	    t->comm, t->pid, inst_name(w->spin, w->class, c1, sizeof(c1)), mode(w->read), w->site,
	    t->sim.op, t->sim.op_points, (unsigned long long)sim_steps());
	say("but it already holds:\n  %s (%s), taken at %s\n",
	    inst_name(held, h->class_id, c1, sizeof(c1)), mode(h->read), h->site);
	say("\nwhich lock already depends on the new lock; the dependency chain:\n");
	for (int i = 0; i < n; i++) {
		const struct inst_dep *d = &inst[path[i]];
		say("  T%d held %s (taken at %s) when it took %s at %s, op %u point %u\n",
		    d->at.task, inst_name(d->from, d->from_class, c1, sizeof(c1)), d->at.prev_site,
		    inst_name(d->to, d->to_class, c2, sizeof(c2)), d->at.next_site, d->at.op,
		    d->at.point);
	}
	say_held(t);
	say("\nBoth are %s: to lockdep's classes they are one lock, and the nesting\n"
	    "annotation (spin_lock_nested()) says a second one taken under the first is in\n"
	    "order. That holds only if every task takes any two in one order (futex_requeue()\n"
	    "in 2.6.11 kernel/futex.c: bucket address order). A task that holds\n"
	    "%s and waits for %s, while another\n"
	    "holds %s and waits for %s, deadlocks.\n"
	    "Reported whether or not two tasks meet there; `snafu confirm` searches for a\n"
	    "schedule in which they do.\n",
	    classes[class_base[w->class]].name,
	    inst_name(held, class_base[h->class_id], c1, sizeof(c1)),
	    inst_name(w->spin, class_base[w->class], c2, sizeof(c2)),
	    inst_name(w->spin, class_base[w->class], c3, sizeof(c3)),
	    inst_name(held, class_base[h->class_id], c4, sizeof(c4)));
}

/* The dependency held -> wanted between two instances of a class: false when it made a
 * report. Out of line: only nested locks of one class come here. */
__attribute__((noinline)) static bool inst_add(const struct task_struct *t,
					       const struct held_lock *h, const struct want *w)
{
	const struct spinlock *a = h->lock, *b = w->spin;
	int path[LOCKDEP_MAX_INST], n;

	for (int i = 0; i < ninst; i++)
		if (inst[i].from == a && inst[i].to == b)
			return true; /* checked when it went in */
	n = inst_path(b, a, path);
	if (n) {
		report_circular_inst(t, h, w, path, n);
		return false;
	}
	if (ninst < LOCKDEP_MAX_INST)
		inst[ninst++] =
		    (struct inst_dep){a,
				      b,
				      h->class_id,
				      (uint8_t)w->class,
				      {h->site, w->site, t->pid, t->sim.op, t->sim.op_points}};
	return true;
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
		if (!check_prev_add(t, h, w))
			return;
		if (!h->trylock)
			break;
	}
	/* the instance rule: every held spinlock of the wanted one's class (another
	 * subclass: the same one was check_deadlock()'s) */
	if (!w->spin)
		return;
	for (int i = 0; i < t->nheld; i++) {
		const struct held_lock *h = &t->held[i];
		if (h->spin && h->class_id != NO_CLASS && h->lock != w->spin &&
		    class_base[h->class_id] == class_base[w->class] && !inst_add(t, h, w))
			return;
	}
}

static void check(const struct spinlock *spin, const char *name, unsigned subclass,
		  const char *site, int read, const char *via)
{
	if (!atomic_load_explicit(&active, memory_order_relaxed))
		return;
	graph_lock();
	int c = atomic_load_explicit(&active, memory_order_relaxed) ? class_of(name, subclass) : -1;
	if (c >= 0) {
		struct want w = {c, name, site, via, read, spin};
		check_acquire(current, &w);
	}
	graph_unlock();
}

void lock_acquire(const void *lock, const char *name, unsigned subclass, const char *site, int read)
{
	(void)lock;
	check(NULL, name, subclass, site, read, NULL);
}

void spin_acquire(const struct spinlock *l, unsigned subclass, const char *site)
{
	check(l, l->name, subclass, site, LD_WRITE, NULL);
}

void might_fault(const char *fn, const char *caller)
{
	struct task_struct *t = current;

	if (!atomic_load_explicit(&active, memory_order_relaxed) || in_atomic() || !t->mm)
		return;
	if (kcfg->pf_mmap_sem && (t->flags & PF_MMAP_SEM))
		return; /* that fault handler takes no mmap_sem: nothing to annotate */
	check(NULL, t->mm->mmap_sem.name, 0, caller, lockdep_rwsem_read(), fn);
}

/* The report's last part is where the task was, as lockdep ends each report
 * (print_deadlock_bug(), print_circular_bug_tail(): "stack backtrace:", dump_stack()). */
void lockdep_finding(void)
{
	char trace[1024];

	kstack_text(&pred.stack, pred.syscall, trace, sizeof(trace));
	finding_begin(pred.title, pred.token);
	finding_printf("%s%s%s", body, trace[0] ? "\nstack backtrace:\n" : "", trace);
}

/* ---- the held-lock stacks, and what a task sleeps on (lockdep-lite) ---- */

static void held_push(const void *lock, const char *name, unsigned subclass, const char *site,
		      int read, bool trylock, bool spin)
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
	h->spin = spin;
}

void lock_acquired(const void *lock, const char *name, unsigned subclass, const char *site,
		   int read, bool trylock)
{
	held_push(lock, name, subclass, site, read, trylock, false);
}

void spin_acquired(const struct spinlock *l, unsigned subclass, const char *site)
{
	held_push(l, l->name, subclass, site, LD_WRITE, false, true);
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

/* ---- lockdep_assert_held() ---- */

__attribute__((noinline, noreturn)) static void
lock_assert_failed(const struct task_struct *t, const char *name, const struct spinlock *spin,
		   bool write, bool read_held, const char *fn)
{
	char cls[64], title[160], token[160], held[1024], in[48] = "";

	if (spin && spin->array) /* which of the class: " (futex_queues[17])" */
		snprintf(in, sizeof(in), " (%s[%d])", spin->array, spin->index);
	short_name(name, 0, cls, sizeof(cls));
	snprintf(title, sizeof(title), "WARNING: lock not held%s: %s in %s",
		 write ? " for write" : "", name, fn);
	snprintf(token, sizeof(token), "lock-assert--%s%s--%s", cls, write ? "-write" : "", fn);
	held_locks_text(t, held, sizeof(held));
	kernel_bug(title, token,
		   "lockdep_assert_held%s(%s%s) in %s:\n"
		   "%s (pid %d)%s%s, op %u point %u (scheduling point %llu), %s\n\n%s\n"
		   "%s changes here what %s protects: another task that holds it\n"
		   "may find the change half made. The check needs no schedule: the window may\n"
		   "have no scheduling point in it.",
		   write ? "_write" : "", name, in, fn, t->comm, t->pid, t->syscall ? ", in " : "",
		   t->syscall ? t->syscall : "", t->sim.op, t->sim.op_points,
		   (unsigned long long)sim_steps(),
		   read_held ? "holds it for read only" : "does not hold it", held, fn, name);
}

void lock_assert_held(const void *lock, const char *name, const struct spinlock *spin, bool write,
		      const char *fn)
{
	const struct task_struct *t = current;
	bool read_held = false;

	for (int i = 0; i < t->nheld; i++) {
		if (t->held[i].lock != lock)
			continue;
		if (!write || !t->held[i].read)
			return;
		read_held = true;
	}
	lock_assert_failed(t, name, spin, write, read_held, fn);
}
