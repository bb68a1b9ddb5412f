#!/usr/bin/env bash
# What a kernel developer reads in a report besides the wait-for cycle: a Call Trace per
# task, innermost first, with 2.6.11's function names (ref/kernel.h, kframe()); the
# state of each rwsem of the cycle as a crash dump shows it (activity, wait list in
# order); the lock a preemption at a lock function hit; lockdep's "stack backtrace:";
# the sleeper's Call Trace in a lost wake-up; a livelock's loop. And none of it depends on the build: the
# other flavour (gcc, no sanitizers) prints the same reports byte for byte.
#   bash tests/test_report.sh BIN_DIR SRC_DIR [OTHER_BIN_DIR]
set -uo pipefail
bin=$1 src=$2 other=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
cases=$src/repro/cases

# frames FILE REGEX: the function names of the Call Trace that follows the first line
# matching REGEX (past its indented lines), innermost first, one line; empty if the
# block has none
frames() {
	awk -v re="$2" '
		!found { if ($0 ~ re) found = 1; next }
		!trace && /^Call Trace:$/ { trace = 1; next }
		!trace && /^  / { next }
		!trace { exit }
		/^ \[<0>\] / { printf "%s%s", sep, $2; sep = " "; next }
		{ exit }' "$1"
}
# want_frames WHAT FILE REGEX EXPECTED
want_frames() {
	local got
	got=$(frames "$2" "$3")
	if [ "$got" = "$4" ]; then ok; else
		bad "$1: Call Trace '$got', want '$4'"
		show_output
	fi
}

# The article's deadlock: T1 faults in get_user() under its read hold of mmap_sem and
# queues behind T2's down_write(), which waits for T1.
run "$bin/snafu" replay "$cases/futex-wait-mmap-sem.case"
check "futex-wait-mmap-sem: a deadlock, exit 1 (was $rc)" test "$rc" = 1
want_frames "T1, blocked in the fault's down_read()" "$tmp/out" '^T1 \(pid 1\) state D, in sys_futex' \
	"schedule down_read do_page_fault get_user futex_wait do_futex sys_futex"
want_frames "T2, blocked in sys_mmap2()'s down_write()" "$tmp/out" '^T2 \(pid 2\) state D, in sys_mmap2' \
	"schedule down_write sys_mmap2"
check "a Call Trace block per task, two in all" test "$(grep -c '^Call Trace:$' "$tmp/out")" = 2
check "the rwsem of the cycle: its activity and wait list, in queue order, once" \
	test "$(grep -cx '  &mm->mmap_sem: activity 1, wait_list: T2 (write), T1 (read)' "$tmp/out")" = 1
grep -A3 '^wait-for cycle:$' "$tmp/out" | grep -q '^lock state (struct rw_semaphore, lib/rwsem-spinlock.c):$' &&
	ok || bad "no lock state after the wait-for cycle"
cp "$tmp/out" "$tmp/lwn"

# The same on the other rwsem users of the 2005 bug: the fault under mincore's
# copy_to_user() and get_mempolicy's put_user().
run "$bin/snafu" replay "$cases/mincore-mmap-sem.case"
want_frames "mincore: T1" "$tmp/out" '^T1 \(pid 1\) state D' \
	"schedule down_read do_page_fault copy_to_user mincore_vma sys_mincore"
run "$bin/snafu" replay "$cases/get-mempolicy-mmap-sem.case"
want_frames "get_mempolicy: T1" "$tmp/out" '^T1 \(pid 1\) state D' \
	"schedule down_read do_page_fault put_user sys_get_mempolicy"

# A preemption at a lock function names the lock (the table hides spinlocks' own rows).
run "$bin/snafu" replay "$cases/futex-seto-missed-wakeup.case"
check "the table names the lock of a preemption at spin_unlock" \
	grep -qF '  [preempted at spin_unlock(&bh->lock): T2 runs]' "$tmp/out"
check "... and not the bare function" test "$(grep -c 'preempted at spin_unlock:' "$tmp/out")" = 0
run "$bin/snafu" replay "$cases/cmp-requeue-spurious-eagain.case"
check "the table names the lock of a preemption at spin_lock" \
	grep -qF '  [preempted at spin_lock(&bh->lock): T2 runs]' "$tmp/out"

