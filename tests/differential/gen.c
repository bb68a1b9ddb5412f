/* The generator: random one-task programs over every op but reclaim, from a seed.
 *
 * A program declares 0 to 3 files (1 to 4 pages; their bytes the pattern, 0 or any) and
 * has 4 to 24 ops and at most 6 mmaps of at most 256 pages (a file's: its pages, or one
 * or two past its end), so the model's
 * limits (64 VMAs, a 64 MiB window) are never reached: each op adds at most two VMAs.
 * Addresses are mostly inside a mapping (page and word offsets), sometimes just past
 * its end (into a hole or the next mapping), at null, or misaligned.
 *
 * No futex_wait can hang on either side: stores write 0..63 and every other write
 * (mincore's vector, get_mempolicy's policy and mask) bytes of 0 or 1, so an aligned
 * word below 128 is below 64, and futex_wait without a timeout waits for 64..127;
 * with a smaller value it has a timeout of 1..3 ticks. A futex_wake_op writes any
 * value: every futex_wait after one has a timeout.
 *
 * futex_wake_op (where the kernel has it) gets every encoding: the five operations
 * mostly, the three the kernel refuses sometimes, likewise the comparisons; oparg and
 * cmparg mostly small, then anything -128..127 (with shift: counts past 31 and below 0).
 * Where the kernel has private futexes, every futex op is `private` half the time. A
 * kernel without either feature gets the programs it got before the feature existed.
 */
#include "diff.h"

#include <string.h>

#define GEN_MAX_MAPS 6

struct gen {
	uint64_t s;
	bool wake_op;  /* the kernel has FUTEX_WAKE_OP: generate it */
	bool priv;     /* the kernel has FUTEX_PRIVATE_FLAG: put it on futex ops */
	bool any_word; /* a futex_wake_op came before: a word may hold any value */
	int nfiles;
	const struct file_spec *files;
	int nmaps;
	int pages[GEN_MAX_MAPS]; /* each mapping's pages, as its mmap says */
	struct uref hot[8];      /* where earlier ops wrote: later reads go there often */
	int nhot;
};

static void remember(struct gen *g, struct uref u, int words)
{
	if (u.map == PROG_NULL_MAP || u.word + words > 31)
		return;
	u.word = (uint8_t)(u.word + words);
	g->hot[g->nhot++ % 8] = u;
}

static uint64_t next(struct gen *g) /* splitmix64 */
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int below(struct gen *g, int n)
{
	return (int)(next(g) % (uint64_t)n);
}

