/* case_text_fuzzer: libFuzzer target for the text form of cases (prog/text.c), through
 * the public API of prog/program.h only (prog_parse, prog_print, prog_encode, prog_decode).
 *
 *   case_text_fuzzer [libFuzzer flags] [CORPUS...]
 *
 * Seeds: corpus/case_text_fuzzer/ (copies of the cases in repro/cases); dictionary:
 * fuzz/case_text_fuzzer.dict (the grammar's words). tests/test_case_text_fuzzer.sh runs
 * 100,000 inputs from them.
 *
 * Each input is text (a NUL byte ends it). When prog_parse refuses it, the message must be
 * one line, "LINE:COL: expected ...". When it takes it:
 *  (a) print -> parse -> print is a fixed point: the program printed (prog_print) parses
 *      again and prints to the same text, byte for byte; and the printed text holds the
 *      whole program: parsed again, it has the same byte form and the same expect lines
 *      (a printer that drops an argument would still reach a fixed point);
 *  (b) bytes -> text -> bytes is stable: the program's byte form (prog_encode) decodes
 *      (prog_decode) to a program that encodes to the same bytes, and prints as the parsed
 *      program does without its expect lines (the byte form holds no expect lines; mapping
 *      names print as m0, m1, ... from either form).
 * A broken property prints the input and both sides, a DEDUP_TOKEN line (case-text-...)
 * and aborts, so libFuzzer keeps the input.
 */
#include "../prog/program.h"
#include "fuzz_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
#if defined(SNAFU_FUZZ_DEFAULT_ARTIFACTS) && !defined(SNAFU_FUZZ_NO_DEFAULT_FLAGS)
	snafu_fuzz_default_artifacts(argc, argv, "case_text_fuzzer");
#else
	(void)argc;
	(void)argv;
#endif
	snafu_fuzz_sanitizer_tokens();
	return 0;
}

static char *print_to_memory(const struct program *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		perror("case_text_fuzzer: open_memstream");
		abort();
	}
	prog_print(p, f);
	if (fclose(f)) {
		perror("case_text_fuzzer: open_memstream");
		abort();
	}
	return buf;
}

static void dump_bytes(const char *title, const uint8_t *b, size_t n)
{
	fprintf(stderr, "--- %s (%zu bytes) ---\n", title, n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%02x%s", b[i], i % 16 == 15 || i + 1 == n ? "\n" : " ");
}

static void broken(const char *token, const char *what, const char *input, const char *first,
		   const char *second)
{
	fprintf(stderr, "\ncase_text_fuzzer: %s\n--- input ---\n%s\n", what, input);
	if (first)
		fprintf(stderr, "--- first ---\n%s", first);
	if (second)
		fprintf(stderr, "--- second ---\n%s", second);
	fprintf(stderr, "DEDUP_TOKEN: %s\n", token);
	fflush(stderr);
	abort();
}

/* "LINE:COL: expected ...", one line */
static bool good_error(const char *err)
{
	const char *s = err;

	for (int part = 0; part < 2; part++) {
		if (*s < '1' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s++ != ':')
			return false;
	}
	return !strncmp(s, " expected ", 10) && !strchr(s, '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct program p1, p2, p3;
	static uint8_t b1[PROG_MAX_ENCODED], b2[PROG_MAX_ENCODED];
	char err[512] = "";
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	if (prog_parse(text, &p1, err, sizeof(err))) {
		if (!good_error(err)) {
			char what[700];
			snprintf(what, sizeof(what),
				 "prog_parse refused the input with '%s', not one line "
				 "\"LINE:COL: expected ...\"",
				 err);
			broken("case-text-bad-error-message", what, text, NULL, NULL);
		}
		free(text);
		return 0;
	}

	/* (a) print -> parse -> print */
	char *first = print_to_memory(&p1);
	if (prog_parse(first, &p2, err, sizeof(err))) {
		char what[700];
		snprintf(what, sizeof(what), "the printed program does not parse: %s", err);
		broken("case-text-printed-does-not-parse", what, text, first, NULL);
	}
	char *second = print_to_memory(&p2);
	if (strcmp(first, second))
		broken("case-text-print-not-a-fixed-point",
		       "print -> parse -> print is not a fixed point: the two printed texts differ",
		       text, first, second);
	size_t n1 = prog_encode(&p1, b1, sizeof(b1));
	size_t n2 = prog_encode(&p2, b2, sizeof(b2));
	if (!n1 || !n2)
		broken("case-text-encode-failed", "prog_encode wrote nothing", text, first, NULL);
	if (n1 != n2 || memcmp(b1, b2, n1)) {
		fprintf(stderr, "\ncase_text_fuzzer: the printed text lost part of the program\n");
		dump_bytes("byte form of the parsed input", b1, n1);
		dump_bytes("byte form of its printed text, parsed", b2, n2);
		broken("case-text-print-loses-program",
		       "the printed text, parsed again, is another program (byte forms differ)",
		       text, first, NULL);
	}
	if (p1.nexpect != p2.nexpect ||
	    memcmp(p1.expect, p2.expect, sizeof(p1.expect[0]) * (size_t)p1.nexpect))
		broken("case-text-print-loses-expect",
		       "the printed text, parsed again, has other expect lines", text, first, NULL);

	/* (b) bytes -> program -> bytes, and the same program as the text's */
	prog_decode(b1, n1, &p3);
	n2 = prog_encode(&p3, b2, sizeof(b2));
	if (n1 != n2 || memcmp(b1, b2, n1)) {
		fprintf(stderr,
			"\ncase_text_fuzzer: encode -> decode -> encode changes the bytes\n");
		dump_bytes("first encoding", b1, n1);
		dump_bytes("second encoding", b2, n2);
		broken("case-text-bytes-not-stable", "the byte form is not stable", text, first,
		       NULL);
	}
	p1.nexpect = 0;
	char *bare = print_to_memory(&p1);
	char *decoded = print_to_memory(&p3);
	if (strcmp(bare, decoded))
		broken("case-text-byte-form-changes-program",
		       "the byte form does not hold the parsed program: it prints differently "
		       "(first: parsed, without expect lines; second: decoded)",
		       text, bare, decoded);
	free(decoded);
	free(bare);
	free(second);
	free(first);
	free(text);
	return 0;
}
