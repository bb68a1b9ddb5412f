#!/usr/bin/env bash
# The explore table (docs/explore.md, "Every trace"): snafu explore --preemptions=all on
# every case of repro/cases/ (its program, its own schedule ignored) on every kernel, each
# search stopped after LIMIT seconds (SIGTERM: the line says how far it got), beside the
# search to K preemptions (default 3) for comparison. One row per case and kernel:
# traces and schedules, verdict, seconds, peak resident memory (/usr/bin/time's, where
# the machine has it: GNU time, Debian's package "time"; else ?), then the bounded
# search's verdict (at most 20,000 schedules). The counts are deterministic; the seconds
# and megabytes are this machine's.
#   bench/bench_explore.sh [BIN_DIR] [LIMIT] [CASES] [K]
# Defaults: build-gcc/bin (no sanitizers, the fastest), 60, every case, 3. CASES: a
# regular expression over the cases' names.
set -uo pipefail
bin=${1:-build-gcc/bin} limit=${2:-60} pick=${3:-.} k=${4:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin/snafu" ] || { echo "bench_explore: no $bin/snafu (./build.sh gcc builds it)"; exit 0; }
kernels=$("$bin/snafu" kernels | awk '{print $1}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gnutime=
/usr/bin/time -f %M -o "$tmp/mem" true 2>/dev/null && gnutime=/usr/bin/time
echo "| case | kernel | every trace (--preemptions=all) | seconds | peak MB | within $k preemptions |"
echo "|---|---|---|--:|--:|---|"
for c in "$root"/repro/cases/*.case; do
	name=$(basename "$c" .case)
	grep -qE "$pick" <<<"$name" || continue
	for kn in $kernels; do
		start=$(date +%s%N)
		: >"$tmp/mem"
		line=$(${gnutime:+$gnutime -f %M -o "$tmp/mem"} timeout -s TERM "$limit" "$bin/snafu" explore --quiet --kernel="$kn" --preemptions=all "$c" 2>/dev/null | grep '^explore: ' | tail -1)
		ms=$((($(date +%s%N) - start) / 1000000))
		kb=$(grep -E '^[0-9]+$' "$tmp/mem" | tail -1) mb='?'
		[ -n "$kb" ] && mb=$((kb / 1024))
		bounded=$("$bin/snafu" explore --quiet --kernel="$kn" --preemptions="$k" --max-schedules=20000 "$c" 2>/dev/null | grep '^explore: ' | tail -1)
		printf '| %s | `%s` | %s | %d.%d | %s | %s |\n' "$name" "$kn" "${line#*]: }" $((ms / 1000)) $((ms % 1000 / 100)) \
			"$mb" "${bounded#*]: }"
	done
done
