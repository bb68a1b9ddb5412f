/* The byte form, as a property test: every byte string decodes to a well-formed program,
 * encoding loses nothing of what was decoded, the encoding is a fixed point after one
 * round, and decoded programs run on every kernel without aborting, deterministically.
 *
 * Inputs come from a fixed-seed xorshift generator, so every run tests the same strings.
 */
#include "harness.h"
#include "../prog/ops.h"

#include <stdlib.h>
#include <string.h>

#define NINPUTS  20000
#define MAX_SIZE 600
#define NRUNS    500 /* decoded programs run on each kernel */
#define SHOWN    5   /* failures of one kind printed in full; the rest are counted */

/* CHECK, but print only the first SHOWN failures of this check site. */
#define CHECK_SOME(cond, ...)                     \
	do {                                      \
		static int shown_;                \
		if (cond) {                       \
			harness_passed++;         \
		} else if (shown_++ < SHOWN) {    \
			CHECK(cond, __VA_ARGS__); \
		} else {                          \
			harness_failed++;         \
		}                                 \
	} while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull; /* xorshift64()'s state */

/* A pseudo-random input of 0..MAX_SIZE bytes. Some inputs are biased toward what the
 * decoder treats specially (many mmaps, bytes >= 128 for large values, each-page
 * bits), so those paths are not left to chance. */
static size_t gen_input(uint8_t *buf)
{
	size_t n = (size_t)(xorshift64(&rng) % (MAX_SIZE + 1));
	int style = (int)(xorshift64(&rng) % 4);

	for (size_t i = 0; i < n; i++) {
		uint8_t b = (uint8_t)(xorshift64(&rng) >> 24);
		switch (style) {
		case 1: /* mostly mmaps: kind codes 0..7 are mmap */
			if (i % OP_BYTES == 1 && (xorshift64(&rng) & 1))
				b &= 0x1f;
			break;
		case 2: /* large values and each-page everywhere */
			b |= 0xc0;
			break;
		default:
			break;
		}
		buf[i] = b;
	}
	return n;
}

static void describe_op(const struct op *o, char *s, size_t len)
{
	snprintf(s, len, "kind %d task %d a {%d %d %d %d} b {%d %d %d %d} each %d x %d y %d",
		 o->kind, o->task, o->a.map, o->a.page, o->a.word, o->a.misaligned, o->b.map,
		 o->b.page, o->b.word, o->b.misaligned, o->each_page, o->x, o->y);
}

/* Whether two ops are the same. Operands an op does not use are compared too, except
 * their mapping numbers when ignore_unused_maps: well_formed() checks those separately,
 * so that one failure does not hide the others. */
static bool same_op(const struct op *a, const struct op *b, bool ignore_unused_maps)
{
	bool ua = !ignore_unused_maps || op_uses_a(a->kind);
	bool ub = !ignore_unused_maps || op_uses_b(a->kind);

	return a->kind == b->kind && a->task == b->task && (!ua || a->a.map == b->a.map) &&
	       a->a.page == b->a.page && a->a.word == b->a.word &&
	       a->a.misaligned == b->a.misaligned && (!ub || a->b.map == b->b.map) &&
	       a->b.page == b->b.page && a->b.word == b->b.word &&
	       a->b.misaligned == b->b.misaligned && a->each_page == b->each_page && a->x == b->x &&
	       a->y == b->y;
}

/* Compare field by field (struct sim_preempt has padding); on the first difference,
 * describe it into why. */
static bool same_program(const struct program *a, const struct program *b, char *why, size_t len)
{
	if (a->ntasks != b->ntasks || a->nops != b->nops || a->nmaps != b->nmaps ||
	    a->npreempts != b->npreempts) {
		snprintf(why, len, "tasks %d/%d ops %d/%d maps %d/%d preempts %d/%d", a->ntasks,
			 b->ntasks, a->nops, b->nops, a->nmaps, b->nmaps, a->npreempts,
			 b->npreempts);
		return false;
	}
	for (int i = 0; i < a->nops; i++)
		if (!same_op(&a->ops[i], &b->ops[i], true)) {
			char da[128], db[128];
			describe_op(&a->ops[i], da, sizeof(da));
			describe_op(&b->ops[i], db, sizeof(db));
			snprintf(why, len, "op %d: %s, then %s", i, da, db);
			return false;
		}
	for (int i = 0; i < a->npreempts; i++) {
		const struct sim_preempt *x = &a->preempts[i], *y = &b->preempts[i];
		if (x->task != y->task || x->op != y->op || x->point != y->point ||
		    x->to != y->to) {
			snprintf(why, len, "preemption %d: %d@%d.%d->%d, then %d@%d.%d->%d", i,
				 x->task, x->op, x->point, x->to, y->task, y->op, y->point, y->to);
			return false;
		}
	}
	return true;
}

