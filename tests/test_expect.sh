#!/usr/bin/env bash
# snafu expect end to end (tools/expect.c, docs/model.md "Add your own fix"): the expect
# lines each kernel's run gives a case, beside what the case says. A case whose lines all
# hold: one line a kernel, "as the case says", exit 0. A kernel's line taken out: "new",
# exit 1, and --write puts it back after the last expect line, where replay --check then
# passes; a line with the wrong verdict: "changed", and --write replaces the verdict,
# keeping the line's comment; a kernel an `expect *` line covers: "as its 'expect *' says",
# to review, exit 0, and one whose run differs from it: "new", its own line written;
# --kernel: that kernel alone; a finding with a preemption that does not fire fits no line
# (exit 1, nothing written); bad usage, and --write on the byte form or standard input: one
# line, exit 2, the file as it was.
#
#   bash tests/test_expect.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $snafu, $tmp
lwn=$src/repro/cases/futex-wait-mmap-sem.case
nk=$("$snafu" kernels | wc -l)

# 1. Every line as the case says.
run "$snafu" expect "$lwn"
check "a case whose lines hold: exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
check "a line per listed kernel" test "$(grep -c '  (as the case says)$' "$tmp/out")" = "$nk"
check "2.6.11-rc4's line" grep -qx ".*futex-wait-mmap-sem.case: expect 2.6.11-rc4 deadlock--do_page_fault--futex_wait  (as the case says)" "$tmp/out"
check "the summary" grep -qx "expect: 0 of $nk lines new or changed; 0 as an 'expect \*' line says (review them)" "$tmp/out"

# 2. A line taken out: new; --write puts it back after the last expect line.
grep -v '^expect 2.6.11 ' "$lwn" >"$tmp/new.case"
run "$snafu" expect "$tmp/new.case"
check "a kernel without a line: exit 1 (got $rc)" test "$rc" = 1
check "a kernel without a line: new" grep -qx "$tmp/new.case: expect 2.6.11 ok  (new: no line)" "$tmp/out"
cp "$tmp/new.case" "$tmp/new.before"
run "$snafu" expect --write "$tmp/new.case"
check "--write: exit 0 (got $rc)" test "$rc" = 0
check "--write: says so" grep -q "^expect: 1 line written into 1 case;" "$tmp/out"
check "--write: the line after the last expect line" test "$(tail -1 "$tmp/new.case")" = "expect 2.6.11 ok"
check "--write: nothing else changed" diff <(sed '$d' "$tmp/new.case") "$tmp/new.before"
run "$snafu" replay --check --quiet "$tmp/new.case"
check "--write: replay --check passes (exit $rc)" test "$rc" = 0

# 3. A wrong verdict: changed; --write replaces it and keeps the comment.
sed 's/^expect 2.6.12-jj ok$/expect 2.6.12-jj unfired   # as written by hand/' "$lwn" >"$tmp/changed.case"
run "$snafu" expect "$tmp/changed.case"
check "a wrong verdict: exit 1 (got $rc)" test "$rc" = 1
check "a wrong verdict: changed" grep -qx "$tmp/changed.case: expect 2.6.12-jj ok  (changed: the case says unfired)" "$tmp/out"
run "$snafu" expect --write "$tmp/changed.case"
check "--write on a changed line: exit 0 (got $rc)" test "$rc" = 0
check "--write: the verdict replaced, the comment kept" grep -qx 'expect 2.6.12-jj ok   # as written by hand' "$tmp/changed.case"
check "--write: the line in its place" diff <(grep -v '^expect 2.6.12-jj' "$tmp/changed.case") <(grep -v '^expect 2.6.12-jj' "$lwn")

