#!/usr/bin/env bash
# futex_mm_fuzzer's schedule search end to end (docs/fuzzing.md, "Interleaving coverage"
# and "PCT"): --interleaving-coverage, --schedule and --crossover take 0|1, preempt|pct
# and 0|1 and refuse anything else with one line and exit 2; interleaving coverage is off unless asked for;
# a PCT input (the absorbed wake-up's program and a PCT schedule that finds it on
# 2.6.11) replays its finding, shows as the preemptions it makes (which replay the same
# run), runs in the fuzzer under --schedule=pct (the default) with a report that shows
# preemptions and not under preempt (a saved case's bytes the other way round), and
# minimizes to a case of preemptions alone that replays the same finding; --schedule=pct
# writes PCT schedules. No executions to a finding are asserted
# (tests/test_schedule_search.c has the rest).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $bin, $src, $snafu, $tmp
fz=$bin/futex_mm_fuzzer

# 1. The flags
for bad in --interleaving-coverage=2 --interleaving-coverage= --schedule=random --schedule= \
	--crossover=2 --crossover=; do
	"$fz" "$bad" -runs=1 -artifact_prefix="$tmp/" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(grep -c . "$tmp/bad.err")" = 1 ] && grep -q -- "'$bad'" "$tmp/bad.err"; then
		ok
	else
		bad "$bad: exit $rc, stderr: $(cat "$tmp/bad.err")"
	fi
done
mkdir -p "$tmp/c0" "$tmp/c1"
# off by default (docs/fuzzing.md, "The search table"), on when asked
"$fz" --kernel=2.6.11 --interleaving-coverage=1 -runs=200 -seed=1 -artifact_prefix="$tmp/" \
	"$tmp/c1" >"$tmp/on.log" 2>&1
"$fz" --kernel=2.6.11 -runs=200 -seed=1 -artifact_prefix="$tmp/" "$tmp/c0" >"$tmp/off.log" 2>&1
if grep -qx "futex_mm_fuzzer: interleaving coverage on (4096 counters)" "$tmp/on.log" &&
	grep -qx "futex_mm_fuzzer: interleaving coverage off (0 counters)" "$tmp/off.log"; then
	ok
else bad "interleaving coverage: $(grep interleaving "$tmp/on.log" "$tmp/off.log")"; fi

# 2. A PCT input: the program of repro/cases/futex-absorbed-wakeup.case in byte form, its
#    count byte replaced by a PCT schedule (priorities byte 4, change points at steps 25
#    and 31, last byte f2: prog/codec.c), found by trying random ones with snafu replay
grep -v '^preempt\|^expect' "$src/repro/cases/futex-absorbed-wakeup.case" >"$tmp/prog.case"
"$snafu" show --bytes -o "$tmp/prog.bin" "$tmp/prog.case"
n=$(($(wc -c <"$tmp/prog.bin") - 1))
{ head -c "$n" "$tmp/prog.bin"; printf '\x04\x18\x00\x1e\x00\xf2'; } >"$tmp/pct.bin"
out=$("$snafu" replay --quiet --kernel=2.6.11 --oracles=lost-wakeup "$tmp/pct.bin" 2>&1)
if [ "$out" = "$tmp/pct.bin [2.6.11]: lost-wakeup--absorbed--futex_wait" ]; then ok; else
	bad "replay of the PCT input: $out"; fi
#    snafu show: the preemptions it makes on the default kernel, which replay the same run
"$snafu" show "$tmp/pct.bin" >"$tmp/shown.case"
a=$("$snafu" replay --quiet --digest --kernel=2.6.11-rc4 "$tmp/pct.bin" 2>&1 | awk '$3 == "digest"')
b=$("$snafu" replay --quiet --digest --kernel=2.6.11-rc4 "$tmp/shown.case" 2>&1 | awk '$3 == "digest"')
if grep -q '^preempt ' "$tmp/shown.case" && ! grep -q 'PCT' "$tmp/shown.case" &&
	[ -n "$a" ] && [ "${a#* }" = "${b#* }" ]; then ok; else
	bad "snafu show of the PCT input: '$a' vs '$b'"; cat "$tmp/shown.case"; fi
