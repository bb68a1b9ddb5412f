/* What the libFuzzer targets (futex_mm_fuzzer, case_text_fuzzer) share: fuzz/fuzz_support.c. */
#ifndef SNAFU_FUZZ_SUPPORT_H
#define SNAFU_FUZZ_SUPPORT_H

/* Print a DEDUP_TOKEN line of ours for every ASan or UBSan report of this process. */
void snafu_fuzz_sanitizer_tokens(void);

/* Unless ARGV has -artifact_prefix= or -exact_artifact_path=: put
 * -artifact_prefix=<directory of the binary>/../artifacts/ right after argv[0] (made on
 * demand) and say so on stderr, naming the target NAME. */
void snafu_fuzz_default_artifacts(int *argc, char ***argv, const char *name);

#endif
