/* The op table; see prog/ops.h. An entry's arguments are listed in the order `snafu
 * show` prints them; positional ones come first. */
#include "ops.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* clang-format off */
/* The arguments ops share: addresses A and B, pages=, prot=, a flag, and numbers that
 * fill x or y (0..127 through small()) or a nibble of x. */
#define A_ARG       {.name = "an address", .type = ARG_A, .flags = ARG_POS}
#define B_POS       {.name = "an address", .type = ARG_B, .flags = ARG_POS}
#define B_KEY(key)  {.name = key, .type = ARG_B}
#define MAPNAME     {.name = "a mapping name", .type = ARG_MAPNAME, .flags = ARG_POS}
#define PAGES(hi_, def_, flags_) \
	{.name = "pages", .type = ARG_NUM, .code = CODE_PAGES, .flags = flags_, \
	 .field = FIELD_X, .width = 8, .lo = 1, .hi = hi_, .def = def_, .bias = 1}
#define PROT(flags_, def_) \
	{.name = "prot", .type = ARG_PROT, .code = CODE_BITS, .flags = flags_, \
	 .field = FIELD_Y, .width = 3, .hi = 7, .def = def_}
#define FLAG(key, field_, shift_, off_, flags_) \
	{.name = key, .type = ARG_FLAG, .code = CODE_BITS, .flags = flags_, .field = field_, \
	 .shift = shift_, .width = 1, .hi = 1, .off = off_}
#define SMALL(key, field_, def_, flags_) \
	{.name = key, .type = ARG_NUM, .code = CODE_SMALL, .flags = flags_, \
	 .field = field_, .width = 8, .hi = 127, .def = def_}
#define NIBBLE(key, shift_, def_) \
	{.name = key, .type = ARG_NUM, .code = CODE_BITS, .field = FIELD_X, \
	 .shift = shift_, .width = 4, .hi = 15, .def = def_}
#define BITS(key, field_, width_) \
	{.name = key, .type = ARG_NUM, .code = CODE_BITS, .field = field_, \
	 .width = width_, .hi = (1 << width_) - 1}
#define FILE_ARG \
	{.name = "file", .type = ARG_FILE, .code = CODE_BITS, .flags = ARG_SHRINK | ARG_HIDE_0, \
	 .field = FIELD_Y, .shift = 4, .width = 2, .hi = NR_FILES, .def = 0}
#define ENUM(key, field_, shift_, width_, names_) \
	{.name = key, .type = ARG_ENUM, .code = CODE_BITS, .field = field_, .shift = shift_, \
	 .width = width_, .hi = (1 << width_) - 1, .names = names_}
#define SIGNED(key, field_) \
	{.name = key, .type = ARG_NUM, .code = CODE_BITS, .field = field_, .width = 8, \
	 .lo = -128, .hi = 127}
/* FUTEX_PRIVATE_FLAG (include/linux/futex.h, 2.6.22), on every futex op */
#define PRIVATE FLAG("private", FIELD_V, 0, NULL, ARG_SHRINK)
const struct op_arg op_arg_private = PRIVATE;
#define TASK \
	{.name = "a task number", .type = ARG_NUM, .code = CODE_TASK, .flags = ARG_POS, \
	 .field = FIELD_X, .width = 8, .lo = 1, .hi = PROG_MAX_TASKS, .def = 1, .bias = 1}

/* FUTEX_WAKE_OP's operation and comparison (include/linux/futex.h, 2.6.14: FUTEX_OP_SET
 * 0 to FUTEX_OP_XOR 4, FUTEX_OP_CMP_EQ 0 to FUTEX_OP_CMP_GE 5); the other values of the
 * encoding's fields have no name, and futex_atomic_op_inuser() refuses them. */
static const char *const futex_op_names[] = {"set", "add", "or", "andn", "xor", NULL};
static const char *const futex_cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", NULL};

/* An entry's trace is what the report's table shows between the call's parentheses.
 * The pages= ops show {x}, pages - 1, as the trace always has (reports and traces
 * already written show it); {pages} would change them. */
