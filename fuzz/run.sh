#!/usr/bin/env bash
# The main job: fuzz one kernel until the first finding, minimize it into a readable case
# under repro/found/KERNEL/, and print its report and the commands that replay, draw and
# debug it. On the unfixed kernel the first finding is lockdep's prediction
# (docs/lockdep.md), which snafu confirm turns into a deadlocking case beside it
# (--oracles=deadlock: deadlocks only; docs/oracles.md). `snafu fuzz` with its defaults
# (driver/drive.c): this script only says where things are.
#
#   fuzz/run.sh [--kernel=NAME] [--ops=futex|all] [libFuzzer flags]   (./build.sh fuzz builds first)
#   fuzz/run.sh -h | --help
#
# Without a finding it runs until a libFuzzer limit (-max_total_time=S, -runs=N) and
# says how many executions found nothing; a progress line every 3 s. The seeds
# (corpus/futex_mm_fuzzer) reach the fuzzer as a list in name order; the corpus grows in
# $SNAFU_WORK/KERNEL/corpus. Every option of `snafu fuzz` works here too (--runs=N,
# --seconds=S, --seed=S, --fresh, ...; `build/bin/snafu fuzz --help`). A libFuzzer flag
# is -NAME=VALUE with a NAME that `futex_mm_fuzzer -help=1` lists and a whole number for
# a VALUE (a path or a string for dict, seed_inputs and the like); -artifact_prefix and
# -exact_artifact_path are the driver's. Anything else is refused with one line before
# anything runs. Ctrl-C (SIGINT) or SIGTERM stops the fuzzer and says so. An ASan or
# UBSan report (DEDUP_TOKEN asan-... or ubsan-..., fuzz/fuzz_support.c) is a bug in the
# model's code, not a finding to minimize: its first lines, its input and its token.
# Exit: 0 no finding, 1 finding, 2 bad usage or a fuzzer that failed, 130 interrupted.
# Environment: SNAFU_BIN (default build/bin), SNAFU_FOUND (default repro/found),
# SNAFU_WORK (default build/fuzz): where the corpus grows and artifacts land.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SNAFU_BIN:-$root/build/bin}
for a in "$@"; do
	case "$a" in
	-h | --help | -help=1)
		sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	esac
done
[ -x "$bin/futex_mm_fuzzer" ] && [ -x "$bin/snafu" ] || {
	echo "fuzz: no futex_mm_fuzzer and snafu in $bin (./build.sh builds them)" >&2
	exit 2
}
exec "$bin/snafu" fuzz ${SNAFU_BIN:+"--fuzzer=$bin/futex_mm_fuzzer"} \
	${SNAFU_WORK:+"--out=$SNAFU_WORK"} ${SNAFU_FOUND:+"--found=$SNAFU_FOUND"} "$@"