#    the fuzzer runs the kind of schedule its mutator writes: the PCT input under pct (the
#    default), with a report that shows preemptions; not under preempt (one line says so)
mkdir -p "$tmp/art"
"$fz" --kernel=2.6.11 --oracles=lost-wakeup -artifact_prefix="$tmp/art/" "$tmp/pct.bin" \
	>"$tmp/pct.log" 2>&1
if grep -qx 'DEDUP_TOKEN: lost-wakeup--absorbed--futex_wait' "$tmp/pct.log" &&
	grep -q '^preempt 1 at op 3 point [0-9]* to 3$' "$tmp/pct.log" &&
	! grep -q '^# schedule: PCT' "$tmp/pct.log"; then ok; else
	bad "--schedule=pct on the PCT input: $(tail -30 "$tmp/pct.log")"; fi
"$fz" --kernel=2.6.11 --oracles=lost-wakeup --schedule=preempt -artifact_prefix="$tmp/art/" \
	"$tmp/pct.bin" >"$tmp/preempt.log" 2>&1
rc=$?
if [ $rc = 0 ] && ! grep -q DEDUP_TOKEN "$tmp/preempt.log" &&
	grep -qx 'futex_mm_fuzzer: not running inputs with a PCT schedule under --schedule=preempt (--schedule=pct runs them)' "$tmp/preempt.log"; then
	ok
else bad "--schedule=preempt ran the PCT input: exit $rc"; fi
#    and a saved case's bytes (preemptions): under preempt, not under pct
"$snafu" show --bytes -o "$tmp/explicit.bin" "$src/repro/cases/futex-absorbed-wakeup.case"
"$fz" --kernel=2.6.11 --oracles=lost-wakeup --schedule=preempt -artifact_prefix="$tmp/art/" \
	"$tmp/explicit.bin" >"$tmp/explicit.log" 2>&1
if grep -qx 'DEDUP_TOKEN: lost-wakeup--absorbed--futex_wait' "$tmp/explicit.log"; then ok; else
	bad "--schedule=preempt on the saved case's bytes: $(tail -5 "$tmp/explicit.log")"; fi
"$fz" --kernel=2.6.11 --oracles=lost-wakeup -artifact_prefix="$tmp/art/" "$tmp/explicit.bin" \
	>"$tmp/explicit.log" 2>&1
if ! grep -q DEDUP_TOKEN "$tmp/explicit.log" &&
	grep -qx 'futex_mm_fuzzer: not running inputs with preemptions under --schedule=pct (--schedule=preempt runs them)' "$tmp/explicit.log"; then
	ok
else bad "--schedule=pct ran the saved case's bytes"; fi
#    minimized: preemptions alone, the same finding
"$snafu" minimize --kernel=2.6.11 --oracles=lost-wakeup -o "$tmp/min.case" "$tmp/pct.bin" 2>"$tmp/min.err"
out=$("$snafu" replay --quiet --kernel=2.6.11 --oracles=lost-wakeup "$tmp/min.case" 2>&1)
if grep -q '^preempt ' "$tmp/min.case" && ! grep -q 'PCT' "$tmp/min.case" &&
	[ "$out" = "$tmp/min.case [2.6.11]: lost-wakeup--absorbed--futex_wait" ]; then ok; else
	bad "minimized PCT input: $out"; cat "$tmp/min.case" "$tmp/min.err"; fi

# 3. --schedule=pct writes PCT schedules. (Not: that no input with preemptions is kept.
#    libFuzzer 14 keeps an input the target does not run (returns -1 for) when decoding
#    it reached new code, as --ops=futex's mincore inputs show; such an input never runs
#    its preemptions, and the mutator gives it a PCT schedule.)
mkdir -p "$tmp/pc"
"$fz" --kernel=2.6.12-jj --schedule=pct -runs=3000 -seed=1 -artifact_prefix="$tmp/art/" \
	"$tmp/pc" >"$tmp/pc.log" 2>&1
pct=0
for f in "$tmp"/pc/*; do
	last=$(tail -c 1 "$f" | od -An -tu1 | tr -d ' ')
	[ "${last:-0}" -ge 240 ] && pct=$((pct + 1)) # f0..ff: a PCT schedule (prog/codec.c)
done
if [ $pct -gt 0 ]; then ok; else bad "--schedule=pct kept no input with a PCT schedule"; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