static bool chance(struct gen *g, int percent)
{
	return below(g, 100) < percent;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* An address: A (pages 0..127, words 0..31, misaligned allowed) or B (31, 7). */
static void pick_ref(struct gen *g, struct uref *u, bool is_a)
{
	int maxpage = is_a ? 127 : 31, maxword = is_a ? 31 : 7;
	int r = below(g, 100);

	memset(u, 0, sizeof(*u));
	if (!g->nmaps || chance(g, 8)) {
		u->map = PROG_NULL_MAP;
		u->page = (uint8_t)(chance(g, 60) ? 0 : below(g, maxpage + 1));
	} else {
		u->map = (uint8_t)below(g, g->nmaps);
		int mp = g->pages[u->map];
		u->page = (uint8_t)clamp(r < 70   ? below(g, mp)
					 : r < 88 ? mp + below(g, 2)
						  : below(g, maxpage + 1),
					 0, maxpage);
	}
	u->word = (uint8_t)(chance(g, 65) ? 0 : below(g, maxword + 1));
	u->misaligned = is_a && chance(g, 6);
}

/* pages= for an op at A: mostly the rest of A's mapping, else a few pages. */
static uint8_t pick_pages(struct gen *g, const struct uref *a, int max)
{
	int n;

	if (a->map != PROG_NULL_MAP && chance(g, 55))
		n = g->pages[a->map] - a->page + (chance(g, 15) ? 1 + below(g, 3) : 0);
	else
		n = 1 + below(g, chance(g, 80) ? 4 : max);
	return (uint8_t)(clamp(n, 1, max) - 1);
}

static uint8_t pick_prot(struct gen *g)
{
	static const uint8_t common[] = {3, 3, 3, 1, 1, 0, 0, 2, 7, 5, 4, 6};

	return chance(g, 80) ? common[below(g, sizeof(common))] : (uint8_t)below(g, 8);
}

static int pick_kind(struct gen *g)
{
	/* weights, in enum op_kind order; reclaim (no system call on the host) gets none */
	static const uint8_t w[OP_NKINDS] = {
	    [OP_MMAP] = 12,         [OP_MUNMAP] = 6,        [OP_MPROTECT] = 10,
	    [OP_LOAD] = 16,         [OP_STORE] = 12,        [OP_FUTEX_WAIT] = 8,
	    [OP_FUTEX_WAKE] = 6,    [OP_FUTEX_REQUEUE] = 4, [OP_FUTEX_CMP_REQUEUE] = 4,
	    [OP_GET_MEMPOLICY] = 6, [OP_KILL] = 2,          [OP_SLEEP] = 2,
	    [OP_MADVISE] = 5,       [OP_MINCORE] = 6,       [OP_MLOCK] = 4,
	    [OP_PEEKDATA] = 4,      [OP_POKEDATA] = 5,      [OP_FUTEX_WAKE_OP] = 6,
	};
	int total = 0, k;
	_Static_assert(OP_FUTEX_WAKE_OP == OP_NKINDS - 1, "futex_wake_op is the last op");
	/* without it, the same programs as before it existed */
	int last = g->wake_op ? OP_NKINDS : OP_FUTEX_WAKE_OP;

	for (k = 0; k < last; k++)
		total += w[k];
	int r = below(g, total);
	for (k = 0; r >= w[k]; k++)
		r -= w[k];
	if (k == OP_MMAP && g->nmaps == GEN_MAX_MAPS)
		k = OP_LOAD;
	if (!g->nmaps && chance(g, 75))
		k = OP_MMAP;
	return k;
}

/* futex_wake_op: A to wake on, B the word the operation changes (often where a store
 * wrote, or A itself, as NPTL's condition variable has them in one object) */
static void gen_wake_op(struct gen *g, struct op *o)
{
	static const char *const arg[] = {"nr_wake", "nr_wake2", "op",    "shift",
					  "oparg",   "cmp",      "cmparg"};
	int v[7];

	struct uref hot = g->nhot ? g->hot[below(g, g->nhot < 8 ? g->nhot : 8)] : o->a;
	bool hot_fits = hot.page <= 31 && hot.word <= 7 && !hot.misaligned; /* B's range */
	bool a_fits = o->a.page <= 31 && o->a.word <= 7 && !o->a.misaligned;

	pick_ref(g, &o->b, false);
	if (g->nhot && hot_fits && chance(g, 40))
		o->b = hot;
	else if (a_fits && chance(g, 15))
		o->b = o->a;
	v[0] = below(g, 3);
	v[1] = below(g, 3);
	v[2] = chance(g, 90) ? below(g, 5) : 5 + below(g, 3);
	v[3] = chance(g, 20);
	v[4] = chance(g, 75) ? below(g, 8) - 2 : below(g, 256) - 128;
	v[5] = chance(g, 90) ? below(g, 6) : 6 + below(g, 10);
	v[6] = chance(g, 75) ? below(g, 4) : below(g, 256) - 128;
	for (int k = 0; k < 7; k++)
		op_arg_set(o, op_arg_named(OP_FUTEX_WAKE_OP, arg[k], strlen(arg[k])), v[k]);
	g->any_word = true;
}

static void gen_op(struct gen *g, struct op *o)
{
	memset(o, 0, sizeof(*o));
	o->task = 1;
	o->kind = (uint8_t)pick_kind(g);
	o->b.map = PROG_NULL_MAP;
	if (op_uses_a(o->kind))
		pick_ref(g, &o->a, true);
	bool reads = o->kind == OP_LOAD || o->kind == OP_FUTEX_WAIT ||
		     o->kind == OP_FUTEX_WAKE_OP || o->kind == OP_FUTEX_CMP_REQUEUE ||
		     o->kind == OP_STORE || o->kind == OP_PEEKDATA || o->kind == OP_POKEDATA;
	if (reads && g->nhot && chance(g, 35))
		o->a = g->hot[below(g, g->nhot < 8 ? g->nhot : 8)];
	switch (o->kind) {
	case OP_MMAP: {
		int r = below(g, 100);
		int pages = r < 70   ? 1 + below(g, 4)
			    : r < 95 ? 5 + below(g, 12)
				     : 17 + below(g, 240);
		o->y = (uint8_t)(pick_prot(g) | (chance(g, 40) ? 8 : 0));
		if (g->nfiles && chance(g, 30)) { /* a file: its pages or a little past */
			int fd = 1 + below(g, g->nfiles);
			pages = 1 + below(g, g->files[fd - 1].pages + 2);
			o->y = (uint8_t)(o->y | fd << 4);
		}
		o->x = (uint8_t)(pages - 1);
		g->pages[g->nmaps++] = pages;
		break;
	}
	case OP_POKEDATA: /* a value below 64, as a store's */
		o->x = (uint8_t)below(g, 64);
		break;
	case OP_MUNMAP:
	case OP_MADVISE:
	case OP_MLOCK:
		o->x = pick_pages(g, &o->a, 256);
		break;
	case OP_MPROTECT:
		o->x = pick_pages(g, &o->a, 256);
		o->y = pick_prot(g);
		break;
	case OP_MINCORE:
		o->x = pick_pages(g, &o->a, 128);
		if (chance(g, 75))
			pick_ref(g, &o->b, false);
		break;
	case OP_STORE:
		o->x = (uint8_t)below(g, 64);
		break;
	case OP_FUTEX_WAIT:
		if (!g->any_word && chance(g, 50)) { /* cannot match: no timeout needed */
			o->x = (uint8_t)(64 + below(g, 64));
			o->y = (uint8_t)(chance(g, 70) ? 0 : 1 + below(g, 3));
		} else { /* may match (memory starts zeroed): a timeout */
			o->x = (uint8_t)(chance(g, 60) ? 0 : below(g, 64));
			o->y = (uint8_t)(1 + below(g, 3));
		}
		break;
	case OP_FUTEX_WAKE:
		o->x = (uint8_t)(chance(g, 90) ? below(g, 4) : below(g, 128));
		break;
	case OP_FUTEX_REQUEUE:
	case OP_FUTEX_CMP_REQUEUE:
		pick_ref(g, &o->b, false);
		o->x = (uint8_t)(below(g, 4) | below(g, 4) << 4);
		if (o->kind == OP_FUTEX_CMP_REQUEUE)
			o->y = (uint8_t)(chance(g, 70) ? below(g, 2) : below(g, 128));
		break;
	case OP_FUTEX_WAKE_OP:
		gen_wake_op(g, o);
		break;
	case OP_GET_MEMPOLICY:
		if (g->nhot && chance(g, 30)) { /* its mask over what a store wrote */
			o->a = g->hot[below(g, g->nhot < 8 ? g->nhot : 8)];
			o->a.word = (uint8_t)(o->a.word >= 3 ? o->a.word - 2 - below(g, 2) : 0);
		}
		o->x = (uint8_t)chance(g, 50); /* nmask */
		o->y = (uint8_t)below(g, 4);   /* flags: MPOL_F_NODE 1, MPOL_F_ADDR 2 */
		if (o->y & 2)
			pick_ref(g, &o->b, false);
		break;
	case OP_KILL:
		o->x = 0; /* task 1: itself */
		break;
	case OP_SLEEP:
		o->x = (uint8_t)below(g, 4);
		break;
	}
	if (g->priv && diff_is_futex(o->kind) && chance(g, 50))
		op_arg_set(o, &op_arg_private, 1);
	switch (o->kind) {
	case OP_STORE:
	case OP_POKEDATA:
		remember(g, o->a, 0);
		break;
	case OP_GET_MEMPOLICY: /* the policy at A, the node mask at A+8 */
		remember(g, o->a, 0);
		remember(g, o->a, o->x ? 2 + below(g, 2) : 0);
		break;
	case OP_MINCORE:
	case OP_FUTEX_CMP_REQUEUE:
	case OP_FUTEX_WAKE_OP:
		remember(g, o->b, 0);
		break;
	}
	/* each-page: only ops that cannot split VMAs (the VMA bound above) */
	switch (o->kind) {
	case OP_LOAD:
	case OP_STORE:
	case OP_FUTEX_WAIT:
	case OP_FUTEX_WAKE:
	case OP_MADVISE:
	case OP_MINCORE:
		o->each_page = o->a.map != PROG_NULL_MAP && chance(g, 4);
		break;
	}
}

void diff_generate(uint64_t seed, bool wake_op, bool priv, struct program *p)
{
	struct gen g = {.s = seed * 0x2545f4914f6cdd1dULL + 1, .wake_op = wake_op, .priv = priv};

	memset(p, 0, sizeof(*p));
	p->ntasks = 2; /* task 2 idles: the text form has at least two tasks */
	p->nfiles = below(&g, NR_FILES + 1);
	for (int i = 0; i < p->nfiles; i++) {
		int r = below(&g, 4);
		p->files[i] = (struct file_spec){
		    .pages = (uint8_t)(1 + below(&g, FILE_MAX_PAGES)),
		    .fill = (int16_t)(r < 2    ? FILE_PATTERN
				      : r == 2 ? 0
					       : below(&g, 256)),
		    .readonly = chance(&g, 40),
		};
	}
	g.nfiles = p->nfiles;
	g.files = p->files;
	int n = 4 + below(&g, 21);
	for (int i = 0; i < n; i++) {
		gen_op(&g, &p->ops[p->nops]);
		p->nmaps += p->ops[p->nops].kind == OP_MMAP;
		p->nops++;
	}
}
