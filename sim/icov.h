/* Interleaving coverage (sim/icov.c): feedback for the fuzzer on what the schedule did,
 * beside libFuzzer's code coverage. Off unless a map is set (futex_mm_fuzzer sets one in
 * libFuzzer's extra counters, --interleaving-coverage=0 leaves it unset); then the
 * simulator and the futex oracles' hooks count features of the run in it:
 *
 *  - switch: at every context switch, why it happened (preempted, blocked, done, timer)
 *    and where the task that stops and the task that runs next stand;
 *  - sleep: a task going to sleep on a lock or a futex, and where each other task stands;
 *  - futex: the futex events of the run (queued, read matching or not, asleep, woken,
 *    unqueued, returned; a wake call's begin, each waiter it woke, its end), each with
 *    the state of the chain it sees, and each pair of consecutive events;
 *  - fate: at the end of a run, what became of the waiters a wake call passed over or
 *    missed, and of those it woke (ref/futex_oracle.c).
 *
 * Where a task stands: the system call it is in, the last lock, user access or sleep
 * event it had, and the scheduling point it is at, as hashes of their names (never of
 * addresses), so a run's features are a function of the run alone. The hooks add no
 * scheduling point and no trace event: a run takes the same steps, and has the same
 * digest, with the map set or not (tests/test_icov.c).
 */
#ifndef SNAFU_ICOV_H
#define SNAFU_ICOV_H

#include <stdint.h>

#define ICOV_SIZE 4096 /* counters in a map */

/* The regions of the map: each kind of feature hashes into its own. */
enum icov_region {
	ICOV_SWITCH, /* 1024 */
	ICOV_SLEEP,  /* 1024 */
	ICOV_FUTEX,  /* 1536 */
	ICOV_FATE,   /* 512 */
};

extern uint8_t *sim_icov; /* the map, or NULL: off */

/* Set (or, with NULL, clear) the map; takes effect at the next sim_init(). */
void sim_icov_set(uint8_t *map);

/* Feature h of a region was seen: its counter is set to 1 (hit counts would reward
 * programs that repeat themselves). */
void sim_icov_hit(enum icov_region region, uint32_t h);

static inline uint32_t icov_mix(uint32_t h, uint32_t v)
{
	h ^= v;
	h *= 0x9e3779b1u;
	return h ^ h >> 15;
}

/* for sim/: a run begins; a traced event of task id; a context switch */
void sim_icov_reset(void);
void sim_icov_event(int id, int kind, const char *fn, const char *obj);
void sim_icov_switch(int why, int from, int to);
enum { ICOV_WHY_PREEMPT = 1, ICOV_WHY_BLOCKED, ICOV_WHY_DONE, ICOV_WHY_TIMER };

/* Where task id stands (see above), for the futex features too. */
uint32_t sim_icov_pos(int id);

#endif
