#!/usr/bin/env bash
# snafu record's `record full` recipe steps backwards, where gdb's recorder can:
#  - this test asks gdb itself first (its own probe, not snafu's: starti, record full,
#    three stepi, reverse-stepi, which must land on the second stepi's pc);
#  - snafu record must agree: the whole recipe and no line about gdb where the recorder
#    steps backwards; where it cannot, the line "gdb cannot step backwards here (record
#    full): ERROR" with gdb's own error and no `record full` in the recipe;
#  - where it can: the printed recipe (GLIBC_TUNABLES) records into the finding and
#    through check_hung_tasks' glibc string functions, and steps backwards;
#  - the recipe's way back (a breakpoint on the kernel function, reverse-continue), run
#    as printed: a deadlock goes back into do_page_fault(), where the task went to sleep;
#    a lockdep report into the function that took the held lock (futex_requeue(), whose
#    call comes before the schedule's last preemption: the recording begins before it);
#  - for a lost wake-up and a wrong result, the recipe's breakpoint (the wake call, the
#    -EAGAIN) and its way back (reverse-continue to fo_woken, fo_queued) land on the
#    wake-up spent on a waiter that never waited and on the queue_me() that moved nqueued.
# Where gdb's recorder cannot step backwards (gdb 13 on a CPU with AMX: "Couldn't write
# extended state status: Bad address"), or gdb is missing or may not run a program
# (ptrace), this exits 77 (CTest: skipped) with the reason, once the checks that can run
# have passed; a failure among them is a failure. The rest of the fallback is
# tests/test_record.sh.
#
#   bash tests/test_record_reverse.sh BIN_DIR SRC_DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh" # has
setup_test "$@"            # $src, $snafu, $tmp
if ! command -v gdb >/dev/null; then
	echo "skipped: no gdb here (Debian: apt-get install gdb)"
	exit 77
fi
case_file=repro/cases/futex-wait-mmap-sem.case
cd "$src" || exit 2
export ASAN_OPTIONS=detect_leaks=0 # LeakSanitizer does not work under ptrace (gdb)
export SNAFU_RR=/nonexistent/rr    # the fallback, also where rr can record
unset SNAFU_GDB

# --- gdb's recorder on this machine -------------------------------------------------------
timeout 300 gdb -nx -batch -iex 'set debuginfod enabled off' -ex starti -ex 'record full' \
	-ex stepi -ex stepi -ex 'printf "probe-pc %#lx\n", $pc' -ex stepi -ex reverse-stepi \
	-ex 'printf "probe-pc %#lx\n", $pc' --args "$snafu" kernels >"$tmp/probe" 2>&1 </dev/null
pcs=$(sed -n 's/^probe-pc //p' "$tmp/probe") reason=
errline() { grep -vE '^warning:|Error in sourced command file' | grep -m1 -E "rror|ouldn't|annot|ermitted" | sed 's/[. ]*$//'; }
if ! grep -q '^Program stopped' "$tmp/probe"; then
	verdict=debug why="gdb cannot run a program here"
	reason=$(errline <"$tmp/probe")
elif [ "$(echo "$pcs" | wc -l)" = 2 ] && [ "$(echo "$pcs" | sort -u | wc -l)" = 1 ]; then
	verdict=reverses why=
else
	verdict=no-reverse why="gdb cannot step backwards here (record full)"
	reason=$(sed -n '/^Program stopped/,$p' "$tmp/probe" | errline) # after starti
fi
echo "gdb's recorder here: $verdict${why:+: $why}${reason:+: $reason}"

# --- snafu record agrees -------------------------------------------------------------------
"$snafu" record "$case_file" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 3 ] && ok || bad "snafu record: exit $rc, expected 3"
gline=$(grep '^snafu record: gdb ' "$tmp/err")
case $verdict in
reverses)
	[ -z "$gline" ] && ok || bad "gdb's recorder steps backwards here, but snafu record says: $gline"
	has "$tmp/out" "record full" "^  \(gdb\) record full\$"
	has "$tmp/out" "tunables" "^  GLIBC_TUNABLES=glibc\.cpu\.hwcaps=-AVX512F,-AVX512BW,-AVX512VL,-AVX2,-AVX_Fast_Unaligned_Load \\\\\$"
	has "$tmp/out" "finding's breakpoint" "^  \(gdb\) break check_hung_tasks\$"
	# the way back: a breakpoint on the kernel function and reverse-continue, not
	# reverse-step (into the simulator, sim_run()) or reverse-finish (out of history)
	has "$tmp/out" "the kernel function's breakpoint" "^  \(gdb\) break do_page_fault\$"
	has "$tmp/out" "reverse-continue" "^  \(gdb\) reverse-continue   back into do_page_fault\(\)"
	hasnt "$tmp/out" "no reverse-step or reverse-finish" "reverse-(step|next|finish)"
	;;
*)
	# the prefix, and a reason that is gdb's own error line (the one this probe got,
	# where gdb's probe and snafu's fail at the same command)
	said=${gline#"snafu record: $why: "}
	if [ "$said" != "$gline" ] && [ -n "$said" ] && grep -qF -- "$said" "$tmp/probe"; then ok; else
		bad "snafu record should say 'snafu record: $why: ${reason:-ERROR}'; it says '$gline'"
		sed 's/^/    | /' "$tmp/probe"
	fi
	if grep -qE '\(gdb\) record full|reverse-' "$tmp/out"; then
		bad "snafu record prints the record full recipe where it cannot work"
	else ok; fi
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ] || exit 1
	echo "skipped: stepping backwards: $why: ${said:-$reason}"
	exit 77
	;;
esac

