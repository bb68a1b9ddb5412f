#!/usr/bin/env bash
# Two engines on the unfixed kernel: executions (and seconds) to the first finding on
# 2.6.11-rc4 (lockdep's prediction since there is one: AFL++'s targets take no flags, so
# libFuzzer runs with lockdep too), libFuzzer (build/bin/futex_mm_fuzzer: the
# structure-aware mutator) against
# AFL++ (build-afl/: byte mutations through AFL++'s libFuzzer driver), a few seeds each,
# both from the same one-input corpus (one mmap) with the same dictionary.
#   bench/bench_afl.sh [BIN_DIR] [SEEDS] [SECONDS]     (./build.sh bench runs it)
# BIN_DIR holds futex_mm_fuzzer and snafu (default build/bin); AFL++'s targets are built
# with ci/afl-build.sh when missing and afl-clang-fast is installed, else this says so and
# exits 0. SECONDS (default 60) bounds each AFL++ run; libFuzzer runs at most 200,000
# executions.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/bin} seeds=${2:-5} secs=${3:-60}
afl=${SNAFU_AFL_BUILD:-$root/build-afl}/bin/futex_mm_fuzzer_2_6_11_rc4
[ -x "$bin/futex_mm_fuzzer" ] || { echo "bench_afl: no $bin/futex_mm_fuzzer"; exit 0; }
if [ ! -x "$afl" ]; then
	if ! command -v afl-clang-fast >/dev/null || ! command -v afl-fuzz >/dev/null; then
		echo "bench_afl: skipped: afl++ is not installed (./build.sh afl installs it)"
		exit 0
	fi
	"$root/ci/afl-build.sh" >/dev/null || { echo "bench_afl: ci/afl-build.sh failed"; exit 0; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dict=$root/fuzz/futex_mm_fuzzer.dict
mkdir -p "$tmp/start"
printf '\0\0\0\0\0\0\0\3' >"$tmp/start/mmap" # one op: mmap 1 page, private (the dict's mmap_private)
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
export AFL_BENCH_UNTIL_CRASH=1 AFL_QUIET=1

: >"$tmp/rows"
for s in $(seq 1 "$seeds"); do
	# libFuzzer
	rm -rf "$tmp/c" "$tmp/a" && mkdir -p "$tmp/c" "$tmp/a" && cp "$tmp/start/mmap" "$tmp/c/"
	t0=$(date +%s.%N)
	"$bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 -seed="$s" -runs=200000 -dict="$dict" \
		-print_final_stats=1 -artifact_prefix="$tmp/a/" "$tmp/c" >"$tmp/log" 2>&1
	t1=$(date +%s.%N)
	n=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$tmp/log" | awk '{print $2}')
	tok=$(grep -o '^DEDUP_TOKEN: .*' "$tmp/log" | head -1 | cut -d' ' -f2)
	printf 'libFuzzer %s %s %s %s\n' "$s" "${n:-?}" "$(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}')" "${tok:-none}" >>"$tmp/rows"
	# AFL++
	rm -rf "$tmp/o"
	t0=$(date +%s.%N)
	afl-fuzz -i "$tmp/start" -o "$tmp/o" -s "$s" -V "$secs" -t 1000 -x "$dict" -- "$afl" \
		>"$tmp/afl.log" 2>&1
	t1=$(date +%s.%N)
	n=$(awk -F': *' '$1 ~ /^execs_done/ {print $2}' "$tmp/o/default/fuzzer_stats" 2>/dev/null)
	crash=$(find "$tmp/o/default/crashes" -name 'id:*' 2>/dev/null | sort | head -1)
	tok=none
	if [ -n "$crash" ]; then
		tok=$("$bin/snafu" replay --quiet --kernel=2.6.11-rc4 "$crash" 2>/dev/null |
			sed 's/^.*\]: //')
		[ -n "$tok" ] || tok="crash (snafu cannot replay it)"
	fi
	printf 'AFL++ %s %s %s %s\n' "$s" "${n:-?}" "$(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}')" "$tok" >>"$tmp/rows"
done

echo "bench_afl: 2.6.11-rc4, executions to the first finding, $seeds seeds, one-input start corpus, dictionary (engine, seed, executions, seconds, first finding):"
sed 's/^/  /' "$tmp/rows"
median_max() { sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "median %s, max %s", m, v[NR]}'; }
for e in libFuzzer AFL++; do
	found=$(awk -v e="$e" '$1 == e && $5 != "none"' "$tmp/rows" | wc -l)
	echo "bench_afl: $e: found in $found/$seeds runs; executions $(awk -v e="$e" '$1 == e {print $3}' "$tmp/rows" | median_max); seconds $(awk -v e="$e" '$1 == e {print $4}' "$tmp/rows" | median_max)"
done
echo "bench_afl: (a run without a finding counts its executions within the bound: libFuzzer 200,000, AFL++ ${secs}s)"
