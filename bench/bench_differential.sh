#!/usr/bin/env bash
# The differential test at scale (docs/differential.md): PROGRAMS seeded random programs
# (100,000 by default) on the model and on this machine's kernel, and the table of their
# disagreements: era differences and known model defects by entry, DEFECTs by kind, each
# kind with the first seed that shows it (replay: differential --seed=N --programs=1
# --verbose). Never fails on a DEFECT: a benchmark prints figures. KERNEL is the model's
# (default 2.6.11; 2.6.14, 2.6.17 and 2.6.18 have futex_wake_op in their programs).
#   bench/bench_differential.sh [BIN_DIR] [PROGRAMS] [SEED] [KERNEL]
set -uo pipefail
bin=${1:-build/bin} programs=${2:-100000} seed=${3:-1} kernel=${4:-2.6.11}
[ -x "$bin/differential" ] || { echo "bench_differential: needs $bin/differential"; exit 0; }
"$bin/differential" --kernel="$kernel" --programs="$programs" --seed="$seed" --print=0 |
	sed "s/^differential: //; s/^/bench_differential: /"
rc=${PIPESTATUS[0]}
[ "$rc" = 77 ] && echo "bench_differential: skipped (the host cannot run it)"
exit 0
