#!/usr/bin/env bash
# snafu record where rr can record: it records the replay of the LWN case, packs the
# trace, exits 0 and prints `rr replay DIR -- -x repro/snafu-gdb.py`; that replay, with
# the printed breakpoint, stops at the finding with the helpers showing the deadlock, and
# the printed way back (break do_page_fault, reverse-continue) goes back into the fault.
#
# rr needs hardware performance counters. Where it cannot record (most VMs, this
# project's machines) this says why, with rr's own error, and exits 77: CTest counts it
# as skipped (tests/test_record.sh covers the fallback there).
#
#   bash tests/test_record_rr.sh BIN_DIR SRC_DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh" # has
setup_test "$@"            # $src, $snafu, $tmp
case_file=repro/cases/futex-wait-mmap-sem.case
if ! command -v rr >/dev/null; then
	echo "skipped: rr is not installed (Debian: apt-get install rr, or ./build.sh test installs it)"
	exit 77
fi
mkdir -p "$tmp/probe" "$tmp/traces"
if ! _RR_TRACE_DIR=$tmp/probe timeout 300 rr record -n /bin/true >/dev/null 2>"$tmp/probe.err"; then
	echo "skipped: rr cannot record here: $(grep -m1 -E 'FATAL|rror' "$tmp/probe.err" ||
		head -1 "$tmp/probe.err")"
	exit 77
fi
if ! command -v gdb >/dev/null; then
	echo "skipped: rr can record, but there is no gdb to replay with"
	exit 77
fi
cd "$src" || exit 2
export _RR_TRACE_DIR=$tmp/traces # rr's traces go here, removed at the end
export ASAN_OPTIONS=detect_leaks=0

"$snafu" record "$case_file" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && ok || {
	bad "snafu record: exit $rc, expected 0"
	cat "$tmp/err"
}
has "$tmp/out" "recorded" "^snafu record: recorded in .* \(packed"
has "$tmp/out" "summary" "^$case_file \[2\.6\.11-rc4\]: deadlock--do_page_fault--futex_wait at step [0-9]+,"
has "$tmp/out" "replay command" "^  rr replay [^ ]+ -- -x repro/snafu-gdb\.py\$"
has "$tmp/out" "the finding's breakpoint" "^  \(gdb\) break check_hung_tasks\$"
has "$tmp/out" "the way back: the kernel function's breakpoint" "^  \(gdb\) break do_page_fault\$"
has "$tmp/out" "the way back: reverse-continue" "^  \(gdb\) reverse-continue   back into do_page_fault\(\)"
dir=$(sed -n 's/^  rr replay \([^ ]*\) -- -x .*/\1/p' "$tmp/out")
if [ -n "$dir" ] && [ -d "$dir" ] && [ "${dir#"$tmp/traces/"}" != "$dir" ]; then ok; else
	bad "the trace directory '$dir' is not under \$_RR_TRACE_DIR"
fi
steps=$("$snafu" replay --quiet --digest "$case_file" | sed -n 's/.* steps \([0-9]*\) runs.*/\1/p')

timeout 600 rr replay "$dir" -- -batch -x repro/snafu-gdb.py -ex 'break check_hung_tasks' \
	-ex continue -ex snafu-step -ex snafu-tasks -ex 'snafu-bt 1' -ex 'snafu-bt 2' \
	-ex 'break do_page_fault' -ex reverse-continue >"$tmp/gdb" 2>&1
g=$tmp/gdb
has "$g" "at the breakpoint" "Breakpoint 1, check_hung_tasks"
has "$g" "the way back: into do_page_fault" "Breakpoint 2, do_page_fault"
has "$g" "snafu-step" "^step $steps of budget"
has "$g" "snafu-tasks: T1" "^T1 \(id 1\): sim blocked, state D, in sys_futex, .*blocked in down_read\(&mm->mmap_sem\) at do_page_fault\$"
has "$g" "snafu-tasks: T1's lock" "^  holds #0: &mm->mmap_sem \(read\), taken at futex_wait\$"
has "$g" "snafu-tasks: T2" "^T2 \(id 2\): sim blocked, state D, in sys_mmap2, .*blocked in down_write\(&mm->mmap_sem\) at sys_mmap2\$"
# both tasks are switched out at the judgement: their backtraces come from the saved
# registers (or, where rr refuses register writes, from a frame-pointer walk)
awk '/^T1 is switched out/ {f = 1; next} /^T2 is switched out/ {f = 0} f' "$g" >"$tmp/bt1"
awk '/^T2 is switched out/ {f = 1; next} f' "$g" >"$tmp/bt2"
has "$tmp/bt1" "snafu-bt 1: do_page_fault" "^#[0-9]+ .*do_page_fault"
has "$tmp/bt1" "snafu-bt 1: futex_wait" "^#[0-9]+ .*futex_wait"
has "$tmp/bt2" "snafu-bt 2: rwsem_down_write" "^#[0-9]+ .*rwsem_down_write"
has "$tmp/bt2" "snafu-bt 2: sys_mmap2" "^#[0-9]+ .*sys_mmap2"
if grep -qE "Python Exception|Error occurred in Python" "$g"; then bad "the helpers failed"; else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
