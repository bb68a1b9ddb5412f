#!/usr/bin/env bash
# Real threads against the fuzzer, on 2.6.11-rc4, side by side in one run:
#  - snafu stress (Olof's testcase, 2 threads, hung-task threshold 100 ms): seconds until
#    the hang (when the task the watchdog caught blocked, to the millisecond), RUNS runs;
#  - futex_mm_fuzzer from an empty corpus: seconds and executions to the first deadlock,
#    over the same number of seeds (--oracles=deadlock: lockdep's prediction would come first,
#    and stress has no such oracle);
# and the ratio of the medians.   bench/bench_stress.sh [BIN_DIR] [RUNS]
set -uo pipefail
bin=${1:-build/bin} runs=${2:-10}
[ -x "$bin/futex_mm_fuzzer" ] && [ -x "$bin/snafu-native" ] || { echo "bench_stress: needs $bin/futex_mm_fuzzer and snafu-native"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; print m}'; }
max() { sort -g | tail -1; }
: >"$tmp/stress" ; : >"$tmp/fuzz"
for i in $(seq 1 "$runs"); do
	"$bin/snafu" stress --kernel=2.6.11-rc4 --hang-ms=100 --seconds=120 >"$tmp/out" 2>&1
	grep -o 'hung after [0-9.]* s' "$tmp/out" | awk '{print $3}' >>"$tmp/stress"
	rm -rf "$tmp/c" "$tmp/a" && mkdir -p "$tmp/c" "$tmp/a"
	t0=$(date +%s.%N)
	"$bin/futex_mm_fuzzer" --oracles=deadlock -seed="$i" -runs=200000 -print_final_stats=1 -artifact_prefix="$tmp/a/" \
		"$tmp/c" >"$tmp/log" 2>&1
	t1=$(date +%s.%N)
	n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$tmp/log" | awk '{print $2}')
	echo "$(echo "$t1 - $t0" | bc) $n" >>"$tmp/fuzz"
done
s_med=$(median <"$tmp/stress") s_max=$(max <"$tmp/stress")
f_med=$(awk '{print $1}' "$tmp/fuzz" | median) f_max=$(awk '{print $1}' "$tmp/fuzz" | max)
e_med=$(awk '{print $2}' "$tmp/fuzz" | median)
echo "bench_stress: 2.6.11-rc4, $runs runs each, 2 cores"
echo "bench_stress: snafu stress (real threads): hung after median $s_med s, max $s_max s ($(wc -l <"$tmp/stress") of $runs hung)"
echo "bench_stress: futex_mm_fuzzer (empty corpus): first deadlock after median $f_med s, max $f_max s, median $e_med executions"
echo "bench_stress: ratio fuzzer/stress (medians): $(echo "scale=2; $f_med / ($s_med + 0.0001)" | bc)"
