/* The byte form of a program, shared by `snafu show` and the fuzz targets.
 *
 *   byte 0            ntasks - 1 (mod 4)
 *   8 bytes per op    [task | kind] [A map] [A page] [A word | misaligned | each-page]
 *                     [B map] [B page | B word] [x] [y]
 *   4 bytes per preemption (at the end, before the last byte)
 *                     [task] [point lo] [point hi] [to]
 *   last byte         number of preemptions (mod 16, at most what fits)
 *
 * Every byte string decodes: numbers are taken modulo their range, a trailing partial
 * op is ignored, and a mapping reference is taken modulo (mappings + 1), the extra
 * value meaning the NULL page. Op kinds come from a 64-entry table weighted toward what
 * finds bugs (fresh mappings, futex calls), so random bytes make plausible programs.
 *
 * x and y per kind:
 *   mmap          x = pages - 1, y = prot (bits 0-2) | shared (bit 3)
 *   munmap        x = pages - 1                 mprotect   x = pages - 1, y = prot
 *   store         x = value                     futex_wait x = value, y = timeout (0: none)
 *   futex_wake    x = nr_wake
 *   futex_requeue, futex_cmp_requeue   x = nr_wake | nr_requeue << 4, y = compared value
 *   get_mempolicy x = nmask at A + 8 (bit 0), y = flags (bits 0-1)
 *   kill          x = target task - 1           sleep      x = ticks
 */
#include "program.h"

#include <stddef.h>
#include <string.h>

const char *const op_names[OP_NKINDS] = {
	[OP_MMAP] = "mmap",
	[OP_MUNMAP] = "munmap",
	[OP_MPROTECT] = "mprotect",
	[OP_LOAD] = "load",
	[OP_STORE] = "store",
	[OP_FUTEX_WAIT] = "futex_wait",
	[OP_FUTEX_WAKE] = "futex_wake",
	[OP_FUTEX_REQUEUE] = "futex_requeue",
	[OP_FUTEX_CMP_REQUEUE] = "futex_cmp_requeue",
	[OP_GET_MEMPOLICY] = "get_mempolicy",
	[OP_KILL] = "kill",
	[OP_SLEEP] = "sleep",
};

/* How often each kind appears among the 64 values of the kind field. */
static const uint8_t kind_weight[OP_NKINDS] = {
	[OP_MMAP] = 8,		 [OP_MUNMAP] = 5,	 [OP_MPROTECT] = 5,
	[OP_LOAD] = 6,		 [OP_STORE] = 5,	 [OP_FUTEX_WAIT] = 12,
	[OP_FUTEX_WAKE] = 6,	 [OP_FUTEX_REQUEUE] = 4, [OP_FUTEX_CMP_REQUEUE] = 5,
	[OP_GET_MEMPOLICY] = 4, [OP_KILL] = 2,		 [OP_SLEEP] = 2,
};
static uint8_t kind_table[64];
static uint8_t kind_code[OP_NKINDS]; /* the first table slot of each kind */

static void init_tables(void)
{
	static bool done;
	int slot = 0;

	if (done)
		return;
	for (int k = 0; k < OP_NKINDS; k++) {
		kind_code[k] = (uint8_t)slot;
		for (int i = 0; i < kind_weight[k]; i++)
			kind_table[slot++] = (uint8_t)k;
	}
	done = true;
}

size_t prog_max_encoded(void)
{
	return 1 + PROG_MAX_OPS * OP_BYTES + SIM_MAX_PREEMPTS * 4 + 1;
}

static bool uses_b(int kind)
{
	return kind == OP_FUTEX_REQUEUE || kind == OP_FUTEX_CMP_REQUEUE || kind == OP_GET_MEMPOLICY;
}

static bool uses_a(int kind)
{
	return kind != OP_MMAP && kind != OP_KILL && kind != OP_SLEEP;
}

/* Zero the fields a kind does not use and bring the others into range, so that a
 * decoded program prints and re-encodes exactly. */
static void normalize(struct op *o, int ntasks)
{
	if (!uses_a(o->kind)) {
		memset(&o->a, 0, sizeof(o->a));
		o->each_page = false;
	}
	if (!uses_b(o->kind))
		memset(&o->b, 0, sizeof(o->b));
	switch (o->kind) {
	case OP_MMAP:
		o->y &= 15;
		break;
	case OP_MPROTECT:
		o->y &= 7;
		break;
	case OP_MUNMAP:
	case OP_LOAD:
	case OP_FUTEX_WAKE:
		o->y = 0;
		break;
	case OP_STORE:
		o->y = 0;
		break;
	case OP_FUTEX_REQUEUE:
		o->y = 0;
		break;
	case OP_GET_MEMPOLICY:
		o->x &= 1;
		o->y &= 3;
		break;
	case OP_KILL:
		o->x = (uint8_t)(o->x % ntasks);
		o->y = 0;
		break;
	case OP_SLEEP:
		o->y = 0;
		break;
	default:
		break;
	}
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
		struct uref *refs[2] = {&sorted[j].a, &sorted[j].b};
		for (int r = 0; r < 2; r++)
			if (refs[r]->map != PROG_NULL_MAP && refs[r]->map < k)
				refs[r]->map = (uint8_t)map_of_old[refs[r]->map];
	}
	memcpy(p->ops, sorted, sizeof(sorted[0]) * (size_t)n);
	p->nops = n;
	p->nmaps = k;
}

