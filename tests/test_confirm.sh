#!/usr/bin/env bash
# snafu confirm end to end (tools/confirm.c, docs/lockdep.md): the LWN program with no
# schedule, which lockdep reports on 2.6.11-rc4, is confirmed with one preemption and
# minimized into a deadlocking case that passes its expect lines, written by default
# into the current directory, not beside the input; a byte-form input works the same;
# an mlock()ed word, which lockdep reports but which cannot fault, is "not confirmed"
# after the whole search (exit 1, no case written), and a small --runs says "within N
# executions"; on olof-rfc the same LWN program is confirmed only with kswapd's two
# passes added (step 5), while the mlock()ed word and the ZERO_PAGE, which kswapd cannot
# take, stay not confirmed after that search too; a deadlock that needs another order
# than the case's own preemption allows is confirmed with the case's schedule left out,
# as snafu explore finds it; bad usage and an input that is not a lockdep prediction get
# one line and exit 2.
#
#   bash tests/test_confirm.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $snafu, $tmp
lwn=$src/repro/cases/lockdep-futex-wait.case
harmless=$src/repro/cases/lockdep-mlock-harmless.case
zero=$src/repro/cases/olof-rfc-zero-page.case
token=lockdep--recursive-read--mmap_sem--futex_wait
dl=deadlock--do_page_fault--futex_wait

# 1. Confirmed with one preemption, no writer added (task 2's mmap is the writer).
run "$snafu" confirm --kernel=2.6.11-rc4 -o "$tmp/lwn.case" "$lwn"
check "confirm the LWN program: exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
check "the line says: confirmed, with 1 preemption" grep -qE "^confirm: .*lockdep-futex-wait.case \[2\.6\.11-rc4\]: $token: confirmed after [0-9]+ executions: $dl with 1 preemption: preempt 1 at op 2 point [0-9]+ to 2\$" "$tmp/out"
check "the line names the case written" grep -qx "confirm: minimized case: $tmp/lwn.case" "$tmp/out"
check "the case: one preemption" test "$(grep -c '^preempt ' "$tmp/lwn.case" 2>/dev/null)" = 1
check "the case: two tasks, three ops" test "$(grep -c '^  ' "$tmp/lwn.case" 2>/dev/null)" = 3
check "the case expects the deadlock on 2.6.11-rc4" grep -qx "expect 2.6.11-rc4 $dl" "$tmp/lwn.case"
check "the case says what it confirms" grep -q "^# confirms the lockdep prediction $token on 2.6.11-rc4" "$tmp/lwn.case"
"$snafu" replay --check --quiet "$tmp/lwn.case" >"$tmp/check" 2>&1
check "the case passes its expect lines" test $? = 0
"$snafu" replay --kernel=2.6.11-rc4 "$tmp/lwn.case" >"$tmp/replay" 2>&1
check "the case replays to the deadlock" grep -qx "DEDUP_TOKEN: $dl" "$tmp/replay"

# 2. By default NAME.confirmed.case in the current directory, never beside the input
# (a saved case's directory, whose *.case every replay --check and CTest globs), from
# the byte form too.
mkdir "$tmp/in" "$tmp/cwd"
cp "$lwn" "$tmp/in/copy.case"
run sh -c 'cd "$2" && "$1" confirm "$3"' sh "$snafu" "$tmp/cwd" "$tmp/in/copy.case"
check "default output: ./copy.confirmed.case (exit $rc)" test "$rc" = 0 -a -s "$tmp/cwd/copy.confirmed.case"
check "default output: the line names it" grep -qx "confirm: minimized case: copy.confirmed.case" "$tmp/out"
check "default output: nothing beside the input" test "$(ls "$tmp/in")" = copy.case
"$snafu" show --bytes -o "$tmp/in/lwn.input" "$lwn" &&
	run sh -c 'cd "$2" && "$1" confirm "$3"' sh "$snafu" "$tmp/cwd" "$tmp/in/lwn.input"
