/* kernel/futex.c, 2.6.11 */
#ifndef SNAFU_FUTEX_H
#define SNAFU_FUTEX_H

#include "kernels.h"
#include "spinlock.h"

#define FUTEX_WAIT        0
#define FUTEX_WAKE        1
#define FUTEX_FD          2
#define FUTEX_REQUEUE     3
#define FUTEX_CMP_REQUEUE 4

void futex_init(void);
/* timeout in ticks of the virtual clock, MAX_SCHEDULE_TIMEOUT for none */
long do_futex(unsigned long uaddr, int op, int val, int64_t timeout, unsigned long uaddr2, int val2,
	      int val3);

#endif
