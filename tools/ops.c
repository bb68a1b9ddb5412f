/* snafu ops: the op table (prog/ops.c) as people and fuzzers read it.
 *
 *   snafu ops               one line per op: its operands, arguments and what it does
 *   snafu ops --markdown    the same as the table rows of docs/cases.md, "Ops"
 *   snafu ops --dict=bytes  futex_mm_fuzzer's dictionary: one op record per entry
 *   snafu ops --dict=text   the op table's words and the kernels' names for
 *                           case_text_fuzzer's dictionary
 *
 * Everything here is derived from the table, so a new op appears in all four without an
 * edit here; fuzz/make-corpus.sh (./build.sh corpus) writes the files from them.
 */
#include "commands.h"

#include "../cli/cli.h"
#include "../prog/ops.h"

#include <ctype.h>
#include <string.h>

/* How an operand is written in the op's synopsis: A, B, NAME, TASK or TICKS. */
static const char *operand_word(const struct op_arg *g)
{
	static char word[16];

	switch (g->type) {
	case ARG_A:
		return "A";
	case ARG_B:
		return "B";
	case ARG_MAPNAME:
		return "NAME";
	default:
		if (g->code == CODE_TASK)
			return "TASK";
		size_t i = 0;
		for (; g->name[i] && i < sizeof(word) - 1; i++)
			word[i] = (char)toupper((unsigned char)g->name[i]);
		word[i] = 0;
		return word;
	}
}

static const char *prot_word(int bits)
{
	static char w[4];
	int n = 0;

	if (!bits)
		return "none";
	if (bits & 1)
		w[n++] = 'r';
	if (bits & 2)
		w[n++] = 'w';
	if (bits & 4)
		w[n++] = 'x';
	w[n] = 0;
	return w;
}

/* One argument after the operands, in markdown (`code` quoted) or plain text. */
static void print_arg(FILE *out, const struct op_arg *g, bool md)
{
	const char *q = md ? "`" : "";

	switch (g->type) {
	case ARG_B:
		fprintf(out, "%s%s=B%s [null]", q, g->name, q);
		return;
	case ARG_FILE:
		fprintf(out, "%s%s=NAME%s [none]", q, g->name, q);
		return;
	case ARG_ENUM:
		fprintf(out, "%s%s=%s", q, g->name, q);
		for (int i = 0; g->names[i]; i++)
			fprintf(out, "%s%s%s%s", i ? ", " : "", q, g->names[i], q);
		fprintf(out, " or %d..%d [%s]", g->lo, g->hi, op_enum_name(g, g->def));
		return;
	case ARG_FLAG:
		if (g->off)
			fprintf(out, "%s%s%s or %s%s%s [%s]", q, g->name, q, q, g->off, q, g->off);
		else
			fprintf(out, "%s%s%s [off]", q, g->name, q);
		return;
	case ARG_PROT:
		fprintf(out, "%sprot=%s none, or any of r, w, x", q, q);
		break;
	default:
		fprintf(out, "%s%s=%d..%d%s", q, g->name, g->lo, g->hi, q);
	}
	if (g->flags & ARG_REQUIRED)
		fprintf(out, " (required)");
	else if (g->flags & ARG_REST)
		fprintf(out, " [the rest of the mapping from A, at most %d]", g->hi);
	else if (g->type == ARG_PROT)
		fprintf(out, " [%s]", prot_word(g->def));
	else
		fprintf(out, " [%d]", g->def);
}

static void print_op(FILE *out, const struct op_desc *d, bool md)
{
	const char *q = md ? "`" : "";
	int n = 0;

	fprintf(out, "%s%s%s", md ? "| `" : "", d->name, "");
	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++)
		if (d->args[i].flags & ARG_POS)
			fprintf(out, " %s", operand_word(&d->args[i]));
	fprintf(out, "%s%s", q, md ? " | " : "\n    ");
	for (int i = 0; i < OP_MAX_ARGS && d->args[i].name; i++) {
		const struct op_arg *g = &d->args[i];
		if (g->flags & ARG_POS) {
			if (g->type == ARG_NUM)
				fprintf(out, "%s%s%s %d..%d", n++ ? ", " : "", operand_word(g), "",
					g->lo, g->hi);
			continue;
		}
		fprintf(out, "%s", n++ ? ", " : "");
		print_arg(out, g, md);
	}
	fprintf(out, "%s", n ? ": " : "");
	for (const char *c = d->doc; *c; c++) /* plain text: no markdown quotes */
		if (md || *c != '`')
			fputc(*c, out);
	fprintf(out, "%s", md ? " |\n" : "\n");
}

/* The entries of futex_mm_fuzzer.dict: each dict line of the table, an op after the two
 * mappings m0 (private) and m1 (shared) in a two-task program, as its OP_BYTES bytes. */