const struct op_desc op_table[OP_NKINDS] = {
[OP_MMAP] = {.name = "mmap", .weight = 9,
	.doc = "a new mapping: `shared` is `/dev/zero` with `MAP_SHARED` (a shmem object per "
		"mmap), `private` private anonymous memory; `file=NAME` maps from its start a "
		"file the case declares (`file NAME pages=N fill=B ro`), `MAP_SHARED` or "
		"`MAP_PRIVATE` (docs/model.md, \"Files\")",
	.syscall = "sys_mmap2", .trace = "{pages} pages, {shared}",
	/* the minimizer's plain mapping: prot=rw, private, anonymous */
	.args = {MAPNAME, PAGES(256, 1, 0), PROT(ARG_SHRINK, 3),
		 FLAG("shared", FIELD_Y, 3, "private", ARG_SHRINK), FILE_ARG},
	.dict = {"mmap_private|mmap m2 pages=1 prot=rw",
		 "mmap_shared|mmap m2 pages=1 prot=rw shared"}},
[OP_MUNMAP] = {.name = "munmap", .weight = 3,
	.doc = "`sys_munmap`",
	.syscall = "sys_munmap", .trace = "{x}",
	.args = {A_ARG, PAGES(256, 0, ARG_REST)},
	.dict = {"munmap|munmap m0 pages=1"}},
[OP_MPROTECT] = {.name = "mprotect", .weight = 4,
	.doc = "`sys_mprotect`",
	.syscall = "sys_mprotect", .trace = "{x}",
	.args = {A_ARG, PAGES(256, 0, ARG_REST), PROT(ARG_REQUIRED | ARG_SHRINK, 0)},
	.dict = {"mprotect_none|mprotect m0 pages=1 prot=none"}},
[OP_LOAD] = {.name = "load", .weight = 5,
	.doc = "a user-mode read; a bad access is a SIGSEGV, counted, and ends the op",
	.args = {A_ARG},
	.dict = {"load|load m0"}},
[OP_STORE] = {.name = "store", .weight = 4,
	.doc = "a user-mode write, as for `load`",
	.args = {A_ARG, SMALL("val", FIELD_X, 0, 0)},
	.dict = {"store|store m0 val=1"}},
[OP_FUTEX_WAIT] = {.name = "futex_wait", .weight = 13,
	.doc = "`FUTEX_WAIT`; `timeout=0` means none. Every futex op takes `private`: "
		"`FUTEX_PRIVATE_FLAG` (2.6.22 on), which every kernel before refuses (`-ENOSYS`)",
	.syscall = "sys_futex", .trace = "FUTEX_WAIT{private:_PRIVATE}, val {val}",
	.args = {A_ARG, SMALL("val", FIELD_X, 0, ARG_REQUIRED),
		 SMALL("timeout", FIELD_Y, 0, ARG_HIDE_0 | ARG_SHRINK), PRIVATE},
	.dict = {"futex_wait_1|futex_wait m0 val=1",
		 "futex_wait_0_timeout|futex_wait m1 val=0 timeout=1"}},
[OP_FUTEX_WAKE] = {.name = "futex_wake", .weight = 4,
	.doc = "`FUTEX_WAKE` (2.6.11 wakes one even for `nr=0`)",
	.syscall = "sys_futex", .trace = "FUTEX_WAKE{private:_PRIVATE}, nr {nr}",
	.args = {A_ARG, SMALL("nr", FIELD_X, 1, 0), PRIVATE},
	.dict = {"futex_wake|futex_wake m0 nr=1"}},
[OP_FUTEX_REQUEUE] = {.name = "futex_requeue", .weight = 3,
	.doc = "`FUTEX_REQUEUE` from A to B",
	.syscall = "sys_futex", .trace = "FUTEX_REQUEUE{private:_PRIVATE}, {nr_wake}, {nr_requeue}",
	.args = {A_ARG, B_POS, NIBBLE("nr_wake", 0, 1), NIBBLE("nr_requeue", 4, 0), PRIVATE},
	.dict = {"futex_requeue|futex_requeue m0 m1 nr_wake=1 nr_requeue=1"}},
[OP_FUTEX_CMP_REQUEUE] = {.name = "futex_cmp_requeue", .weight = 5,
	.doc = "`FUTEX_CMP_REQUEUE` from A to B, if A holds `val`",
	.syscall = "sys_futex",
	.trace = "FUTEX_CMP_REQUEUE{private:_PRIVATE}, {nr_wake}, {nr_requeue}, val {val}",
	.args = {A_ARG, B_POS, SMALL("val", FIELD_Y, 0, ARG_REQUIRED | ARG_SHRINK),
		 NIBBLE("nr_wake", 0, 1), NIBBLE("nr_requeue", 4, 0), PRIVATE},
	.dict = {"futex_cmp_requeue|futex_cmp_requeue m0 m1 val=0 nr_wake=1 nr_requeue=1"}},
[OP_GET_MEMPOLICY] = {.name = "get_mempolicy", .weight = 1,
	.doc = "`flags=2` is `MPOL_F_ADDR` (the policy of the page at `addr`), `flags=1` "
		"`MPOL_F_NODE` (refused with `-EINVAL`); `nmask` copies the node mask to A+8",
	.syscall = "sys_get_mempolicy", .trace = "flags {flags}",
	/* no ARG_SHRINK: flags= choose the call's path (MPOL_F_ADDR's is the one under
	 * mmap_sem), and the minimizer leaves them as found */
	.args = {A_ARG, B_KEY("addr"), FLAG("nmask", FIELD_X, 0, NULL, 0),
		 BITS("flags", FIELD_Y, 2)},
	.dict = {"get_mempolicy_addr|get_mempolicy m0 addr=m1 flags=2"}},
[OP_KILL] = {.name = "kill", .weight = 2,
	.doc = "a signal that interrupts that task's futex sleep (`-EINTR`)",
	.syscall = "sys_tgkill", .trace = "T{a task number}",
	.args = {TASK},
	.dict = {"kill_2|kill 2"}},
[OP_SLEEP] = {.name = "sleep", .weight = 1,
	.doc = "an interruptible sleep in virtual time (`nanosleep`)",
	.syscall = "sys_nanosleep", .trace = "{ticks}",
	.args = {SMALL("ticks", FIELD_X, 0, ARG_POS)},
	.dict = {"sleep_1|sleep 1"}},
[OP_RECLAIM] = {.name = "reclaim", .weight = 3, /* kswapd: shrink_list() at A */
	.doc = "one kswapd pass over the page at A (`shrink_list`; `page_table_lock` only, "
		"never `mmap_sem`): 3 if it was referenced since the last pass (activated, "
		"left mapped), else `try_to_unmap_one`: 0 unmapped (a private page to swap, a "
		"shmem page left in the page cache), 1 no page there (or the ZERO_PAGE), 2 "
		"refused (`VM_LOCKED`, or young again). No system call around it",
	.args = {A_ARG}},
[OP_MADVISE] = {.name = "madvise", .weight = 1, /* MADV_DONTNEED */
	.doc = "`MADV_DONTNEED` under `mmap_sem` for write, as in 2.6.9-2.6.11",
	.syscall = "sys_madvise", .trace = "{x}",
	.args = {A_ARG, PAGES(256, 0, ARG_REST)}},
[OP_MINCORE] = {.name = "mincore", .weight = 1, .all_only = true,
	.doc = "under `mmap_sem` for read, copying out inside it (the fuzzer uses it with "
		"`--ops=all` only)",
	.syscall = "sys_mincore", .trace = "{x}",
	.args = {A_ARG, PAGES(128, 0, ARG_REST), B_KEY("vec")}},
[OP_MLOCK] = {.name = "mlock", .weight = 1, .all_only = true,
	.doc = "under `mmap_sem` for write: `VM_LOCKED`, then every page faulted in "
		"(`get_user_pages`); `reclaim` leaves a locked page alone (the fuzzer uses it "
		"with `--ops=all` only)",
	.syscall = "sys_mlock", .trace = "{x}",
	.args = {A_ARG, PAGES(256, 0, ARG_REST)},
	.dict = {"mlock|mlock m0 pages=1"}},
[OP_PEEKDATA] = {.name = "peekdata", .weight = 1, .all_only = true,
	.doc = "a debugger's `ptrace(PTRACE_PEEKDATA)` of the word at A: `access_process_vm()`, "
		"`get_user_pages()` with `force` under `mmap_sem` for read; 0, or `-EIO` (the "
		"fuzzer uses it with `--ops=all` only)",
	.syscall = "sys_ptrace", .trace = "PTRACE_PEEKDATA",
	.args = {A_ARG},
	.dict = {"peekdata|peekdata m0"}},
[OP_POKEDATA] = {.name = "pokedata", .weight = 1, .all_only = true,
	.doc = "a debugger's `ptrace(PTRACE_POKEDATA)`: writes `val` at A with `force`, even "
		"where the mapping is read-only (a breakpoint); 0, or `-EIO` (the fuzzer uses it "
		"with `--ops=all` only)",
	.syscall = "sys_ptrace", .trace = "PTRACE_POKEDATA, {val}",
	.args = {A_ARG, SMALL("val", FIELD_X, 0, 0)},
	.dict = {"pokedata|pokedata m0 val=1"}},
[OP_FUTEX_WAKE_OP] = {.name = "futex_wake_op", .weight = 2,
	.doc = "`FUTEX_WAKE_OP` (2.6.14 on; `-ENOSYS` before): the operation `op` with "
		"`oparg` (`shift`: 1 << oparg) on the word at B, atomically, page faults off, "
		"under both bucket locks; wakes `nr_wake` waiters on A and, where B's old "
		"value compares true (`cmp` with `cmparg`), `nr_wake2` on B. `op` 5 to 7 and "
		"`cmp` 6 to 15 have no name: encodings the kernel refuses. The kernel's "
		"`oparg` and `cmparg` are 12 bits; a case has -128..127",
	.syscall = "sys_futex",
	.trace = "FUTEX_WAKE_OP{private:_PRIVATE}, {op} {oparg}, {cmp} {cmparg}",
	.args = {A_ARG, B_POS, NIBBLE("nr_wake", 0, 1), NIBBLE("nr_wake2", 4, 1),
		 ENUM("op", FIELD_Y, 0, 3, futex_op_names), FLAG("shift", FIELD_Y, 3, NULL, 0),
		 SIGNED("oparg", FIELD_Z), ENUM("cmp", FIELD_Y, 4, 4, futex_cmp_names),
		 SIGNED("cmparg", FIELD_W), PRIVATE},
	/* pthread_cond_signal() of NPTL (2.3.90 on): FUTEX_OP_CLEAR_WAKE_IF_GT_ONE */
	.dict = {"futex_wake_op|futex_wake_op m0 m1 op=set oparg=0 cmp=gt cmparg=1"}},
};
/* clang-format on */

