#!/usr/bin/env bash
# snafu record where rr cannot record (this project's machines: no hardware performance
# counters), and the gdb fallback it prints, on every machine:
#  - exit 3; the first line (stderr) says why, with rr's own error, or, where rr is not
#    installed (forced with SNAFU_RR=/nonexistent/rr), how to install it; the fallback
#    commands follow on stdout; bad usage gets one line and exit 2;
#  - the fallback agrees with the line about gdb's recorder: the `record full` recipe
#    only where no line says gdb cannot step backwards; gdb not installed (forced with
#    SNAFU_GDB=/nonexistent/gdb) gets one line saying how to install it;
#  - where gdb's recorder cannot step backwards (gdb 13 on a CPU with AMX; forced here
#    with a gdb whose reverse commands fail with that error): exactly one more line,
#    "gdb cannot step backwards here (record full): Couldn't write extended state
#    status: Bad address", and a recipe with --stop-at-step, snafu-step, snafu-tasks,
#    snafu-bt and no `record full` or reverse command;
#  - `snafu replay --stop-at-step=N` dies of SIGTRAP without a debugger, and changes
#    nothing when the run never gets there;
#  - that shortened recipe, run with gdb -batch and the helpers (repro/snafu-gdb.py),
#    stops by SIGTRAP at the finding's step: snafu-step, snafu-tasks and snafu-bt show
#    the deadlock of the LWN article; after snafu-bt the run continues to its report;
#    snafu-step says "the schedule preempts here" at the preemption's step, before it
#    fires, and "preempted here already" once the task is back on that op.point;
#  - for a lost wake-up (absorbed and missed), a wrong result and a lockdep report, the
#    recipe lands where the oracle's records and lockdep's prediction place the finding
#    (the wake call, FUTEX_CMP_REQUEUE's -EAGAIN, lockdep_bug), and its commands, run with
#    gdb -batch, show it with snafu-futex and snafu-lockdep.
# Stepping backwards with the `record full` recipe is tests/test_record_reverse.sh
# (skipped where gdb's recorder cannot), recording with rr tests/test_record_rr.sh.
# Where gdb is missing or may not run a program (ptrace), the checks that need it are
# left out and, when every other check passed, the test exits 77 (CTest: skipped).
#
#   bash tests/test_record.sh BIN_DIR SRC_DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh" # has, hasnt
setup_test "$@"            # $src, $snafu, $tmp
case_file=repro/cases/futex-wait-mmap-sem.case
cd "$src" || exit 2
export ASAN_OPTIONS=detect_leaks=0 # LeakSanitizer does not work under ptrace (gdb)
unset SNAFU_GDB

lines() { # lines FILE WHAT N: FILE has N lines
	if [ "$(wc -l <"$1")" = "$3" ]; then ok; else
		bad "$2: $(wc -l <"$1") lines, expected $3"
		sed 's/^/    | /' "$1"
	fi
}
record() { # record NAME [VAR=VALUE...]: snafu record into $tmp/NAME.out, .err; rc in $rc
	local name=$1
	shift
	env "$@" "$snafu" record "$case_file" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" = 3 ] && ok || bad "snafu record ($name): exit $rc, expected 3"
}
recorder='\(gdb\) record full|reverse-|GLIBC_TUNABLES'

# --- rr: why it cannot record here -------------------------------------------------------
probe_err=$tmp/probe.err
mkdir -p "$tmp/rr"
if command -v rr >/dev/null && _RR_TRACE_DIR=$tmp/rr timeout 120 rr record -n /bin/true >/dev/null 2>"$probe_err"; then
	echo "note: rr can record here; forcing the fallback with SNAFU_RR=/nonexistent/rr"
	export SNAFU_RR=/nonexistent/rr
	reason='snafu record: rr is not installed (/nonexistent/rr: not found)'
elif command -v rr >/dev/null; then
	reason="snafu record: rr cannot record here: $(grep -m1 -E 'FATAL|rror' "$probe_err" || head -1 "$probe_err")"
else
	reason='snafu record: rr is not installed (rr: not found)'
fi
# --- gdb: can it run a program here (ptrace)? --------------------------------------------
gdb_skip=
if ! command -v gdb >/dev/null; then
	gdb_skip="no gdb here (Debian: apt-get install gdb)"
