/* A structure-aware mutator for futex_mm_fuzzer.
 *
 * libFuzzer's byte mutations know nothing of op records, so most of them shift or tear
 * the program apart. This one works on the canonical byte form (prog/codec.c) and
 * makes the changes a person would: add or remove an op, change one field of an op,
 * add, nudge or remove a preemption. One time in six it leaves the work to
 * LLVMFuzzerMutate, so byte-level surprises still happen. The output is always a valid
 * input by construction: the byte form's header (prog/codec.c) is kept, or written
 * where the input had none, and every byte string after it is a program.
 */
#include "../prog/ops.h"

#include <stddef.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t rng;
extern bool snafu_fuzz_all_ops; /* futex_mm_fuzzer.c: --ops=all */
extern bool snafu_fuzz_pct;     /* futex_mm_fuzzer.c: --schedule=pct */

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

/* A fresh op record, biased like a person would write one: a real mapping, page 0
 * (else 1..3), word 0, one-page mappings and small values. */
static void random_op(uint8_t *r, int nmaps)
{
	for (int i = 0; i < OP_BYTES; i++)
		r[i] = (uint8_t)rnd(256);
	while (!snafu_fuzz_all_ops && op_table[prog_kind_of(r[0])].all_only)
		r[0] = (uint8_t)rnd(256);
	r[1] = (uint8_t)rnd((uint32_t)nmaps + 1);
	r[2] = (uint8_t)(rnd(2) ? 0 : rnd(4));
	r[3] = rnd(8) ? 0 : r[3];
	r[5] &= 0xf0;
	r[6] = (uint8_t)(rnd(2) ? 0 : rnd(4));
	r[7] = rnd(2) ? (uint8_t)rnd(16) : r[7];
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

/* --schedule=pct: the schedule mutations work on a PCT schedule: buf holds p's canonical
 * bytes (n of them), the schedule from pre on. Draw a new schedule, as PCT draws one per
 * run; draw the priorities again or move a change point a few steps; add or drop a
 * change point. Returns the new length. */
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
			buf[at] = (uint8_t)rnd(256);
			buf[at + 1] = (uint8_t)rnd(256);
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

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct program p;
	static uint8_t buf[PROG_MAX_ENCODED];

	rng = seed | 1;
	bool has_header = prog_decode(data, size, &p) == 0 && size >= PROG_HEADER_BYTES;
	if (rnd(6) == 0 && has_header) /* libFuzzer's own mutations, behind the header */
		return PROG_HEADER_BYTES + LLVMFuzzerMutate(data + PROG_HEADER_BYTES,
							    size - PROG_HEADER_BYTES,
							    max_size - PROG_HEADER_BYTES);

	p.npreempts = snafu_fuzz_pct ? 0 : p.npreempts;
	size_t n = prog_encode(&p, buf, sizeof(buf));
	size_t ops = PROG_HEADER_BYTES + 1, pre = ops + (size_t)p.nops * OP_BYTES;
	size_t npre = (size_t)p.npreempts, end = pre + npre * PREEMPT_BYTES;
	int what = (int)rnd(11);

	if (snafu_fuzz_pct && !p.pct.on) /* the schedule is a PCT one: draw one */
		n = fresh_pct(buf, pre);
	if (snafu_fuzz_pct && (what == 4 || what == 5 || what == 6 || what == 7 || what == 10))
		n = mutate_pct(&p, buf, n, pre, what);
	else
		switch (what) {
		case 0: /* insert an op */
		case 1:
		case 8:
			if (n + OP_BYTES <= sizeof(buf) && p.nops < PROG_MAX_OPS) {
				size_t at = ops + rnd((uint32_t)p.nops + 1) * OP_BYTES;
				memmove(buf + at + OP_BYTES, buf + at, n - at);
				random_op(buf + at, p.nmaps);
				n += OP_BYTES;
			}
			break;
		case 2: /* delete an op */
			if (p.nops) {
				size_t at = ops + rnd((uint32_t)p.nops) * OP_BYTES;
				memmove(buf + at, buf + at + OP_BYTES, n - at - OP_BYTES);
				n -= OP_BYTES;
			}
			break;
		case 3: /* change one field of an op: small steps mostly */
		case 9:
			if (p.nops) {
				uint8_t *b =
				    buf + ops + rnd((uint32_t)p.nops) * OP_BYTES + rnd(OP_BYTES);
				*b = rnd(2) ? (uint8_t)(*b + (rnd(2) ? 1 : -1)) : (uint8_t)rnd(256);
			}
			break;
		case 4: /* add a preemption, in a task that has ops, early in an op more often */
		case 10:
			if (npre + 1 < SIM_MAX_PREEMPTS && p.nops) {
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
