/* A structure-aware mutator for futex_mm_fuzzer.
 *
 * libFuzzer's byte mutations know nothing of op records, so most of them shift or tear
 * the program apart. This one works on the canonical byte form (prog/codec.c) and
 * makes the changes a person would: add or remove an op, change one field of an op,
 * copy an op into another task or right after itself, add a waker (a store, then
 * FUTEX_WAKE on the word), change the number of tasks, or change the schedule (a PCT
 * one, or explicit preemptions: add, nudge or remove one). One time in twelve it leaves
 * the work to LLVMFuzzerMutate, so byte-level surprises still happen. The output is
 * always a valid input by construction: the byte form's header (prog/codec.c) is kept,
 * or written where the input had none, and every byte string after it is a program.
 *
 * Ops that race share an address: a waiter and its waker, a fault and the kswapd pass
 * that takes its page. As syzkaller's generator hands a resource one call made to the
 * next, a new op takes an address the program already uses (or the start of a mapping
 * one of its mmaps makes) half the time, and an inserted mmap keeps every reference
 * naming the mapping it named. The empty program (libFuzzer's first input from an
 * empty corpus), and one input in eight, become a new program: half the time one of two
 * to five ops, starting with a mapping; half the time one of roles, where each task
 * does with one futex word what a user of futex(2), another thread or kswapd does with
 * it (roles[], below). Measured in docs/fuzzing.md, "The search table" and "Roles".
 */
#include "../prog/ops.h"

#include <stddef.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t rng;
extern bool snafu_fuzz_all_ops;   /* futex_mm_fuzzer.c: --ops=all */
extern bool snafu_fuzz_pct;       /* futex_mm_fuzzer.c: --schedule=pct */
extern bool snafu_fuzz_crossover; /* futex_mm_fuzzer.c: --crossover=1 */
/* futex_mm_fuzzer.c: the bits of an op's flags byte (field v) the kernel has a use for:
 * FUTEX_PRIVATE_FLAG's where it has private futexes, else none (an op it refuses) */
extern uint8_t snafu_fuzz_flags;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13; /* xorshift32: seeded by libFuzzer, so runs stay reproducible */
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return n ? rng % n : 0;
}

/* A preemption's target: another task mostly, the earliest pending timer one time in
 * eight (prog/codec.c: to bytes from 0xf0 up). */
static uint8_t to_byte(void)
{
	return rnd(8) ? (uint8_t)rnd(4) : 0xf0;
}

/* The byte form's number of tasks (prog/codec.c: 2 + bits 0-1 of the byte after the
 * header, % 3; bits 2-3 are the number of files, kept). */
static void set_ntasks(uint8_t *buf, int ntasks)
{
	buf[PROG_HEADER_BYTES] = (uint8_t)((buf[PROG_HEADER_BYTES] & ~3) | (ntasks - 2));
}

/* The file table of a fresh program (prog/codec.c): three files, each of a size and
 * open mode drawn, and either the pattern or a fill, 0 half the time (a futex word
 * there is 0, as a fresh anonymous page's). */
static void fresh_files(uint8_t *buf)
{
	uint8_t *f = buf + PROG_HEADER_BYTES;

	f[0] = (uint8_t)((f[0] & 3) | NR_FILES << 2);
	for (int i = 0; i < NR_FILES; i++) {
		f[1 + i * FILE_DECL_BYTES] = (uint8_t)rnd(256);
		f[2 + i * FILE_DECL_BYTES] = (uint8_t)(rnd(2) ? 0 : rnd(256));
	}
}

/* Another file table: a file drawn again, or another number of files declared. */
static void mutate_files(uint8_t *buf)
{
	uint8_t *f = buf + PROG_HEADER_BYTES;
	int i = (int)rnd(NR_FILES);

	if (rnd(4) == 0)
		f[0] = (uint8_t)((f[0] & 3) | rnd(NR_FILES + 1) << 2);
	else if (rnd(2))
		f[1 + i * FILE_DECL_BYTES] = (uint8_t)rnd(256);
	else
		f[2 + i * FILE_DECL_BYTES] = (uint8_t)(rnd(2) ? 0 : rnd(256));
}

/* The op records rec[0..i): how many are mmaps. */
static int maps_before(const uint8_t *rec, int i)
{
	int k = 0;

	for (int j = 0; j < i; j++)
		k += prog_kind_of(rec[j * OP_BYTES]) == OP_MMAP;
	return k;
}

