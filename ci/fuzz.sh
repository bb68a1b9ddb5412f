#!/usr/bin/env bash
# Continuous fuzzing: every kernel (`snafu kernels`) for a budget, then one table. A
# kernel listed in ci/known-findings.txt may yield only the signatures listed for it; any
# other kernel must yield nothing. Each fuzzer runs its whole budget, past every finding,
# known or new (`snafu fuzz --known`: the fuzzer's --keep-going), and the line and the
# table give each signature once with the executions to it. A new finding is minimized
# into repro/found/KERNEL/SIGNATURE.case, its report next to it (.report), the raw input
# too (.input), and the script exits 1 naming it. `snafu fuzz` with these defaults
# (driver/drive.c has the details: sorting the artifacts by replaying them, the merge).
#
#   ci/fuzz.sh [--seconds=S | --runs=N] [--jobs=N] [--kernel=NAME]... [--merge | --no-merge]
#
#   --seconds=S     time box per kernel (default 300)
#   --runs=N        executions per kernel instead: the same run on any machine
#   --jobs=N        kernels fuzzed at once (default: the cores)
#   --kernel=NAME   fuzz only this kernel (repeatable; default: every listed kernel)
#   --merge         afterwards, merge the inputs that add coverage into
#                   corpus/futex_mm_fuzzer (tracked by git: the nightly job does this)
#   --no-merge      leave corpus/futex_mm_fuzzer alone (the default)
#
# Each kernel starts from a fresh copy of corpus/futex_mm_fuzzer plus its work corpus
# ($SNAFU_WORK/KERNEL/corpus, the one fuzz/run.sh grows too), which receives the new
# inputs. libFuzzer runs with -max_total_time=S (or -runs=N) -timeout=25.
# With --merge, the inputs that reach new edges and find nothing on any kernel, lockdep's
# prediction aside (they replay with every other oracle), are merged into corpus/futex_mm_fuzzer
# under their SHA-1 names, the named seeds kept.
# Every other option of `snafu fuzz` works here too (`build/bin/snafu fuzz --help`).
#
# Exit: 0 nothing new, 1 a new finding, 2 bad usage or a fuzzer that failed, 130
# interrupted.
# Environment: SNAFU_BIN (default build/bin; built with ./build.sh when missing),
# SNAFU_WORK (default build/fuzz), SNAFU_FOUND (default repro/found), SNAFU_KNOWN
# (default ci/known-findings.txt), SNAFU_MERGE_INTO (default corpus/futex_mm_fuzzer).
# With GITHUB_STEP_SUMMARY set, the table is appended there too.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SNAFU_BIN:-$root/build/bin}
for a in "$@"; do
	case "$a" in
	-h | --help)
		sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	esac
done
if [ ! -x "$bin/futex_mm_fuzzer" ] || [ ! -x "$bin/snafu" ]; then
	if [ -n "${SNAFU_BIN:-}" ]; then
		echo "ci/fuzz.sh: no futex_mm_fuzzer and snafu in $bin" >&2
		exit 2
	fi
	# not an OSS-Fuzz build, whatever the environment says
	env -u LIB_FUZZING_ENGINE "$root/build.sh" asan || exit 2
fi
# every kernel unless --kernel names some
[[ " $* " == *" --kernel"* ]] || set -- --kernel=all "$@"
# a budget: --seconds=300 unless one is given
[[ " $* " == *" --seconds"* || " $* " == *" --runs"* ]] || set -- --seconds=300 "$@"
# no merge unless --merge (--merge-into=DIR alone would merge)
[[ " $* " == *" --merge "* ]] || set -- --no-merge "$@"
exec "$bin/snafu" fuzz -timeout=25 --markdown \
	--known="${SNAFU_KNOWN:-$root/ci/known-findings.txt}" \
	${SNAFU_BIN:+"--fuzzer=$bin/futex_mm_fuzzer"} ${SNAFU_WORK:+"--out=$SNAFU_WORK"} \
	${SNAFU_FOUND:+"--found=$SNAFU_FOUND"} ${SNAFU_MERGE_INTO:+"--merge-into=$SNAFU_MERGE_INTO"} "$@"
