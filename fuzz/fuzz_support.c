/* What the libFuzzer targets share (fuzz/fuzz_support.h).
 *
 * A DEDUP_TOKEN for sanitizer findings. The model's findings end in a line of
 * ref/report.c's, "DEDUP_TOKEN: deadlock--do_page_fault--futex_wait"; an ASan or UBSan
 * report has none of ours, so ci/fuzz.sh and `snafu evaluate` could sort it only by the
 * sanitizer's one-word SUMMARY. This prints one on stderr before the process dies: "asan-"
 * or "ubsan-", the bug kind, then the functions of the top two frames in ref/ or prog/
 * (else the top two in another directory of ours: sim/, fuzz/, tools/, tests/):
 *
 *   DEDUP_TOKEN: asan-heap-use-after-free--futex_wake--sys_futex
 *   DEDUP_TOKEN: ubsan-signed-integer-overflow--hash_futex--get_futex_key
 *
 * No addresses and no line numbers, so the same bug gives the same token in every run and
 * every build; without symbols (no llvm-symbolizer) it is the kind alone. A frame counts by
 * its source file's directory (ref/futex.c, or /abs/path/ref/futex.c).
 *  - ASan: __asan_set_error_report_callback hands over the report's text, which has
 *    "SUMMARY: AddressSanitizer: KIND" and the frames "#N 0x... in FUNC FILE:LINE:COL"
 *    (the first stack: where the bad access or the signal happened). The line comes
 *    after ASan's report, before libFuzzer's "Test unit written to" line.
 *  - UBSan: the runtime calls the weak hook __ubsan_on_report for each report, just before
 *    printing it; __ubsan_get_current_report_data gives the kind, and the stack is this
 *    thread's own, unwound with backtrace() and named by __sanitizer_symbolize_pc. The line
 *    comes just before UBSan's "runtime error:" line.
 * Every sanitizer entry point is declared weak: a build without ASan (UBSan alone, or
 * OSS-Fuzz's coverage build) links and simply has fewer reports.
 */
#include "fuzz_support.h"

#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void __asan_set_error_report_callback(void (*callback)(const char *)) __attribute__((weak));
void __sanitizer_symbolize_pc(void *pc, const char *fmt, char *out_buf, size_t out_buf_size)
    __attribute__((weak));
void __ubsan_get_current_report_data(const char **kind, const char **message, const char **filename,
				     unsigned *line, unsigned *col, char **memory_addr)
    __attribute__((weak));
void __ubsan_on_report(void);

#define MAX_FRAMES 64
#define FUNC_LEN   128

/* Static: a report may come from a signal handler on a small stack. */
static struct {
	int n;
	char func[MAX_FRAMES][FUNC_LEN];
	int rank[MAX_FRAMES]; /* 0: ref/ or prog/; 1: another directory of ours; 2: not ours */
} frames;

/* The directory a source file is in, by its last directory component. */
static int rank_of(const char *file, size_t len)
{
	static const char *const ours[] = {"sim", "fuzz", "tools", "tests"};
	size_t end = len, start;

	while (end > 0 && file[end - 1] != '/')
		end--;
	if (end == 0)
		return 2;
	/* this file's own frames (the UBSan hook's) are not the bug's */
	if (len - end == strlen("fuzz_support.c") &&
	    !strncmp(file + end, "fuzz_support.c", len - end))
		return 2;
	end--; /* the slash */
	start = end;
	while (start > 0 && file[start - 1] != '/')
		start--;
	size_t dlen = end - start;
	if ((dlen == 3 && !strncmp(file + start, "ref", 3)) ||
	    (dlen == 4 && !strncmp(file + start, "prog", 4)))
		return 0;
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (dlen == strlen(ours[i]) && !strncmp(file + start, ours[i], dlen))
			return 1;
	return 2;
}

