/* The byte form of a program, shared by `snafu show` and the fuzz targets.
 *
 *   bytes 0-2         the header: 0xf5 and the format id (prog_format_id(), low byte
 *                     first): which byte form this is
 *   byte 3            bits 0-1: number of tasks - 2 (mod 3): two to four tasks;
 *                     bits 2-3: number of files declared (0..3)
 *   bytes 4-9         the file table, 2 bytes for each of NR_FILES (those past the
 *                     number declared are not read): [pages - 1 (bits 0-1) | read-only
 *                     (bit 2) | filled (bit 3)] [fill: every byte of the file, where
 *                     filled; else the pattern of ref/filemap.h]
 *   11 bytes per op   [task | kind] [A map] [A page] [A word | misaligned | each-page]
 *                     [B map] [B page | B word] [x] [y] [z] [w] [v: flags]
 *   5 bytes per preemption, at the end before the last byte:
 *                     [task] [op lo] [op hi] [point] [to: which other task; 0xf0 and up:
 *                     the earliest pending timer]
 *   last byte         0x00-0xef: number of preemptions (mod 16, at most what fits)
 *                     0xf0-0xff: a PCT schedule instead (sim.h's struct sim_pct) with
 *                     (last byte & 15) priority change points, at most what fits:
 *   PCT, before the last byte:
 *                     [priorities: a permutation of the tasks, byte mod ntasks!]
 *                     2 bytes per change point: [step lo] [step hi], the scheduling
 *                     point where it comes: 1 + (step mod 12 * the ops the program runs)
 *
 * The format id is a hash of everything that gives bytes their meaning: the op table's
 * kinds, weights and argument codings (prog/ops.c), the sizes in prog/program.h and
 * CODEC_REVISION below. Any change to one of them (a new op, a new weight) makes a new
 * id, so a corpus written before it is refused with a message (prog_decode_error), never
 * run as other programs. `./build.sh corpus` writes corpus/ and the dictionary again.
 *
 * After a matching header, every byte string decodes. It is built for search:
 *  - an op kind comes from a 64-entry table weighted toward what finds bugs (fresh
 *    mappings, futex calls, mm changes from other tasks, pages taken by kswapd);
 *  - a mapping reference is taken modulo (mappings + 1), the extra value meaning NULL;
 *  - numbers go through small(): bytes below 128 give 0..3, the rest 0..127, so random
 *    bytes mostly make small values (page 0..3 of a mapping, futex value 0..3);
 *  - each-page needs both of its bits set, a mapping over 128 pages a rare nibble;
 *  - a preemption's op is taken modulo the ops its task runs, its point modulo 32 (ops
 *    have fewer points than that, mostly) and its target among the other tasks, so
 *    every preemption names a real place in the program and a real switch.
 * struct op holds the meaning (pages - 1, the value, ...); only this file knows the
 * coding. Per kind, x, y, z and w mean:
 *   mmap          x = pages - 1, y = prot (bits 0-2) | shared (bit 3) | file (bits 4-5,
 *                 its fd, modulo the files declared + 1; 0: none)
 *   munmap        x = pages - 1                 mprotect   x = pages - 1, y = prot
 *   store         x = value                     futex_wait x = value, y = timeout (0: none)
 *   futex_wake    x = nr_wake
 *   futex_requeue, futex_cmp_requeue   x = nr_wake | nr_requeue << 4, y = compared value
 *   get_mempolicy x = nmask at A + 8 (bit 0), y = flags (bits 0-1)
 *   kill          x = target task - 1           sleep      x = ticks
 *   madvise       x = pages - 1 (MADV_DONTNEED)  mincore    x = pages - 1 (< 128), B = vec
 *   reclaim       (A only)
 *   futex_wake_op x = nr_wake | nr_wake2 << 4, y = op | shift (bit 3) | cmp << 4,
 *                 z = oparg, w = cmparg (two's complement, -128..127)
 */
