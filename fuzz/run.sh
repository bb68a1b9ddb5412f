#!/usr/bin/env bash
# The main job: fuzz one kernel until the first finding, minimize it into a readable case
# under repro/found/, and print its report and the command that replays it.
#
#   fuzz/run.sh [--kernel=NAME] [--ops=futex|all] [libFuzzer flags]   (./build.sh fuzz builds first)
#   fuzz/run.sh -h | --help
#
# Without a finding it runs until a libFuzzer limit (-max_total_time=S, -runs=N) and
# says how many executions found nothing. The flags are checked before anything runs, as
# libFuzzer only warns of a flag it does not know (in the log) and reads -runs=abc as 0:
# a libFuzzer flag is -NAME=VALUE with a NAME that `futex_mm_fuzzer -help=1` lists and a
# whole number for a VALUE (a path or a string for dict, seed_inputs, stop_file and the
# like); -artifact_prefix and -exact_artifact_path are this script's. Anything else is
# refused with one line. Ctrl-C (SIGINT) or SIGTERM stops the fuzzer and says so. An ASan
# or UBSan report (DEDUP_TOKEN asan-... or ubsan-..., fuzz/fuzz_support.c) is a bug in the
# model's code, not a finding to minimize: its first lines, its input and its token.
# Exit: 0 no finding, 1 finding, 2 bad usage or a fuzzer that failed, 130 interrupted.
# Environment: SNAFU_BIN (default build/bin), SNAFU_FOUND (default repro/found),
# SNAFU_WORK (default build/fuzz): where the corpus grows and artifacts land.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SNAFU_BIN:-$root/build/bin}
found=${SNAFU_FOUND:-$root/repro/found}
# the default kernel is snafu's (SNAFU_DEFAULT_KERNEL in prog/exec.h)
kernel=$(sed -n 's/^#define SNAFU_DEFAULT_KERNEL "\(.*\)"$/\1/p' "$root/prog/exec.h")

usage() { echo "fuzz: $*" >&2; exit 2; }
for a in "$@"; do
	case "$a" in
	-h | --help | -help=1)
		sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	esac
done
[ -x "$bin/futex_mm_fuzzer" ] && [ -x "$bin/snafu" ] ||
	usage "no futex_mm_fuzzer and snafu in $bin (./build.sh builds them)"

# libFuzzer's flags that take a string or a path (FuzzerFlags.def's FUZZER_FLAG_STRING);
# the unsigned ones (seed, jobs, workers) take no minus sign; every other one a number
string_flags=" seed_inputs stop_file merge_control_file features_dir mutation_graph_file dict \
artifact_prefix exact_artifact_path exit_on_src_pos exit_on_item focus_function data_flow_trace \
collect_data_flow "
known_flags=
args=()
n=0
for a in "$@"; do
	n=$((n + 1))
	bad="argument $n '$a'"
	case "$a" in
	--kernel=*) kernel=${a#--kernel=} ;;
	--ops=futex | --ops=all) args+=("$a") ;;
	--ops=*) usage "$bad: expected --ops=futex or --ops=all" ;;
	--*) usage "$bad: expected --kernel=NAME, --ops=futex|all or a libFuzzer flag -NAME=VALUE (one dash)" ;;
	-artifact_prefix=* | -exact_artifact_path=*)
		usage "$bad: fuzz/run.sh puts artifacts in its work directory (\$SNAFU_WORK/KERNEL/artifacts)" ;;
	-[a-z]*=*)
		name=${a%%=*} name=${name#-} val=${a#*=}
		if [ -z "$known_flags" ]; then
			known_flags=" $("$bin/futex_mm_fuzzer" -help=1 2>&1 |
				awk '/^Flags:/ {on = 1; next} on && /^ [a-z_]+[ \t]/ {print $1}' | tr '\n' ' ') "
		fi
		[[ $known_flags == *" $name "* ]] ||
			usage "$bad: -$name is not a libFuzzer flag (\`$bin/futex_mm_fuzzer -help=1\` lists them)"
		case "$string_flags" in
		*" $name "*) ;;
		*)
			case "$name" in
			seed | jobs | workers) re='^[0-9]+$' ;;
			*) re='^-?[0-9]+$' ;;
			esac
			[[ $val =~ $re ]] || usage "$bad: -$name takes a whole number, not '$val'"
			;;
		esac
		args+=("$a")
		;;
	*) usage "$bad: expected --kernel=NAME, --ops=futex|all or a libFuzzer flag -NAME=VALUE" ;;
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

# Ctrl-C reaches the fuzzer too (it is in the terminal's process group); a SIGINT or
# SIGTERM sent to this script alone is passed on. Either way: "interrupted", exit 130.
interrupted="" pid=""
on_signal() {
	interrupted=1
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
}
trap on_signal INT TERM
echo "fuzz: kernel $kernel, corpus $work/corpus + $root/corpus/futex_mm_fuzzer, log $log"
"$bin/futex_mm_fuzzer" --kernel="$kernel" --progress="$progress" -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "${args[@]}" "$work/corpus" \
	"$root/corpus/futex_mm_fuzzer" >"$log" 2>&1 &
pid=$!
[ -n "$interrupted" ] && kill -TERM "$pid" 2>/dev/null
start=$SECONDS last=0
while kill -0 $pid 2>/dev/null; do
	sleep 1
	if [ -z "$interrupted" ] && [ $((SECONDS - last)) -ge 3 ]; then
		last=$SECONDS
		execs=$(cat "$progress" 2>/dev/null || echo 0)
		el=$((SECONDS - start))
		corp=$(ls "$work/corpus" | wc -l)
		nf=$(ls "$work/artifacts" | wc -l)
		echo "fuzz: ${el}s, $execs executions, $((execs / (el > 0 ? el : 1)))/s, corpus $corp, findings $nf"
	fi
done
# a trapped signal ends `wait` early: wait again until the fuzzer is gone
while :; do
	wait $pid
	rc=$?
	kill -0 $pid 2>/dev/null || break
done
if [ -n "$interrupted" ]; then
	execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
	[ -n "$execs" ] || execs=$(cat "$progress" 2>/dev/null || echo 0)
	echo "fuzz: interrupted after ${execs:-0} executions on $kernel; the corpus so far is in $work/corpus" >&2
	exit 130
fi
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
case "$token:$(basename "$artifact")" in
asan-*:crash-* | ubsan-*:crash-*)
	# ASan or UBSan in the model's code (fuzz/fuzz_support.c's token): snafu would hit
	# the same report, so nothing to minimize; the report and the input
	echo "fuzz: a sanitizer report, not a finding of the model's; the input: $artifact"
	# its first lines, down to the first stack's end, and its summary
	awk '/==ERROR: |runtime error: / {on = 1} on && /^SUMMARY: / {print; exit} /^$/ {on += on == 1} on == 1' \
		"$log" | head -40
	echo "DEDUP_TOKEN: $token"
	echo "reproduce with: build/bin/futex_mm_fuzzer --kernel=$kernel ${artifact#"$root"/}"
	;;
*:crash-*)
	out=$found/${token:-$(basename "$artifact")}.case
	"$bin/snafu" minimize --kernel="$kernel" --input=bytes -o "$out" "$artifact" || exit 2
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
