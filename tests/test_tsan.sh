#!/usr/bin/env bash
# ThreadSanitizer, two ways, on the build-tsan flavour:
#  - the simulator (fibers, no-sync switches, annotated locks and wake-ups): every saved
#    case and every seed input on every kernel replays with no report, and so do the
#    races the kernel makes on purpose (marked data_race(), as Linux marks them);
#  - the native runtime (real threads): snafu stress on the fixed kernel, bounded, with
#    no report;
# and both must fail: the test-only kernel test-futex-wake-unlocked (futex_wake without
# the hash-bucket lock) must draw a data-race report each way.
#
# Every command runs under timeout(1): a crashed or hung run is a failure with a line
# saying so, never a test that hangs until CTest gives up.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $tsan, $tmp
[ -n "$tsan" ] && [ -x "$tsan/snafu" ] && [ -x "$tsan/snafu-native" ] ||
	{ echo "skipped: no tsan build (./build.sh tsan)"; exit 77; }
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 atexit_sleep_ms=0"

# tsan LIMIT CMD...: run CMD for at most LIMIT seconds (then SIGTERM, SIGKILL 10 s
# later), output in $tmp/out, exit status in $rc; $hung says whether the limit fired,
# $st says what happened ("exit N" or "timed out after LIMIT s"), for the messages.
tsan() {
	local limit=$1
	shift
	timeout -k 10 "$limit" "$@" >"$tmp/out" 2>&1
	rc=$?
	hung=false st="exit $rc"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		hung=true st="timed out after ${limit}s"
	fi
}
# generous limits: a replay takes under a second, stress its --seconds and a few more
replay_s=120 stress_pad_s=120

tsan $replay_s "$tsan/snafu" kernels
kernels=$(awk '{print $1}' "$tmp/out")
[ $rc = 0 ] && [ -n "$kernels" ] || {
	echo "FAIL: $tsan/snafu kernels: $st"
	head -20 "$tmp/out"
	exit 1
}

# 1. the simulator: saved cases, the seed corpus and the races the kernel makes on
#    purpose (tests/tsan/futex-requeue-nqueued.case: futex_requeue's lockless read of
#    nqueued), every kernel, no report
for f in "$src"/repro/cases/*.case "$src"/corpus/futex_mm_fuzzer/* \
	"$src"/tests/tsan/futex-requeue-nqueued.case; do
	for k in $kernels; do
		tsan $replay_s "$tsan/snafu" replay --quiet --kernel="$k" "$f"
		if $hung || grep -q ThreadSanitizer "$tmp/out" || [ $rc -gt 1 ]; then
			bad "fibers: $f [$k]: $st"
			head -30 "$tmp/out"
		else ok; fi
	done
done
# ... and the nqueued case still does what it is for: task 2's FUTEX_CMP_REQUEUE runs
# while task 1 is inside futex_wait (queued), so the read above did race
nq=$src/tests/tsan/futex-requeue-nqueued.case
tsan $replay_s "$tsan/snafu" replay --trace --kernel=2.6.11 "$nq"
if ! $hung && awk '$1 == "T1" && /syscall.*FUTEX_WAIT/ { w = 1 }
	w && $1 == "T1" && /return +sys_futex/ { exit }
	w && $1 == "T2" && /syscall.*FUTEX_CMP_REQUEUE/ { found = 1 }
	END { exit !found }' "$tmp/out"; then ok; else
	bad "fibers: $nq no longer runs FUTEX_CMP_REQUEUE inside task 1's futex_wait ($st)"
	tail -20 "$tmp/out"
fi

# 2. the simulator must see the race the test-only kernel makes, and not without it
race=$src/tests/tsan/futex-wake-race.case
tsan $replay_s "$tsan/snafu" replay --quiet --kernel=2.6.11 "$race"
if ! $hung && [ $rc = 0 ] && ! grep -q ThreadSanitizer "$tmp/out"; then ok; else
	bad "fibers: $race on 2.6.11: $st"
	tail -20 "$tmp/out"
fi
tsan $replay_s "$tsan/snafu" replay --quiet --kernel=test-futex-wake-unlocked "$race"
if ! $hung && [ $rc = 66 ] && grep -q "WARNING: ThreadSanitizer: data race" "$tmp/out" &&
	grep -q "in futex_wake" "$tmp/out"; then ok; else
	bad "fibers: no data race reported in futex_wake on the test-only kernel ($st)"
	tail -20 "$tmp/out"
fi

# 3. real threads: the fixed kernel, bounded, no report (Olof's testcase and the loop case)
tsan $((3 + stress_pad_s)) "$tsan/snafu" stress --kernel=2.6.11 --seconds=3
if ! $hung && [ $rc = 0 ] && grep -q "stress: no hang" "$tmp/out" &&
	! grep -q ThreadSanitizer "$tmp/out"; then ok; else
	bad "native: stress on 2.6.11: $st"
	tail -30 "$tmp/out"
fi
loop=$src/tests/tsan/futex-wake-loop.case
tsan $((2 + stress_pad_s)) "$tsan/snafu" stress --kernel=2.6.11 --seconds=2 "$loop"
if ! $hung && [ $rc = 0 ] && ! grep -q ThreadSanitizer "$tmp/out"; then ok; else
	bad "native: $loop on 2.6.11: $st"
	tail -30 "$tmp/out"
fi

# 4. real threads must see the race too (halt_on_error ends the run at the first one)
tsan $((30 + stress_pad_s)) "$tsan/snafu" stress --kernel=test-futex-wake-unlocked \
	--seconds=30 "$loop"
if ! $hung && [ $rc = 66 ] && grep -q "WARNING: ThreadSanitizer: data race" "$tmp/out"; then
	ok
else
	bad "native: no data race reported on the test-only kernel ($st)"
	tail -20 "$tmp/out"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
