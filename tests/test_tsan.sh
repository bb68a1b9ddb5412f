#!/usr/bin/env bash
# ThreadSanitizer, two ways, on the build-tsan flavour:
#  - the simulator (fibers, no-sync switches, annotated locks and wake-ups): every saved
#    case and every seed input on every kernel replays with no report;
#  - the native runtime (real threads): snafu stress on the fixed kernel, bounded, with
#    no report;
# and both must fail: the test-only kernel test-futex-wake-unlocked (futex_wake without
# the hash-bucket lock) must draw a data-race report each way.
set -uo pipefail
src=$2 tsan=${4:-}
[ -n "$tsan" ] && [ -x "$tsan/snafu" ] && [ -x "$tsan/snafu-native" ] ||
	{ echo "skipped: no tsan build (./build.sh tsan)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 atexit_sleep_ms=0"
. "$(dirname "$0")/lib.sh"
kernels=$("$tsan/snafu" kernels | awk '{print $1}')

# 1. the simulator: saved cases and the seed corpus, every kernel, no report
for f in "$src"/repro/cases/*.case "$src"/corpus/futex_mm_fuzzer/*; do
	for k in $kernels; do
		"$tsan/snafu" replay --quiet --kernel="$k" "$f" >"$tmp/out" 2>&1
		rc=$?
		if grep -q ThreadSanitizer "$tmp/out" || [ $rc -gt 1 ]; then
			bad "fibers: $f [$k]: exit $rc"; head -30 "$tmp/out"
		else ok; fi
	done
done

# 2. the simulator must see the race the test-only kernel makes, and not without it
race=$src/tests/tsan/futex-wake-race.case
"$tsan/snafu" replay --quiet --kernel=2.6.11 "$race" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q ThreadSanitizer "$tmp/out" && ok || bad "fibers: $race on 2.6.11: exit $rc"
"$tsan/snafu" replay --quiet --kernel=test-futex-wake-unlocked "$race" >"$tmp/out" 2>&1
rc=$?
if [ $rc = 66 ] && grep -q "WARNING: ThreadSanitizer: data race" "$tmp/out" &&
	grep -q "in futex_wake" "$tmp/out"; then ok; else
	bad "fibers: no data race reported in futex_wake on the test-only kernel (exit $rc)"; fi

# 3. real threads: the fixed kernel, bounded, no report (Olof's testcase and the loop case)
"$tsan/snafu" stress --kernel=2.6.11 --seconds=3 >"$tmp/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "stress: no hang" "$tmp/out" && ! grep -q ThreadSanitizer "$tmp/out"
then ok; else bad "native: stress on 2.6.11: exit $rc"; tail -30 "$tmp/out"; fi
loop=$src/tests/tsan/futex-wake-loop.case
"$tsan/snafu" stress --kernel=2.6.11 --seconds=2 "$loop" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q ThreadSanitizer "$tmp/out" && ok ||
	{ bad "native: $loop on 2.6.11: exit $rc"; tail -30 "$tmp/out"; }

# 4. real threads must see the race too (halt_on_error ends the run at the first one)
timeout 120 "$tsan/snafu" stress --kernel=test-futex-wake-unlocked --seconds=30 "$loop" \
	>"$tmp/out" 2>&1
rc=$?
if [ $rc = 66 ] && grep -q "WARNING: ThreadSanitizer: data race" "$tmp/out"; then ok; else
	bad "native: no data race reported on the test-only kernel (exit $rc)"; tail -20 "$tmp/out"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
