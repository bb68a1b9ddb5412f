/* The op table (prog/ops.c) changed no behaviour: a digest of what the byte and text
 * forms do with many generated inputs, recorded with the build before the table.
 *  - 5000 byte strings: prog_print of the decoded program and its encoding, and each
 *    op's system call and arguments as the trace shows them;
 *  - 100000 text lines (an op name, operands and arguments drawn from a vocabulary of
 *    good and bad words): whether the parser accepts them and, if so, the printed
 *    program and its encoding.
 * The digests are FNV-1a over everything; a mismatch names the first differing input
 * when SNAFU_OP_TABLE_LOG=FILE logs every input's digest (diff two logs).
 * Also the table itself: the fuzzer weights fill the 64 slots of the kind field, every
 * argument fits where it lives, and every trace string names arguments the op has.
 */
#include "harness.h"
#include "../prog/ops.h"

#include <stdlib.h>
#include <string.h>

#define NBYTES 5000
#define NTEXT  100000
/* Recorded before the op table (byte form 1d8b, the same coding); again when mlock came
 * (byte form 551e), when peekdata and pokedata came (byte form ed46): a new op moves
 * the kind codes, and both digests encode programs; the bytes one when mmap took file=
 * (e4bd: the text lines it draws never say file=);
 * the bytes one again for `to timer` (CODEC_REVISION 2: a target byte from 0xf0 up), and
 * for PCT schedules (CODEC_REVISION 3: a last byte from 0xf0 up, printed as a comment);
 * the text one again when mapping names became what the grammar says (a letter, then
 * letters, digits or _: `mmap each-page ...` named a mapping "each-page" before); all
 * three when the byte form took a file table after the task count (CODEC_REVISION 4:
 * every op record moved 6 bytes on, so the same strings are other programs, and the
 * text lines' programs encode with the table); all three again for FUTEX_WAKE_OP
 * (CODEC_REVISION 5: op records of 10 bytes, fields z and w, a new kind and weights;
 * the text lines draw its op and words); all three again for the flags byte
 * (CODEC_REVISION 6: op records of 11 bytes, field v; the futex ops' `private`, which
 * the text lines draw and the trace names FUTEX_WAIT_PRIVATE, ...). */
#define WANT_BYTES 0x7e805990c8238055ull
#define WANT_TEXT  0xe393ffb39d3dd6c6ull
/* Recorded with the trace strings written by a switch in prog/exec.c, before the
 * table's syscall and trace fields; again for the file table, FUTEX_WAKE_OP and the
 * flags byte (above). */
#define WANT_TRACE 0xf54f6afd7407413full

static uint64_t rng = 0x2545f4914f6cdd1dull; /* xorshift64()'s state */

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const uint8_t *d = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x100000001b3ull;
	return h;
}

static FILE *logf_;

/* the digest of one program: its text and its byte form */
static uint64_t digest_program(uint64_t h, const struct program *p)
{
	static uint8_t enc[PROG_MAX_ENCODED];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	prog_print(p, f);
	fclose(f);
	size_t n = prog_encode(p, enc, sizeof(enc));
	uint8_t hdr[PROG_HEADER_BYTES];
	prog_header(hdr);
	CHECK(n >= sizeof(hdr) && !memcmp(enc, hdr, sizeof(hdr)),
	      "encoding starts with the header");
	h = fnv(h, text, len);
	/* the bytes after the header, as recorded before the byte form had one */
	h = fnv(h, enc + sizeof(hdr), n - sizeof(hdr));
	free(text);
	return h;
}

/* each op's system call and its arguments as the trace shows them */
static uint64_t digest_trace(uint64_t h, const struct program *p)
{
	char args[64];

	for (int i = 0; i < p->nops; i++) {
		const char *sys = op_table[p->ops[i].kind].syscall;
		if (!sys)
			continue;
		op_trace_args(&p->ops[i], args, sizeof(args));
		h = fnv(h, sys, strlen(sys) + 1);
		h = fnv(h, args, strlen(args) + 1);
	}
	return h;
}