# A lost wake-up: where the sleeper sleeps.
run "$bin/snafu" replay --kernel=2.6.10-seto "$cases/futex-seto-missed-wakeup.case"
check "lost wake-up: exit 1 (was $rc)" test "$rc" = 1
want_frames "the sleeper of a lost wake-up" "$tmp/out" '^T1 \(pid 1\) state S, in sys_futex, asleep' \
	"schedule schedule_timeout futex_wait do_futex sys_futex"

# Lockdep ends its report with where the task was, as lockdep's own does.
run "$bin/snafu" replay "$cases/lockdep-futex-wait.case"
check "lockdep: exit 1 (was $rc)" test "$rc" = 1
want_frames "lockdep's stack backtrace" "$tmp/out" '^stack backtrace:$' "get_user futex_wait do_futex sys_futex"

# A call that never returns: the livelock names the call, shows where each task is and
# the loop the looping task went round (2.6.30's FUTEX_WAKE_OP fault path, on a word
# whose PTE is present and read-only: get_user() succeeds, the write faults again).
run "$bin/snafu" replay --kernel=test-wake-op-retry "$cases/futex-wake-op-read-only.case"
check "livelock: exit 1 (was $rc)" test "$rc" = 1
check "livelock: named after the call" grep -q '^DEDUP_TOKEN: livelock--futex_wake_op$' "$tmp/out"
check "livelock: the title" grep -q '^livelock in futex_wake_op: T1 never returns$' "$tmp/out"
# where in its round the run stops is the budget's arithmetic: the Call Trace ends in the
# call, and the round is the loop's five events from wherever the trace ends
got=$(frames "$tmp/out" '^T1 \(pid 1\) state R, in sys_futex')
check "the looping task's Call Trace ends in futex_wake_op (got '$got')" \
	grep -qE '(^| )futex_wake_op do_futex sys_futex$' <<<"$got"
check "livelock: the loop, with its rounds" \
	grep -q '^the loop: T1 went round it [0-9]* times in a row at the end of the trace' "$tmp/out"
sed -n '/^the loop: /,/^$/p' "$tmp/out" | sed '1d;/^$/d' >"$tmp/loop"
printf '%s\n' '  down_read(&mm->mmap_sem)' '  futex_atomic_op_inuser(0x40000004)' \
	'    do_page_fault(0x40000004, write)' '  up_read(&mm->mmap_sem)' \
	'  get_user(0x40000004)' >"$tmp/want"
rotation=no
for i in 0 1 2 3 4; do
	{ tail -n +$((i + 1)) "$tmp/want"; head -n $i "$tmp/want"; } | cmp -s - "$tmp/loop" && rotation=yes
done
check "livelock: one round, as the interleaving shows it (the five events, in order)" \
	test $rotation = yes

# A loop another task ends is no livelock: past the step budget the tasks take turns
# (docs/triage.md). 2.6.28's get_futex_key() goes round on the ZERO_PAGE while no page
# table is there; alone it loops for ever, but T2's load, which the schedule kept from
# running (T1 never blocks), faults the page in once T2 gets its turn, and T1's
# futex_wait() then finds the word 0, not 1.
printf 'task 1\n  mmap word pages=1 prot=rw\n  futex_wait word val=1\n' >"$tmp/alone.case"
run "$bin/snafu" replay --kernel=2.6.28 "$tmp/alone.case"
check "livelock: a loop nothing else can end (exit $rc)" grep -q '^DEDUP_TOKEN: livelock--futex_wait$' "$tmp/out"
printf 'task 1\n  mmap word pages=1 prot=rw\n  futex_wait word val=1\ntask 2\n  load word\n' >"$tmp/turns.case"
run "$bin/snafu" replay --kernel=2.6.28 "$tmp/turns.case"
check "livelock: none where another task's turn ends the loop (exit $rc)" test "$rc" = 0

# No addresses, nothing of the build: the other flavour prints the same reports.
if [ -n "$other" ] && [ -x "$other/snafu" ]; then
	for c in futex-wait-mmap-sem lockdep-futex-wait futex-seto-missed-wakeup; do
		"$bin/snafu" replay "$cases/$c.case" >"$tmp/a" 2>&1
		"$other/snafu" replay "$cases/$c.case" >"$tmp/b" 2>&1
		if cmp -s "$tmp/a" "$tmp/b"; then ok; else
			bad "$c: the report differs between $bin and $other"
			diff "$tmp/a" "$tmp/b" | head -20
		fi
	done
fi
run "$bin/snafu" replay "$cases/futex-wait-mmap-sem.case"
check "the same report every run" cmp -s "$tmp/out" "$tmp/lwn"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