/* Structural invariants of a decoded program: counts in range, ops grouped by task,
 * every reference to a mapping that exists (or NULL), every preemption naming a real
 * op of a real task and switching to a real task, and no stray values in operands the
 * op does not use (a decoded program holds only what its bytes mean). */
static bool well_formed(const struct program *p, const char *what)
{
	static const struct uref zero;
	int maps = 0;
	bool ok = p->ntasks >= 2 && p->ntasks <= PROG_MAX_TASKS && p->nops >= 0 &&
		  p->nops <= PROG_MAX_OPS && p->npreempts >= 0 && p->npreempts < SIM_MAX_PREEMPTS &&
		  p->nmaps >= 0 && p->nmaps <= PROG_MAX_MAPS;

	CHECK_SOME(ok, "%s: tasks %d ops %d maps %d preempts %d", what, p->ntasks, p->nops,
		   p->nmaps, p->npreempts);
	if (!ok)
		return false;
	for (int i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		char d[128];
		describe_op(o, d, sizeof(d));
		maps += o->kind == OP_MMAP;
		ok = o->kind < OP_NKINDS && o->task >= 1 && o->task <= p->ntasks &&
		     (i == 0 || o->task >= p->ops[i - 1].task);
		CHECK_SOME(ok, "%s: op %d of %d (tasks %d): %s", what, i, p->nops, p->ntasks, d);
		if (!ok)
			return false;
		ok = (o->a.map < p->nmaps || o->a.map == PROG_NULL_MAP || !op_uses_a(o->kind)) &&
		     (o->b.map < p->nmaps || o->b.map == PROG_NULL_MAP || !op_uses_b(o->kind));
		CHECK_SOME(ok, "%s: op %d refers to no mapping (%d mappings): %s", what, i,
			   p->nmaps, d);
		if (!ok)
			return false;
		ok = (op_uses_a(o->kind) || !memcmp(&o->a, &zero, sizeof(zero))) &&
		     (op_uses_b(o->kind) || !memcmp(&o->b, &zero, sizeof(zero)));
		CHECK_SOME(ok, "%s: op %d has a value in an operand %s does not use: %s", what, i,
			   op_table[o->kind].name, d);
	}
	ok = maps == p->nmaps;
	CHECK_SOME(ok, "%s: %d mmap ops, nmaps %d", what, maps, p->nmaps);
	for (int i = 0; i < p->npreempts; i++) {
		const struct sim_preempt *s = &p->preempts[i];
		int n = task_instances(p, s->task);
		ok = s->task >= 1 && s->task <= p->ntasks &&
		     (s->to == SIM_TO_TIMER || (s->to >= 1 && s->to <= p->ntasks)) &&
		     s->to != s->task && s->point >= 1 && s->point <= PREEMPT_MAX_POINT &&
		     s->op >= 1 && (s->op <= n || (n == 0 && s->op == 1));
		CHECK_SOME(ok, "%s: preemption %d: task %d op %d (of %d) point %d to %d", what, i,
			   s->task, s->op, n, s->point, s->to);
		if (!ok)
			return false;
	}
	return true;
}

static struct program p1, p2, p3;
static uint8_t in[MAX_SIZE + 1], enc1[4096], enc2[4096];

/* The generated strings are what follows the byte form's header: decode them behind it. */
static void decode_payload(const uint8_t *d, size_t n, struct program *p)
{
	static uint8_t buf[PROG_HEADER_BYTES + PROG_MAX_ENCODED + 64];

	prog_header(buf);
	memcpy(buf + PROG_HEADER_BYTES, d, n);
	CHECK_SOME(prog_decode(buf, PROG_HEADER_BYTES + n, p) == 0,
		   "a string behind the header decodes");
}

