#!/usr/bin/env bash
# snafu stress, bounded by time (it runs real threads; nothing here asserts a timing):
# Olof's testcase on the merged fix runs without a hang; bad flags get one line and 2.
set -uo pipefail
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin/snafu" stress --kernel=2.6.11 --seconds=3 >"$tmp/out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "stress: no hang in" "$tmp/out"; then ok; else
	bad "stress 2.6.11: exit $rc"; cat "$tmp/out"; fi
"$bin/snafu" stress --kernel=2.6.11 --threads=4 --seed=3 --seconds=2 >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "chaos on" "$tmp/out" && ok || { bad "stress with chaos: exit $rc"; cat "$tmp/out"; }
"$bin/snafu" stress --kernel=2.6.11 --seconds=2 "$src/repro/cases/futex-wait-mmap-sem.case" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] && ok || { bad "stress with a case: exit $rc"; cat "$tmp/out"; }
for arg in --threads=9 --seconds=0 --kernel=nope --bogus; do
	"$bin/snafu" stress "$arg" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]; then ok; else
		bad "stress $arg: exit $rc, $(wc -l <"$tmp/err") lines"; fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