elif ! timeout 300 gdb -nx -batch -iex 'set debuginfod enabled off' -ex starti \
	--args "$snafu" kernels >"$tmp/starti" 2>&1 </dev/null || ! grep -q '^Program stopped' "$tmp/starti"; then
	gdb_skip="gdb cannot run a program here: $(grep -vE '^warning:|Error in sourced' "$tmp/starti" | grep -m1 -E 'rror|annot|ermitted' ||
		head -1 "$tmp/starti")"
fi

# --- snafu record on this machine: exit 3, the reasons first, then the fallback ----------
record host
first=$(head -1 "$tmp/host.err")
if [[ "$first" == "$reason"* ]]; then ok; else
	bad "snafu record: the first line should be '$reason...'; stderr:"
	cat "$tmp/host.err"
fi
# a second line only about gdb, and the recipe agrees with it
gline=$(sed -n 2p "$tmp/host.err")
if [ "$(wc -l <"$tmp/host.err")" -le 2 ] && { [ -z "$gline" ] ||
	[[ "$gline" =~ ^"snafu record: gdb "("cannot step backwards here (record full): "|"cannot run a program here: "|"is not installed (") ]]; }; then ok; else
	bad "snafu record: stderr should be the rr line and at most one gdb line:"
	cat "$tmp/host.err"
fi
case $gline in
*"cannot step backwards"* | *"cannot run a program"*) hasnt "$tmp/host.out" "recipe without the recorder" "$recorder" ;;
*) has "$tmp/host.out" "record full recipe" "\(gdb\) record full" ;;
esac
if [ -z "$gdb_skip" ] && [[ "$gline" == *"cannot run a program"* || "$gline" == *"not installed"* ]]; then
	bad "snafu record says '$gline', but gdb runs a program here"
fi
# the combined output starts with it too
"$snafu" record "$case_file" >"$tmp/both" 2>&1
[ "$(head -1 "$tmp/both")" = "$first" ] && ok || bad "2>&1: first line is '$(head -1 "$tmp/both")'"

steps=$("$snafu" replay --quiet --digest --kernel=2.6.11-rc4 "$case_file" | sed -n 's/.* steps \([0-9]*\) runs.*/\1/p')
has "$tmp/host.out" "summary" "^$case_file \[2\.6\.11-rc4\]: deadlock--do_page_fault--futex_wait at step $steps,"
has "$tmp/host.out" "last preemption" "the schedule's last preemption: step [0-9]+, T1 at get_user, op 2\.7, to T2"
has "$tmp/host.out" "gdb command" "^  (ASAN_OPTIONS=detect_leaks=0 )?gdb -x repro/snafu-gdb\.py --args .*/?snafu replay --kernel=2\.6\.11-rc4 --stop-at-step=$steps $case_file\$"

# --- rr not installed: one line saying how to get it, then the same fallback -------------
record no-rr SNAFU_RR=/nonexistent/rr
[ "$(head -1 "$tmp/no-rr.err")" = "snafu record: rr is not installed (/nonexistent/rr: not found); get it with apt-get install rr (Debian package rr) or ./build.sh test, which installs it" ] &&
	ok || bad "SNAFU_RR=/nonexistent/rr: first line '$(head -1 "$tmp/no-rr.err")'"
has "$tmp/no-rr.out" "no rr: fallback" "^$case_file \[2\.6\.11-rc4\]: deadlock--do_page_fault--futex_wait at step $steps,"

# --- gdb not installed: one line saying how to get it, and the whole recipe -------------
record no-gdb SNAFU_GDB=/nonexistent/gdb
lines "$tmp/no-gdb.err" "SNAFU_GDB=/nonexistent/gdb: stderr" 2
[ "$(sed -n 2p "$tmp/no-gdb.err")" = "snafu record: gdb is not installed (/nonexistent/gdb: not found); get it with apt-get install gdb (Debian package gdb)" ] &&
	ok || bad "SNAFU_GDB=/nonexistent/gdb: second line '$(sed -n 2p "$tmp/no-gdb.err")'"
has "$tmp/no-gdb.out" "no gdb: the landing" "^  (ASAN_OPTIONS=detect_leaks=0 )?/nonexistent/gdb -x repro/snafu-gdb\.py --args .* --stop-at-step=$steps $case_file\$"
has "$tmp/no-gdb.out" "no gdb: record full" "\(gdb\) record full"
has "$tmp/no-gdb.out" "no gdb: tunables" "GLIBC_TUNABLES=glibc\.cpu\.hwcaps=-AVX512F,-AVX512BW,-AVX512VL,-AVX2,-AVX_Fast_Unaligned_Load"
has "$tmp/no-gdb.out" "no gdb: finding's breakpoint" "\(gdb\) break check_hung_tasks"

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

