#!/usr/bin/env bash
# The differential test (docs/differential.md): 5000 seeded random programs on the model
# (kernel 2.6.11; then 2.6.14, 2.6.17 and 2.6.18, whose programs have futex_wake_op,
# and 2.6.22, 2.6.28 and 2.6.30, whose futex ops are private half the time)
# and, op by op, with real system calls on this machine's kernel. Fails on
# any disagreement the table of known differences (tests/differential/era.c) does not
# explain: a DEFECT, printed with its program. Known model defects (KNOWN rows) are
# counted, not failed: they are being fixed in ref/; `differential --strict` fails on
# them too. Also: the same seed gives the same table; --case replays a program op by op;
# each entry's example in tests/differential/cases/ shows it; a generated program replays
# with `snafu replay`; --table gives every entry its sources.
# Skips (77) where the host cannot run it: not Linux on x86-64, no MAP_FIXED_NOREPLACE
# (Linux < 4.17), the model's address range taken, a sandbox refusing the system calls.
#
#   bash tests/test_differential.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $bin, $src, $tmp
diff=$bin/differential
[ -x "$diff" ] || {
	echo "skipped: no $diff"
	exit 77
}
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || {
	echo "skipped: the host side runs on Linux x86-64 only, this is $(uname -s)-$(uname -m)"
	exit 77
}

"$diff" --programs=5000 --seed=1 --print=3 >"$tmp/out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "skipped: $(grep -m1 '^skip:' "$tmp/out" | sed 's/^skip: //')"
	exit 77
fi
cat "$tmp/out"
check "5000 programs: every disagreement is in the table (exit $rc)" [ $rc = 0 ]
check "the summary counts programs" grep -q '^differential: programs: [0-9]* agree' "$tmp/out"

# the kernels with FUTEX_WAKE_OP: every encoding, and each kernel's own differences
# (an entry's count is the third field of its row); from 2.6.22 with private futexes too
for k in 2.6.14 2.6.17 2.6.18 2.6.22 2.6.28 2.6.30; do
	"$diff" --kernel=$k --programs=5000 --seed=1 --print=3 >"$tmp/out.$k" 2>&1
	rc=$?
	cat "$tmp/out.$k"
	check "$k: 5000 programs, every disagreement in the table (exit $rc)" [ $rc = 0 ]
done
count() { awk -v id="$2" '$2 == id { print $3 }' "$tmp/out.$1"; }
check "2.6.14: futex_wake_op's second fault is -EFAULT ($(count 2.6.14 wake-op-second-fault))" \
	[ "$(count 2.6.14 wake-op-second-fault)" -gt 0 ]
check "2.6.14: a refused encoding is -EFAULT ($(count 2.6.14 wake-op-enosys-fault))" \
	[ "$(count 2.6.14 wake-op-enosys-fault)" -gt 0 ]
check "2.6.18: neither (fixed)" [ "$(count 2.6.18 wake-op-second-fault)$(count 2.6.18 wake-op-enosys-fault)" = 00 ]
check "2.6.18: futex_wake_op keys its second word for reading ($(count 2.6.18 wake-op-key-write))" \
	[ "$(count 2.6.18 wake-op-key-write)" -gt 0 ]
check "2.6.22: a user read of a write-only page is allowed, as today (2.6.19 on)" \
	[ "$(count 2.6.22 load-write-only)" = 0 ]
check "2.6.22: FUTEX_PRIVATE_FLAG is no unknown command ($(count 2.6.22 futex-private-flag))" \
	[ "$(count 2.6.22 futex-private-flag)" = 0 ]
check "2.6.28: keys from the page, which loop on the ZERO_PAGE ($(count 2.6.28 futex-zero-page-loop))" \
	[ "$(count 2.6.28 futex-zero-page-loop)" -gt 0 -a "$(count 2.6.28 futex-page-no-read)" -gt 0 ]
check "2.6.28: no key from the VMA ($(count 2.6.28 futex-no-read))" [ "$(count 2.6.28 futex-no-read)" = 0 ]
check "2.6.30: FUTEX_WAKE_OP_PRIVATE's retry without the locks ($(count 2.6.30 wake-op-private-unlocked))" \
	[ "$(count 2.6.30 wake-op-private-unlocked)" -gt 0 ]
