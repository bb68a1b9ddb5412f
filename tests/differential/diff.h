/* The differential test: random one-task programs run on the model (prog_run, kernel
 * 2.6.11, or another with --kernel) and, op by op, with real system calls on the
 * machine's kernel; every
 * disagreement is matched against a table of known differences (era.c) or counted as a
 * DEFECT. docs/differential.md says what each file does and how to read the output.
 *
 *   gen.c      the seeded program generator
 *   host.c     the same ops on the host kernel (mappings at the model's addresses)
 *   compare.c  the first disagreement of a run, and what the program did before it
 *   era.c      the table of known differences
 *   main.c     the command line
 */
#ifndef SNAFU_DIFF_H
#define SNAFU_DIFF_H

#include "../../prog/exec.h"
#include "../../prog/ops.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define DIFF_KERNEL  "2.6.11"     /* the model's kernel the host is compared with, by default */
#define DIFF_BASE    0x40000000UL /* TASK_UNMAPPED_BASE: where the model places mmaps */
#define DIFF_WINDOW  (64UL << 20) /* the model's mmap window (ref/mm.h) */
#define DIFF_PAGE    4096UL
#define DIFF_PAGES   (DIFF_WINDOW / DIFF_PAGE)
#define DIFF_HOST_HI (DIFF_BASE + 2 * DIFF_WINDOW) /* the host keeps [DIFF_BASE, this) */
#define DIFF_LOW_HI  (2UL << 20)                   /* and [0, this): null-based addresses */

/* The errnos the model returns (ref/kernel.h: i386's, the same on x86-64), named here
 * because ref/kernel.h cannot be included beside <errno.h>. */
enum {
	EPERM_ = 1,
	EAGAIN_ = 11,
	ENOMEM_ = 12,
	EACCES_ = 13,
	EFAULT_ = 14,
	EINVAL_ = 22,
	EIO_ = 5,
	ENOSYS_ = 38,
	ETIMEDOUT_ = 110,
};

/* gen.c: a program of one task (plus an idle task 2, as the text form has at least
 * two), the same for the same seed. reclaim is never generated: it has no system call
 * on the host; futex_wake_op only where the kernel has FUTEX_WAKE_OP (wake_op). */
/* The futex ops: a sys_futex() call (the op table says which), which may carry
 * FUTEX_PRIVATE_FLAG (`private`). */
static inline bool diff_is_futex(int kind)
{
	return op_table[kind].syscall && !strcmp(op_table[kind].syscall, "sys_futex");
}

void diff_generate(uint64_t seed, bool wake_op, bool priv, struct program *p);

/* host.c */
struct host_result {
	long ret[PROG_MAX_OPS];
	uint32_t loaded[PROG_MAX_OPS];
	bool ran[PROG_MAX_OPS];
};
struct host_info {
	bool numa;         /* get_mempolicy is there (CONFIG_NUMA) */
	bool unlimited_ml; /* mlock has no limit here (CAP_IPC_LOCK or an infinite rlimit) */
	bool task_policy;  /* this task has a NUMA policy of its own (numactl): not default */
	bool mem_force;    /* /proc/self/mem writes with force (proc_mem.force_override) */
	char uname[128];
};
/* 0, or -1 with why (one line) the host cannot run the test: the caller skips. */
int host_init(struct host_info *hi, char *why, size_t len);
/* Run p's ops (task 1's, in order) on the host. The model's run m gives the addresses
 * where the host's mmaps go (MAP_FIXED_NOREPLACE there). Leaves nothing mapped. */
void host_run(const struct program *p, const struct run_result *m, struct host_result *h);
/* 0, or -1 with why if something the host runs on has appeared in the window. */
int host_check_window(char *why, size_t len);

/* compare.c: the model's view of the address space, page by page, as 2.6.11 would
 * have it after the ops before some op (the model's return values decide what each op
 * did; they are the host's too, up to the first disagreement). */
#define SH_PROT   0x07 /* PROT_READ, PROT_WRITE, PROT_EXEC */
#define SH_MAPPED 0x08
#define SH_SHARED 0x10
#define SH_LOCKED 0x20
/* A shared page that one kernel may have faulted in and the other not (mincore tells):
 * named by a futex op (today's get_futex_key() takes the page), read while write-only
 * (today allows it), or under the vector of a mincore over anonymous memory or a hole
 * (the two kernels write different parts of the vector). */
#define SH_FUTEX_IN 0x40
#define SH_MPROT_H  0x80  /* an mprotect that met a hole changed this page in 2.6.11 */
#define SH_MLOCK_H  0x100 /* an mlock that met a hole locked it; 2.6.11 faulted it in */
#define SH_LOAD_IN  0x200
#define SH_VEC_IN   0x400
#define SH_FILE     0x800  /* one of the run's files */
#define SH_FILE_RO  0x1000 /* the one opened read-only */
#define SH_COW                                                                          \
	0x2000             /* a private page of a file the task wrote (or today's futex \
			       key took for writing): its own copy now */