# --- the new findings: where the recipe lands ---------------------------------------------
# A lost wake-up and a wrong result are judged when the run is over, lockdep reports while
# it runs: the recipe stops where the oracle's records (and lockdep's prediction) place
# the finding (the wake call that lost the wake-up, the FUTEX_CMP_REQUEUE that chose
# -EAGAIN, lockdep_bug), by --stop-at-step at that scheduling point and a breakpoint, and
# names the helper that reads those books (snafu-futex, snafu-lockdep). The step is
# counted here from `snafu replay --trace`.
step_at() { # step_at KERNEL CASE TASK OP.POINT: the step of that scheduling point
	"$snafu" replay --kernel="$1" --trace "$2" 2>/dev/null |
		awk -v t="T$3" -v at="$4" '$3 == "point" {n++; if ($1 == t && $2 == at) s = n} END {print s + 0}'
}
# newf NAME KERNEL CASE TOKEN STEP WHERE BREAK HELPER: snafu record's recipe for it
newf() {
	local name=$1 k=$2 c=$3 tok=$4 st=$5 where=$6 brk=$7 helper=$8 o=$tmp/$1.out
	SNAFU_RR=/nonexistent/rr "$snafu" record --kernel="$k" "$c" >"$o" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" = 3 ] && ok || bad "snafu record ($name): exit $rc, expected 3"
	[ "$st" -gt 0 ] && ok || bad "$name: no step for the finding in the trace"
	has "$o" "$name: summary" "^$c \[$k\]: $tok at step $st, $where"
	has "$o" "$name: the landing" "^  (ASAN_OPTIONS=detect_leaks=0 )?gdb -x repro/snafu-gdb\.py --args .*/?snafu replay --kernel=$k --stop-at-step=$st $c\$"
	has "$o" "$name: the finding's breakpoint" "^  \(gdb\) break $brk\$"
	has "$o" "$name: its helper" "^  \(gdb\) $helper "
	# the recorder's recipe, where printed, stops at the same breakpoint
	if grep -q '(gdb) record full' "$o"; then
		[ "$(grep -c "^  (gdb) break $brk\$" "$o")" = 2 ] && ok ||
			bad "$name: the record full recipe does not break at $brk"
	fi
}
absorbed=repro/cases/futex-absorbed-wakeup.case
seto=repro/cases/futex-seto-missed-wakeup.case
eagain=repro/cases/cmp-requeue-spurious-eagain.case
ldcase=repro/cases/lockdep-futex-wait.case
last() { "$snafu" replay --quiet --digest --kernel="$1" "$2" | sed -n 's/.* steps \([0-9]*\) runs.*/\1/p'; }
newf absorbed 2.6.11 $absorbed lost-wakeup--absorbed--futex_wait "$(step_at 2.6.11 $absorbed 1 3.5)" \
	"where T1's FUTEX_WAKE \(op 3\.5\) spent the wake-up on T3 and passed over T2; judged when the run was over, after step $(last 2.6.11 $absorbed)" \
	'fo_wake_end if fo\.cur == &fo\.wakes\[0\]' snafu-futex
has "$tmp/absorbed.out" "absorbed: finish closes the wake's books" "^  \(gdb\) finish "
has "$tmp/absorbed.out" "absorbed: the sleeper's backtrace" "^  \(gdb\) snafu-bt 2 "
has "$tmp/absorbed.out" "absorbed: then the judgement" "^  \(gdb\) break finding_begin\$"
newf seto 2.6.10-seto $seto lost-wakeup--missed--futex_wait "$(step_at 2.6.10-seto $seto 2 2.5)" \
	"where T2's FUTEX_WAKE \(op 2\.5\) found nobody: T1 had read its val at 3\.5 and queued only at 3\.6;" \
	'fo_wake_end if fo\.cur == &fo\.wakes\[0\]' snafu-futex
newf eagain 2.6.11 $eagain wrong-result--futex_cmp_requeue "$(step_at 2.6.11 $eagain 1 3.7)" \
	"where T1's FUTEX_CMP_REQUEUE \(op 3\.7\) found nqueued moved \(0 -> 1\) and chose -EAGAIN, the word equal to val 0;" \
	'fo_cmp_eagain if !fo\.eagain\.seen' snafu-futex
