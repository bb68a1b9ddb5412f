#!/usr/bin/env bash
# The CI scripts, short: ci/known-findings.txt names listed kernels only; ci/replay.sh is
# green on the ASan and TSan builds; ci/fuzz.sh for a few seconds on a fixed and an unfixed
# kernel yields only known signatures, prints its table and merges into a copy of the seed
# corpus without dropping a seed; with the unfixed kernel's findings declared unknown, it
# exits 1 and leaves a minimized case and its report in the found directory.
set -uo pipefail
bin=$1 src=$2 tsan=${4:-}
[ -x "$bin/futex_mm_fuzzer" ] || { echo "skipped: no futex_mm_fuzzer in this build (gcc?)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
kernels=$("$bin/snafu" kernels | awk '{print $1}')

# 1. known-findings.txt: KERNEL SIGNATURE, listed kernels
while read -r k sig rest; do
	grep -qxF -- "$k" <<<"$kernels" && [ -n "$sig" ] && [ -z "$rest" ] && ok ||
		bad "ci/known-findings.txt: '$k $sig $rest'"
done < <(sed 's/#.*//' "$src/ci/known-findings.txt" | awk 'NF')

# 2. ci/replay.sh: every saved case, both builds
if [ -n "$tsan" ] && [ -x "$tsan/snafu" ]; then
	SNAFU_BIN=$bin SNAFU_TSAN_BIN=$tsan "$src/ci/replay.sh" >"$tmp/replay.log" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q "asan .*0 mismatches" "$tmp/replay.log" && grep -q "tsan .*0 mismatches" "$tmp/replay.log" &&
		ok || { bad "ci/replay.sh: exit $rc"; tail -20 "$tmp/replay.log"; }
else
	echo "note: no tsan build; ci/replay.sh not run"
fi
# a mismatch is reported, named, and fails
sed 's/^expect 2\.6\.11 ok$/expect 2.6.11 deadlock--do_page_fault--futex_wait/' \
	"$src/repro/cases/futex-wait-mmap-sem.case" >"$tmp/wrong.case"
SNAFU_BIN=$bin SNAFU_TSAN_BIN=${tsan:-$bin} "$src/ci/replay.sh" "$tmp/wrong.case" >"$tmp/wrong.log" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "wrong.case \[2.6.11\]: ok (expected deadlock--do_page_fault--futex_wait) MISMATCH" "$tmp/wrong.log" &&
	ok || { bad "ci/replay.sh on a wrong expect line: exit $rc"; tail -5 "$tmp/wrong.log"; }

# 3. ci/fuzz.sh: 3 s on 2.6.11 and 2.6.11-rc4, merging into a copy of the seeds
export SNAFU_BIN=$bin SNAFU_WORK=$tmp/work SNAFU_FOUND=$tmp/found SNAFU_MERGE_INTO=$tmp/corpus
cp -r "$src/corpus/futex_mm_fuzzer" "$tmp/corpus"
"$src/ci/fuzz.sh" --seconds=3 --jobs=2 --kernel=2.6.11 --kernel=2.6.11-rc4 >"$tmp/fuzz.log" 2>&1
rc=$?
[ $rc = 0 ] && ok || { bad "ci/fuzz.sh: exit $rc"; tail -20 "$tmp/fuzz.log"; }
grep -q '^| kernel | executions | signatures found | known/new | verdict |$' "$tmp/fuzz.log" && ok ||
	bad "ci/fuzz.sh printed no table"
grep -q '^| 2\.6\.11 | [1-9][0-9]* | - | 0 known, 0 new | clean |$' "$tmp/fuzz.log" && ok ||
	{ bad "ci/fuzz.sh: 2.6.11's row"; grep '^| 2' "$tmp/fuzz.log"; }
grep -q '^| 2\.6\.11-rc4 | [0-9]* | .* | [0-9]* known, 0 new | ' "$tmp/fuzz.log" && ok ||
	{ bad "ci/fuzz.sh: 2.6.11-rc4's row"; grep '^| 2' "$tmp/fuzz.log"; }
for f in "$src"/corpus/futex_mm_fuzzer/*; do
	cmp -s "$f" "$tmp/corpus/${f##*/}" || bad "merge dropped or changed the seed ${f##*/}"
done
ok
extra=$(comm -13 <(ls "$src/corpus/futex_mm_fuzzer") <(ls "$tmp/corpus"))
if [ -n "$extra" ]; then
	grep -qvE '^[0-9a-f]{40}$' <<<"$extra" && bad "merged files not named by their SHA-1" || ok
	for k in $kernels; do
		(cd "$tmp/corpus" && xargs "$bin/snafu" replay --quiet --kernel="$k") <<<"$extra" |
			grep -v ': ok$' | head -3 | sed 's/^/merged input with a finding: /' | grep . && bad "merged a reproducer"
	done
	ok
fi
[ ! -e "$tmp/found" ] || [ -z "$(ls -A "$tmp/found")" ] && ok || bad "ci/fuzz.sh wrote into found/ without a new finding"

# 4. a finding not in the known list: exit 1, minimized case and report
printf 'olof-rfc deadlock--do_page_fault--futex_wait\n' >"$tmp/known.txt"
SNAFU_KNOWN=$tmp/known.txt "$src/ci/fuzz.sh" --seconds=3 --jobs=2 --kernel=2.6.11-rc4 --no-merge \
	>"$tmp/new.log" 2>&1
rc=$?
c=$(find "$tmp/found/2.6.11-rc4" -name '*.case' 2>/dev/null | head -1)
if [ $rc = 1 ] && [ -n "$c" ] && grep -q "NEW findings: .*${c##*/}" "$tmp/new.log" &&
	[ -s "${c%.case}.report" ] && [ -s "${c%.case}.input" ]; then ok; else
	bad "ci/fuzz.sh with an unknown finding: exit $rc, case '${c:-none}'"; tail -10 "$tmp/new.log"; fi
if [ -n "$c" ]; then
	grep -q '^expect 2\.6\.11-rc4 deadlock--' "$c" && grep -q '^expect 2\.6\.11 ok$' "$c" && ok ||
		bad "$c has no expect lines"
	grep -q '^possible deadlock in do_page_fault' "${c%.case}.report" && ok || bad "${c%.case}.report: no report"
fi
"$src/ci/fuzz.sh" --seconds=0 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "ci/fuzz.sh --seconds=0: not exit 2"
"$src/ci/fuzz.sh" --kernel=nope >/dev/null 2>&1
[ $? = 2 ] && ok || bad "ci/fuzz.sh --kernel=nope: not exit 2"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
