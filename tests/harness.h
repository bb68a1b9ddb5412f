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

/* Parse a text program (aborting on a parse error) and run it on a kernel, with the
 * trace and every oracle but lockdep (run_opts.oracles). */
void run_text(const char *text, const char *kernel, struct run_result *r);

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