has "$tmp/eagain.out" "eagain: then the judgement" "^  \(gdb\) break finding_begin\$"
ldstep=$("$snafu" replay "$ldcase" | sed -n 's/.*(scheduling point \([0-9]*\))$/\1/p')
[ -n "$ldstep" ] && [ "$ldstep" = "$(step_at 2.6.11-rc4 $ldcase 1 2.7)" ] && ok ||
	bad "lockdep: the report's scheduling point '$ldstep' is not T1's 2.7 in the trace"
newf lockdep 2.6.11-rc4 $ldcase lockdep--recursive-read--mmap_sem--futex_wait "$ldstep" \
	"where lockdep made its report\$" lockdep_bug snafu-lockdep
hasnt "$tmp/lockdep.out" "lockdep: no oracle judgement" "break finding_begin"

if [ -n "$gdb_skip" ]; then
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ] || exit 1
	echo "skipped: the gdb sessions: $gdb_skip"
	exit 77
fi

# --- gdb's recorder cannot step backwards (gdb 13 with AMX): forced ----------------------
# a gdb whose reverse commands fail as gdb 13's do on a CPU with AMX (its ptrace
# PTRACE_SETREGSET of the extended state gets EFAULT); everything else is the real gdb
mkdir -p "$tmp/amx"
cat >"$tmp/amx/amx.py" <<'EOF'
import gdb