const struct op_arg *op_arg_by_code(int kind, enum arg_code code)
{
	for (int i = 0; i < OP_MAX_ARGS && op_table[kind].args[i].name; i++)
		if (op_table[kind].args[i].code == code)
			return &op_table[kind].args[i];
	return NULL;
}

bool op_has_pages(int kind)
{
	return op_arg_by_code(kind, CODE_PAGES) != NULL;
}

uint8_t *op_field(struct op *o, int field)
{
	switch (field) {
	case FIELD_X:
		return &o->x;
	case FIELD_Y:
		return &o->y;
	case FIELD_Z:
		return &o->z;
	case FIELD_W:
		return &o->w;
	case FIELD_V:
		return &o->v;
	default:
		return NULL;
	}
}

int op_arg_get(const struct op *o, const struct op_arg *g)
{
	const uint8_t *f = op_field((struct op *)o, g->field);
	int v = f ? (int)((*f >> g->shift) & ((1u << g->width) - 1)) : 0;

	if (g->lo < 0 && v >= 1 << (g->width - 1)) /* two's complement */
		v -= 1 << g->width;
	return v + g->bias;
}

void op_arg_set(struct op *o, const struct op_arg *g, int value)
{
	uint8_t *f = op_field(o, g->field);
	unsigned mask = ((1u << g->width) - 1) << g->shift;

	if (f)
		*f = (uint8_t)((*f & ~mask) | (((unsigned)(value - g->bias) << g->shift) & mask));
}

