/* The oracles: what counts as a finding (docs/oracles.md). The one place that names them:
 * a bit each, and the table of their names that --oracles=LIST reads (prog/oracle.c).
 * A run's selection travels in struct run_opts (prog/exec.h); 0 there means
 * ORACLES_DEFAULT. */
#ifndef SNAFU_ORACLE_H
#define SNAFU_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

enum oracle {
	/* ref/hung_task.c: when no task can run, tasks in uninterruptible sleep (or
	 * spinning) in a wait-for cycle, or with nothing left to wake them */
	ORACLE_DEADLOCK = 1u << 0,
	/* ref/futex_oracle.c: a FUTEX_WAKE spent on a waiter that never waited, or one
	 * that missed a waiter, while a waiter it owed a wake-up sleeps to the end */
	ORACLE_LOST_WAKEUP = 1u << 1,
	/* ref/futex_oracle.c: a system call whose return value its definition rules out
	 * (FUTEX_CMP_REQUEUE's -EAGAIN with the word equal to val) */
	ORACLE_RESULT = 1u << 2,
	/* ref/lockdep.c: a deadlock predicted from the locks one run took, whatever the
	 * schedule (possible recursive locking, circular dependency) */
	ORACLE_LOCKDEP = 1u << 3,
	/* ref/integrity.c: a forced write (ptrace) that reached the ZERO_PAGE, or a page
	 * cache through a private mapping, or that is not where it said it wrote */
	ORACLE_INTEGRITY = 1u << 4,
};
#define NR_ORACLES 5 /* the entries of oracle_table (prog/oracle.c) */
#define ORACLES_DEFAULT \
	(ORACLE_DEADLOCK | ORACLE_LOST_WAKEUP | ORACLE_RESULT | ORACLE_LOCKDEP | ORACLE_INTEGRITY)

struct oracle_info {
	const char *name; /* as --oracles=LIST spells it */
	unsigned bit;
	const char *tokens; /* the DEDUP_TOKENs it gives */
	const char *doc;    /* one line */
};
/* Every oracle, in the order they judge (the first to find something names the run's
 * verdict); ends with a NULL name. */
extern const struct oracle_info oracle_table[];

/* LIST: oracle names separated by commas, or "all" or "default". Returns the bits, or 0
 * with what LIST should be in ERR, naming the word that was wrong ("names among
 * deadlock,lost-wakeup,result,lockdep (comma-separated), all or default; 'x' is none"). */
unsigned oracles_parse(const char *list, char *err, size_t len);
/* The names of the bits in MASK (0: the default set), comma-separated, into BUF. */
const char *oracles_str(unsigned mask, char *buf, size_t len);
/* "deadlock,lost-wakeup,result,lockdep": every name, for help texts. */
const char *oracles_all_names(void);

#endif
