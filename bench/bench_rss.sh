#!/usr/bin/env bash
# Memory: the fuzzer's resident set over 10^6 executions (ASan+UBSan with ASan's default
# options, one process, 2.6.11, the deadlock oracle alone so that no finding stops it),
# from an empty corpus and from the seed corpus. Prints libFuzzer's rss at its status
# lines (executions, rss in MB) and its peak (stat::peak_rss_mb): flat after warm-up
# means the last samples agree with the peak. The fuzzer empties ASan's quarantine every
# 65,536 executions (fuzz/futex_mm_fuzzer.c); ASAN_OPTIONS is left as the caller has it.
#   bench/bench_rss.sh [BIN_DIR] [RUNS]     (./build.sh bench runs it)
set -uo pipefail
bin=${1:-build/bin} runs=${2:-1000000}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin/futex_mm_fuzzer" ] || { echo "bench_rss: no $bin/futex_mm_fuzzer"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for start in empty seeds; do
	rm -rf "$tmp/corpus" && mkdir -p "$tmp/corpus"
	[ $start = seeds ] && cp "$root"/corpus/futex_mm_fuzzer/* "$tmp/corpus/"
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock -seed=1 -runs="$runs" \
		-print_final_stats=1 "$tmp/corpus" >"$tmp/log" 2>&1
	peak=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$tmp/log" | awk '{print $2}')
	# libFuzzer's status lines, "#N  pulse|NEW|REDUCE|DONE ... rss: XMb": the last at or
	# before each tenth of the runs
	samples=$(grep -o '^#[0-9]*.*rss: [0-9]*Mb' "$tmp/log" |
		sed 's/^#\([0-9]*\).*rss: \([0-9]*\)Mb/\1 \2/' | awk -v runs="$runs" '
			{ for (t = 1; t <= 10; t++) if ($1 <= runs * t / 10) at[t] = $2 }
			END { for (t = 1; t <= 10; t++) printf "%s%d%%:%s", (t > 1 ? ", " : ""), t * 10, at[t] }')
	echo "bench_rss: 2.6.11, $runs runs from the $start corpus: peak ${peak:-?} MB; rss (MB) at each tenth of the runs: $samples"
done
