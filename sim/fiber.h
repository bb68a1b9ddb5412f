/* Fibers: stacks and the context switch, with the sanitizers told about each switch. */
#ifndef SNAFU_FIBER_H
#define SNAFU_FIBER_H

#include <stddef.h>

struct sim_fiber;

/* The OS thread's own context; fibers switch back to it. */
struct sim_fiber *fiber_main(void);
/* A fiber that will run entry(arg) on its own stack when first switched to. */
struct sim_fiber *fiber_create(void (*entry)(void *), void *arg);
/* Make an existing fiber start entry(arg) afresh (stacks are reused between runs). */
void fiber_reset(struct sim_fiber *f, void (*entry)(void *), void *arg);
void fiber_switch(struct sim_fiber *from, struct sim_fiber *to);

#endif
