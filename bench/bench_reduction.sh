#!/usr/bin/env bash
# The reduction's long check (docs/explore.md, "Checked, not just argued"): snafu explore
# --check-reduction on N random programs (2-3 tasks, 1-4 ops each, every kind of op) at
# every bound 0..K, on one kernel or all: the outcomes (verdict and end state of every run)
# with the partial-order reduction must be those without it. Prints the summary line and
# every difference; tests/test_explore.sh runs a short one.
#   bench/bench_reduction.sh [BIN_DIR] [N] [K|all] [KERNEL|all] [SEED] [MAX_SCHEDULES] [OPS]
# Defaults: build-gcc/bin, 1000, 3, 2.6.11, 1, 20000 (a search cut there is counted, not
# compared), 12 (the programs' ops in all, at most: --random-ops). K=all: every trace
# against every schedule within 3 preemptions.
set -uo pipefail
bin=${1:-build-gcc/bin} n=${2:-1000} k=${3:-3} kernel=${4:-2.6.11} seed=${5:-1} max=${6:-20000}
ops=${7:-12}
[ -x "$bin/snafu" ] || { echo "bench_reduction: no $bin/snafu (./build.sh gcc builds it)"; exit 0; }
which=--kernel=$kernel
[ "$kernel" = all ] && which=
start=$(date +%s)
# shellcheck disable=SC2086
"$bin/snafu" explore --quiet --check-reduction --random="$n" --seed="$seed" --preemptions="$k" \
	--max-schedules="$max" --random-ops="$ops" $which
st=$?
echo "bench_reduction: $(($(date +%s) - start)) s, exit $st"