check "bytes in: exit 0, ./lwn.confirmed.case (exit $rc)" test "$rc" = 0 -a -s "$tmp/cwd/lwn.confirmed.case"
"$snafu" show --bytes -o "$tmp/in/lwn.bin" "$lwn" &&
	run sh -c 'cd "$2" && "$1" confirm "$3"' sh "$snafu" "$tmp/cwd" "$tmp/in/lwn.bin"
check "bytes in: exit 0, ./lwn.bin.confirmed.case (exit $rc)" test "$rc" = 0 -a -s "$tmp/cwd/lwn.bin.confirmed.case"
check "bytes in: nothing beside the input" test "$(ls "$tmp/in" | tr '\n' ' ')" = "copy.case lwn.bin lwn.input "

# 3. Not confirmed: the word lies in an mlock()ed page, which never faults.
run "$snafu" confirm --kernel=2.6.11-rc4 -o "$tmp/harmless.confirmed.case" "$harmless"
check "the mlock case: exit 1 (got $rc)" test "$rc" = 1
check "the mlock case: not confirmed after the whole search" grep -qE "^confirm: .*lockdep-mlock-harmless.case \[2\.6\.11-rc4\]: $token: not confirmed: none of the [0-9]+ schedules deadlocks" "$tmp/out"
[ "$rc" = 1 ] || show_output
check "the mlock case: nothing written" test ! -e "$tmp/harmless.confirmed.case"
run "$snafu" confirm --runs=10 -o "$tmp/harmless.confirmed.case" "$harmless"
check "--runs=10: exit 1, within 10 executions (got $rc)" grep -q "not confirmed within 10 executions$" "$tmp/out"

# 4. olof-rfc: its check_user_page_readable() loop makes the page present before the
# get_user(), so no writer and no preemption make it fault; kswapd's two passes
# (reclaim-olof-rfc.case) after the check do. Step 4 adds them with the writer.
run "$snafu" confirm --kernel=olof-rfc -o "$tmp/olof.case" "$lwn"
check "olof-rfc: confirmed, exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
check "olof-rfc: the line says: two kswapd passes and a writer added" grep -qE "^confirm: .*lockdep-futex-wait.case \[olof-rfc\]: $token: confirmed after [0-9]+ executions: $dl with [0-9]+ preemptions?, two kswapd passes and a writer added \(reclaim, reclaim and mmap in task [0-9]\): preempt 1 at op 2 point [0-9]+ to [0-9]" "$tmp/out"
check "olof-rfc: the case keeps both reclaim ops" test "$(grep -c '^  reclaim ' "$tmp/olof.case" 2>/dev/null)" = 2
check "olof-rfc: the case expects the deadlock there" grep -qx "expect olof-rfc $dl" "$tmp/olof.case"
"$snafu" replay --check --quiet "$tmp/olof.case" >"$tmp/check" 2>&1
check "olof-rfc: the case passes its expect lines (replay --check)" test $? = 0
"$snafu" replay --kernel=olof-rfc "$tmp/olof.case" >"$tmp/replay" 2>&1
check "olof-rfc: the case replays to the deadlock" grep -qx "DEDUP_TOKEN: $dl" "$tmp/replay"
check "olof-rfc: kswapd unmaps the page in the replay" grep -q "kswapd: try_to_unmap_one" "$tmp/replay"
# where kswapd cannot take the page, step 5 runs to its end: an mlock()ed page
# (VM_LOCKED: try_to_unmap_one() refuses it) and the ZERO_PAGE (on no LRU list), the
# latter's whole search within the default --runs
kswapd_line="every single preemption and every pair of those that fired, with and without an added writer; every schedule within 2 preemptions of those programs without the case's; every schedule within 3 preemptions with two kswapd passes and then a writer added in task [0-9]\)\$"
run "$snafu" confirm --kernel=olof-rfc -o "$tmp/no.case" "$harmless"
check "olof-rfc, mlock: not confirmed, exit 1 (got $rc)" test "$rc" = 1
check "olof-rfc, mlock: the line names the kswapd search" grep -qE "^confirm: .*lockdep-mlock-harmless.case \[olof-rfc\]: $token: not confirmed: none of the [0-9]+ schedules deadlocks \($kswapd_line" "$tmp/out"
[ "$rc" = 1 ] || show_output
run "$snafu" confirm --kernel=olof-rfc -o "$tmp/no.case" "$zero"
check "olof-rfc, ZERO_PAGE: not confirmed, exit 1 (got $rc)" test "$rc" = 1
check "olof-rfc, ZERO_PAGE: the line names the kswapd search" grep -qE "^confirm: .*olof-rfc-zero-page.case \[olof-rfc\]: $token: not confirmed: none of the [0-9]+ schedules deadlocks \($kswapd_line" "$tmp/out"
[ "$rc" = 1 ] || show_output
run "$snafu" confirm --kernel=olof-rfc --runs=6000 -o "$tmp/no.case" "$zero"
check "olof-rfc, ZERO_PAGE, --runs=6000: cut in step 4 (explore), said so" grep -qE "not confirmed within 6000 executions \(cut while searching every schedule within 2 preemptions without the case's\)\$" "$tmp/out"
run "$snafu" confirm --kernel=olof-rfc --runs=12000 -o "$tmp/no.case" "$zero"
check "olof-rfc, ZERO_PAGE, --runs=12000: cut in step 5 (kswapd), said so" grep -qE "not confirmed within 12000 executions \(cut while searching every schedule within 3 preemptions with two kswapd passes and then a writer added in task [0-9]\)\$" "$tmp/out"
check "nothing written when not confirmed" test ! -e "$tmp/no.case"