#include "ops.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What decode and encode need of each kind, gathered from prog/ops.c once. */
struct kind_coding {
	bool uses_a, uses_b, big_pages;
	/* x, y, z, w, v (bytes 6 to 10): enum arg_code, bits */
	uint8_t code[OP_FIELDS], mask[OP_FIELDS];
	/* its ARG_FILE argument (mmap's file=, the one kind with one), or NULL */
	const struct op_arg *file;
};
/* Bump when this file's coding changes in a way the op table does not show (small(),
 * the record layout, how preemptions are read). */
/* 2: a preemption's to byte 0xf0..0xff is `to timer`; 3: PCT; 4: the file table; 5:
 * fields z and w; 6: field v, the flags */
#define CODEC_REVISION 6
#define TO_TIMER_BYTE  0xf0 /* a preemption's to byte from here up: `to timer` */
#define HEADER_MAGIC   0xf5 /* not text, and never a byte 0 of the form before headers */
#define PCT_BYTE       0xf0 /* a last byte from here up: a PCT schedule */
#define PCT_STEPS      12   /* change points fall in the first 12 points per op run */
#define FILE_RO        4    /* a file declaration's bits (the top of this file) */
#define FILE_FILLED    8

static struct kind_coding coding[OP_NKINDS];
static uint8_t kind_table[64];
static uint8_t kind_code[OP_NKINDS]; /* the first table slot of each kind */

static void init_tables(void)
{
	static bool done;
	int slot = 0;

	if (done)
		return;
	for (int k = 0; k < OP_NKINDS; k++) {
		struct kind_coding *c = &coding[k];
		for (int i = 0; i < OP_MAX_ARGS && op_table[k].args[i].name; i++) {
			const struct op_arg *a = &op_table[k].args[i];
			c->uses_a |= a->type == ARG_A;
			c->uses_b |= a->type == ARG_B;
			if (a->type == ARG_FILE)
				c->file = a;
			if (a->field != FIELD_NONE) {
				c->code[a->field - FIELD_X] = a->code;
				c->mask[a->field - FIELD_X] |=
				    (uint8_t)(((1u << a->width) - 1) << a->shift);
			}
		}
		c->big_pages = op_has_pages(k) && !c->uses_b;
		if (slot + op_table[k].weight > 64) /* tests/test_op_table.c checks the sum */
			break;
		kind_code[k] = (uint8_t)slot;
		for (int i = 0; i < op_table[k].weight; i++)
			kind_table[slot++] = (uint8_t)k;
	}
	if (slot != 64) {
		fprintf(stderr, "prog/ops.c: the op weights sum to %d, not 64\n", slot);
		abort();
	}
	done = true;
}

/* FNV-1a over what gives the bytes their meaning; see the top of this file. */
static uint32_t fnv(uint32_t h, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 16777619u;
	return h;
}

uint16_t prog_format_id(void)
{
	static uint16_t id;

	if (id)
		return id;
	init_tables();
	uint32_t h = 2166136261u;
	const uint32_t sizes[] = {CODEC_REVISION,   OP_BYTES,     PREEMPT_BYTES, PREEMPT_MAX_POINT,
				  PROG_MAX_TASKS,   PROG_MAX_OPS, PROG_MAX_MAPS, SIM_MAX_PREEMPTS,
				  PCT_CHANGE_BYTES, PCT_STEPS,    NR_FILES,      FILE_MAX_PAGES,
				  FILE_DECL_BYTES};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		h = fnv(h, sizes[i]);
	for (int i = 0; i < 64; i++)
		h = fnv(h, kind_table[i]);
	for (int k = 0; k < OP_NKINDS; k++)
		for (int i = 0; i < OP_MAX_ARGS && op_table[k].args[i].name; i++) {
			const struct op_arg *a = &op_table[k].args[i];
			h = fnv(h, (uint32_t)k << 24 | a->type << 16 | a->code << 8 | a->field);
			h = fnv(h, (uint32_t)a->shift << 24 | a->width << 16 | (uint8_t)a->bias);
			h = fnv(h, (uint32_t)(uint16_t)a->lo << 16 | (uint16_t)a->hi);
		}
	id = (uint16_t)(h ^ h >> 16);
	return id ? id : 1; /* 0 means "not computed yet" */
}

