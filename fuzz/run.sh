#!/usr/bin/env bash
# The main job: fuzz one kernel until the first finding, minimize it into a readable case
# under repro/found/, and print its report and the command that replays it.
#
#   fuzz/run.sh [--kernel=NAME] [libFuzzer flags]      (./build.sh fuzz builds first)
#
# Without a finding it runs until a libFuzzer limit (-max_total_time=S, -runs=N) and
# says how many executions found nothing. Exit: 0 no finding, 1 finding, 2 bad usage.
# Environment: SNAFU_BIN (default build/bin), SNAFU_FOUND (default repro/found),
# SNAFU_WORK (default build/fuzz): where the corpus grows and artifacts land.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SNAFU_BIN:-$root/build/bin}
found=${SNAFU_FOUND:-$root/repro/found}
kernel=2.6.11-rc4
args=()
for a in "$@"; do
	case "$a" in
	--kernel=*) kernel=${a#--kernel=} ;;
	*) args+=("$a") ;;
	esac
done
if ! "$bin/snafu" kernels | awk '{print $1}' | grep -qx -- "$kernel"; then
	echo "fuzz: unknown kernel '$kernel'; valid kernels: $("$bin/snafu" kernels | awk '{print $1}' | tr '\n' ' ')" >&2
	exit 2
fi
work=${SNAFU_WORK:-$root/build/fuzz}/$kernel
rm -rf "$work/artifacts"
mkdir -p "$work/corpus" "$work/artifacts" "$found"
log=$work/fuzz.log progress=$work/progress
rm -f "$progress"

echo "fuzz: kernel $kernel, corpus $work/corpus + $root/corpus/futex_mm_fuzzer, log $log"
"$bin/futex_mm_fuzzer" --kernel="$kernel" --progress="$progress" -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "${args[@]}" "$work/corpus" \
	"$root/corpus/futex_mm_fuzzer" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' INT TERM
start=$SECONDS last=0
while kill -0 $pid 2>/dev/null; do
	sleep 1
	if [ $((SECONDS - last)) -ge 3 ]; then
		last=$SECONDS
		execs=$(cat "$progress" 2>/dev/null || echo 0)
		el=$((SECONDS - start))
		corp=$(ls "$work/corpus" | wc -l)
		nf=$(ls "$work/artifacts" | wc -l)
		echo "fuzz: ${el}s, $execs executions, $((execs / (el > 0 ? el : 1)))/s, corpus $corp, findings $nf"
	fi
done
wait $pid
rc=$?
execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
artifact=$(ls -t "$work/artifacts"/* 2>/dev/null | head -1)
if [ -z "$artifact" ]; then
	if [ $rc -ne 0 ]; then
		echo "fuzz: the fuzzer failed (exit $rc) without an artifact; see $log" >&2
		tail -5 "$log" >&2
		exit 2
	fi
	echo "fuzz: no finding in ${execs:-0} executions on $kernel"
	exit 0
fi
token=$(grep -o 'DEDUP_TOKEN: [^ ]*' "$log" | head -1 | awk '{print $2}')
echo "fuzz: finding after ${execs:-?} executions: ${token:-$(basename "$artifact")} ($artifact)"
case "$(basename "$artifact")" in
crash-*)
	out=$found/${token:-$(basename "$artifact")}.case
	"$bin/snafu" minimize --kernel="$kernel" -o "$out" "$artifact" || exit 2
	echo "fuzz: minimized case: $out"
	cat "$out"
	echo
	"$bin/snafu" replay --kernel="$kernel" "$out"
	echo
	echo "reproduce with: build/bin/snafu replay --kernel=$kernel ${out#$root/}"
	echo "picture it with: build/bin/snafu trace --kernel=$kernel ${out#$root/} -o ${out#$root/}.html"
	echo "debug it with:  build/bin/snafu record --kernel=$kernel ${out#$root/}   (rr, else gdb at the finding's step)"
	;;
*)
	# a libFuzzer timeout, OOM or leak: not the watchdog's kind of finding
	echo "fuzz: libFuzzer reported $(basename "$artifact"); see $log"
	tail -20 "$log"
	;;
esac
exit 1
