#!/usr/bin/env bash
# Executions per second of the main fuzzer, as the issues' bar measures them: 2.6.11, the
# deadlock oracle alone (so that nothing stops a run), each fuzzer from an empty corpus,
# SEEDS fuzzers (seeds 1..SEEDS) of RUNS executions one after the other. One corpus's
# trajectory moves the rate by several per cent (what it keeps, it runs again); the
# seeds average that out. Prints each fuzzer's rate and the whole run's: executions over
# wall seconds. To compare two builds, run this for each in turn, A B A B, and take the
# median of the pairs' ratios (docs/fuzzing.md, "A role's op in one draw").
#   bench/bench_execs.sh [BIN_DIR] [SEEDS] [RUNS]   (defaults: build/bin, 4, 100000)
set -uo pipefail
bin=${1:-build/bin} seeds=${2:-4} runs=${3:-100000}
[ -x "$bin/futex_mm_fuzzer" ] || { echo "bench_execs: no $bin/futex_mm_fuzzer"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 t_all=0
for s in $(seq 1 "$seeds"); do
	rm -rf "$tmp/c" && mkdir -p "$tmp/c"
	t0=$(date +%s.%N)
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock -seed="$s" -runs="$runs" \
		-print_funcs=0 -print_final_stats=1 "$tmp/c" >"$tmp/log" 2>&1
	t1=$(date +%s.%N)
	n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$tmp/log" | awk '{print $2}')
	t=$(echo "$t1 - $t0" | bc)
	echo "bench_execs: seed $s: ${n:-?} executions in $t s: $(echo "${n:-0} / $t" | bc) exec/s"
	total=$((total + ${n:-0}))
	t_all=$(echo "$t_all + $t" | bc)
done
echo "bench_execs: $seeds fuzzers, $total executions in $t_all s: $(echo "$total / $t_all" | bc) exec/s"
