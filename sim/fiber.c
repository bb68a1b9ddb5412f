/* Fibers on x86-64 with a hand-written switch.
 *
 * Why not swapcontext(): it makes a sigprocmask system call on every switch, and
 * ASan's interceptor clears the shadow of the whole target stack each time, with a
 * warning. The switch below saves the six callee-saved registers and swaps stacks;
 * ASan (and TSan, in that build) are told about every switch through their fiber API
 * so they check each fiber against its own stack.
 */
#include "fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SNAFU_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(SNAFU_TSAN)
#define SNAFU_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SNAFU_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(SNAFU_TSAN)
#define SNAFU_TSAN 1
#endif

#ifdef SNAFU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef SNAFU_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#if !defined(__x86_64__)
#error "sim/fiber.c: the context switch is written for x86-64 only"
#endif

/* ASan needs room for redzones; keep stacks generous, they are reused. */
#define FIBER_STACK (256 * 1024)

struct sim_fiber {
	void *sp; /* saved stack pointer while switched out */
	char *stack;
	size_t size;
	void (*entry)(void *);
	void *arg;
	void *fake_stack; /* ASan's fake stack while switched out */
	const void *bottom;
	size_t ssize;
#ifdef SNAFU_TSAN
	void *tsan;
#endif
};

/* void snafu_fiber_swap(void **save_sp, void *new_sp) */
__asm__(".text\n"
	".globl snafu_fiber_swap\n"
	".type snafu_fiber_swap,@function\n"
	"snafu_fiber_swap:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size snafu_fiber_swap, .-snafu_fiber_swap\n");
void snafu_fiber_swap(void **save_sp, void *new_sp);

static struct sim_fiber main_fiber;
static struct sim_fiber *running;

struct sim_fiber *fiber_main(void)
{
	if (!running) {
		running = &main_fiber;
#ifdef SNAFU_TSAN
		main_fiber.tsan = __tsan_get_current_fiber();
#endif
	}
	return &main_fiber;
}

static void after_switch(void)
{
#ifdef SNAFU_ASAN
	const void *bottom;
	size_t size;
	__sanitizer_finish_switch_fiber(running->fake_stack, &bottom, &size);
	/* Learn the main thread's stack the first time we leave it. */
	if (!main_fiber.bottom) {
		main_fiber.bottom = bottom;
		main_fiber.ssize = size;
	}
#endif
}

static void fiber_start(void)
{
	after_switch();
	running->entry(running->arg);
	abort(); /* entry functions never return; they switch away for good */
}

void fiber_reset(struct sim_fiber *f, void (*entry)(void *), void *arg)
{
	uintptr_t top = ((uintptr_t)f->stack + f->size) & ~(uintptr_t)15;
	void **sp = (void **)top;

#ifdef SNAFU_ASAN
	/* A reused stack still carries the redzones of the frames its last task was in when
	 * the run ended (a task never returns): new frames land on them, a false
	 * stack-buffer-overflow (seen with -O0, in tests/test_ossfuzz.sh's build). Those
	 * frames all lie between the last saved stack pointer and the top: clear just that
	 * (the fuzzer resets every stack on every run). */
	if (f->sp && (char *)f->sp >= f->stack && (uintptr_t)f->sp < top)
		ASAN_UNPOISON_MEMORY_REGION(f->sp, top - (uintptr_t)f->sp);
#endif
	f->entry = entry;
	f->arg = arg;
	f->fake_stack = NULL;
	*--sp = NULL;                /* fake return address of fiber_start: keeps rsp = 8 mod 16 */
	*--sp = (void *)fiber_start; /* popped by the first swap's ret */
	for (int i = 0; i < 6; i++)
		*--sp = NULL; /* rbp rbx r12-r15 */
	f->sp = sp;
}

struct sim_fiber *fiber_create(void (*entry)(void *), void *arg)
{
	struct sim_fiber *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->size = FIBER_STACK;
	f->stack = malloc(f->size);
	if (!f->stack)
		abort();
	f->bottom = f->stack;
	f->ssize = f->size;
#ifdef SNAFU_TSAN
	f->tsan = __tsan_create_fiber(0);
#endif
	fiber_reset(f, entry, arg);
	return f;
}

void fiber_switch(struct sim_fiber *from, struct sim_fiber *to)
{
	running = to;
#ifdef SNAFU_ASAN
	__sanitizer_start_switch_fiber(&from->fake_stack, to->bottom, to->ssize);
#endif
#ifdef SNAFU_TSAN
	/* No synchronisation implied: TSan must judge the modelled locks only. */
	__tsan_switch_to_fiber(to->tsan, __tsan_switch_to_fiber_no_sync);
#endif
	snafu_fiber_swap(&from->sp, to->sp);
	after_switch();
}