# 4. expect *: said, to review; exit 0.
{ grep -v '^expect' "$lwn"; printf 'expect 2.6.11-rc4 deadlock--do_page_fault--futex_wait\nexpect 2.6.10-seto deadlock--do_page_fault--futex_wait\nexpect olof-rfc lockdep--recursive-read--mmap_sem--futex_wait\nexpect * ok\n'; } >"$tmp/star.case"
run "$snafu" expect "$tmp/star.case"
check "expect *: exit 0 (got $rc)" test "$rc" = 0
check "expect *: 2.6.11 by it" grep -qx "$tmp/star.case: expect 2.6.11 ok  (as its 'expect \*' says)" "$tmp/out"
check "expect *: counted" grep -qx "expect: 0 of $nk lines new or changed; $((nk - 3)) as an 'expect \*' line says (review them)" "$tmp/out"

# 4b. An expect * line a kernel's run does not give: new, and --write gives the kernel its
#     own line.
sed 's/^expect \* ok$/expect * unfired/' "$tmp/star.case" >"$tmp/star2.case"
run "$snafu" expect --kernel=2.6.11 "$tmp/star2.case"
check "expect * differs: exit 1 (got $rc)" test "$rc" = 1
check "expect * differs: new" grep -qx "$tmp/star2.case: expect 2.6.11 ok  (new: its 'expect \*' says unfired)" "$tmp/out"
run "$snafu" expect --kernel=2.6.11 --write "$tmp/star2.case"
check "expect * differs, --write: exit 0 (got $rc)" test "$rc" = 0
check "expect * differs, --write: its own line before expect *" \
	test "$(grep '^expect' "$tmp/star2.case" | tail -2 | tr '\n' '|')" = "expect 2.6.11 ok|expect * unfired|"

# 5. --kernel: that kernel alone.
run "$snafu" expect --kernel=2.6.11 --kernel=2.6.11-rc4 "$tmp/new.before"
check "--kernel twice: exit 1 (got $rc)" test "$rc" = 1
check "--kernel twice: two lines and the summary" test "$(wc -l <"$tmp/out")" = 3
check "--kernel: the kernel named first first" test "$(head -1 "$tmp/out")" = "$tmp/new.before: expect 2.6.11 ok  (new: no line)"

# 6. A finding with a preemption that does not fire: no line fits; nothing written.
{ grep -v '^expect' "$lwn"; echo 'preempt 2 at op 1 point 31 to 1'; } >"$tmp/nofit.case"
cp "$tmp/nofit.case" "$tmp/nofit.before"
run "$snafu" expect --write --kernel=2.6.11-rc4 "$tmp/nofit.case"
check "no line fits: exit 1 (got $rc)" test "$rc" = 1
check "no line fits: says so" grep -q "nofit.case: kernel 2.6.11-rc4: no expect line fits: deadlock--do_page_fault--futex_wait with a preemption that did not fire" "$tmp/out"
check "no line fits: nothing written" cmp -s "$tmp/nofit.case" "$tmp/nofit.before"

# 7. Bad usage and input: one line, exit 2, nothing written.
run "$snafu" expect --bogus "$lwn"
check "--bogus: exit 2 (got $rc)" test "$rc" = 2
check "--bogus: one line naming it" test "$(wc -l <"$tmp/err")" = 1 -a -n "$(grep -F "'--bogus'" "$tmp/err")"
run "$snafu" expect
check "no CASE: exit 2 (got $rc)" test "$rc" = 2
run "$snafu" expect --kernel=nope "$lwn"
check "--kernel=nope: exit 2 (got $rc)" test "$rc" = 2
"$snafu" show --bytes -o "$tmp/new.bytes" "$tmp/new.before" 2>/dev/null
cp "$tmp/new.bytes" "$tmp/bytes.before"
run "$snafu" expect --write "$tmp/new.bytes"
check "--write on the byte form: exit 2 (got $rc)" test "$rc" = 2
check "--write on the byte form: one line" test "$(wc -l <"$tmp/err")" = 1
check "--write on the byte form: the file as it was" cmp -s "$tmp/new.bytes" "$tmp/bytes.before"
run "$snafu" expect --write - <"$tmp/new.before"
check "--write on standard input: exit 2 (got $rc)" test "$rc" = 2
check "--write leaves no temporary" test -z "$(find "$tmp" -name '*.tmp.*')"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
