#!/usr/bin/env bash
# Fuzzing figures: over 20 seeds from an empty corpus on 2.6.11-rc4, executions and
# seconds to the first deadlock (median and max); then steady-state executions per
# second on one core (the fixed kernel from the seed corpus, where nothing stops it).
#   bench/bench_fuzz.sh [BIN_DIR] [SEEDS]     (./build.sh bench runs it)
set -uo pipefail
bin=${1:-build/bin} seeds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin/futex_mm_fuzzer" ] || { echo "bench_fuzz: no $bin/futex_mm_fuzzer"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/rows"
for s in $(seq 1 "$seeds"); do
	rm -rf "$tmp/c" "$tmp/a" && mkdir -p "$tmp/c" "$tmp/a"
	t0=$(date +%s.%N)
	"$bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 --oracles=deadlock -seed="$s" -runs=200000 -print_final_stats=1 \
		-artifact_prefix="$tmp/a/" "$tmp/c" >"$tmp/log" 2>&1
	t1=$(date +%s.%N)
	n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$tmp/log" | awk '{print $2}')
	tok=$(grep -o '^DEDUP_TOKEN: .*' "$tmp/log" | head -1 | cut -d' ' -f2)
	printf '%s %s %s %s\n' "$s" "${n:-?}" "$(echo "$t1 - $t0" | bc)" "${tok:-none}" >>"$tmp/rows"
done
echo "bench_fuzz: 2.6.11-rc4 from an empty corpus, $seeds seeds (seed, executions, seconds, first finding):"
sed 's/^/  /' "$tmp/rows"
median_max() { sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "median %s, max %s", m, v[NR]}'; }
echo "bench_fuzz: executions to first deadlock: $(awk '{print $2}' "$tmp/rows" | median_max)"
echo "bench_fuzz: seconds to first deadlock: $(awk '{print $3}' "$tmp/rows" | median_max)"
echo "bench_fuzz: found: $(awk '{print $4}' "$tmp/rows" | sort | uniq -c | tr '\n' ';' | sed 's/  */ /g')"

# Steady state, one process: from an empty corpus, and from the seed corpus, whose
# seed testcase (1,024 FUTEX_WAITs) and its mutants cost milliseconds each.
for start in empty seeds; do
	rm -rf "$tmp/corpus" && mkdir -p "$tmp/corpus"
	[ $start = seeds ] && cp "$root"/corpus/futex_mm_fuzzer/* "$tmp/corpus/"
	# the deadlock oracle alone: 2.6.11's futex bugs (docs/oracles.md) would end the run
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock -seed=1 -runs=300000 "$tmp/corpus" \
		>"$tmp/steady" 2>&1
	rate=$(grep -o 'exec/s: [0-9]*' "$tmp/steady" | tail -1 | awk '{print $2}')
	corp=$(grep -o 'corp: [0-9]*' "$tmp/steady" | tail -1 | awk '{print $2}')
	echo "bench_fuzz: 2.6.11, 300000 runs from the $start corpus (grown to $corp inputs): $rate exec/s"
done