/* A new mmap at mapping index idx among the n op records at rec: the mappings from idx
 * on move up one, and NULL (the index one past the last) with them, so every reference
 * names what it named before (prog/codec.c: a reference is taken modulo mappings + 1). */
static void shift_maps(uint8_t *rec, int n, int idx)
{
	int refs = maps_before(rec, n) + 1; /* what a reference meant: mappings + NULL */

	for (int j = 0; j < n; j++) {
		uint8_t *r = rec + j * OP_BYTES;
		int kind = prog_kind_of(r[0]);
		if (op_uses_a(kind) && r[1] % refs >= idx)
			r[1] = (uint8_t)(r[1] % refs + 1);
		if (op_uses_b(kind) && r[4] % refs >= idx)
			r[4] = (uint8_t)(r[4] % refs + 1);
	}
}

/* A first byte of an op record of this kind, any of its slots and tasks alike: what
 * drawing bytes until one names the kind gives, in one draw. */
static uint8_t kind_byte(int kind)
{
	static uint8_t bytes[OP_NKINDS][256];
	static int count[OP_NKINDS];
	static bool ready;

	if (!ready) { /* once: the bytes of every kind (each byte names one) */
		for (int b = 0; b < 256; b++) {
			int k = prog_kind_of((uint8_t)b);
			bytes[k][count[k]++] = (uint8_t)b;
		}
		ready = true;
	}
	return bytes[kind][rnd((uint32_t)count[kind])]; /* every kind has a slot */
}

/* A fresh op record for a program whose op records are rec[0..n), biased like a person
 * would write one: half the time at an address another op uses, or at the start of a
 * mapping an mmap makes; else in a mapping (NULL one time in eight), page 0 (else
 * 1..3), word 0; one-page mappings, small values, mostly no timeout. kind: the op's
 * kind, or -1 for any the op set has. */
static void random_op(uint8_t *r, const uint8_t *rec, int n, int kind)
{
	int nmaps = maps_before(rec, n);

	for (int i = 0; i < OP_BYTES; i++)
		r[i] = (uint8_t)rnd(256);
	if (kind >= 0)
		r[0] = kind_byte(kind);
	else
		while (!snafu_fuzz_all_ops && op_table[prog_kind_of(r[0])].all_only)
			r[0] = (uint8_t)rnd(256);
	r[1] = (uint8_t)(nmaps && rnd(8) ? rnd((uint32_t)nmaps) : (uint32_t)nmaps);
	r[2] = (uint8_t)(rnd(2) ? 0 : rnd(4));
	r[3] = rnd(8) ? 0 : r[3];
	r[5] &= 0xf0;
	r[6] = (uint8_t)(rnd(2) ? 0 : rnd(4));
	r[7] = rnd(2) ? (uint8_t)rnd(16) : r[7];
	r[8] = (uint8_t)(rnd(2) ? rnd(4) : r[8]); /* z and w: small numbers mostly */
	r[9] = (uint8_t)(rnd(2) ? rnd(4) : r[9]);
	r[6 + FIELD_V - FIELD_X] &= snafu_fuzz_flags;
	/* an argument the printer leaves out at 0 (a wait's timeout) is 0 three times in
	 * four: a wait with a timeout ends, and a lost wake-up is a wait that never does */
	const struct op_desc *d = &op_table[prog_kind_of(r[0])];
	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++) {
		const struct op_arg *g = &d->args[i];
		if (!(g->flags & ARG_HIDE_0) || g->field == FIELD_NONE || !rnd(4))
			continue;
		uint8_t *b = &r[6 + g->field - FIELD_X]; /* its bits only: mmap's file= */
		*b = g->code == CODE_BITS ? (uint8_t)(*b & ~(((1u << g->width) - 1) << g->shift))
					  : 0;
	}
	if (n && rnd(2)) {
		int j = (int)rnd((uint32_t)n);
		const uint8_t *o = rec + j * OP_BYTES;
		int other = prog_kind_of(o[0]);
		if (op_uses_a(other)) {
			r[1] = o[1];
			r[2] = o[2];
			r[3] = (uint8_t)(o[3] & 63); /* the word, not each-page */
		} else if (other == OP_MMAP) {
			r[1] = (uint8_t)maps_before(rec, j);
			r[2] = r[3] = 0;
		}
	}
}

