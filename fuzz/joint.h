/* The joint search (fuzz/joint.c, docs/fuzzing.md "The joint search"): the fuzzer writes
 * programs, snafu explore's search finds their schedules. */
#ifndef SNAFU_FUZZ_JOINT_H
#define SNAFU_FUZZ_JOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct program;
struct kernel_config;

/* Preemptions the search allows a program (snafu explore's default). */
#define JOINT_PREEMPTIONS 2
/* --joint=N's default: the runs a program's search may make (docs/fuzzing.md, "The
 * joint search": the best of N = 30 to 300, measured). */
#define JOINT_DEFAULT_RUNS 30
/* A program with a contended futex word (joint_contended()) may make this many times
 * --joint=N's runs where lost wake-ups or results are oracles: its schedules are many
 * (the absorbed wake-up's program: 588 within two preemptions, the first that loses the
 * wake-up after a median of 34 in the search's random order). The best of 1, 5 and 10,
 * measured (docs/fuzzing.md, "A random order, and a contended word's runs"). So may a
 * forced write's program (joint_forced_beside()) where the integrity oracle is: Robin
 * Holt's race needs more than 30 runs in 1 search in 10 of its program. */
#define JOINT_CONTENDED_FACTOR 5
/* A program worth a search (joint_worth()) whose run reached no new code gets one too
 * once no run has reached new code for this many executions, nor a search been made so
 * since: a plateau, where libFuzzer runs programs it knows the code of, one schedule
 * each. Without it a seed whose corpus stopped growing before a program of the race's
 * shape was new never searched one (Robin Holt's forced write: 1 seed in 10 to 30 not
 * within 100,000 executions). At most one search per this many executions, so on a long
 * plateau at most 3 % of the executions (JOINT_CONTENDED_FACTOR x 30 runs), each a
 * traced run of about four times a plain one's cost; 1,000 caught a little more of the
 * tail but cost 7 % of the executions a second (docs/fuzzing.md, "A plateau"). */
#define JOINT_PLATEAU_RUNS 5000
/* The runs a lockdep prediction's search may make (joint_search_prediction()) */
#define JOINT_PREDICTION_RUNS 300

/* Whether the run just made reached code no earlier run of this process reached: an
 * edge of libFuzzer's inline 8-bit counters (the fuzzer runs with -use_counters=0, so
 * an edge is what libFuzzer keeps an input for) set for the first time. False where the
 * binary has no such counters. */
bool joint_new_coverage(void);

/* Whether p is worth a search under ORACLES (the set in force): with the deadlock,
 * lost wake-up or result oracle, a futex_wait with an op of another task on its page
 * that is not a plain read or an mmap (a waker, a store, a requeue, a kswapd pass, an
 * mprotect, ...); with the integrity oracle, a pokedata with any op but an mmap of
 * another task on its page; and a program not searched before in this process (its
 * ops, whatever its schedule). */
bool joint_worth(const struct program *p, unsigned oracles);

/* Whether p has a contended futex word: futex_waits of two tasks on it and a wake or a
 * requeue of it in a third (the mutator's contended word, fuzz/mutator.c, is one) */
bool joint_contended(const struct program *p);
/* Whether p has a forced write (pokedata) with an op racing with it in another task:
 * what the integrity oracle judges, whose search gets JOINT_CONTENDED_FACTOR times the
 * runs too. */
bool joint_forced_beside(const struct program *p);

/* Search p's schedules on k (its own schedule dropped), at most JOINT_PREEMPTIONS, at
 * most max_schedules runs, for a finding of ORACLES: explore_sample() (search/explore.h),
 * its stream seeded by p's ops, so that a budget far short of the bound's schedules
 * samples them all, not only the fewest preemptions' first few. The
 * coverage counters are left as the run before it left them: what the search reaches is
 * not the input's. True with the finding's program in *found; *runs: the runs made. */
bool joint_search(const struct program *p, const struct kernel_config *k, unsigned oracles,
		  long long max_schedules, struct program *found, long long *runs);

/* Lockdep-steered (DeadlockFuzzer's two phases, Joshi, Park, Sen and Naik, PLDI 2009:
 * predict a deadlock from one run, then direct the schedule to it), after a run with
 * lockdep on (joint_predicts(), or lockdep as an oracle). Whether the prediction the run
 * just made is worth a search: one no search has confirmed yet, and a program of it not
 * searched before, its first or one that reached new code (fresh). */
bool joint_prediction_worth(const struct program *p, bool fresh);

/* Run p once more with lockdep as a guide (run_opts.lockdep_guide), the coverage counters
 * kept as joint_search() keeps them: whether the run ended well with a prediction (then
 * joint_prediction_worth() reads it) */
bool joint_predicts(const struct program *p, const struct kernel_config *k, unsigned oracles);

/* Search p, whose prediction joint_prediction_worth() said was worth it, for the
 * deadlock it predicts (confirm_explore(), search/confirm.h: a writer added, kswapd's
 * passes), at most max_runs runs; the coverage counters kept as joint_search() keeps
 * them. True with the deadlock's program in *found; *runs: the runs made. */
bool joint_search_prediction(const struct program *p, const struct kernel_config *k,
			     long long max_runs, struct program *found, long long *runs);

/* Conflict-directed schedules (docs/fuzzing.md, "Conflict points"): run p (the input
 * DATA, SIZE, with a PCT schedule) once more, traced, and keep the scheduling points of
 * its accesses that conflict with another task's (one object, a lock or a user page,
 * and one of the two writes), as Snowboard keeps the accesses of two tests to one
 * object where one writes. The coverage counters are kept as joint_search() keeps them.
 * Called for the inputs libFuzzer keeps; the mutator asks for them by the bytes. */
void joint_conflicts_record(const struct program *p, const uint8_t *data, size_t size,
			    const struct kernel_config *k, unsigned oracles);
/* The steps joint_conflicts_record() kept for the input DATA, SIZE (sim_steps() of the
 * run its own schedule makes), in the order they came; 0 when none are known. */
int joint_conflict_steps(const uint8_t *data, size_t size, const uint32_t **steps);

#endif