static void hexdump(const uint8_t *d, size_t n)
{
	fprintf(stderr, "  input (%zu bytes):", n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n    ", d[i]);
	fprintf(stderr, "\n");
}

/* decode, encode, decode, encode: what was decoded survives, and the bytes settle */
static bool round_trip(const uint8_t *data, size_t n, const char *what)
{
	char why[512];
	size_t n1, n2;
	bool ok = true;

	decode_payload(data, n, &p1);
	if (!well_formed(&p1, what))
		return false;
	n1 = prog_encode(&p1, enc1, sizeof(enc1));
	ok = n1 > 0 && n1 <= prog_max_encoded();
	CHECK_SOME(ok, "%s: encoding %zu bytes (max %zu)", what, n1, prog_max_encoded());
	if (!ok)
		return false;
	prog_decode(enc1, n1, &p2);
	ok = same_program(&p1, &p2, why, sizeof(why));
	CHECK_SOME(ok, "%s: decode(encode(decode(x))) differs from decode(x): %s", what, why);
	if (!ok)
		return false;
	n2 = prog_encode(&p2, enc2, sizeof(enc2));
	ok = n1 == n2 && !memcmp(enc1, enc2, n1);
	CHECK_SOME(ok, "%s: encoding is not a fixed point (%zu then %zu bytes)", what, n1, n2);
	if (!ok)
		return false;
	prog_decode(enc2, n2, &p3);
	ok = same_program(&p2, &p3, why, sizeof(why));
	CHECK_SOME(ok, "%s: third decode differs: %s", what, why);
	return ok;
}

static void test_random_inputs(void)
{
	int failed = 0;

	for (int i = 0; i < NINPUTS; i++) {
		size_t n = gen_input(in);
		char what[64];
		snprintf(what, sizeof(what), "random input %d", i);
		if (!round_trip(in, n, what) && failed++ < 3)
			hexdump(in, n);
	}
}

/* Inputs at the edges of the format. */
static void test_edges(void)
{
	static uint8_t big[PROG_PROLOGUE_BYTES + PROG_MAX_OPS * OP_BYTES +
			   SIM_MAX_PREEMPTS * PREEMPT_BYTES + 64];

	for (size_t n = 0; n < 12; n++) {
		char what[64];
		memset(big, 0xff, n);
		snprintf(what, sizeof(what), "%zu bytes of 0xff", n);
		round_trip(big, n, what);
		memset(big, 0, n);
		snprintf(what, sizeof(what), "%zu zero bytes", n);
		round_trip(big, n, what);
	}

	/* the empty input: two tasks, nothing to do */
	CHECK(prog_decode(big, 0, &p1) == 0, "the empty input decodes");
	CHECK(p1.ntasks == 2 && p1.nops == 0 && p1.npreempts == 0 && p1.nmaps == 0,
	      "empty input: tasks %d ops %d preempts %d", p1.ntasks, p1.nops, p1.npreempts);

	/* anything else without this byte form's header is refused, as the empty program,
	 * with one line that says what was expected */
	static const uint8_t v1[] = {0x01, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00};
	uint8_t hdr[PROG_HEADER_BYTES], other[sizeof(v1)];
	char why[256];
	prog_header(hdr);
	CHECK(hdr[0] == 0xf5 && (hdr[1] | hdr[2] << 8) == prog_format_id(), "header %02x %02x %02x",
	      hdr[0], hdr[1], hdr[2]);
	for (size_t n = 1; n <= sizeof(v1); n++) {
		CHECK(prog_decode(v1, n, &p1) == -1 && p1.nops == 0 && p1.ntasks == 2,
		      "%zu bytes without a header: refused", n);
	}
	memcpy(other, v1, sizeof(v1));
	memcpy(other, hdr, sizeof(hdr));
	other[2] ^= 1; /* another format id */
	CHECK(prog_decode(other, sizeof(other), &p1) == -1, "another format id: refused");
	prog_decode_error(other, sizeof(other), why, sizeof(why));
	char want[64];
	snprintf(want, sizeof(want), "expected the header of snafu's byte form %04x",
		 prog_format_id());
	CHECK(strstr(why, want) && !strchr(why, '\n'), "the message: %s", why);
	other[2] ^= 1;
	CHECK(prog_decode(other, sizeof(other), &p1) == 0 && p1.nops == 0,
	      "the header and 7 bytes: a program");

	/* more ops than a program holds: the rest is ignored */
	memset(big, 0x55, sizeof(big));
	big[sizeof(big) - 1] = 0;
	decode_payload(big, sizeof(big), &p1);
	CHECK_EQ(p1.nops, PROG_MAX_OPS, "ops of an oversized input");
	round_trip(big, sizeof(big), "oversized input");

	/* 256 mmaps: one more than references can name. The last one becomes a sleep,
	 * which must encode like any other op. Each mmap: 129+ pages (r[5] low nibble 15,
	 * r[6] >= 128), prot and shared bits all set. */
	size_t n = PROG_PROLOGUE_BYTES + PROG_MAX_OPS * OP_BYTES + 1;
	memset(big, 0, n);
	for (int i = 0; i < PROG_MAX_OPS; i++) {
		uint8_t *r = big + PROG_PROLOGUE_BYTES + i * OP_BYTES;
		r[5] = 0x0f;
		r[6] = 0x85;
		r[7] = 0x0f;
	}
	decode_payload(big, n, &p1);
	CHECK_EQ(p1.nmaps, PROG_MAX_MAPS, "mappings of 256 mmaps");
	round_trip(big, n, "256 mmaps of 134 pages");

	/* a buffer too small for the largest program encodes nothing */
	decode_payload(big, n, &p1);
	CHECK_EQ(prog_encode(&p1, enc1, prog_max_encoded() - 1), 0, "encoding into a short buffer");
	CHECK(prog_encode(&p1, enc1, prog_max_encoded()) > 0, "encoding into an exact buffer");
}

/* Decoded programs run to a verdict on every kernel; a second run, with the trace on as
 * the fuzzer does when it reports, takes the same path (same digest, same verdict). */
/* The file table (prog/codec.c): a declared file comes back as it was written, a slot
 * past the number declared is not read, and an mmap's file is taken modulo the files
 * declared + 1. */
static void test_files(void)
{
	uint8_t d[PROG_PROLOGUE_BYTES + OP_BYTES + 1] = {0}, *r = d + PROG_PROLOGUE_BYTES;
	int b = 0;

	while (prog_kind_of((uint8_t)b) != OP_MMAP)
		b++;
	d[0] = 1 << 2;         /* two tasks, one file */
	d[1] = 3 | 4 | 8;      /* 4 pages, read-only, filled */
	d[2] = 0x41;           /* with 0x41 */
	d[3] = 1, d[4] = 0x77; /* the second slot: not declared */
	r[0] = (uint8_t)b;
	r[7] = 3 << 4 | 3; /* file bits 3, prot=rw */
	decode_payload(d, sizeof(d), &p1);
	CHECK(p1.nfiles == 1 && p1.files[0].pages == 4 && p1.files[0].readonly &&
		  p1.files[0].fill == 0x41,
	      "the file declared: %d files, %d pages, ro %d, fill %d", p1.nfiles, p1.files[0].pages,
	      p1.files[0].readonly, p1.files[0].fill);
	const struct op_arg *g = op_arg_named(OP_MMAP, "file", 4);
	CHECK(p1.nops == 1 && p1.ops[0].kind == OP_MMAP && op_arg_get(&p1.ops[0], g) == 1,
	      "an mmap's file 3 of 1 declared is file 3 mod 2: %d", op_arg_get(&p1.ops[0], g));
	round_trip(d, sizeof(d), "a file table");
	d[0] = 0; /* no file: the same mmap maps none */
	decode_payload(d, sizeof(d), &p1);
	CHECK(p1.nfiles == 0 && op_arg_get(&p1.ops[0], g) == 0, "an mmap's file without files: %d",
	      op_arg_get(&p1.ops[0], g));
}

static void test_runs(void)
{
	int findings[16] = {0}, dumped = 0;

	rng = 0x2545f4914f6cdd1dull;
	for (int i = 0; i < NRUNS; i++) {
		size_t n = (size_t)(xorshift64(&rng) % (MAX_SIZE + 1));
		for (size_t j = 0; j < n; j++)
			in[j] = (uint8_t)(xorshift64(&rng) >> 24);
		decode_payload(in, n, &p1);
		int k = 0;
		for_each_kernel (kc) {
			if (k == 16)
				break;
			struct run_opts quick = {0}, traced = {.trace = true};
			static struct run_result r1, r2;
			prog_run(&p1, kc, &quick, &r1);
			prog_run(&p1, kc, &traced, &r2);
			bool same = r1.digest == r2.digest && r1.result == r2.result &&
				    !strcmp(r1.verdict, r2.verdict) && r1.steps == r2.steps;
			CHECK_SOME(same, "program %d on %s: %016llx %s, then %016llx %s", i,
				   kc->name, (unsigned long long)r1.digest, r1.verdict,
				   (unsigned long long)r2.digest, r2.verdict);
			CHECK_SOME(r1.verdict[0] != 0, "program %d on %s: empty verdict", i,
				   kc->name);
			if (!same && dumped++ < 3)
				hexdump(in, n);
			findings[k++] += r1.result != SIM_OK;
		}
	}
	int k = 0;
	for_each_kernel (kc) {
		if (k == 16)
			break;
		printf("test_codec: %s: %d of %d random programs with a finding\n", kc->name,
		       findings[k++], NRUNS);
	}
}

int main(void)
{
	test_edges();
	test_files();
	test_random_inputs();
	test_runs();
	return harness_exit();
}