/* An op record of this kind in this task (0-based), as random_op makes one. */
static void op_of_kind(uint8_t *r, const uint8_t *rec, int n, int kind, int task)
{
	random_op(r, rec, n, kind);
	r[0] = (uint8_t)((r[0] & ~3) | task);
}

/* Insert op record r at op slot `at` of buf (n bytes, the nops op records from `ops`
 * on), keeping references (shift_maps) when it is an mmap. Returns the new length. */
static size_t insert_op(uint8_t *buf, size_t n, size_t ops, int nops, int at, const uint8_t *r)
{
	uint8_t *slot = buf + ops + (size_t)at * OP_BYTES;

	if (prog_kind_of(r[0]) == OP_MMAP)
		shift_maps(buf + ops, nops, maps_before(buf + ops, at));
	memmove(slot + OP_BYTES, slot, n - (size_t)(slot - buf));
	memcpy(slot, r, OP_BYTES);
	return n + OP_BYTES;
}

/* --schedule=pct: a fresh PCT schedule (prog/codec.c) at buf + pre: priorities, one to
 * three change points, the last byte; returns the new length. */
static size_t fresh_pct(uint8_t *buf, size_t pre)
{
	size_t nchange = 1 + rnd(3), n = pre;

	buf[n++] = (uint8_t)rnd(256);
	for (size_t j = 0; j < nchange; j++) {
		buf[n++] = (uint8_t)rnd(256);
		buf[n++] = (uint8_t)rnd(256);
	}
	buf[n++] = (uint8_t)(0xf0 | nchange);
	return n;
}

/* The steps where the input's own run made an access that conflicts with another
 * task's (fuzz/joint.c); weak: the tests that include this file link no joint search */
int joint_conflict_steps(const uint8_t *data, size_t size, const uint32_t **steps)
    __attribute__((weak));
static const uint32_t *conflict;
static int nconflict;

/* A change point's two bytes: at a conflict step, just before it or just after it (a
 * change at step s switches at that scheduling point, before the step's accesses) */
static bool conflict_change(uint8_t *c)
{
	if (!nconflict)
		return false;
	uint32_t s = conflict[rnd((uint32_t)nconflict)] + rnd(2) - 1; /* byte form: 1 + s */
	c[0] = (uint8_t)s;
	c[1] = (uint8_t)(s >> 8);
	return true;
}

/* --schedule=pct: the schedule mutations work on a PCT schedule: buf holds p's canonical
 * bytes (n of them), the schedule from pre on. Draw a new schedule, as PCT draws one per
 * run; draw the priorities again or move a change point a few steps; add or drop a
 * change point. A change point moved or added goes to a conflict point half the time,
 * where the input has them (--conflicts=1). Returns the new length. */
static size_t mutate_pct(const struct program *p, uint8_t *buf, size_t n, size_t pre, int what)
{
	size_t nchange = p->pct.on ? p->pct.nchange : (size_t)(buf[n - 1] & 15), at;

	switch (what) {
	case 4: /* a new schedule */
	case 10:
		return fresh_pct(buf, pre);
	case 5: /* new priorities, or a change point a few steps earlier or later */
	case 6:
		if (!nchange || rnd(3) == 0) {
			buf[pre] = (uint8_t)rnd(256);
			break;
		}
		at = pre + 1 + rnd((uint32_t)nchange) * PCT_CHANGE_BYTES;
		if (rnd(2) && conflict_change(buf + at))
			break;
		if (rnd(4) == 0) {
			buf[at] = (uint8_t)rnd(256);
			buf[at + 1] = (uint8_t)rnd(256);
		} else {
			unsigned v = (unsigned)(buf[at] | buf[at + 1] << 8);
			v += rnd(2) ? 1 + rnd(3) : -(1 + rnd(3));
			buf[at] = (uint8_t)v;
			buf[at + 1] = (uint8_t)(v >> 8);
		}
		break;
	case 7: /* add a change point anywhere, or drop one */
		if (nchange < 15 && (!nchange || rnd(2))) {
			at = pre + 1 + rnd((uint32_t)nchange + 1) * PCT_CHANGE_BYTES;
			memmove(buf + at + PCT_CHANGE_BYTES, buf + at, n - at);
			if (!rnd(2) || !conflict_change(buf + at)) {
				buf[at] = (uint8_t)rnd(256);
				buf[at + 1] = (uint8_t)rnd(256);
			}
			n += PCT_CHANGE_BYTES;
			buf[n - 1] = (uint8_t)(0xf0 | (nchange + 1));
		} else if (nchange) {
			at = pre + 1 + rnd((uint32_t)nchange) * PCT_CHANGE_BYTES;
			memmove(buf + at, buf + at + PCT_CHANGE_BYTES, n - at - PCT_CHANGE_BYTES);
			n -= PCT_CHANGE_BYTES;
			buf[n - 1] = (uint8_t)(0xf0 | (nchange - 1));
		}
		break;
	}
	return n;
}

