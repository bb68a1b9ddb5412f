/* The shadow call stack (ref/kernel.h's kframe()): the kernel functions a task is in, for
 * its Call Trace, and where lockdep saw it (ref/lockdep.h). Apart from kernel.h so that
 * lockdep.h, which kernel.h includes, need not include kernel.h. */
#ifndef SNAFU_KSTACK_H
#define SNAFU_KSTACK_H

#define KSTACK_DEPTH 16 /* the ring: a power of 2 */

/* frame[0] the outermost; past KSTACK_DEPTH the ring keeps the innermost. */
struct kstack {
	unsigned depth;
	const char *frame[KSTACK_DEPTH];
};

#endif