size_t prog_header(uint8_t out[PROG_HEADER_BYTES])
{
	uint16_t id = prog_format_id();

	out[0] = HEADER_MAGIC;
	out[1] = (uint8_t)id;
	out[2] = (uint8_t)(id >> 8);
	return PROG_HEADER_BYTES;
}

static bool header_ok(const uint8_t *data, size_t size)
{
	uint8_t h[PROG_HEADER_BYTES];

	prog_header(h);
	return size >= PROG_HEADER_BYTES && !memcmp(data, h, PROG_HEADER_BYTES);
}

void prog_decode_error(const uint8_t *data, size_t size, char *buf, size_t len)
{
	uint8_t h[PROG_HEADER_BYTES];
	char found[32] = "";

	prog_header(h);
	for (size_t i = 0; i < PROG_HEADER_BYTES && i < size; i++)
		snprintf(found + strlen(found), sizeof(found) - strlen(found), " %02x", data[i]);
	snprintf(buf, len,
		 "byte 0: expected the header of snafu's byte form %04x (%02x %02x %02x), found "
		 "%s: written by another snafu version, or not a snafu input "
		 "(./build.sh corpus writes the seed corpus again)",
		 prog_format_id(), h[0], h[1], h[2], size ? found + 1 : "an empty file");
}

size_t prog_max_encoded(void)
{
	return PROG_MAX_ENCODED;
}

static uint8_t small(uint8_t b)
{
	return b < 128 ? b & 3 : (uint8_t)(b - 128);
}

static uint8_t unsmall(uint8_t v)
{
	return v < 4 ? v : (uint8_t)(v + 128);
}

bool op_uses_a(int kind)
{
	init_tables();
	return coding[kind].uses_a;
}

bool op_uses_b(int kind)
{
	init_tables();
	return coding[kind].uses_b;
}

int prog_kind_of(uint8_t first_byte)
{
	init_tables();
	return kind_table[(first_byte >> 2) & 63];
}

int mmap_op_of(const struct program *p, int map)
{
	for (int i = 0, k = 0; i < p->nops; i++)
		if (p->ops[i].kind == OP_MMAP && k++ == map)
			return i;
	return -1;
}

int mmap_index_of(const struct program *p, int op)
{
	int k = 0;

	for (int i = 0; i < op; i++)
		k += p->ops[i].kind == OP_MMAP;
	return k;
}

int op_instances(const struct program *p, int i)
{
	const struct op *o = &p->ops[i];

	if (!o->each_page || o->a.map == PROG_NULL_MAP)
		return 1;
	int mop = mmap_op_of(p, o->a.map);
	int n = mop < 0 ? 1 : p->ops[mop].x + 1 - o->a.page;
	return n < 1 ? 1 : n;
}

int task_instances(const struct program *p, int task)
{
	int n = 0;

	for (int i = 0; i < p->nops; i++)
		if (p->ops[i].task == task)
			n += op_instances(p, i);
	return n;
}

void prog_canonicalize(struct program *p)
{
	struct op sorted[PROG_MAX_OPS];
	int n = 0;

	/* Mapping numbers follow the mmap ops' order, which grouping changes: remember
	 * each mapping's op, regroup, then renumber references. */
	int old_of_op[PROG_MAX_OPS], map_of_old[PROG_MAX_MAPS + 1], k = 0;
	for (int i = 0; i < p->nops; i++)
		old_of_op[i] = p->ops[i].kind == OP_MMAP ? k++ : -1;
	int order[PROG_MAX_OPS];
	for (int t = 1; t <= p->ntasks; t++)
		for (int i = 0; i < p->nops; i++)
			if (p->ops[i].task == t)
				order[n++] = i;
	k = 0;
	for (int j = 0; j < n; j++)
		if (old_of_op[order[j]] >= 0)
			map_of_old[old_of_op[order[j]]] = k++;
	for (int j = 0; j < n; j++) {
		sorted[j] = p->ops[order[j]];
		struct uref *refs[2] = {op_uses_a(sorted[j].kind) ? &sorted[j].a : NULL,
					op_uses_b(sorted[j].kind) ? &sorted[j].b : NULL};
		for (int r = 0; r < 2; r++)
			if (refs[r] && refs[r]->map != PROG_NULL_MAP && refs[r]->map < k)
				refs[r]->map = (uint8_t)map_of_old[refs[r]->map];
	}
	memcpy(p->ops, sorted, sizeof(sorted[0]) * (size_t)n);
	p->nops = n;
	p->nmaps = k;
}

