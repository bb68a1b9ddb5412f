#!/usr/bin/env bash
# snafu record where rr cannot record (this project's machines: no hardware performance
# counters), and the gdb fallback it prints:
#  - exit 3; the first line (stderr) says why, with rr's own error; the fallback commands
#    follow on stdout; bad usage gets one line and exit 2;
#  - `snafu replay --stop-at-step=N` dies of SIGTRAP without a debugger, and changes
#    nothing when the run never gets there;
#  - the printed gdb command, run with gdb -batch and the helpers (repro/snafu-gdb.py),
#    stops by SIGTRAP at the finding's step: snafu-step, snafu-tasks and snafu-bt show
#    the deadlock of the LWN article; after snafu-bt the run continues to its report;
#  - the printed `record full` recipe (GLIBC_TUNABLES) records into the finding and
#    through check_hung_tasks' glibc string functions, and steps backwards.
# Where rr can record, the fallback is forced with SNAFU_RR=/nonexistent (the rr path has
# its own test, tests/test_record_rr.sh).
#
#   bash tests/test_record.sh BIN_DIR SRC_DIR
set -uo pipefail
bin=${1:?usage: test_record.sh BIN_DIR SRC_DIR}
src=${2:?usage: test_record.sh BIN_DIR SRC_DIR}
bin=$(cd "$bin" && pwd)
snafu=$bin/snafu
[ -x "$snafu" ] || {
	echo "test_record.sh: $snafu: not an executable"
	exit 2
}
case_file=repro/cases/futex-wait-mmap-sem.case
tmp=$(mktemp -d "${TMPDIR:-/tmp}/snafu-record.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 2
export ASAN_OPTIONS=detect_leaks=0 # LeakSanitizer does not work under ptrace (gdb)

. "$(dirname "$0")/lib.sh"
has() { # has FILE WHAT PATTERN: grep -E PATTERN in FILE
	if grep -qE -- "$3" "$1"; then ok; else
		bad "$2: no /$3/ in $1"
		sed 's/^/    | /' "$1" | head -60
	fi
}

# --- snafu record: exit 3, the reason first, then the fallback ---------------------------
probe_err=$tmp/probe.err
mkdir -p "$tmp/rr"
if command -v rr >/dev/null && _RR_TRACE_DIR=$tmp/rr rr record -n /bin/true >/dev/null 2>"$probe_err"; then
	echo "note: rr can record here; forcing the fallback with SNAFU_RR=/nonexistent/rr"
	export SNAFU_RR=/nonexistent/rr
	reason='/nonexistent/rr: cannot run'
elif command -v rr >/dev/null; then
	reason=$(grep -m1 -E 'FATAL|rror' "$probe_err" || head -1 "$probe_err")
else
	reason='rr: cannot run'
fi
"$snafu" record "$case_file" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 3 ] && ok || bad "snafu record: exit $rc, expected 3"
first=$(head -1 "$tmp/err")
if [ "$(wc -l <"$tmp/err")" = 1 ] && [[ "$first" == "snafu record: rr cannot record here: "* ]] &&
	[[ "$first" == *"$reason"* ]]; then ok; else
	bad "snafu record: the first line should be the probe's error '$reason'; stderr:"
	cat "$tmp/err"
fi
# the combined output starts with it too
"$snafu" record "$case_file" >"$tmp/both" 2>&1
[ "$(head -1 "$tmp/both")" = "$first" ] && ok || bad "2>&1: first line is '$(head -1 "$tmp/both")'"

steps=$("$snafu" replay --quiet --digest --kernel=2.6.11-rc4 "$case_file" | sed -n 's/.* steps \([0-9]*\) runs.*/\1/p')
has "$tmp/out" "summary" "^$case_file \[2\.6\.11-rc4\]: deadlock--do_page_fault--futex_wait at step $steps,"
has "$tmp/out" "last preemption" "the schedule's last preemption: step [0-9]+, T1 at get_user, op 2\.7, to T2"
has "$tmp/out" "gdb command" "^  (ASAN_OPTIONS=detect_leaks=0 )?gdb -x repro/snafu-gdb\.py --args .*/?snafu replay --kernel=2\.6\.11-rc4 --stop-at-step=$steps $case_file\$"
has "$tmp/out" "record full" "\(gdb\) record full"
has "$tmp/out" "tunables" "GLIBC_TUNABLES=glibc\.cpu\.hwcaps=-AVX512F,-AVX512BW,-AVX512VL,-AVX2,-AVX_Fast_Unaligned_Load"
has "$tmp/out" "finding's breakpoint" "\(gdb\) break check_hung_tasks"