# 5. Bad usage and inputs that are no lockdep prediction: one line, exit 2, nothing out.
bad_usage() { # WHAT ARGS...: exit 2, one line on stderr, nothing on stdout
	local what=$1
	shift
	run "$snafu" confirm "$@"
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]; then ok; else
		bad "confirm $what: want exit 2 and one line, got exit $rc"
		show_output
	fi
}
# 5. A deadlock that needs another order than the case's: the case's preemption runs
#    task 2's mmap (the writer) before task 1 starts, and a full program (256 ops: no
#    room for an added writer) leaves only task 3's loads after it; so no preemption
#    added to the case's deadlocks. snafu explore, which drops the case's schedule,
#    deadlocks it with one; confirm must search at least that (step 4).
{
	printf 'task 1\n  mmap futex pages=1 prot=rw shared\n  futex_wait futex val=1\n'
	printf 'task 2\n  mmap other pages=1 prot=rw\ntask 3\n'
	for i in $(seq 253); do echo "  load other"; done
	echo "preempt 1 at op 1 point 1 to 2"
} >"$tmp/order.case"
run "$snafu" explore --kernel=2.6.11-rc4 --preemptions=2 --quiet "$tmp/order.case"
check "the other order: explore deadlocks it (exit $rc)" grep -q "found $dl with 1 preemption" "$tmp/out"
run "$snafu" confirm --kernel=2.6.11-rc4 -o "$tmp/order.confirmed.case" "$tmp/order.case"
check "the other order: confirm, exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
check "the other order: the line says the case's preemptions were left out" grep -qE "^confirm: .*: $token: confirmed after [0-9]+ executions: $dl with 1 preemption, the case's own left out: preempt 1 at op 2 point [0-9]+ to 2\$" "$tmp/out"
"$snafu" replay --check --quiet "$tmp/order.confirmed.case" >"$tmp/check.out" 2>&1
check "the other order: the confirmed case passes its expect lines" test $? = 0

bad_usage "without a CASE"
bad_usage "--runs=0" --runs=0 "$lwn"
bad_usage "--runs=x" --runs=x "$lwn"
bad_usage "--kernel=nope" --kernel=nope "$lwn"
bad_usage "--bogus" --bogus "$lwn"
bad_usage "two CASEs" "$lwn" "$harmless"
bad_usage "a deadlocking case" -o "$tmp/no.case" "$src/repro/cases/futex-wait-mmap-sem.case"
check "a deadlocking case: says what it found" grep -q "found $dl\$" "$tmp/err"
bad_usage "a case that is ok on 2.6.11" --kernel=2.6.11 -o "$tmp/no.case" "$lwn"
bad_usage "a missing file" "$tmp/missing.case"
check "nothing written on bad usage" test ! -e "$tmp/no.case"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