/* A field of x, y, z or w (bytes 6 to 9), as its code says. */
static uint8_t decode_field(const struct kind_coding *c, int f, const uint8_t *r, int ntasks)
{
	uint8_t b = r[6 + f];

	switch (c->code[f]) {
	case CODE_BITS:
		return b & c->mask[f];
	case CODE_SMALL:
		return small(b);
	case CODE_PAGES:
		return (uint8_t)(small(b) + (c->big_pages && (r[5] & 15) == 15 ? 128 : 0));
	case CODE_TASK:
		return (uint8_t)(b % ntasks);
	default:
		return 0;
	}
}

/* A file argument names one of the nfiles declared, or none: taken modulo nfiles + 1,
 * as a mapping reference is, so every byte string names a file the program has. */
static void decode_files(int nfiles, struct op *o)
{
	const struct op_arg *g = coding[o->kind].file;

	if (g)
		op_arg_set(o, g, op_arg_get(o, g) % (nfiles + 1));
}

static void decode_op(const uint8_t *r, int nmaps, int ntasks, struct op *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = kind_table[(r[0] >> 2) & 63];
	o->task = (uint8_t)(1 + (r[0] & 3) % ntasks);
	const struct kind_coding *c = &coding[o->kind];
	if (c->uses_a) {
		int m = r[1] % (nmaps + 1);
		o->a = (struct uref){
		    .map = m == nmaps ? PROG_NULL_MAP : (uint8_t)m,
		    .page = small(r[2]),
		    .word = r[3] & 31,
		    .misaligned = r[3] & 32,
		};
		o->each_page = (r[3] & 0xc0) == 0xc0;
	}
	if (c->uses_b) {
		int m = r[4] % (nmaps + 1);
		o->b = (struct uref){
		    .map = m == nmaps ? PROG_NULL_MAP : (uint8_t)m,
		    .page = r[5] & 31,
		    .word = r[5] >> 5,
		};
	}
	for (int f = 0; f < OP_FIELDS; f++)
		*op_field(o, FIELD_X + f) = decode_field(c, f, r, ntasks);
}

static void encode_op(const struct op *o, int nmaps, uint8_t *r)
{
	const struct kind_coding *c = &coding[o->kind];

	memset(r, 0, OP_BYTES);
	r[0] = (uint8_t)((o->task - 1) | kind_code[o->kind] << 2);
	if (c->uses_a) {
		r[1] = o->a.map == PROG_NULL_MAP ? (uint8_t)nmaps : o->a.map;
		r[2] = unsmall(o->a.page);
		r[3] =
		    (uint8_t)(o->a.word | (o->a.misaligned ? 32 : 0) | (o->each_page ? 0xc0 : 0));
	}
	if (c->uses_b) {
		r[4] = o->b.map == PROG_NULL_MAP ? (uint8_t)nmaps : o->b.map;
		r[5] = (uint8_t)((o->b.page & 31) | o->b.word << 5);
	}
	const uint8_t v[OP_FIELDS] = {o->x, o->y, o->z, o->w, o->v};
	for (int f = 0; f < OP_FIELDS; f++) {
		switch (c->code[f]) {
		case CODE_SMALL:
			r[6 + f] = unsmall(v[f]);
			break;
		case CODE_PAGES:
			if (c->big_pages)
				r[5] = v[f] >= 128 ? 15 : 0;
			r[6 + f] = unsmall((uint8_t)(v[f] & 127));
			break;
		default: /* the bits as they are, a task, 0 where nothing lives */
			r[6 + f] = v[f];
		}
	}
}

static int factorial(int n)
{
	return n <= 1 ? 1 : n * factorial(n - 1);
}

/* Permutation number idx (0 .. n! - 1) of the priorities base + 1 .. base + n, task by
 * task (the Lehmer code). */
