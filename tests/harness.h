/* A tiny test harness: CHECK() counts, harness_exit() prints "N passed, N failed". */
#ifndef SNAFU_HARNESS_H
#define SNAFU_HARNESS_H

#include "../prog/exec.h"
#include "../ref/kernel.h"

extern int harness_passed, harness_failed;

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (cond) {                                                                \
			harness_passed++;                                                  \
		} else {                                                                   \
			harness_failed++;                                                  \
			fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                      \
			fprintf(stderr, "\n");                                             \
		}                                                                          \
	} while (0)

#define CHECK_EQ(got, want, what) \
	CHECK((long)(got) == (long)(want), "%s: got %ld, want %ld", what, (long)(got), (long)(want))

int harness_exit(void);

/* A run of run_tasks() (below) that ended at a finding whose token is TOKEN; one that
 * ended well with none. WHAT names the case in the failure line, with the kernel. */
void harness_finding(enum sim_result res, const char *token, const char *what);
void harness_no_finding(enum sim_result res, const char *what);

/* Parse a text program into *p; a parse error is a bad test: it names the error and aborts. */
void harness_parse(const char *text, struct program *p);

/* Parse a text program (aborting on a parse error) and run it on a kernel, with the
 * trace and every oracle but lockdep (run_opts.oracles): ORACLES_UNIT. run_text_with():
 * with the oracles ORACLES instead. */
#define ORACLES_UNIT (ORACLES_DEFAULT & ~ORACLE_LOCKDEP)
void run_text(const char *text, const char *kernel, struct run_result *r);
void run_text_with(const char *text, const char *kernel, unsigned oracles, struct run_result *r);

/* TEXT as a test of what futex ops do runs on kernel K: as it is, but on a kernel whose
 * get_futex_key() makes a shared key from the page (2.6.28, 2.6.30), which loops on the
 * ZERO_PAGE that get_user_pages() gives for a private anonymous word nobody has touched
 * (docs/kernel-facts.md, "Keys from the page"), with FUTEX_PRIVATE_FLAG on every futex
 * op, whose key takes no page: what those tests check is the same for a private futex
 * (glibc's own since 2.6.22), so those kernels are checked too. A static buffer: the
 * text holds until the next call. */
const char *harness_text_for(const char *text, const struct kernel_config *k);

/* A run_text() op's return value: `want` for op `op` (counted in the order written, all
 * of task 1's first), or NOT_RUN, the op never returned. */
#define NOT_RUN 1000
bool want_ret(const struct run_result *r, int op, long want);
#define CHECK_RET(r, op, want, kernel, what)                                                   \
	CHECK(want_ret(r, op, want), "[%s] op %d (%s): got %s%ld, want %ld", kernel, op, what, \
	      (r)->ran[op] ? "" : "(never returned) ", (r)->ret[op], (long)(want))

/* The program of repro/cases/futex-absorbed-wakeup.case without its schedule: T1 wakes one
 * waiter of a word holding 0 (op 3), T2 waits for 0, T3 for 1. With the case's preemptions,
 * "preempt 1 at op 3 point 1 to 3" and "preempt 3 at op 1 point 8 to 2", T3's mismatching
 * wait is queued ahead of T2 when the wake comes: the absorbed wake-up on 2.6.11. */
#define ABSORBED_WAKEUP_PROGRAM                 \
	"task 1\n"                              \
	"  mmap futex pages=1 prot=rw shared\n" \
	"  store futex val=0\n"                 \
	"  futex_wake futex nr=1\n"             \
	"task 2\n"                              \
	"  futex_wait futex val=0\n"            \
	"task 3\n"                              \
	"  futex_wait futex val=1\n"

/* Trace events of the run so far (sim_trace_events()): find_event(), the first at or after
 * `from` (from < 0: none) of task `task` (0: any), op `op` (0: any; run_tasks() bodies have
 * none), kind `kind` and function `fn` (NULL: any), or -1; count_events(), how many of any
 * task and op have this kind and function. */
int find_event(int from, int task, int op, int kind, const char *fn);
int count_events(int kind, const char *fn);

/* xorshift64 (13, 7, 17): the next number of the generator whose state (not 0) is *s, so
 * that a test seeded with a constant draws the same inputs in every run. */
uint64_t xorshift64(uint64_t *s);

/* Run hand-written task bodies on the machine: each fn becomes task i+1 (a
 * task_struct), sharing one fresh mm, with the given preemptions. Returns how the
 * run ended; the tasks' task_structs stay readable until the next call. */
typedef void (*task_fn)(void);
enum sim_result run_tasks(int n, const task_fn *fns, const struct sim_preempt *pre, int npre);
struct task_struct *harness_task(int id);

/* For hand-written task bodies: note() appends "T<pid>:what" to order[] (the order in
 * which things happened); nap() sleeps interruptibly for `ticks` of virtual time, that
 * is until every other task has blocked or finished. */
extern char order[256];
void note(const char *what);
void nap(int64_t ticks);
struct mm_struct *harness_mm(void);

#endif