/* A new program at buf + ops, in place of the nops op records there (the schedule after
 * them stays) for two to four tasks: a mapping, then one to four ops, each likely to use
 * an address an earlier one uses (random_op). Returns the new length. */
static size_t fresh_program(uint8_t *buf, size_t n, size_t ops, int nops)
{
	uint8_t rec[OP_BYTES];
	size_t pre = ops + (size_t)nops * OP_BYTES;

	memmove(buf + ops, buf + pre, n - pre);
	n = ops + (n - pre);
	set_ntasks(buf, 2 + (int)rnd(3)); /* two to four tasks */
	fresh_files(buf);
	for (int k = 2 + (int)rnd(4), i = 0; i < k; i++) {
		random_op(rec, buf + ops, i, -1);
		while (!i && prog_kind_of(rec[0]) != OP_MMAP)
			rec[0] = (uint8_t)rnd(256);
		n = insert_op(buf, n, ops, i, i ? (int)rnd((uint32_t)i + 1) : 0, rec);
	}
	return n;
}

/* Where a role's op points (roles[], below): at the program's futex word (mapping 0,
 * page 0, word 0: every program of roles maps it first), or where random_op puts it;
 * AT_FROM_TO: a requeue from the word (its A) or, half the time, onto it (its B). */
enum { AT_WORD, AT_ANY, AT_FROM_TO };
/* The value a role's store, futex_wait or futex_cmp_requeue takes: any small one, the
 * word's value as the earlier stores of the program leave it, three times in four (a
 * waiter sleeps while the word holds what it read; else what it read is stale), or the
 * next one (a waker changes the word, then wakes). */
enum { V_ANY, V_CUR, V_NEXT, V_ONE };
/* (V_ONE: a futex_wake's nr=1, as lll_unlock wakes one waiter) */

struct role_op {
	uint8_t kind; /* enum op_kind; OP_NKINDS: any op, as random_op draws one */
	uint8_t at, val;
};

/* What the tasks of a fresh program do: as the users of one futex word use it (the
 * futex(2) man page; Drepper, "Futexes Are Tricky": lll_lock, lll_unlock,
 * pthread_cond_broadcast), beside the kernel's own actors on the word's page: another
 * thread changing the address space (mmap_sem for write) and kswapd; and a debugger's
 * forced write into the page (ptrace(PTRACE_POKEDATA), a breakpoint). As a syzkaller
 * program hands the resource one call returns to the next, every role is handed the
 * word. weight: how often a task draws the role; nops: its ops. By name, for the
 * contended word below. */
enum role_name {
	R_WAITER,
	R_READ_WAIT,
	R_UNLOCKER,
	R_WAKER,
	R_BROADCAST,
	R_REQUEUER,
	R_SETTER,
	R_MAPPER,
	R_PROTECTOR,
	R_KSWAPD,
	R_KSWAPD_ONE,
	R_MEMPOLICY,
	R_MINCORE,
	R_DEBUGGER,
	R_ANY,
	NROLES
};