static int print_byte_dict(FILE *out)
{
	static struct program p;
	uint8_t buf[PROG_MAX_ENCODED];
	char text[512], err[256];

	fprintf(out,
		"# futex_mm_fuzzer: single op records (%d bytes), from `snafu ops "
		"--dict=bytes` (the op table's dict lines, prog/ops.c)\n",
		OP_BYTES);
	for (int k = 0; k < OP_NKINDS; k++)
		for (int i = 0; i < OP_MAX_DICT && op_table[k].dict[i]; i++) {
			const char *e = op_table[k].dict[i], *bar = strchr(e, '|');
			snprintf(text, sizeof(text),
				 "tasks 2\ntask 1\n  mmap m0 pages=1 prot=rw\n"
				 "  mmap m1 pages=1 prot=rw shared\n  %s\n",
				 bar + 1);
			size_t n;
			if (prog_parse(text, &p, err, sizeof(err)) ||
			    (n = prog_encode(&p, buf, sizeof(buf))) < PROG_OPS_AT + 3 * OP_BYTES) {
				fprintf(stderr, "snafu ops: prog/ops.c: dict line '%s': %s\n", e,
					err);
				return 2;
			}
			/* header, prologue, two mmaps, then the op's record */
			fprintf(out, "%.*s=\"", (int)(bar - e), e);
			for (int j = 0; j < OP_BYTES; j++)
				fprintf(out, "\\x%02x", buf[PROG_OPS_AT + 2 * OP_BYTES + j]);
			fprintf(out, "\"\n");
		}
	return 0;
}

/* The op table's words for case_text_fuzzer.dict: op names, keys, flag words; and the
 * kernels an expect line may name (ref/kernels.c, test-only ones too, and *). */
static void print_text_dict(FILE *out)
{
	for (const struct kernel_config *k = kernels; k->name; k++) {
		fprintf(out, "kernel_");
		for (const char *c = k->name; *c; c++)
			fputc(*c == '.' || *c == '-' ? '_' : *c, out);
		fprintf(out, "=\"%s\"\n", k->name);
	}
	fprintf(out, "kernel_any=\"%s\"\n", EXPECT_ANY_KERNEL);
	for (int k = 0; k < OP_NKINDS; k++)
		fprintf(out, "op_%s=\"%s\"\n", op_table[k].name, op_table[k].name);
	for (int k = 0; k < OP_NKINDS; k++)
		for (int i = 0; i < OP_MAX_ARGS && op_table[k].args[i].name; i++) {
			const struct op_arg *g = &op_table[k].args[i];
			if (g->flags & ARG_POS)
				continue;
			bool seen = false; /* each word once: the first op that has it */
			for (int k2 = 0; k2 <= k && !seen; k2++)
				for (int i2 = 0; i2 < OP_MAX_ARGS && op_table[k2].args[i2].name;
				     i2++)
					if ((k2 < k || i2 < i) &&
					    !strcmp(op_table[k2].args[i2].name, g->name))
						seen = true;
			if (seen)
				continue;
			if (g->type == ARG_FLAG)
				fprintf(out, "flag_%s=\"%s\"\n", g->name, g->name);
			else
				fprintf(out, "key_%s=\"%s=\"\n", g->name, g->name);
			if (g->off)
				fprintf(out, "flag_%s=\"%s\"\n", g->off, g->off);
		}
}

/* each-page, which every op with an address takes: the ops without one from the table */
static void print_each_page(FILE *out)
{
	int without = 0;

	for (int k = 0; k < OP_NKINDS; k++)
		without += !op_uses_a(k);
	fprintf(out, "each-page\n    after any op with an address (all but ");
	for (int k = 0, n = 0; k < OP_NKINDS; k++) {
		if (op_uses_a(k))
			continue;
		n++;
		fprintf(out, "%s%s", n == 1 ? "" : n == without ? " and " : ", ", op_table[k].name);
	}
	fprintf(out, "): the op once for each page of A's mapping from A on, each run counting "
		     "as an op of its own for preemptions\n");
}

static int cmd_ops(int argc, char **argv)
{
	enum { PLAIN, MARKDOWN, DICT_BYTES, DICT_TEXT } mode = PLAIN;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown"))
			mode = MARKDOWN;
		else if (!strcmp(argv[i], "--dict=bytes"))
			mode = DICT_BYTES;
		else if (!strcmp(argv[i], "--dict=text"))
			mode = DICT_TEXT;
		else
			die_usage("--markdown, --dict=bytes or --dict=text", argv[i], i + 1);
	}
	switch (mode) {
	case DICT_BYTES:
		return print_byte_dict(stdout);
	case DICT_TEXT:
		print_text_dict(stdout);
		return 0;
	default:
		for (int k = 0; k < OP_NKINDS; k++)
			print_op(stdout, &op_table[k], mode == MARKDOWN);
		if (mode == PLAIN) /* docs/cases.md says it beside its table */
			print_each_page(stdout);
		return 0;
	}
}

static const char *const ops_values[] = {"--dict", NULL};

const struct cli_command ops_command = {
    "ops", cmd_ops, false, ops_values,
    "  ops [--markdown | --dict=bytes|text]\n"
    "                          list the ops a case may use, their arguments and what\n"
    "                          they do (from the op table, prog/ops.c); --dict writes\n"
    "                          the fuzzers' dictionary entries\n"};