static uint64_t bytes_digest(uint64_t *trace)
{
	static uint8_t in[PROG_HEADER_BYTES + 700], *buf = in + PROG_HEADER_BYTES;
	static struct program p;
	uint64_t h = 0xcbf29ce484222325ull;

	*trace = h;

	for (int i = 0; i < NBYTES; i++) {
		size_t n = (size_t)(xorshift64(&rng) % 700);
		int style = (int)(xorshift64(&rng) % 3);
		for (size_t j = 0; j < n; j++) {
			buf[j] = (uint8_t)(xorshift64(&rng) >> 24);
			if (style == 1)
				buf[j] |= 0xc0; /* big values, each-page */
			if (style == 2 && j % OP_BYTES == 1)
				buf[j] &= (uint8_t)(xorshift64(&rng) & 0xff); /* low kind codes */
		}
		/* recorded as the bytes after the header: decode them behind it (an empty
		 * string then as the header alone, which decodes the same: two tasks) */
		prog_header(in);
		CHECK(prog_decode(in, PROG_HEADER_BYTES + n, &p) == 0, "a header decodes");
		h = digest_program(h, &p);
		*trace = digest_trace(*trace, &p);
		if (logf_)
			fprintf(logf_, "bytes %d %016llx %016llx\n", i, (unsigned long long)h,
				(unsigned long long)*trace);
	}
	return h;
}

static const char *const names[] = {
    "mmap",       "munmap",        "mprotect",          "load",          "store", "futex_wait",
    "futex_wake", "futex_requeue", "futex_cmp_requeue", "get_mempolicy", "kill",  "sleep",
    "reclaim",    "madvise",       "mincore",           "futex_wake_op", "bogus",
};
static const char *const operands[] = {
    "m0",         "m1",         "null", "m0+4",  "m1+0x1002", "m0+0x7f07c", "m0+0x20000",
    "m1+0x1f01c", "m1+0x20000", "m0+3", "1",     "2",         "4",          "5",
    "0",          "127",        "128",  "nomap", "m2",
};
static const char *const args[] = {
    "pages=1",
    "pages=0",
    "pages=2",
    "pages=128",
    "pages=129",
    "pages=256",
    "pages=257",
    "pages",
    "prot=rw",
    "prot=none",
    "prot=rwx",
    "prot=rr",
    "prot",
    "shared",
    "private",
    "shared=1",
    "val=0",
    "val=3",
    "val=127",
    "val=128",
    "val",
    "timeout=0",
    "timeout=5",
    "timeout=128",
    "nr=0",
    "nr=2",
    "nr=127",
    "nr=128",
    "nr_wake=0",
    "nr_wake=15",
    "nr_wake=16",
    "nr_requeue=3",
    "nr_requeue=15",
    "nr_requeue=16",
    "nmask",
    "nmask=1",
    "addr=m1",
    "addr=null",
    "addr=m1+0x1f01c",
    "addr=m0+0x20000",
    "addr",
    "flags=0",
    "flags=3",
    "flags=4",
    "vec=m1",
    "vec=null",
    "vec=m0+2",
    "vec",
    "each-page",
    "each-page=1",
    "foo=1",
    "pages=0x10",
    "val=-1",
    "m1",
    "op=set",
    "op=xor",
    "op=7",
    "op=8",
    "op=bogus",
    "shift",
    "oparg=-128",
    "oparg=127",
    "oparg=128",
    "cmp=gt",
    "cmp=15",
    "cmp=16",
    "cmparg=-1",
    "nr_wake2=2",
};
#define N(a) (int)(sizeof(a) / sizeof(a[0]))

static uint64_t text_digest(void)
{
	static struct program p;
	char text[512], err[256];
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < NTEXT; i++) {
		/* one draw a statement: the order of a call's arguments is unspecified */
		int pages0 = 1 + (int)(xorshift64(&rng) % 3) * 64;
		int pages1 = 1 + (int)(xorshift64(&rng) % 2) * 31;
		const char *name = names[xorshift64(&rng) % N(names)];
		int n = snprintf(text, sizeof(text),
				 "task 1\n  mmap m0 pages=%d prot=rw\ntask 2\n  mmap m1 pages=%d "
				 "prot=rw shared\n  %s",
				 pages0, pages1, name);
		static const int nops_of[10] = {0, 1, 1, 1, 1, 1, 1, 2, 2, 3};
		int nops = nops_of[xorshift64(&rng) % 10], nargs = (int)(xorshift64(&rng) % 4);
		for (int j = 0; j < nops; j++)
			n += snprintf(text + n, sizeof(text) - (size_t)n, " %s",
				      operands[xorshift64(&rng) % N(operands)]);
		for (int j = 0; j < nargs; j++)
			n += snprintf(text + n, sizeof(text) - (size_t)n, " %s",
				      args[xorshift64(&rng) % N(args)]);
		/* what futex_wait, futex_cmp_requeue and mprotect require, often */
		static const char *const tail[6] = {"",       "",        "",
						    " val=1", " prot=r", " val=2 prot=x"};
		snprintf(text + n, sizeof(text) - (size_t)n, "%s\n", tail[xorshift64(&rng) % 6]);
		int rc = prog_parse(text, &p, err, sizeof(err));
		h = fnv(h, &rc, sizeof(rc));
		if (rc == 0)
			h = digest_program(h, &p);
		if (logf_)
			fprintf(logf_, "text %d %016llx rc=%d %s", i, (unsigned long long)h, rc,
				strstr(text, "shared\n") + 9);
	}
	return h;
}