# --- the record full recipe ------------------------------------------------------------------
steps=$("$snafu" replay --quiet --digest --kernel=2.6.11-rc4 "$case_file" | sed -n 's/.* steps \([0-9]*\) runs.*/\1/p')
rline=$(grep -A1 -m1 '^  GLIBC_TUNABLES=' "$tmp/out" | tr -d '\\\n')
tun=$(echo "$rline" | grep -o 'GLIBC_TUNABLES=[^ ]*')
rargs=${rline#*--args }
from=$(echo "$rargs" | grep -o 'stop-at-step=[0-9]*' | cut -d= -f2)
[ -n "$from" ] && ok || bad "no --stop-at-step in the recipe: $rline"
# shellcheck disable=SC2086
eval "$tun timeout 300 gdb -nx -batch -x repro/snafu-gdb.py -ex run -ex 'set record full insn-number-max unlimited' -ex 'record full' \
	-ex 'break check_hung_tasks' -ex continue -ex snafu-step -ex finish -ex 'reverse-step' \
	-ex 'info record' -ex 'delete' -ex 'reverse-continue' -ex snafu-step --args $rargs" \
	>"$tmp/rec" 2>&1 </dev/null
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
if grep -qE "Couldn't write|Python Exception|Error occurred in Python" "$r"; then
	bad "gdb failed: $(grep -m1 -E "Couldn't write|Python" "$r")"
else ok; fi

# --- the new findings: back from where the oracle's records place them ----------------------
# rev NAME KERNEL CASE: the recorder's recipe of `snafu record` for CASE, its breakpoint, and
# then the recipe's way back (break B, the line before its reverse-continue), into
# $tmp/NAME.rec
rev() {
	local o=$tmp/$1.out rline tun rargs brk back
	"$snafu" record --kernel="$2" "$3" >"$o" 2>/dev/null
	rline=$(grep -A1 -m1 '^  GLIBC_TUNABLES=' "$o" | tr -d '\\\n')
	tun=$(echo "$rline" | grep -o 'GLIBC_TUNABLES=[^ ]*')
	rargs=${rline#*--args }
	brk=$(awk '/^  GLIBC_TUNABLES=/ {f = 1} f && /^  \(gdb\) break / {sub(/^  \(gdb\) break /, ""); print; exit}' "$o")
	back=$(awk '/^  GLIBC_TUNABLES=/ {f = 1} f && /^  \(gdb\) reverse-continue / {print prev; exit} {prev = $0; sub(/^  \(gdb\) /, "", prev)}' "$o")
	case $back in "break "*) ;; *) back= ;; esac
	[ -n "$brk" ] && [ -n "$back" ] && [ -n "$tun" ] && ok || bad "$1: no recorder recipe with a way back: $rline / $brk / $back"
	# shellcheck disable=SC2086
	eval "$tun timeout 300 gdb -nx -batch -x repro/snafu-gdb.py -ex run -ex 'set record full insn-number-max unlimited' -ex 'record full' \
		-ex \"break \$brk\" -ex continue -ex \"\$back\" -ex reverse-continue -ex bt \
		-ex snafu-futex --args $rargs" >"$tmp/$1.rec" 2>&1 </dev/null
	if grep -qE "Process record does not support|Couldn't write|Python Exception|Error occurred in Python|buffer becomes full" "$tmp/$1.rec"; then
		bad "$1: gdb failed: $(grep -m1 -E "does not support|Couldn't write|Python|buffer becomes full" "$tmp/$1.rec")"
	else ok; fi
}
rev absorbed 2.6.11 repro/cases/futex-absorbed-wakeup.case
r=$tmp/absorbed.rec
has "$r" "absorbed: at the wake call's end" "^Breakpoint 1, fo_wake_end "
has "$r" "absorbed: back to the wake-up spent" "^Breakpoint 2, fo_woken "
has "$r" "absorbed: in wake_futex, from futex_wake" "^#[0-9]+ .*wake_futex \("
has "$r" "absorbed: before it unlinked T3" "^  #0 T1 FUTEX_WAKE\(0x40000000\) at 3\.5, may wake 1, walking the chain now"
has "$r" "absorbed: nobody woken yet" "^     woke nobody so far\$"
rev deadlock 2.6.11-rc4 repro/cases/futex-wait-mmap-sem.case
r=$tmp/deadlock.rec
has "$r" "deadlock: at the judgement" "^Breakpoint 1, check_hung_tasks "
has "$r" "deadlock: back into do_page_fault" "^Breakpoint 2, do_page_fault "
hasnt "$r" "deadlock: within the recording" "^No more reverse-execution history"
rev lockdep olof-rfc repro/cases/cmp-requeue-mmap-sem.case
has "$tmp/lockdep.out" "lockdep: the recording begins before futex_requeue()" "^step backwards with gdb's recorder: stop at step [0-9]+ \(before T1's futex_requeue_olof_rfc\(\)\)"
r=$tmp/lockdep.rec
has "$r" "lockdep: at the report" "^Breakpoint 1, lockdep_bug "
has "$r" "lockdep: back into olof-rfc's futex_requeue, which took mmap_sem" "^Breakpoint 2, futex_requeue_olof_rfc "
hasnt "$r" "lockdep: within the recording" "^No more reverse-execution history"
rev eagain 2.6.11 repro/cases/cmp-requeue-spurious-eagain.case
r=$tmp/eagain.rec
has "$r" "eagain: at the -EAGAIN" "^Breakpoint 1, fo_cmp_eagain "
has "$r" "eagain: back to the queue_me()" "^Breakpoint 2, fo_queued "
has "$r" "eagain: T2's futex_wait queued" "^#[0-9]+ .*futex_wait_[0-9a-z_]+ \("
has "$r" "eagain: nqueued sampled, nothing queued since" "^FUTEX_CMP_REQUEUE: T1 sampled its bucket's nqueued \(0\); queue_me\(\) there since: none\$"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