static const struct role {
	uint8_t weight, nops;
	struct role_op ops[2];
} roles[NROLES] = {
    [R_WAITER] = {4, 1, {{OP_FUTEX_WAIT, AT_WORD, V_CUR}}}, /* lll_lock's sleep */
    [R_READ_WAIT] = {2, 2, {{OP_LOAD, AT_WORD, V_ANY}, {OP_FUTEX_WAIT, AT_WORD, V_CUR}}},
    [R_UNLOCKER] = {3, 2, {{OP_STORE, AT_WORD, V_NEXT}, {OP_FUTEX_WAKE, AT_WORD, V_ONE}}},
    [R_WAKER] = {2, 1, {{OP_FUTEX_WAKE, AT_WORD, V_ANY}}},
    [R_BROADCAST] = {2, 1, {{OP_FUTEX_CMP_REQUEUE, AT_WORD, V_CUR}}}, /* cond_broadcast */
    [R_REQUEUER] = {1, 1, {{OP_FUTEX_REQUEUE, AT_FROM_TO, V_ANY}}},
    [R_SETTER] = {1, 1, {{OP_STORE, AT_WORD, V_ANY}}}, /* the word set, its page in */
    [R_MAPPER] = {2, 1, {{OP_MMAP, AT_ANY, V_ANY}}},   /* another thread's mmap */
    [R_PROTECTOR] = {1, 1, {{OP_MPROTECT, AT_WORD, V_ANY}}},
    [R_KSWAPD] = {2, 2, {{OP_RECLAIM, AT_WORD, V_ANY}, {OP_RECLAIM, AT_WORD, V_ANY}}},
    [R_KSWAPD_ONE] = {1, 1, {{OP_RECLAIM, AT_WORD, V_ANY}}},
    [R_MEMPOLICY] = {2, 1, {{OP_GET_MEMPOLICY, AT_WORD, V_ANY}}}, /* a copy-out to the word */
    [R_MINCORE] = {1, 1, {{OP_MINCORE, AT_WORD, V_ANY}}},         /* (--ops=all) */
    [R_DEBUGGER] = {1, 1, {{OP_POKEDATA, AT_WORD, V_ANY}}},       /* a breakpoint (--ops=all) */
    [R_ANY] = {3, 1, {{OP_NKINDS, AT_ANY, V_ANY}}},               /* anything else */
};

/* One program of roles in four is a contended word: lll_lock's slow path taken by two
 * threads while the owner releases the lock ("Futexes Are Tricky", mutex2), an unlocker
 * and two waiters, each alone in one of the first three tasks, in an order drawn; a
 * fourth task draws its role as any other. */
static const uint8_t contended[] = {R_UNLOCKER, R_WAITER, R_WAITER};
#define NCONTENDED (sizeof(contended) / sizeof(contended[0]))

/* Whether the fuzzer's op set (--ops) has every op of role r. */
static bool role_allowed(const struct role *r)
{
	for (int i = 0; i < r->nops; i++)
		if (!snafu_fuzz_all_ops && r->ops[i].kind != OP_NKINDS &&
		    op_table[r->ops[i].kind].all_only)
			return false;
	return true;
}

/* A role drawn by weight, of those the fuzzer's op set allows. */
static const struct role *draw_role(void)
{
	uint32_t total = 0, w;
	const struct role *r;

	for (r = roles; r < roles + NROLES; r++)
		total += role_allowed(r) ? r->weight : 0;
	w = rnd(total);
	for (r = roles; !role_allowed(r) || w >= r->weight; r++)
		w -= role_allowed(r) ? r->weight : 0;
	return r;
}

/* Set the argument NAME of op record r, a number or bits of byte x or y, to v (a number
 * below 4: its own byte, prog/codec.c's small()); false where the op has none. */
static bool set_arg(uint8_t *r, const char *name, int v)
{
	const struct op_arg *g = op_arg_named(prog_kind_of(r[0]), name, strlen(name));

	if (!g || g->field == FIELD_NONE)
		return false;
	uint8_t *b = &r[6 + g->field - FIELD_X], mask = (uint8_t)((1u << g->width) - 1);
	if (g->code == CODE_SMALL)
		*b = (uint8_t)(v & 3);
	else if (g->code == CODE_BITS)
		*b = (uint8_t)((*b & ~(mask << g->shift)) | (v & mask) << g->shift);
	return true;
}

/* A fresh program of roles at buf + ops, in place of the nops op records there (the
 * schedule after them stays): two to four tasks (a contended word: three or four), task
 * 1 maps the word first, and each task plays a role (one time in three, two). Returns
 * the new length. */
