/* The op table: one entry per op kind (prog/ops.c) holds everything the rest of prog/
 * and fuzz/ know about an op apart from running it (prog/exec.c): its name, its weight
 * in the byte form, the system call it enters and how the trace shows its arguments,
 * the addresses it uses, and its arguments, each with its range, its default, where it
 * lives in struct op and how the byte form codes it. The parser, the printer, the codec
 * (and its format id), the trace, the minimizer, the fuzzer's op set, `snafu ops` and
 * the dictionaries (from the doc and dict strings below) are all written against it:
 * data, not a switch per op in each of them.
 * docs/model.md, "Adding an op", says what a new op needs. */
#ifndef SNAFU_OPS_H
#define SNAFU_OPS_H

#include "program.h"

#include <stddef.h>

enum arg_type {
	ARG_MAPNAME, /* the name of the mapping an mmap creates */
	ARG_A,       /* address A: pages 0..127, words 0..31, misaligned (+2) allowed */
	ARG_B,       /* address B: pages 0..31, words 0..7 */
	ARG_NUM,     /* a number lo..hi */
	ARG_FLAG,    /* a bare word that sets the bit; `off` is the word that clears it */
	ARG_PROT,    /* none, or some of r, w, x (bits 0, 1, 2) */
	ARG_FILE,    /* a file a `file` line declares: its fd 1..NR_FILES, 0 for none */
	ARG_ENUM,    /* one of `names`, or a number lo..hi (past the names: no name) */
};

/* How the byte form codes a field: x is byte 6 of the op record, y byte 7, z byte 8, w
 * byte 9. */
enum arg_code {
	CODE_NONE,  /* not in x or y (an address, a mapping name) */
	CODE_BITS,  /* bits shift..shift+width-1 of the byte as they are */
	CODE_SMALL, /* the whole byte through small(): mostly 0..3, else 0..127 */
	CODE_PAGES, /* pages - 1 through small(), + 128 for a rare nibble of byte 5 (only
		       where the op has no B, which uses byte 5) */
	CODE_TASK,  /* task - 1, taken modulo the program's tasks */
};

enum arg_field { FIELD_NONE, FIELD_X, FIELD_Y, FIELD_Z, FIELD_W, FIELD_V };

#define ARG_POS      1  /* a positional operand (in table order); else KEY=VALUE or a flag */
#define ARG_REQUIRED 2  /* the parser refuses the op without it */
#define ARG_HIDE_0   4  /* the printer leaves it out when 0 */
#define ARG_REST     8  /* default: the rest of A's mapping from A on (pages) */
#define ARG_SHRINK   16 /* the minimizer tries the op with these set to their defaults */

struct op_arg {
	const char *name; /* the KEY or flag word; a positional's description in messages */
	uint8_t type;     /* enum arg_type */
	uint8_t code;     /* enum arg_code */
	uint8_t flags;    /* ARG_POS, ARG_REQUIRED, ... */
	uint8_t field;    /* enum arg_field: which byte of struct op holds it */
	uint8_t shift, width;
	int16_t lo, hi, def;      /* range and default of the value as written; lo < 0: the
				     bits are two's complement */
	int8_t bias;              /* struct op holds value - bias (pages - 1, task - 1) */
	const char *off;          /* ARG_FLAG: the word that clears it (`private`) */
	const char *const *names; /* ARG_ENUM: the values' names from 0, NULL-terminated */
};

#define OP_MAX_ARGS 10
#define OP_MAX_DICT 2

struct op_desc {
	const char *name;
	const char *doc; /* what it does, for `snafu ops` and docs/cases.md */
	/* the system call it enters, as the trace and the report's table name it; NULL: it
	 * runs without one (a user-mode access, kswapd) */
	const char *syscall;
	/* the call's arguments in the trace, "sys_futex(FUTEX_WAIT, val 1)": text, with
	 * {KEY} for an argument's value as the text form writes it (a flag: its word or
	 * its off word; {KEY:TEXT}, TEXT where the flag is set, else nothing) and {x} for
	 * struct op's x as it is */
	const char *trace;
	uint8_t weight; /* slots of the 64 values of the byte form's kind field */
	bool all_only;  /* left out of futex_mm_fuzzer's default op set (--ops=futex) */
	/* dictionary entries, "NAME|OP LINE" (mappings m0 private and m1 shared exist) */
	const char *dict[OP_MAX_DICT];
	struct op_arg args[OP_MAX_ARGS]; /* in the order the printer writes them */
};

extern const struct op_desc op_table[OP_NKINDS];

bool op_has_pages(int kind);
/* the op's argument with this code, or NULL */
const struct op_arg *op_arg_by_code(int kind, enum arg_code code);
/* the op's argument named by the klen bytes at key, or NULL */
const struct op_arg *op_arg_named(int kind, const char *key, size_t klen);
/* An argument's value as the text form writes it (pages, not pages - 1), and setting
 * it in struct op; neither for an argument with no field (an address, a name). */
uint8_t *op_field(struct op *o, int field); /* x, y, z, w or v; NULL for FIELD_NONE */
int op_arg_get(const struct op *o, const struct op_arg *g);
void op_arg_set(struct op *o, const struct op_arg *g, int value);
/* `private` (FUTEX_PRIVATE_FLAG), the same argument on every futex op: read without a
 * lookup by name where an op runs */
extern const struct op_arg op_arg_private;
/* An ARG_ENUM value's name, or NULL where it has none. */
const char *op_enum_name(const struct op_arg *g, int value);
/* The op's trace string (its entry's trace, filled in); "" for an op without a call. */
void op_trace_args(const struct op *o, char *buf, size_t len);

#endif
