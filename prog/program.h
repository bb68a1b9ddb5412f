/* A program: what each task does (its ops), plus the schedule stream. It has a text form
 * for people (prog/text.c) and a byte form for the fuzzer (prog/codec.c); every byte
 * string decodes to a program. prog/exec.c runs one on a kernel. */
#ifndef SNAFU_PROGRAM_H
#define SNAFU_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "../ref/filemap.h"
#include "../sim/sim.h"

#define PROG_MAX_TASKS    4
#define PROG_MAX_OPS      256
#define PROG_MAX_MAPS     255
#define PROG_MAX_EXPECT   32
#define OP_BYTES          11
#define OP_FIELDS         5 /* x, y, z, w, v: an op's small arguments */
#define PREEMPT_BYTES     5
#define PCT_CHANGE_BYTES  2  /* the byte form's PCT schedule: bytes per change point */
#define PREEMPT_MAX_POINT 32 /* a preemption names a point 1..32 within an op */
#define PROG_HEADER_BYTES 3  /* the byte form's header: magic and format id */
#define FILE_DECL_BYTES   2  /* the byte form's file declaration (prog/codec.c) */
/* the byte form's prologue after the header: tasks and files, then the file table */
#define PROG_PROLOGUE_BYTES (1 + NR_FILES * FILE_DECL_BYTES)
#define PROG_OPS_AT         (PROG_HEADER_BYTES + PROG_PROLOGUE_BYTES) /* the first op */
#define PROG_MAX_ENCODED \
	(PROG_OPS_AT + PROG_MAX_OPS * OP_BYTES + SIM_MAX_PREEMPTS * PREEMPT_BYTES + 1)

enum op_kind {
	OP_MMAP,
	OP_MUNMAP,
	OP_MPROTECT,
	OP_LOAD,
	OP_STORE,
	OP_FUTEX_WAIT,
	OP_FUTEX_WAKE,
	OP_FUTEX_REQUEUE,
	OP_FUTEX_CMP_REQUEUE,
	OP_GET_MEMPOLICY,
	OP_KILL,
	OP_SLEEP,
	OP_RECLAIM, /* kswapd evicts the page at A (try_to_unmap_one) */
	OP_MADVISE, /* madvise(A, pages, MADV_DONTNEED) */
	OP_MINCORE, /* mincore(A, pages, vec B) */
	OP_MLOCK,
	OP_PEEKDATA,      /* ptrace(PTRACE_PEEKDATA, A): a debugger's forced read */
	OP_POKEDATA,      /* ptrace(PTRACE_POKEDATA, A, val): a debugger's forced write */
	OP_FUTEX_WAKE_OP, /* FUTEX_WAKE_OP, A and B (2.6.14 on) */
	OP_NKINDS
};

/* A user address: a mapping's start (or NULL) plus an offset. The offset is page * 4096
 * + word * 4 + (misaligned ? 2 : 0), so misaligned futex words can be expressed. */
struct uref {
	uint8_t map; /* mapping index; PROG_NULL_MAP for address 0 */
	uint8_t page;
	uint8_t word;
	bool misaligned;
};
#define PROG_NULL_MAP 0xff

struct op {
	uint8_t kind;
	uint8_t task; /* 1-based */
	struct uref a, b;
	bool each_page;     /* repeat over every page of a's mapping from a on; each run counts
			       as an op of its own for preemptions */
	uint8_t x, y, z, w; /* kind-specific small arguments, see prog/codec.c */
	uint8_t v;          /* and flags (FUTEX_PRIVATE_FLAG) */
};

struct expectation {
	char kernel[32];   /* a kernel's name, or EXPECT_ANY_KERNEL */
	char verdict[160]; /* "ok", EXPECT_UNFIRED or a DEDUP token */
};
/* `expect * VERDICT`: the verdict of every listed kernel without an expect line of its own */
#define EXPECT_ANY_KERNEL "*"
/* `expect KERNEL unfired`: the run ends ok and at least one preemption does not fire */
#define EXPECT_UNFIRED "unfired"

/* The byte form's other kind of schedule (prog/codec.c): PCT, sim.h's struct sim_pct.
 * prog_run() runs it and reports the preemptions it made (run_result.made), which
 * prog_resolve_schedule() puts in its place: the text form, and every saved case, has
 * preemptions only. */
struct prog_pct {
	bool on;
	uint8_t nchange;              /* d - 1 priority change points, 0..15 */
	uint8_t prio[PROG_MAX_TASKS]; /* task i + 1's priority: nchange + 1 .. nchange + ntasks */
	uint32_t change[SIM_MAX_PREEMPTS]; /* the scheduling point (1..) of each change */
};

struct program {
	int ntasks;
	int nfiles;                       /* files declared: open as fd 1..nfiles */
	struct file_spec files[NR_FILES]; /* ref/filemap.h */
	int nops;
	struct op ops[PROG_MAX_OPS]; /* grouped by task, in program order within a task */
	int nmaps;                   /* mmap ops; the i-th defines mapping i */
	int npreempts;
	struct sim_preempt preempts[SIM_MAX_PREEMPTS];
	struct prog_pct pct; /* on: this schedule, and npreempts is 0 */
	int nexpect;
	struct expectation expect[PROG_MAX_EXPECT];
};

/* prog/ops.h: op_table, what each kind is */

/* prog/codec.c. prog_decode returns 0, or -1 when the header is not this byte form's
 * (p is then the empty program; prog_decode_error says why in one line). The empty
 * string decodes to the empty program. */
int prog_decode(const uint8_t *data, size_t size, struct program *p);
/* The scheduling points a PCT schedule's change points fall among (1 up to this): 12
 * for each op run of p; a change point's two bytes v in the byte form are step
 * 1 + v mod this. */
uint32_t prog_pct_steps(const struct program *p);
void prog_decode_error(const uint8_t *data, size_t size, char *buf, size_t len);
uint16_t prog_format_id(void);
size_t prog_header(uint8_t out[PROG_HEADER_BYTES]);
size_t prog_encode(const struct program *p, uint8_t *out, size_t cap);
size_t prog_max_encoded(void);
void prog_canonicalize(struct program *p); /* group ops by task, number mappings */

/* prog/text.c: parse returns 0, or -1 with a "LINE:COL: expected ..." message; the
 * longest (the op list and a word cut at 64 bytes) fits in PROG_ERR_LEN */
#define PROG_ERR_LEN 512
int prog_parse(const char *text, struct program *p, char *err, size_t errlen);
void prog_print(const struct program *p, FILE *out);
/* "preempt T at op N point P to U" (or "to timer"), as the text form writes it */
const char *prog_preempt_str(const struct sim_preempt *s, char *buf, size_t len);
int mmap_index_of(const struct program *p, int op); /* the mapping op i defines */
int mmap_op_of(const struct program *p, int map);   /* the op that defines mapping */
int op_instances(const struct program *p, int op);  /* runs of op i: pages for each-page */
int task_instances(const struct program *p, int task);
bool op_uses_a(int kind);
bool op_uses_b(int kind);
int prog_kind_of(uint8_t first_byte); /* the kind an op record's first byte names */

#endif