/* An op with a system call has a trace string, whose {KEY}s are its arguments' names
 * (or x; {KEY:TEXT} a flag's); one without has none. The minimizer's ARG_SHRINK
 * arguments live in a field. */
static void check_trace(const struct op_desc *d)
{
	CHECK(!d->syscall == !d->trace, "%s: a trace string if and only if a syscall", d->name);
	for (const char *t = d->trace; t && (t = strchr(t, '{')); t++) {
		const char *end = strchr(t, '}'),
			   *colon = end ? memchr(t, ':', (size_t)(end - t)) : NULL;
		const char *key_end = colon ? colon : end; /* {KEY:TEXT}: a flag's */
		bool found = end && end - t == 2 && t[1] == 'x';
		for (int i = 0; end && i < OP_MAX_ARGS && d->args[i].name; i++)
			found |= strlen(d->args[i].name) == (size_t)(key_end - t - 1) &&
				 !strncmp(d->args[i].name, t + 1, (size_t)(key_end - t - 1)) &&
				 d->args[i].field != FIELD_NONE &&
				 (!colon || d->args[i].type == ARG_FLAG);
		CHECK(found, "%s: trace '%s': '%s' names none of its arguments", d->name, d->trace,
		      t);
	}
	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++)
		CHECK(!(d->args[i].flags & ARG_SHRINK) || d->args[i].field != FIELD_NONE,
		      "%s %s: ARG_SHRINK on an argument in x or y", d->name, d->args[i].name);
}

/* The table itself: weights fill the 64 kind slots, names are there and unique, every
 * argument fits its byte, and a field's args do not overlap. */
static void check_table(void)
{
	int sum = 0;

	for (int k = 0; k < OP_NKINDS; k++) {
		const struct op_desc *d = &op_table[k];
		CHECK(d->name && d->weight > 0, "op %d: a name and a weight", k);
		if (!d->name)
			continue;
		sum += d->weight;
		for (int j = 0; j < k; j++)
			CHECK(strcmp(d->name, op_table[j].name), "%s twice", d->name);
		unsigned used[FIELD_V + 1] = {0};
		for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++) {
			const struct op_arg *a = &d->args[i];
			unsigned bits = ((1u << a->width) - 1) << a->shift;
			CHECK(a->field == FIELD_NONE || (bits <= 255 && !(used[a->field] & bits)),
			      "%s %s: bits %#x overlap %#x", d->name, a->name, bits,
			      used[a->field]);
			CHECK(a->field == FIELD_NONE ||
				  ((a->lo < 0 ? a->hi - a->lo : a->hi - a->bias) <=
				       (int)((1u << a->width) - 1) &&
				   ((a->flags & ARG_REST) || a->lo <= a->def) && a->def <= a->hi),
			      "%s %s: range %d..%d (default %d) fits %d bits", d->name, a->name,
			      a->lo, a->hi, a->def, a->width);
			used[a->field] |= bits;
		}
		CHECK(op_has_pages(k) == (op_arg_by_code(k, CODE_PAGES) != NULL), "%s", d->name);
		check_trace(d);
	}
	CHECK_EQ(sum, 64, "the op weights' sum (the byte form's kind field has 64 values)");
}

int main(void)
{
	const char *log = getenv("SNAFU_OP_TABLE_LOG");

	if (log)
		logf_ = fopen(log, "w");
	check_table();
	uint64_t htrace, hb = bytes_digest(&htrace), ht = text_digest();
	printf("bytes digest %016llx, text digest %016llx, trace digest %016llx\n",
	       (unsigned long long)hb, (unsigned long long)ht, (unsigned long long)htrace);
	CHECK(hb == WANT_BYTES, "decode/print/encode of %d byte strings: %016llx, want %016llx",
	      NBYTES, (unsigned long long)hb, (unsigned long long)WANT_BYTES);
	CHECK(htrace == WANT_TRACE,
	      "the trace strings of %d byte strings' ops: %016llx, want %016llx", NBYTES,
	      (unsigned long long)htrace, (unsigned long long)WANT_TRACE);
	CHECK(ht == WANT_TEXT, "parse/print/encode of %d text lines: %016llx, want %016llx", NTEXT,
	      (unsigned long long)ht, (unsigned long long)WANT_TEXT);
	if (logf_)
		fclose(logf_);
	return harness_exit();
}