static size_t role_program(uint8_t *buf, size_t n, size_t ops, int nops)
{
	uint8_t rec[OP_BYTES], cast[NCONTENDED] = {0}; /* a contended word's roles, by task */
	size_t pre = ops + (size_t)nops * OP_BYTES;
	int k = 0, cur = 0; /* op records so far; the word's value after them */
	bool scene = rnd(4) == 0;

	memmove(buf + ops, buf + pre, n - pre);
	n = ops + (n - pre);
	int ntasks = scene ? 3 + (int)rnd(2) : 2 + (int)rnd(3);
	set_ntasks(buf, ntasks);
	fresh_files(buf);
	if (scene) /* the contended word's roles in an order drawn (Fisher-Yates) */
		for (int t = 0; t < (int)NCONTENDED; t++) {
			int u = (int)rnd((uint32_t)t + 1);
			cast[t] = cast[u], cast[u] = contended[t];
		}
	op_of_kind(rec, buf + ops, 0, OP_MMAP, 0);
	set_arg(rec, "prot", 3); /* rw: a futex word is memory its users read and write */
	n = insert_op(buf, n, ops, k, k, rec), k++;
	for (int t = 0; t < ntasks; t++)
		for (int nroles = scene && t < (int)NCONTENDED ? 1 : rnd(3) ? 1 : 2; nroles--;) {
			const struct role *r =
			    scene && t < (int)NCONTENDED ? &roles[cast[t]] : draw_role();
			for (const struct role_op *o = r->ops; o < r->ops + r->nops; o++) {
				if (o->kind == OP_NKINDS) {
					random_op(rec, buf + ops, k, -1);
					rec[0] = (uint8_t)((rec[0] & ~3) | t);
				} else
					op_of_kind(rec, buf + ops, k, o->kind, t);
				if (o->at == AT_FROM_TO && rnd(2))
					rec[4] = rec[5] = 0; /* B: mapping 0, page 0, word 0 */
				else if (o->at != AT_ANY)
					rec[1] = rec[2] = rec[3] = 0;
				/* V_CUR: one time in four a stale value, read before a store */
				int v = o->val == V_NEXT ? (cur + 1) & 3 : (int)rnd(4);
				if (o->val == V_CUR && rnd(4))
					v = cur;
				if (o->val == V_ONE)
					set_arg(rec, "nr", 1);
				else if (set_arg(rec, "val", v) && o->at == AT_WORD &&
					 prog_kind_of(rec[0]) == OP_STORE)
					cur = v;
				n = insert_op(buf, n, ops, k, k, rec), k++;
			}
		}
	return n;
}

/* The mutations of the program's ops (what: the mutator's draw, below), on p's canonical
 * bytes in buf (n of them, the op records from ops on). Returns the new length. */