static void nth_permutation(int idx, int n, int base, uint8_t *prio)
{
	uint8_t left[PROG_MAX_TASKS];

	for (int i = 0; i < n; i++)
		left[i] = (uint8_t)(base + 1 + i);
	for (int i = 0; i < n; i++) {
		int f = factorial(n - 1 - i), k = idx / f;
		idx %= f;
		prio[i] = left[k];
		memmove(left + k, left + k + 1, (size_t)(n - 1 - i - k));
	}
}

uint32_t prog_pct_steps(const struct program *p)
{
	uint32_t runs = 0;

	for (int i = 0; i < p->nops; i++)
		runs += (uint32_t)op_instances(p, i);
	return PCT_STEPS * (runs ? runs : 1);
}

static void decode_pct(const uint8_t *r, size_t nchange, struct program *p)
{
	uint32_t steps = prog_pct_steps(p);

	p->pct.on = true;
	p->pct.nchange = (uint8_t)nchange;
	nth_permutation(r[0] % factorial(p->ntasks), p->ntasks, (int)nchange, p->pct.prio);
	for (size_t j = 0; j < nchange; j++) {
		const uint8_t *c = r + 1 + PCT_CHANGE_BYTES * j;
		p->pct.change[j] = 1 + (uint32_t)(c[0] | c[1] << 8) % steps;
	}
}

/* The bytes after the header up to the first op (the top of this file): the number of
 * tasks and the files. A byte past the input's end reads as 0. */
static void decode_prologue(const uint8_t *data, size_t size, struct program *p)
{
	uint8_t b[PROG_PROLOGUE_BYTES] = {0};

	memcpy(b, data, size < sizeof(b) ? size : sizeof(b));
	p->ntasks = 2 + (b[0] & 3) % 3;
	p->nfiles = b[0] >> 2 & 3;
	memset(p->files, 0, sizeof(p->files));
	for (int i = 0; i < p->nfiles; i++) {
		const uint8_t *d = b + 1 + i * FILE_DECL_BYTES;
		p->files[i] = (struct file_spec){
		    .pages = (uint8_t)(1 + (d[0] & 3)),
		    .readonly = d[0] & FILE_RO,
		    .fill = (d[0] & FILE_FILLED) ? d[1] : FILE_PATTERN,
		};
	}
}

static size_t encode_prologue(const struct program *p, uint8_t *out)
{
	memset(out, 0, PROG_PROLOGUE_BYTES);
	out[0] = (uint8_t)((p->ntasks - 2) | p->nfiles << 2);
	for (int i = 0; i < p->nfiles; i++) {
		const struct file_spec *f = &p->files[i];
		uint8_t *d = out + 1 + i * FILE_DECL_BYTES;
		d[0] = (uint8_t)((f->pages - 1) | (f->readonly ? FILE_RO : 0) |
				 (f->fill != FILE_PATTERN ? FILE_FILLED : 0));
		d[1] = f->fill != FILE_PATTERN ? (uint8_t)f->fill : 0;
	}
	return PROG_PROLOGUE_BYTES;
}