# bad usage: one line, exit 2, nothing on stdout
for args in "" "--kernel=nope $case_file" "--bogus $case_file" "$case_file $case_file" \
	"/nonexistent.case" "$tmp/bad.case"; do
	echo "task 1
  frobnicate x" >"$tmp/bad.case"
	# shellcheck disable=SC2086
	"$snafu" record $args >"$tmp/o2" 2>"$tmp/e2"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/e2")" = 1 ] && [ ! -s "$tmp/o2" ]; then ok; else
		bad "snafu record $args: exit $rc, $(wc -l <"$tmp/e2") lines on stderr"
		cat "$tmp/e2"
	fi
done
for arg in --stop-at-step=0 --stop-at-step=x --stop-at-step= --stop-at-step=-3; do
	"$snafu" replay "$arg" "$case_file" >"$tmp/o2" 2>"$tmp/e2"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/e2")" = 1 ] && grep -q "'$arg': expected --stop-at-step=N" "$tmp/e2"; then ok; else
		bad "snafu replay $arg: exit $rc"
		cat "$tmp/e2"
	fi
done

# --- --stop-at-step without a debugger -------------------------------------------------
# (in a subshell that keeps bash's "Trace/breakpoint trap" note to itself)
(
	"$snafu" replay --stop-at-step="$steps" "$case_file" >"$tmp/o2" 2>&1
	echo $? >"$tmp/rc"
) 2>/dev/null
rc=$(cat "$tmp/rc")
[ "$rc" = $((128 + 5)) ] && ok || bad "replay --stop-at-step=$steps: exit $rc, expected death by SIGTRAP (133)"
"$snafu" replay --digest --stop-at-step=$((steps + 1)) "$case_file" >"$tmp/o2" 2>&1
rc=$?
"$snafu" replay --digest "$case_file" >"$tmp/o3" 2>&1
if [ "$rc" = 1 ] && diff -q <(grep digest "$tmp/o2") <(grep digest "$tmp/o3") >/dev/null; then ok; else
	bad "replay --stop-at-step past the end: exit $rc, or the digest changed"
fi

# --- the fallback under gdb --------------------------------------------------------------
if ! command -v gdb >/dev/null; then
	echo "note: no gdb here; the fallback's gdb session is not checked"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
