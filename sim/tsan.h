/* ThreadSanitizer hooks for the runtimes: happens-before edges for the modelled
 * spinlocks and wake-ups, and "hardware" regions TSan should not judge. No-ops in
 * builds without TSan. */
#ifndef SNAFU_SIM_TSAN_H
#define SNAFU_SIM_TSAN_H

/* SNAFU_TSAN comes from the build for sim/'s own files, which are compiled without
 * TSan instrumentation (the scheduler's bookkeeping is not the model's business). */
#if defined(__has_feature) && !defined(SNAFU_TSAN)
#if __has_feature(thread_sanitizer)
#define SNAFU_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(SNAFU_TSAN)
#define SNAFU_TSAN 1
#endif

#ifdef SNAFU_TSAN
#include <sanitizer/tsan_interface.h>
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define tsan_acquire(p) __tsan_acquire((void *)(p))
#define tsan_release(p) __tsan_release((void *)(p))
#define tsan_ignore_begin()                                    \
	do {                                                   \
		AnnotateIgnoreReadsBegin(__FILE__, __LINE__);  \
		AnnotateIgnoreWritesBegin(__FILE__, __LINE__); \
	} while (0)
#define tsan_ignore_end()                                    \
	do {                                                 \
		AnnotateIgnoreWritesEnd(__FILE__, __LINE__); \
		AnnotateIgnoreReadsEnd(__FILE__, __LINE__);  \
	} while (0)
#else
#define tsan_acquire(p)     ((void)(p))
#define tsan_release(p)     ((void)(p))
#define tsan_ignore_begin() ((void)0)
#define tsan_ignore_end()   ((void)0)
#endif

#endif