static void add_frame(const char *func, size_t flen, const char *file, size_t len)
{
	if (frames.n == MAX_FRAMES || !flen || (flen == 2 && !strncmp(func, "??", 2)))
		return;
	int r = rank_of(file, len);
	char *f = frames.func[frames.n];
	size_t k = 0;
	for (size_t i = 0; i < flen && k + 1 < FUNC_LEN; i++) {
		char c = func[i];
		f[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '_' || c == '.'
			     ? c
			     : '_';
	}
	f[k] = 0;
	frames.rank[frames.n++] = r;
}

/* PREFIX-KIND then "--FUNC" for the top two frames of the best rank there is */
static void make_token(const char *prefix, const char *kind, char *out, size_t outlen)
{
	int best = 2;
	size_t n;

	snprintf(out, outlen, "%s-", prefix);
	n = strlen(out);
	for (const char *k = kind; *k && n + 1 < outlen; k++) {
		char c = *k >= 'A' && *k <= 'Z' ? (char)(*k - 'A' + 'a') : *k;
		out[n++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '-';
	}
	out[n] = 0;
	for (int i = 0; i < frames.n; i++)
		if (frames.rank[i] < best)
			best = frames.rank[i];
	for (int i = 0, taken = 0; i < frames.n && taken < 2 && best < 2; i++)
		if (frames.rank[i] == best) {
			snprintf(out + strlen(out), outlen - strlen(out), "--%s", frames.func[i]);
			taken++;
		}
}

static size_t word_len(const char *s)
{
	size_t n = 0;
	while (s[n] && s[n] != ' ' && s[n] != '\n' && s[n] != '\t' && s[n] != '\r')
		n++;
	return n;
}

/* TEXT: an ASan report; OUT: "asan-KIND--FUNC--FUNC", or "asan-KIND" without symbols */
static void asan_token(const char *text, char *out, size_t outlen)
{
	char kind[64] = "unknown";
	const char *s;

	if ((s = strstr(text, "SUMMARY: AddressSanitizer: ")))
		s += strlen("SUMMARY: AddressSanitizer: ");
	else if ((s = strstr(text, "ERROR: AddressSanitizer: "))) {
		s += strlen("ERROR: AddressSanitizer: ");
		if (!strncmp(s, "attempting ", 11)) /* "attempting double-free on ..." */
			s += 11;
	}
	if (s && word_len(s))
		snprintf(kind, sizeof(kind), "%.*s", (int)word_len(s), s);

	/* the first stack: "    #0 0x4f5e21 in FUNC FILE:LINE:COL", one frame a line */
	frames.n = 0;
	int started = 0;
	for (const char *line = text; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *p = line;
		while (p < line + len && (*p == ' ' || *p == '\t'))
			p++;
		if (p < line + len && *p == '#' && p[1] >= '0' && p[1] <= '9') {
			started = 1;
			const char *in = strstr(p, " in ");
			if (in && in < line + len) {
				const char *func = in + 4;
				size_t flen = word_len(func);
				const char *file = func + flen;
				while (*file == ' ')
					file++;
				size_t plen = word_len(file);
				if (file >= line + len || *file == '(')
					plen = 0; /* "(module+0x...)": no source file */
				const char *colon = memchr(file, ':', plen);
				add_frame(func, flen, file, colon ? (size_t)(colon - file) : plen);
			}
		} else if (started)
			break;
		line = eol ? eol + 1 : line + len;
	}
	make_token("asan", kind, out, outlen);
}

static void asan_report(const char *text)
{
	static char token[512];

	asan_token(text, token, sizeof(token));
	fprintf(stderr, "DEDUP_TOKEN: %s\n", token);
	fflush(stderr);
}

/* UBSan's hook: called for each report, before it is printed. */
void __ubsan_on_report(void)
{
	static void *pcs[MAX_FRAMES];
	static char buf[4096], token[512];
	const char *kind = "undefined-behavior", *message, *file;
	unsigned line, col;
	char *addr;

	if (__ubsan_get_current_report_data)
		__ubsan_get_current_report_data(&kind, &message, &file, &line, &col, &addr);
	frames.n = 0;
	int n = backtrace(pcs, MAX_FRAMES);
	for (int i = 0; i < n && __sanitizer_symbolize_pc; i++) {
		memset(buf, 0, sizeof(buf));
		/* one "FUNC FILE" line per frame, inlined ones first; chunks end in a NUL */
		__sanitizer_symbolize_pc(pcs[i], "%f %s\n", buf, sizeof(buf) - 1);
		for (const char *chunk = buf; *chunk && chunk < buf + sizeof(buf);
		     chunk += strlen(chunk) + 1)
			for (const char *l = chunk; *l;) {
				size_t flen = word_len(l);
				const char *f = l + flen;
				while (*f == ' ')
					f++;
				add_frame(l, flen, f, word_len(f));
				l = f + word_len(f);
				while (*l == '\n' || *l == ' ')
					l++;
			}
	}
	make_token("ubsan", kind ? kind : "undefined-behavior", token, sizeof(token));
	fprintf(stderr, "DEDUP_TOKEN: %s\n", token);
	fflush(stderr);
}

void snafu_fuzz_sanitizer_tokens(void)
{
	static void *warm[1];

	if (__asan_set_error_report_callback)
		__asan_set_error_report_callback(asan_report);
	/* glibc loads its unwinder on the first backtrace(): not in a report */
	backtrace(warm, 1);
}

void snafu_fuzz_default_artifacts(int *argc, char ***argv, const char *name)
{
	static char prefix[PATH_MAX + 32];
	static char **args;
	char dir[PATH_MAX];

	for (int i = 1; i < *argc; i++)
		if (!strncmp((*argv)[i], "-artifact_prefix=", 17) ||
		    !strncmp((*argv)[i], "-exact_artifact_path=", 21))
			return;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return;
	dir[n] = 0;
	/* <bindir>/../artifacts: drop the binary's name, then bin/ */
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return;
		*slash = 0;
	}
	size_t len = strlen(dir);
	snprintf(dir + len, sizeof(dir) - len, "/artifacts");
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make %s (%s); artifacts go to the current directory\n",
			name, dir, strerror(errno));
		return;
	}
	args = calloc((size_t)*argc + 2, sizeof(*args));
	if (!args)
		return;
	snprintf(prefix, sizeof(prefix), "-artifact_prefix=%s/", dir);
	args[0] = (*argv)[0];
	args[1] = prefix;
	for (int i = 1; i < *argc; i++)
		args[i + 1] = (*argv)[i];
	args[*argc + 1] = NULL;
	*argc += 1;
	*argv = args;
	fprintf(stderr,
		"%s: artifacts (crash-*, timeout-*, ...) go to %s/ (-artifact_prefix= to change)\n",
		name, dir);
}