const struct op_arg *op_arg_named(int kind, const char *key, size_t klen)
{
	for (int i = 0; i < OP_MAX_ARGS && op_table[kind].args[i].name; i++) {
		const struct op_arg *g = &op_table[kind].args[i];
		if (strlen(g->name) == klen && !strncmp(g->name, key, klen))
			return g;
	}
	return NULL;
}

const char *op_enum_name(const struct op_arg *g, int value)
{
	for (int i = 0; g->names && g->names[i]; i++)
		if (i == value)
			return g->names[i];
	return NULL;
}

/* a flag's value as the text form writes it: its word, or its off word (`private`) */
static const char *flag_word(const struct op_arg *g, int v)
{
	if (v)
		return g->name;
	return g->off ? g->off : "";
}

void op_trace_args(const struct op *o, char *buf, size_t len)
{
	const char *t = op_table[o->kind].trace;
	size_t n = 0;

	buf[0] = 0;
	for (; t && *t && n + 1 < len; t++) {
		const char *end = *t == '{' ? strchr(t, '}') : NULL;
		if (!end) {
			buf[n++] = *t;
			buf[n] = 0;
			continue;
		}
		/* no argument of that name: {x} (tests/test_op_table.c checks the names) */
		const char *colon = memchr(t, ':', (size_t)(end - t));
		const struct op_arg *g =
		    op_arg_named(o->kind, t + 1, (size_t)((colon ? colon : end) - t - 1));
		int v = g ? op_arg_get(o, g) : o->x;
		if (g && g->type == ARG_FLAG && colon) /* {KEY:TEXT} */
			n += (size_t)snprintf(buf + n, len - n, "%.*s",
					      v ? (int)(end - colon - 1) : 0, colon + 1);
		else if (g && g->type == ARG_FLAG)
			n += (size_t)snprintf(buf + n, len - n, "%s", flag_word(g, v));
		else if (g && g->type == ARG_ENUM && op_enum_name(g, v))
			n += (size_t)snprintf(buf + n, len - n, "%s", op_enum_name(g, v));
		else
			n += (size_t)snprintf(buf + n, len - n, "%d", v);
		if (n >= len)
			n = len - 1;
		t = end;
	}
}