check "2.6.30: the second key taken for writing ($(count 2.6.30 wake-op-key-write))" \
	[ "$(count 2.6.30 wake-op-key-write)" = 0 ]
"$diff" --kernel=2.6.99 --programs=1 >/dev/null 2>"$tmp/err"
rc=$?
check "--kernel=2.6.99: exit 2 (exit $rc)" [ $rc = 2 ]
check "and says which kernel" grep -q -- '--kernel=2.6.99: expected a kernel' "$tmp/err"

# the same seed, the same table (all but the timing line)
"$diff" --programs=300 --seed=7 --quiet | grep -v ' s, ' >"$tmp/a"
"$diff" --programs=300 --seed=7 --quiet | grep -v ' s, ' >"$tmp/b"
check "the same seed gives the same table" cmp -s "$tmp/a" "$tmp/b"

# --case: a futex on PROT_NONE is -EACCES in 2.6.11, -EFAULT today: an era difference
printf 'task 1\n  mmap m pages=1 prot=none\n  futex_wake m\n  load m\n' >"$tmp/none.case"
"$diff" --case="$tmp/none.case" >"$tmp/case" 2>&1
rc=$?
check "--case: futex on PROT_NONE exits 0 (exit $rc)" [ $rc = 0 ]
check "--case: it is the era entry futex-no-read" grep -q 'ERA futex-no-read: model -13, host -14' "$tmp/case"
check "--case: the load agrees (SIGSEGV on both)" grep -q '^  3 load m0 .*model -14 *host -14 ' "$tmp/case"
printf 'task 1\n  mmap m pages=1\ntask 2\n  load m\n' >"$tmp/two.case"
"$diff" --case="$tmp/two.case" >/dev/null 2>"$tmp/err"
rc=$?
check "--case: a second task is refused (exit $rc)" [ $rc = 2 ]

# tests/differential/cases/: one small program per entry of the table, its `# expect:`
# line naming the entry. It must give no DEFECT. It shows that entry, or agrees op by op:
# a host kernel may behave as 2.6.11 (an era entry), or ref/ may have fixed the defect (a
# KNOWN entry: then remove the entry from era.c and the case from cases/).
# A `# kernel:` line names the model's kernel, where not 2.6.11.
for c in "$src"/tests/differential/cases/*.case; do
	want=$(sed -n 's/^# expect: //p' "$c")
	k=$(sed -n 's/^# kernel: //p' "$c")
	"$diff" --kernel="${k:-2.6.11}" --case="$c" >"$tmp/case" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q "<== $want:" "$tmp/case"; then
		ok
	elif [ $rc = 0 ] && [ "$(tail -1 "$tmp/case")" = agree ]; then
		ok
		echo "note: $(basename "$c"): agrees op by op here, no $want"
	else
		bad "$(basename "$c"): want $want (exit $rc)"
		sed 's/^/    /' "$tmp/case"
	fi
done

# a generated program is a case snafu replays as it is
"$diff" --seed=3 --programs=1 --verbose | sed -n '/^tasks/,/^  *1 /p' | sed '$d' >"$tmp/gen.case"
check "a generated program replays with snafu replay" \
	"$bin/snafu" replay --quiet --kernel=2.6.11 "$tmp/gen.case"
check "and with --case" "$diff" --case="$tmp/gen.case"

# the table: every entry with its source in 2.6.11 (or the kernels it names) and
# today's (or the model's)
"$diff" --table >"$tmp/table"
entries=$(grep -c '^[a-z-]* (\(ERA\|CONFIG\|KNOWN\)): ' "$tmp/table")
then=$(grep -c '^  2\.6\.[0-9][0-9 .]*: ' "$tmp/table")
now=$(grep -c '^  \(today\|model\): ' "$tmp/table")
check "--table: $entries entries, $then 2.6 sources, $now others" \
	[ "$entries" -gt 5 -a "$then" = "$entries" -a "$now" = "$entries" ]

# every era entry and known defect has its example there
for id in $(sed -n 's/^\([a-z-]*\) (\(ERA\|KNOWN\)): .*/\1/p' "$tmp/table"); do
	check "entry $id has tests/differential/cases/$id.case" [ -f "$src/tests/differential/cases/$id.case" ]
done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