int prog_decode(const uint8_t *data, size_t size, struct program *p)
{
	size_t end, npre = 0;

	init_tables();
	p->nops = p->nmaps = p->npreempts = p->nexpect = p->nfiles = 0;
	p->ntasks = 2;
	if (size == 0)
		return 0; /* libFuzzer's first input: the empty program */
	if (!header_ok(data, size))
		return -1;
	data += PROG_HEADER_BYTES;
	size -= PROG_HEADER_BYTES;
	end = size;
	decode_prologue(data, size, p);
	memset(&p->pct, 0, sizeof(p->pct));
	size_t nchange = 0, pro = PROG_PROLOGUE_BYTES;
	bool pct = false;
	if (size > pro && data[size - 1] >= PCT_BYTE) {
		end = size - 1;
		pct = true;
		nchange = data[end] & 15;
		if (end < pro + 1)
			pct = false; /* no room for the priorities: no schedule */
		else if (1 + nchange * PCT_CHANGE_BYTES > end - pro)
			nchange = (end - pro - 1) / PCT_CHANGE_BYTES;
		if (pct)
			end -= 1 + nchange * PCT_CHANGE_BYTES;
	} else if (size > pro) {
		end = size - 1;
		npre = data[end] % SIM_MAX_PREEMPTS;
		if (npre * PREEMPT_BYTES > end - pro)
			npre = (end - pro) / PREEMPT_BYTES;
		end -= npre * PREEMPT_BYTES;
	}

	size_t nops = end > pro ? (end - pro) / OP_BYTES : 0;
	if (nops > PROG_MAX_OPS)
		nops = PROG_MAX_OPS;
	int nmaps = 0;
	for (size_t i = 0; i < nops; i++)
		nmaps += kind_table[(data[pro + i * OP_BYTES] >> 2) & 63] == OP_MMAP;
	if (nmaps > PROG_MAX_MAPS)
		nmaps = PROG_MAX_MAPS;
	for (size_t i = 0; i < nops; i++) {
		struct op *o = &p->ops[p->nops++];
		decode_op(data + pro + i * OP_BYTES, nmaps, p->ntasks, o);
		decode_files(p->nfiles, o);
		if (o->kind == OP_MMAP && p->nmaps == PROG_MAX_MAPS) {
			/* more mappings than references can name: a no-op instead */
			memset(o, 0, sizeof(*o));
			o->kind = OP_SLEEP;
			o->task = 1;
		}
		p->nmaps += o->kind == OP_MMAP;
	}
	prog_canonicalize(p);

	/* preemptions last: their op numbers are taken modulo what each task runs */
	for (size_t i = 0; i < npre; i++) {
		const uint8_t *r = data + end + PREEMPT_BYTES * i;
		int task = 1 + r[0] % p->ntasks, n = task_instances(p, task);
		if (!n)
			continue; /* a task without ops never reaches a point */
		struct sim_preempt *s = &p->preempts[p->npreempts++];
		s->task = (uint8_t)task;
		s->op = (uint16_t)(1 + (r[1] | r[2] << 8) % n);
		s->point = (uint16_t)(1 + r[3] % PREEMPT_MAX_POINT);
		s->to = r[4] >= TO_TIMER_BYTE
			    ? SIM_TO_TIMER
			    : (uint8_t)(1 + (s->task + r[4] % (p->ntasks - 1)) % p->ntasks);
	}
	if (pct)
		decode_pct(data + end, nchange, p);
	return 0;
}

size_t prog_encode(const struct program *p, uint8_t *out, size_t cap)
{
	size_t n = 0;

	init_tables();
	if (cap < prog_max_encoded())
		return 0;
	n += prog_header(out);
	n += encode_prologue(p, out + n);
	for (int i = 0; i < p->nops; i++, n += OP_BYTES)
		encode_op(&p->ops[i], p->nmaps, out + n);
	for (int i = 0; i < p->npreempts; i++) {
		const struct sim_preempt *s = &p->preempts[i];
		out[n++] = (uint8_t)(s->task - 1);
		out[n++] = (uint8_t)((s->op - 1) & 0xff);
		out[n++] = (uint8_t)((s->op - 1) >> 8);
		out[n++] = (uint8_t)(s->point - 1);
		out[n++] = s->to == SIM_TO_TIMER
			       ? TO_TIMER_BYTE
			       : (uint8_t)((s->to - s->task - 1 + 2 * p->ntasks) % p->ntasks);
	}
	if (p->pct.on) {
		int idx = 0;
		for (uint8_t prio[PROG_MAX_TASKS]; idx < factorial(p->ntasks); idx++) {
			nth_permutation(idx, p->ntasks, p->pct.nchange, prio);
			if (!memcmp(prio, p->pct.prio, (size_t)p->ntasks))
				break;
		}
		out[n++] = (uint8_t)idx;
		uint32_t steps = prog_pct_steps(p);
		for (int j = 0; j < p->pct.nchange; j++) {
			uint32_t step = (p->pct.change[j] - 1) % steps;
			out[n++] = (uint8_t)step;
			out[n++] = (uint8_t)(step >> 8);
		}
		out[n++] = (uint8_t)(PCT_BYTE | p->pct.nchange);
		return n;
	}
	out[n++] = (uint8_t)p->npreempts;
	return n;
}