#define SH_PAST_EOF 0x4000 /* a page of a file mapping past the end of the file */
/* SH_COW on today's kernel only (its futex key or locked mprotect broke COW; 2.6.11
 * still maps the file's page, and sees the file's later changes) */
#define SH_TODAY_COW 0x8000
/* the model has the page mapped (a PTE): an access faulted it in, and nothing zapped it
 * since. 2.6.28's get_user_pages_fast() takes such a page without asking the VMA. */
#define SH_PRESENT 0x10000
struct shadow {
	uint32_t pg[DIFF_PAGES];
	/* a mincore vector went into a page of a file: its bytes differ (file-cached), and
	 * every mapping of the file sees them, at addresses the pages above do not link */
	bool file_vec;
};
uint32_t shadow_page(const struct shadow *s, unsigned long addr); /* 0 outside the window */
/* Is some page of [start, start+len) in state (flags & mask) == want? */
bool shadow_any(const struct shadow *s, unsigned long start, unsigned long len, uint32_t mask,
		uint32_t want);

/* The key the model's kernel k takes for a shared futex word at addr, as the address
 * space s before the op has it: 0, an errno, or DIFF_KEY_LOOP, never returning (2.6.28's
 * get_futex_key() retries a page without ->mapping: the ZERO_PAGE). write: the key is
 * taken for writing (diff_key2_write()). */
#define DIFF_KEY_LOOP 1
long diff_key_then(const struct kernel_config *k, const struct shadow *s, unsigned long addr,
		   bool write);
/* Does kernel k take futex op o's second key for writing (2.6.30's FUTEX_WAKE_OP)? */
static inline bool diff_key2_write(const struct kernel_config *k, const struct op *o)
{
	return o->kind == OP_FUTEX_WAKE_OP && k->futex->wake_op_key2_write;
}

enum div_kind {
	DIV_NONE,     /* every op agreed */
	DIV_RET,      /* op's return values differ */
	DIV_VALUE,    /* a load returned 0 on both, with different values */
	DIV_FINDING,  /* the model's run ended in a finding (a single task never should) */
	DIV_NO_PLACE, /* the model's mmap failed: the host has no address to compare */
};

struct divergence {
	enum div_kind kind;
	const struct kernel_config *kernel; /* the model's */
	const struct program *p;
	const struct run_result *m;
	const struct host_result *h;
	int op;                  /* the first op that disagrees */
	unsigned long a, b;      /* its addresses A and B (its last run, for each-page) */
	unsigned long len;       /* its length in bytes, for ops with pages= */
	struct shadow before;    /* the address space before op */
	bool value;              /* what differs may be memory the op read: a load's value, or
				    a futex_wait or futex_cmp_requeue that matched on one side */
	unsigned long at;        /* then: the first byte that differs (A for a futex op) */
	int writer;              /* and the last op that wrote it, or -1 */
	unsigned long wa, wb;    /* the writer's addresses */
	unsigned long wlen;      /* and its length */
	struct shadow at_writer; /* the address space before the writer */
};

/* Fill d with the first disagreement between the model's run m (on kernel k) and the
 * host's h at op `from` or after. */
void diff_compare(const struct program *p, const struct kernel_config *k,
		  const struct run_result *m, const struct host_result *h, int from,
		  struct divergence *d);
/* Did futex_wake_op o, which returned ret on kernel k (NULL: the host's), do its
 * operation on the word at B? 1 yes, 0 no, -1 maybe (its return does not tell). */
int diff_wake_op_wrote(const struct kernel_config *k, const struct op *o, long ret);
unsigned long diff_uaddr(const unsigned long *map_addr, const struct uref *u);
unsigned long diff_len(const struct program *p, int op); /* pages= in bytes, or 0 */

/* era.c: the table of known differences. A disagreement that matches no entry is a
 * DEFECT. */
enum entry_kind {
	ENTRY_ERA,    /* 2.6.11 (or the kernel named) and today's differ: the model follows it */
	ENTRY_CONFIG, /* the host's configuration, or a departure docs/model.md lists */
	ENTRY_DEFECT, /* a model defect that is known and open: not an era difference */
};
struct era_entry {
	const char *id;
	enum entry_kind kind;
	const char *what; /* the difference, in one line */
	const char *then; /* 2.6.11: file, function */
	const char *now;  /* today's kernel (or the model, for a defect): file, function */
	bool (*match)(const struct divergence *d, const struct host_info *hi);
	bool cont; /* the op changed nothing the two sides now disagree about (a return value,
		      a value read, or what a later entry accounts for): compare on after it */
	/* the model's kernels whose difference it is ("2.6.14 2.6.17"), where `then` is
	 * their source; NULL: every kernel, `then` 2.6.11's (where the others have the same) */
	const char *kernels;
	/* it explains a model run that ended in a finding, the op never returning (DIV_FINDING);
	 * no other entry sees one */
	bool finding;
};
extern const struct era_entry era_table[];
extern const int era_count;
/* The entry d matches, or -1. */
int era_classify(const struct divergence *d, const struct host_info *hi);
const char *entry_kind_name(enum entry_kind k);

#endif