fi
line=$(grep -m1 -E '^  (ASAN_OPTIONS=[^ ]* )?gdb -x ' "$tmp/out")
args=${line#*--args }
[ -n "$args" ] && [ "$args" != "$line" ] && ok || bad "no gdb --args line in the fallback"
# shellcheck disable=SC2086
eval "timeout 300 gdb -nx -batch -x repro/snafu-gdb.py -ex run -ex snafu-step -ex snafu-tasks \
	-ex 'snafu-bt 1' -ex 'snafu-bt 2' -ex 'snafu-bt 2 fp' -ex continue --args $args" \
	>"$tmp/gdb" 2>&1
g=$tmp/gdb
has "$g" "stopped by SIGTRAP" "^Program received signal SIGTRAP"
has "$g" "snafu-step: the step" "^step $steps of budget [0-9]+, virtual time 0, --stop-at-step=$steps\$"
has "$g" "snafu-step: the running task" "^running: T1 \(id 1\), op 2\.[0-9]+, in sys_futex\$"
has "$g" "snafu-step: the last preemption" "^last preemption: step [0-9]+: T1 -> T2 \(preempt at get_user, op 2\.7\)\$"
has "$g" "snafu-step: the last switch" "^last switch: +step [0-9]+: T2 -> T1 \(blocked\)\$"
has "$g" "snafu-tasks: T1" "^T1 \(id 1\): sim running, state D, in sys_futex, op 2\.[0-9]+ \([0-9]+ points\), blocked in down_read\(&mm->mmap_sem\) at do_page_fault\$"
has "$g" "snafu-tasks: T1's lock" "^  holds #0: &mm->mmap_sem \(read\), taken at futex_wait\$"
has "$g" "snafu-tasks: T2" "^T2 \(id 2\): sim blocked, state D, in sys_mmap2, .*blocked in down_write\(&mm->mmap_sem\) at sys_mmap2\$"
# the backtraces: T1 live, T2 from its fiber's saved registers
awk '/^T1 is running/ {f = 1; next} /^T2 is switched out/ {f = 0} f && /^#/' "$g" >"$tmp/bt1"
awk '/^T2 is switched out/ {n++; next} n == 1 && /^#/' "$g" >"$tmp/bt2"
awk '/^T2 is switched out/ {n++; next} n == 2 && /^#/' "$g" >"$tmp/bt2fp"
has "$tmp/bt1" "snafu-bt 1: sim_point" "^#[0-9]+ .*sim_point \(site=.*\"schedule\""
has "$tmp/bt1" "snafu-bt 1: do_page_fault" "^#[0-9]+ .*do_page_fault \("
has "$tmp/bt1" "snafu-bt 1: futex_wait" "^#[0-9]+ .*futex_wait \("
has "$tmp/bt2" "snafu-bt 2: rwsem_down_write" "^#[0-9]+ .*rwsem_down_write \("
has "$tmp/bt2" "snafu-bt 2: sys_mmap2" "^#[0-9]+ .*sys_mmap2 \("
has "$tmp/bt2" "snafu-bt 2: down to the fiber's start" "^#[0-9]+ .*fiber_start \("
has "$tmp/bt2fp" "snafu-bt 2 fp: rwsem_down_write" "^#[0-9]+ +0x[0-9a-f]+ in rwsem_down_write"
has "$tmp/bt2fp" "snafu-bt 2 fp: sys_mmap2" "^#[0-9]+ +0x[0-9a-f]+ in sys_mmap2"
# the registers came back: the run goes on to its report and exit status 1
has "$g" "continue after snafu-bt" "^DEDUP_TOKEN: deadlock--do_page_fault--futex_wait\$"
has "$g" "exit status" "exited with code 01\]\$"
if grep -qE "Python Exception|Error occurred in Python|snafu-bt: could not restore" "$g"; then
	bad "the helpers failed"
	grep -E "Python|Error|restore" "$g"
else ok; fi

# --- the record full recipe --------------------------------------------------------------
rline=$(grep -A1 -m1 '^  GLIBC_TUNABLES=' "$tmp/out" | tr -d '\\\n')
tun=$(echo "$rline" | grep -o 'GLIBC_TUNABLES=[^ ]*')
rargs=${rline#*--args }
from=$(echo "$rargs" | grep -o 'stop-at-step=[0-9]*' | cut -d= -f2)
# shellcheck disable=SC2086
eval "$tun timeout 300 gdb -nx -batch -x repro/snafu-gdb.py -ex run -ex 'record full' \
	-ex 'break check_hung_tasks' -ex continue -ex snafu-step -ex finish -ex 'reverse-step' \
	-ex 'info record' -ex 'delete' -ex 'reverse-continue' -ex snafu-step --args $rargs" \
	>"$tmp/rec" 2>&1
r=$tmp/rec
has "$r" "record: at the breakpoint" "^Breakpoint 1, check_hung_tasks"
has "$r" "record: at the finding's step" "^step $steps of budget"
# finish: through check_hung_tasks' strcmp, memset and vsnprintf, glibc's string functions:
# without the tunables gdb 13 stops there ("does not support instruction 0x62", EVEX)
has "$r" "record: finish check_hung_tasks" "^Value returned is .* = true"
has "$r" "record: recorded" "^Log contains [0-9]+ instructions"
has "$r" "record: back at the start" "^No more reverse-execution history"
has "$r" "record: back at step $from" "^step $from of budget"
if grep -q "Process record does not support" "$r"; then
	bad "gdb's recorder stopped: $(grep -m1 'does not support' "$r") (GLIBC_TUNABLES: $tun)"
else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
