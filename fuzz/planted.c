/* Bugs planted on purpose, for the tests only: futex_mm_fuzzer_planted (CMakeLists.txt) is
 * futex_mm_fuzzer compiled with -DSNAFU_FUZZ_PLANTED plus this file. With SNAFU_PLANT set
 * in the environment, every input runs one of them before the program, so the tests see
 * what a sanitizer finding looks like end to end (fuzz/fuzz_support.c's DEDUP_TOKEN, and
 * how ci/fuzz.sh sorts it). Without SNAFU_PLANT the binary is futex_mm_fuzzer.
 *
 *   SNAFU_PLANT=asan-prog     prog_print() on a freed program: ASan, top frame in prog/
 *   SNAFU_PLANT=ubsan-prog    prog_print() on a misaligned program: UBSan, in prog/
 *   SNAFU_PLANT=asan-fuzz     heap-use-after-free in planted_read_freed, called by
 *                             planted_use_after_free (no frame in ref/ or prog/)
 *   SNAFU_PLANT=ubsan-fuzz    signed overflow in planted_add, called by planted_overflow
 */
#include "../prog/program.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void snafu_fuzz_planted(void);

__attribute__((noinline)) static int planted_read_freed(const int *p)
{
	return p[1];
}

__attribute__((noinline)) static int planted_use_after_free(void)
{
	int *p = malloc(4 * sizeof(*p));

	if (!p)
		abort();
	memset(p, 0, 4 * sizeof(*p));
	free(p);
	return planted_read_freed(p) + 1; /* not a tail call: this frame stays */
}

__attribute__((noinline)) static int planted_add(int a, int b)
{
	return a + b;
}

__attribute__((noinline)) static int planted_overflow(void)
{
	volatile int big = INT_MAX;

	return planted_add(big, 1) + 1;
}

void snafu_fuzz_planted(void)
{
	static const char *plant;
	static int read;

	if (!read) {
		plant = getenv("SNAFU_PLANT");
		read = 1;
	}
	if (!plant)
		return;
	if (!strcmp(plant, "asan-prog")) {
		struct program *p = calloc(1, sizeof(*p));
		if (!p)
			abort();
		free(p);
		prog_print(p, stderr);
	} else if (!strcmp(plant, "ubsan-prog")) {
		char *buf = calloc(1, sizeof(struct program) + 8);
		if (!buf)
			abort();
		prog_print((const struct program *)(void *)(buf + 1), stderr);
		free(buf);
	} else if (!strcmp(plant, "asan-fuzz")) {
		fprintf(stderr, "%d\n", planted_use_after_free());
	} else if (!strcmp(plant, "ubsan-fuzz")) {
		fprintf(stderr, "%d\n", planted_overflow());
	} else {
		fprintf(stderr,
			"futex_mm_fuzzer: SNAFU_PLANT=%s: expected asan-prog, ubsan-prog, "
			"asan-fuzz or ubsan-fuzz\n",
			plant);
		exit(2);
	}
}