void prog_decode(const uint8_t *data, size_t size, struct program *p)
{
	size_t end = size, npre = 0;

	init_tables();
	memset(p, 0, offsetof(struct program, ops));
	p->npreempts = 0;
	p->nexpect = 0;
	p->ntasks = size ? 1 + data[0] % PROG_MAX_TASKS : 1;
	if (size >= 2) {
		end = size - 1;
		npre = data[end] % SIM_MAX_PREEMPTS;
		if (npre * 4 > end - 1)
			npre = (end - 1) / 4;
		end -= npre * 4;
		for (size_t i = 0; i < npre; i++) {
			const uint8_t *r = data + end + 4 * i;
			p->preempts[i] = (struct sim_preempt){
				.task = (uint8_t)(1 + r[0] % p->ntasks),
				.point = (uint16_t)(r[1] | r[2] << 8),
				.to = (uint8_t)(1 + r[3] % p->ntasks),
			};
		}
		p->npreempts = (int)npre;
	}

	size_t nops = end > 1 ? (end - 1) / OP_BYTES : 0;
	if (nops > PROG_MAX_OPS)
		nops = PROG_MAX_OPS;
	int nmaps = 0;
	for (size_t i = 0; i < nops; i++)
		nmaps += kind_table[(data[1 + i * OP_BYTES] >> 2) & 63] == OP_MMAP;
	if (nmaps > PROG_MAX_MAPS)
		nmaps = PROG_MAX_MAPS;

	p->nops = 0;
	for (size_t i = 0; i < nops; i++) {
		const uint8_t *r = data + 1 + i * OP_BYTES;
		struct op *o = &p->ops[p->nops];
		o->kind = kind_table[(r[0] >> 2) & 63];
		o->task = (uint8_t)(1 + (r[0] & 3) % p->ntasks);
		int am = r[1] % (nmaps + 1), bm = r[4] % (nmaps + 1);
		o->a = (struct uref){
			.map = am == nmaps ? PROG_NULL_MAP : (uint8_t)am,
			.page = r[2],
			.word = r[3] & 63,
			.misaligned = r[3] & 64,
		};
		o->each_page = r[3] & 128;
		o->b = (struct uref){
			.map = bm == nmaps ? PROG_NULL_MAP : (uint8_t)bm,
			.page = r[5] & 31,
			.word = r[5] >> 5,
		};
		o->x = r[6];
		o->y = r[7];
		if (o->kind == OP_MMAP && p->nmaps == PROG_MAX_MAPS)
			o->kind = OP_SLEEP; /* more mappings than references can name */
		p->nmaps += o->kind == OP_MMAP;
		normalize(o, p->ntasks);
		p->nops++;
	}
	prog_canonicalize(p);
}

static void put_uref(uint8_t *r, const struct uref *u, int nmaps, bool wide)
{
	r[0] = u->map == PROG_NULL_MAP ? (uint8_t)nmaps : u->map;
	if (wide) {
		r[1] = u->page;
		r[2] = (uint8_t)(u->word | (u->misaligned ? 64 : 0));
	} else {
		r[1] = (uint8_t)((u->page & 31) | u->word << 5);
	}
}

size_t prog_encode(const struct program *p, uint8_t *out, size_t cap)
{
	size_t n = 0;

	init_tables();
	if (cap < prog_max_encoded())
		return 0;
	out[n++] = (uint8_t)(p->ntasks - 1);
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		uint8_t *r = out + n;
		r[0] = (uint8_t)((o->task - 1) | kind_code[o->kind] << 2);
		put_uref(r + 1, &o->a, p->nmaps, true);
		if (o->each_page)
			r[3] |= 128;
		put_uref(r + 4, &o->b, p->nmaps, false);
		r[6] = o->x;
		r[7] = o->y;
		n += OP_BYTES;
	}
	for (int i = 0; i < p->npreempts; i++) {
		const struct sim_preempt *s = &p->preempts[i];
		out[n++] = (uint8_t)(s->task - 1);
		out[n++] = (uint8_t)(s->point & 0xff);
		out[n++] = (uint8_t)(s->point >> 8);
		out[n++] = (uint8_t)(s->to - 1);
	}
	out[n++] = (uint8_t)p->npreempts;
	return n;
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