class Amx(gdb.Command):
    def __init__(self):
        super().__init__("snafu-test-amx-error", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        raise gdb.GdbError("Couldn't write extended state status: Bad address.")


Amx()
for c in ("reverse-stepi", "reverse-nexti", "reverse-step", "reverse-next",
          "reverse-continue", "reverse-finish"):
    gdb.execute("define hook-%s\nsnafu-test-amx-error\nend" % c)
EOF
printf '#!/bin/sh\nexec gdb -iex "source %s/amx/amx.py" "$@"\n' "$tmp" >"$tmp/amx/gdb"
chmod +x "$tmp/amx/gdb"
record amx SNAFU_GDB="$tmp/amx/gdb"
lines "$tmp/amx.err" "AMX: stderr" 2
[ "$(head -1 "$tmp/amx.err")" = "$first" ] && ok || bad "AMX: the first line should be rr's"
[ "$(sed -n 2p "$tmp/amx.err")" = "snafu record: gdb cannot step backwards here (record full): Couldn't write extended state status: Bad address" ] &&
	ok || bad "AMX: second line '$(sed -n 2p "$tmp/amx.err")'"
a=$tmp/amx.out
hasnt "$a" "AMX: no recorder commands" "$recorder"
has "$a" "AMX: summary" "^$case_file \[2\.6\.11-rc4\]: deadlock--do_page_fault--futex_wait at step $steps,"
has "$a" "AMX: the landing" "^  (ASAN_OPTIONS=detect_leaks=0 )?[^ ]*/amx/gdb -x repro/snafu-gdb\.py --args .*/?snafu replay --kernel=2\.6\.11-rc4 --stop-at-step=$steps $case_file\$"
has "$a" "AMX: run" "^  \(gdb\) run\$"
has "$a" "AMX: snafu-step" "^  \(gdb\) snafu-step "
has "$a" "AMX: snafu-tasks" "^  \(gdb\) snafu-tasks "
has "$a" "AMX: snafu-bt" "^  \(gdb\) snafu-bt 1 "
has "$a" "AMX: an earlier step" "--stop-at-step=[0-9]+ stops at the schedule's last preemption"

# --- the shortened recipe under gdb -----------------------------------------------------
line=$(grep -m1 -E '^  (ASAN_OPTIONS=[^ ]* )?[^ ]*gdb -x ' "$a")
args=${line#*--args }
[ -n "$args" ] && [ "$args" != "$line" ] && ok || bad "no gdb --args line in the recipe"
exs=()
while read -r cmd; do exs+=(-ex "$cmd"); done < <(awk '/^  \(gdb\) / {sub(/^  \(gdb\) /, ""); sub(/  +.*/, ""); print}' "$a")
[ "${#exs[@]}" = 8 ] && ok || bad "the recipe's gdb commands: ${exs[*]}"
# shellcheck disable=SC2086
eval "timeout 300 gdb -nx -batch -x repro/snafu-gdb.py \"\${exs[@]}\" -ex 'snafu-bt 2' \
	-ex 'snafu-bt 2 fp' -ex continue --args $args" >"$tmp/gdb" 2>&1 </dev/null
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
has "$tmp/bt1" "snafu-bt 1: futex_wait" "^#[0-9]+ .*futex_wait_[0-9a-z_]+ \("
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

# snafu-step on the schedule's preemption (T1 at op 2.7, step $pre): "preempts here" before
# it fires; back on that op.point after the switch back (in do_page_fault), "preempted
# here already", never "preempts here"
pre=$(sed -n 's/.*(the schedule.s last preemption: step \([0-9]*\), T1 at get_user, op 2\.7, to T2)$/\1/p' "$a" | head -1)
[ -n "$pre" ] && ok || bad "no last preemption (T1 at get_user, op 2.7) in the summary"
# shellcheck disable=SC2086
eval "timeout 300 gdb -nx -batch -x repro/snafu-gdb.py -ex run -ex snafu-step \
	-ex 'break do_page_fault' -ex continue -ex snafu-step --args ${args/--stop-at-step=$steps/--stop-at-step=$pre}" \
	>"$tmp/pre.gdb" 2>&1 </dev/null
awk '/^step / {n++} n == 1' "$tmp/pre.gdb" >"$tmp/pre1"
awk '/^step / {n++} n == 2' "$tmp/pre.gdb" >"$tmp/pre2"
has "$tmp/pre1" "snafu-step at the preemption: its step" "^step $pre of budget"
has "$tmp/pre1" "snafu-step at the preemption: preempts here" "^  the schedule preempts here: to T2 \(preempt 1 at op 2 point 7 to 2\)\$"
has "$tmp/pre2" "snafu-step after it: T1 back at op 2.7" "^running: T1 \(id 1\), op 2\.7, in sys_futex\$"
has "$tmp/pre2" "snafu-step after it: preempted already" "^  the schedule preempted here already: to T2, then back \(preempt 1 at op 2 point 7 to 2\)\$"
hasnt "$tmp/pre2" "snafu-step after it: not 'preempts here'" "preempts here"
if grep -qE "Python Exception|Error occurred in Python" "$tmp/pre.gdb"; then
	bad "snafu-step failed: $(grep -m1 -E "Python" "$tmp/pre.gdb")"
else ok; fi

# --- the new findings' recipes under gdb ---------------------------------------------------
# run_recipe NAME: the landing block of $tmp/NAME.out (up to its first blank line), its
# gdb commands run with gdb -batch and the helpers, into $tmp/NAME.gdb
run_recipe() {
	local o=$tmp/$1.out line args
	line=$(awk '/^land on/ {f = 1} f && /^$/ {exit} f' "$o" | grep -m1 -E '^  (ASAN_OPTIONS=[^ ]* )?[^ ]*gdb -x ')
	args=${line#*--args }
	local ex=()
	while read -r cmd; do ex+=(-ex "$cmd"); done < <(awk '/^land on/ {f = 1} f && /^$/ {exit} f && /^  \(gdb\) / {sub(/^  \(gdb\) /, ""); sub(/  +.*/, ""); print}' "$o")
	[ -n "$args" ] && [ "${#ex[@]}" -ge 6 ] && ok || bad "$1: no recipe to run (${ex[*]})"
	# shellcheck disable=SC2086
	eval "timeout 300 gdb -nx -batch -iex 'set debuginfod enabled off' -x repro/snafu-gdb.py \
		\"\${ex[@]}\" --args $args" >"$tmp/$1.gdb" 2>&1 </dev/null
	if grep -qE "Python Exception|Error occurred in Python|No symbol" "$tmp/$1.gdb"; then
		bad "$1: the helpers failed"
		grep -E "Python|Error|No symbol" "$tmp/$1.gdb"
	else ok; fi
}
run_recipe absorbed
g=$tmp/absorbed.gdb
has "$g" "absorbed: SIGTRAP at the wake's step" "^Program received signal SIGTRAP"
has "$g" "absorbed: stops in the wake call" "^Breakpoint [0-9]+, fo_wake_end "
has "$g" "absorbed: finish returns to futex_wake" "^(0x[0-9a-f]+ in )?futex_wake \("
has "$g" "snafu-futex: the sleeper's futex_wait" "^  T2: futex_wait\(0x40000000, val 0\), in progress, queued \(at 1\.5\), read 0 == val at 1\.7: waiting from then, asleep since 1\.10, not woken"
has "$g" "snafu-futex: the spent-on waiter's" "^  T3: futex_wait\(0x40000000, val 1\), .*read 0 != val 1 at 1\.7: never waited, woken by wake call #0 \(T1's FUTEX_WAKE at 3\.5\)"
has "$g" "snafu-futex: the wake record" "^  #0 T1 FUTEX_WAKE\(0x40000000\) at 3\.5, may wake 1, returned 1\$"
has "$g" "snafu-futex: whom it woke" "^     woke T3: read 0, not its val 1, at 1\.7: absorbed, it never waited"
has "$g" "snafu-futex: whom it passed over" "^     passed over T2, waiting \(read its val, queued\): still asleep in that futex_wait\$"
has "$g" "snafu-futex: lost so far, at the wake" "^     => a lost wake-up so far \(absorbed"
has "$g" "snafu-bt 2: the sleeper in futex_wait" "^#[0-9]+ .* in futex_wait_[0-9a-z_]+ \("
has "$g" "the judgement" "^Breakpoint [0-9]+, finding_begin \(.*\"lost-wakeup--absorbed--futex_wait\""
has "$g" "snafu-futex at the judgement: lost" "^     => a lost wake-up \(absorbed: the wake-up went to a waiter that never waited, T2 sleeps on\)\$"
has "$g" "snafu-futex at the judgement: T3 returned 0" "absorbed, it never waited; its futex_wait returned 0\$"

run_recipe seto
g=$tmp/seto.gdb
has "$g" "seto: stops in the wake call" "^Breakpoint [0-9]+, fo_wake_end "
has "$g" "seto: the wake found nobody" "^  #0 T2 FUTEX_WAKE\(0x40000000\) at 2\.5, may wake 1, returned 0\$"
has "$g" "seto: woke nobody" "^     woke nobody\$"
has "$g" "seto: missed T1, not asleep yet" "^     missed T1: it had read 0, its val, and not queued yet; the word then held 1: not asleep \(yet\) in that futex_wait\$"
has "$g" "seto: T1 not queued at the wake" "^  T1: futex_wait\(0x40000000, val 0\), in progress, not queued, read 0 == val at 3\.5"
has "$g" "seto: at the judgement, T1 queued after it and asleep" "^  T1: futex_wait\(0x40000000, val 0\), in progress, queued \(at 3\.6\), read 0 == val at 3\.5: waiting from then, asleep since 3\.10"
has "$g" "seto: lost (missed)" "^     => a lost wake-up \(missed: T1 read the word, it changed, and the wake found nobody\)\$"

run_recipe eagain
g=$tmp/eagain.gdb
has "$g" "eagain: stops where -EAGAIN is chosen" "^Breakpoint [0-9]+, fo_cmp_eagain \(.*val=0, curval=0, now=1\)"
has "$g" "eagain: the sample and the queue_me() since" "^FUTEX_CMP_REQUEUE: T1 sampled its bucket's nqueued \(0\); queue_me\(\) there since: T2 at 1\.5\$"
has "$g" "eagain: snafu-bt 2, the queuer asleep" "^#[0-9]+ .* in futex_wait_[0-9a-z_]+ \("
has "$g" "eagain: the judgement" "^Breakpoint [0-9]+, finding_begin \(.*\"wrong-result--futex_cmp_requeue\""
has "$g" "eagain: the -EAGAIN in the books" "^FUTEX_CMP_REQUEUE's first -EAGAIN from nqueued: T1 FUTEX_CMP_REQUEUE\(0x40000000, val 0\) at 3\.7\$"
has "$g" "eagain: nqueued's move" "^   it read 0, its val; the word held 0 when it returned; nqueued went 0 -> 1\$"
has "$g" "eagain: who moved it" "^   queue_me\(\) into that bucket during the call: T2 at 1\.5 \(futex_wait\(0x40000000\)\)\$"
has "$g" "eagain: a wrong result" "^   => a wrong result: -EAGAIN, though the word equalled val throughout the call\$"

run_recipe lockdep
g=$tmp/lockdep.gdb
has "$g" "lockdep: stops in lockdep_bug" "^Breakpoint [0-9]+, lockdep_bug \("
has "$g" "snafu-lockdep: the acquisition" "^  T1 tries to acquire &mm->mmap_sem \(read\) in might_fault\(\), from get_user\(\) in futex_wait at op\.point 2\.7\$"
has "$g" "snafu-lockdep: the held lock" "^  it already holds &mm->mmap_sem \(read\), taken at futex_wait\$"
has "$g" "snafu-lockdep: the task's locks" "^  holds #0: &mm->mmap_sem \(read\), taken at futex_wait\$"
has "$g" "lockdep: snafu-bt 1, the running task" "^T1 is running: its stack is the live one\$"
has "$g" "lockdep: ... from get_user in futex_wait" "^#[0-9]+ .*get_user_u32 \(.*\"futex_wait\""

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
