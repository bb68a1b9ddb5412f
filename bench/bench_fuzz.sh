#!/usr/bin/env bash
# Fuzzing figures: over SEEDS seeds from an empty corpus, executions and seconds to the
# first finding of one oracle (median and max), for each row of the table below; then
# steady-state executions per second on one core (2.6.11 from the seed corpus, the
# deadlock oracle alone so that nothing stops it). Address randomization off (setarch -R,
# as snafu fuzz does): a seed gives the same run every time. A run that finds nothing
# within its budget counts as the budget in the median and max (the line says how many
# seeds found it).
#   bench/bench_fuzz.sh [BIN_DIR] [SEEDS] [ROWS] [FUZZER FLAGS...]   (./build.sh bench runs it)
# ROWS: a regular expression that picks rows by their first two words (default: all).
# FUZZER FLAGS go to every run of the fuzzer (--schedule=pct, --interleaving-coverage=0:
# docs/fuzzing.md). BENCH_STEADY=0 leaves out the steady-state rates at the end.
set -uo pipefail
bin=${1:-build/bin} seeds=${2:-20} pick=${3:-.}
shift $(($# < 3 ? $# : 3))
flags=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin/futex_mm_fuzzer" ] || { echo "bench_fuzz: no $bin/futex_mm_fuzzer"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
norand=
setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"
median_max() { sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "median %s, max %s", m, v[NR]}'; }
# kernel, oracle (docs/oracles.md), budget, what it measures
while read -r kernel oracle budget what; do
	echo "$kernel $oracle" | grep -qE "$pick" || continue
	: >"$tmp/rows"
	for s in $(seq 1 "$seeds"); do
		rm -rf "$tmp/c" "$tmp/a" && mkdir -p "$tmp/c" "$tmp/a"
		t0=$(date +%s.%N)
		$norand "$bin/futex_mm_fuzzer" --kernel="$kernel" --oracles="$oracle" ${flags[@]+"${flags[@]}"} -seed="$s" \
			-runs="$budget" -print_final_stats=1 -artifact_prefix="$tmp/a/" "$tmp/c" \
			>"$tmp/log" 2>&1
		t1=$(date +%s.%N)
		n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$tmp/log" | awk '{print $2}')
		tok=$(grep -o '^DEDUP_TOKEN: .*' "$tmp/log" | head -1 | cut -d' ' -f2)
		printf '%s %s %s %s\n' "$s" "${n:-?}" "$(echo "$t1 - $t0" | bc)" "${tok:-none}" >>"$tmp/rows"
	done
	echo "bench_fuzz: $kernel from an empty corpus, --oracles=$oracle${flags[*]+ ${flags[*]}}, $seeds seeds, at most $budget runs (seed, executions, seconds, first finding):"
	sed 's/^/  /' "$tmp/rows"
	found=$(awk '$4 != "none"' "$tmp/rows" | wc -l)
	echo "bench_fuzz: executions to the $what: $(awk '{print $2}' "$tmp/rows" | median_max) ($found of $seeds seeds found it)"
	echo "bench_fuzz: seconds to the $what: $(awk '{print $3}' "$tmp/rows" | median_max)"
	echo "bench_fuzz: found: $(awk '{print $4}' "$tmp/rows" | sort | uniq -c | tr '\n' ';' | sed 's/  */ /g')"
done <<'ROWS'
2.6.11-rc4 deadlock 200000 first deadlock
2.6.11-rc4 lockdep 200000 first lockdep report
2.6.11 lost-wakeup 1000000 first lost wake-up
2.6.10-seto lost-wakeup 1000000 first lost wake-up
2.6.11 result 1000000 first wrong result
ROWS

[ "${BENCH_STEADY:-1}" = 0 ] && exit 0
# Steady state, one process: from an empty corpus, and from the seed corpus, whose
# seed testcase (1,024 FUTEX_WAITs) and its mutants cost milliseconds each.
for start in empty seeds; do
	rm -rf "$tmp/corpus" && mkdir -p "$tmp/corpus"
	[ $start = seeds ] && cp "$root"/corpus/futex_mm_fuzzer/* "$tmp/corpus/"
	# the deadlock oracle alone: 2.6.11's futex bugs (docs/oracles.md) would end the run
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock ${flags[@]+"${flags[@]}"} -seed=1 -runs=300000 "$tmp/corpus" \
		>"$tmp/steady" 2>&1
	rate=$(grep -o 'exec/s: [0-9]*' "$tmp/steady" | tail -1 | awk '{print $2}')
	corp=$(grep -o 'corp: [0-9]*' "$tmp/steady" | tail -1 | awk '{print $2}')
	echo "bench_fuzz: 2.6.11, 300000 runs from the $start corpus (grown to $corp inputs): $rate exec/s"
done