static size_t mutate_ops(const struct program *p, uint8_t *buf, size_t n, size_t ops, int what)
{
	uint8_t rec[OP_BYTES], *o = buf + ops;
	int nops = p->nops, at = (int)rnd((uint32_t)nops + 1), task;
	bool room = n + 2 * OP_BYTES <= PROG_MAX_ENCODED && nops + 1 < PROG_MAX_OPS;

	switch (what) {
	case 0: /* insert an op */
	case 1:
	case 8:
		if (!room)
			break;
		random_op(rec, o, nops, -1);
		return insert_op(buf, n, ops, nops, at, rec);
	case 2: /* delete an op */
		at = (int)rnd((uint32_t)nops);
		memmove(o + at * OP_BYTES, o + (at + 1) * OP_BYTES,
			n - ops - (size_t)(at + 1) * OP_BYTES);
		return n - OP_BYTES;
	case 3: /* change one field of an op: small steps mostly */
	case 9: {
		uint8_t *r = o + rnd((uint32_t)nops) * OP_BYTES, *b = r + rnd(OP_BYTES);
		*b = rnd(2) ? (uint8_t)(*b + (rnd(2) ? 1 : -1)) : (uint8_t)rnd(256);
		r[6 + FIELD_V - FIELD_X] &= snafu_fuzz_flags;
		break;
	}
	case 11: /* an op copied into another task: a second waiter, a racer */
		if (!room)
			break;
		memcpy(rec, o + rnd((uint32_t)nops) * OP_BYTES, OP_BYTES);
		task =
		    ((rec[0] & 3) % p->ntasks + 1 + (int)rnd((uint32_t)p->ntasks - 1)) % p->ntasks;
		if (p->ntasks < PROG_MAX_TASKS && rnd(2)) { /* a task of its own */
			task = p->ntasks;
			set_ntasks(buf, p->ntasks + 1);
		}
		rec[0] = (uint8_t)((rec[0] & ~3) | task);
		if (rnd(2)) /* another val, nr, ... */
			rec[6 + rnd(2)] = (uint8_t)rnd(4);
		return insert_op(buf, n, ops, nops, at, rec);
	case 12: /* another number of tasks (two to four), or other files */
		if (rnd(4) == 0)
			mutate_files(buf);
		else
			set_ntasks(buf, 2 + (p->ntasks - 2 + 1 + (int)rnd(2)) % 3);
		break;
	case 13: /* an op again, right after itself: kswapd's second pass */
		if (!room)
			break;
		at = (int)rnd((uint32_t)nops);
		memcpy(rec, o + at * OP_BYTES, OP_BYTES);
		return insert_op(buf, n, ops, nops, at + 1, rec);
	case 14: /* a waker as futex(2) has one: a store to a word, then FUTEX_WAKE on it */
		if (!room)
			break;
		task = (int)rnd((uint32_t)p->ntasks);
		op_of_kind(rec, o, nops, OP_STORE, task);
		rec[6] = (uint8_t)(1 + rnd(3)); /* val: not the 0 of a fresh page */
		uint8_t word[3] = {rec[1], rec[2], rec[3]};
		n = insert_op(buf, n, ops, nops, at, rec);
		op_of_kind(rec, o, nops + 1, OP_FUTEX_WAKE, task);
		memcpy(rec + 1, word, sizeof(word));
		return insert_op(buf, n, ops, nops + 1, at + 1, rec);
	}
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct program p;
	static uint8_t buf[PROG_MAX_ENCODED];

	rng = seed | 1;
	bool has_header = prog_decode(data, size, &p) == 0 && size >= PROG_HEADER_BYTES;
	if (rnd(12) == 0 && has_header) /* libFuzzer's own mutations, behind the header */
		return PROG_HEADER_BYTES + LLVMFuzzerMutate(data + PROG_HEADER_BYTES,
							    size - PROG_HEADER_BYTES,
							    max_size - PROG_HEADER_BYTES);

	p.npreempts = snafu_fuzz_pct ? 0 : p.npreempts;
	size_t n = prog_encode(&p, buf, sizeof(buf));
	size_t ops = PROG_OPS_AT, pre = ops + (size_t)p.nops * OP_BYTES;
	size_t npre = (size_t)p.npreempts, end = pre + npre * PREEMPT_BYTES;
	/* 0-3, 8, 9, 11-14: the ops (mutate_ops); 4-7, 10: the schedule */
	int what = (int)rnd(15);
	bool schedule = what == 4 || what == 5 || what == 6 || what == 7 || what == 10;

	if (snafu_fuzz_pct && !p.pct.on) /* the schedule is a PCT one: draw one */
		n = fresh_pct(buf, pre);
	nconflict =
	    joint_conflict_steps && p.pct.on ? joint_conflict_steps(data, size, &conflict) : 0;
	if (!p.nops || rnd(8) == 0) /* a new program: of roles half the time */
		n = rnd(2) ? role_program(buf, n, ops, p.nops) : fresh_program(buf, n, ops, p.nops);
	else if (!schedule)
		n = mutate_ops(&p, buf, n, ops, what);
	else if (snafu_fuzz_pct)
		n = mutate_pct(&p, buf, n, pre, what);
	else
		switch (what) {
		case 4: /* add a preemption, in a task that has ops, early in an op more often */
		case 10:
			if (npre + 1 < SIM_MAX_PREEMPTS) {
				int task = p.ops[rnd((uint32_t)p.nops)].task;
				uint32_t op = rnd((uint32_t)task_instances(&p, task));
				uint8_t r[PREEMPT_BYTES] = {
				    (uint8_t)(task - 1), (uint8_t)op, (uint8_t)(op >> 8),
				    (uint8_t)rnd(rnd(2) ? 12 : PREEMPT_MAX_POINT), to_byte()};
				memmove(buf + end + PREEMPT_BYTES, buf + end, n - end);
				memcpy(buf + end, r, PREEMPT_BYTES);
				n += PREEMPT_BYTES;
				buf[n - 1] = (uint8_t)(npre + 1);
			}
			break;
		case 5: /* nudge a preemption: a point or an op earlier or later */
		case 6:
			if (npre) {
				uint8_t *r = buf + pre + rnd((uint32_t)npre) * PREEMPT_BYTES;
				int field = rnd(3) == 0 ? 1 : 3;
				r[field] =
				    (uint8_t)(r[field] + (rnd(2) ? 1 : -1) * (int)(1 + rnd(3)));
				if (rnd(4) == 0)
					r[4] = to_byte();
			}
			break;
		case 7: /* drop a preemption */
			if (npre) {
				size_t at = pre + rnd((uint32_t)npre) * PREEMPT_BYTES;
				memmove(buf + at, buf + at + PREEMPT_BYTES, n - at - PREEMPT_BYTES);
				n -= PREEMPT_BYTES;
				buf[n - 1] = (uint8_t)(npre - 1);
			}
			break;
		}
	if (n > max_size && has_header)
		return PROG_HEADER_BYTES + LLVMFuzzerMutate(data + PROG_HEADER_BYTES,
							    size - PROG_HEADER_BYTES,
							    max_size - PROG_HEADER_BYTES);
	if (n > max_size) /* a header the input lacked, and no room for it */
		return LLVMFuzzerMutate(data, size, max_size);
	memcpy(data, buf, n);
	return n;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size,
				 unsigned int seed);

/* How often libFuzzer's crossover (which it asks for as often as a mutation, once this
 * file defines it) splices, with --crossover=1: one time in XO_ONE_IN; the other times
 * it is one of the mutations above. Measured in docs/fuzzing.md, "Crossover by task". */
#define XO_ONE_IN 4

/* The splice: the program of data1 (this input) with a task of data2's (the other
 * input) in one of its tasks' place or beside them (below); its length, or 0 where
 * either input is not a program with ops or the result does not fit in max_out_size. */
static size_t splice(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
		     uint8_t *out, size_t max_out_size)
{
	static struct program a, b;
	static uint8_t abuf[PROG_MAX_ENCODED], bbuf[PROG_MAX_ENCODED], buf[PROG_MAX_ENCODED];

	if (prog_decode(data1, size1, &a) || prog_decode(data2, size2, &b) || !a.nops || !b.nops)
		return 0;
	a.npreempts = snafu_fuzz_pct ? 0 : a.npreempts;
	size_t an = prog_encode(&a, abuf, sizeof(abuf)), ops = PROG_OPS_AT;
	prog_encode(&b, bbuf, sizeof(bbuf));
	int from = b.ops[rnd((uint32_t)b.nops)].task, ntasks = a.ntasks, to, nops = 0;
	if (ntasks < PROG_MAX_TASKS && rnd(2))
		to = ++ntasks;
	else
		to = 1 + (int)rnd((uint32_t)ntasks);
	memcpy(buf, abuf, ops);
	set_ntasks(buf, ntasks);
	size_t n = ops;
	for (int i = 0; i < a.nops; i++)
		if (a.ops[i].task != to) {
			memcpy(buf + n, abuf + ops + (size_t)i * OP_BYTES, OP_BYTES);
			n += OP_BYTES, nops++;
		}
	for (int i = 0; i < b.nops && nops + 1 < PROG_MAX_OPS; i++)
		if (b.ops[i].task == from) {
			memcpy(buf + n, bbuf + ops + (size_t)i * OP_BYTES, OP_BYTES);
			buf[n] = (uint8_t)((buf[n] & ~3) | (to - 1));
			n += OP_BYTES, nops++;
		}
	size_t pre = ops + (size_t)a.nops * OP_BYTES; /* a's schedule, after its op records */
	memcpy(buf + n, abuf + pre, an - pre);
	n += an - pre;
	if (n > max_out_size)
		return 0;
	memcpy(out, buf, n);
	return n;
}

/* libFuzzer's crossover, by task (syzkaller splices programs; here a task is what plays
 * a role): the ops of one task of the other input join this input's program, as a task
 * of their own while there is room, else in place of one of its tasks; this input's
 * schedule stays. A bug of two roles, a system call that faults under mmap_sem and an
 * mmap that queues for it, is two programs the corpus may well hold apart. A reference
 * to mapping i in the other input's ops names this program's mapping i (prog/codec.c:
 * references count the mmaps in byte order, and the joining task comes last): both
 * programs most often start with the mapping their tasks share. Returns 0 (libFuzzer
 * then mutates otherwise) without --crossover=1, or where either input is not a
 * program with ops. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size, unsigned int seed)
{
	if (!snafu_fuzz_crossover)
		return 0; /* libFuzzer then asks LLVMFuzzerCustomMutator */
	rng = seed | 1;
	if (rnd(XO_ONE_IN) && size1 <= max_out_size) {
		memcpy(out, data1, size1);
		return LLVMFuzzerCustomMutator(out, size1, max_out_size, seed + 1);
	}
	return splice(data1, size1, data2, size2, out, max_out_size);
}
