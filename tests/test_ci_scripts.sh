#!/usr/bin/env bash
# The CI scripts, short: ci/known-findings.txt names listed kernels only, each signature
# one the saved cases give on that kernel; ci/replay.sh is green on the ASan and TSan
# builds; ci/fuzz.sh --merge for a few seconds on a fixed and an
# unfixed kernel yields only known signatures, prints its table and merges into a copy of
# the seed corpus without dropping a seed; with the unfixed kernel's findings declared
# unknown, it exits 1 and leaves a minimized case and its report in the found directory,
# and (no --merge: the default) leaves the corpus alone; a sanitizer finding (a bug planted
# in futex_mm_fuzzer_planted) is sorted by its DEDUP_TOKEN. ./build.sh --help prints its
# usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $bin, $src, $tsan, $tmp
kernels=$("$bin/snafu" kernels | awk '{print $1}')

# 1. known-findings.txt: KERNEL SIGNATURE, listed kernels; a saved case shows each one
while read -r k sig rest; do
	grep -qxF -- "$k" <<<"$kernels" && [ -n "$sig" ] && [ -z "$rest" ] && ok ||
		bad "ci/known-findings.txt: '$k $sig $rest'"
	"$bin/snafu" replay --quiet --kernel="$k" "$src"/repro/cases/*.case >"$tmp/known.out" 2>/dev/null
	grep -qF "[$k]: $sig" "$tmp/known.out" && ok || bad "ci/known-findings.txt: no saved case gives $sig on $k"
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

# 3. ci/fuzz.sh --merge: 3 s on 2.6.12-jj (fixed: no line in known-findings.txt) and
#    2.6.11-rc4, merging into a copy of the seeds
export SNAFU_BIN=$bin SNAFU_WORK=$tmp/work SNAFU_FOUND=$tmp/found SNAFU_MERGE_INTO=$tmp/corpus
cp -r "$src/corpus/futex_mm_fuzzer" "$tmp/corpus"
"$src/ci/fuzz.sh" --seconds=3 --jobs=2 --kernel=2.6.12-jj --kernel=2.6.11-rc4 --merge >"$tmp/fuzz.log" 2>&1
rc=$?
[ $rc = 0 ] && ok || { bad "ci/fuzz.sh: exit $rc"; tail -20 "$tmp/fuzz.log"; }
grep -q '^| kernel | executions | signatures found | known/new | verdict |$' "$tmp/fuzz.log" && ok ||
	bad "ci/fuzz.sh printed no table"
grep -q '^| 2\.6\.12-jj | [1-9][0-9]* | - | 0 known, 0 new | clean |$' "$tmp/fuzz.log" && ok ||
	{ bad "ci/fuzz.sh: 2.6.12-jj's row"; grep '^| 2' "$tmp/fuzz.log"; }
grep -q '^| 2\.6\.11-rc4 | [0-9]* | .* | [0-9]* known, 0 new | ' "$tmp/fuzz.log" && ok ||
	{ bad "ci/fuzz.sh: 2.6.11-rc4's row"; grep '^| 2' "$tmp/fuzz.log"; }
for f in "$src"/corpus/futex_mm_fuzzer/*; do
	cmp -s "$f" "$tmp/corpus/${f##*/}" || bad "merge dropped or changed the seed ${f##*/}"
done
ok
extra=$(comm -13 <(ls "$src/corpus/futex_mm_fuzzer") <(ls "$tmp/corpus"))
if [ -n "$extra" ]; then
	grep -qvE '^[0-9a-f]{40}$' <<<"$extra" && bad "merged files not named by their SHA-1" || ok
	for k in $kernels; do # lockdep's prediction aside: programs, not deadlock reproducers
		(cd "$tmp/corpus" && xargs "$bin/snafu" replay --quiet --oracles=deadlock,lost-wakeup,result --kernel="$k") <<<"$extra" |
			grep -v ': ok$' | head -3 | sed 's/^/merged input with a finding: /' | grep . && bad "merged a reproducer"
	done
	ok
fi
[ ! -e "$tmp/found" ] || [ -z "$(ls -A "$tmp/found")" ] && ok || bad "ci/fuzz.sh wrote into found/ without a new finding"

grep -q "^fuzz: merged [0-9]* new inputs into $tmp/corpus " "$tmp/fuzz.log" && ok || bad "ci/fuzz.sh --merge: no merge line"

# 4. a finding not in the known list: exit 1, minimized case and report; without --merge
#    (the default) the corpus stays as it is
corpus_sum() { (cd "$tmp/corpus" && ls && cat ./*) | cksum; }
before=$(corpus_sum)
# (2.6.11-rc4's futex-semantics findings known: its deadlocks are the new ones)
printf 'olof-rfc deadlock--do_page_fault--futex_wait\n2.6.11-rc4 %s\n2.6.11-rc4 %s\n' \
	lost-wakeup--absorbed--futex_wait wrong-result--futex_cmp_requeue >"$tmp/known.txt"
SNAFU_KNOWN=$tmp/known.txt "$src/ci/fuzz.sh" --seconds=3 --jobs=2 --kernel=2.6.11-rc4 >"$tmp/new.log" 2>&1
rc=$?
[ "$(corpus_sum)" = "$before" ] && ! grep -q '^fuzz: merged' "$tmp/new.log" && ok ||
	bad "ci/fuzz.sh without --merge changed \$SNAFU_MERGE_INTO"
grep -qF "$tmp/corpus left as it is" "$tmp/new.log" && ok || bad "ci/fuzz.sh without --merge: no note"
c=$(find "$tmp/found/2.6.11-rc4" -name '*.case' ! -name '*.confirmed.case' 2>/dev/null | head -1)
if [ $rc = 1 ] && [ -n "$c" ] && grep -q "NEW findings: .*${c##*/}" "$tmp/new.log" &&
	[ -s "${c%.case}.report" ] && [ -s "${c%.case}.input" ]; then ok; else
	bad "ci/fuzz.sh with an unknown finding: exit $rc, case '${c:-none}'"; tail -10 "$tmp/new.log"; fi
if [ -n "$c" ]; then
	# the deadlock, or lockdep's prediction of it (whichever a fork-mode worker saved)
	grep -qE '^expect 2\.6\.11-rc4 (deadlock|lockdep)--' "$c" && grep -q '^expect 2\.6\.11 ok$' "$c" && ok ||
		bad "$c has no expect lines"
	grep -qE '^possible (deadlock in do_page_fault|recursive locking detected)$' "${c%.case}.report" && ok ||
		bad "${c%.case}.report: no report"
fi
"$src/ci/fuzz.sh" --seconds=0 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "ci/fuzz.sh --seconds=0: not exit 2"
"$src/ci/fuzz.sh" --no-merge --merge --seconds=0 >"$tmp/flags.log" 2>&1
grep -q -- "'--seconds=0': expected" "$tmp/flags.log" && ok || bad "ci/fuzz.sh: --merge or --no-merge refused"
"$src/ci/fuzz.sh" --help >"$tmp/help.log" 2>&1
[ $? = 0 ] && grep -q -- '--merge .*merge the inputs that add coverage' "$tmp/help.log" &&
	grep -q -- '--no-merge .*(the default)' "$tmp/help.log" && ok || bad "ci/fuzz.sh --help: no --merge"

# the workflows: the job that uploads the merged corpus asks for the merge
for wf in "$src"/.github/workflows/*.yml; do
	if grep -q 'path: corpus/futex_mm_fuzzer/' "$wf"; then
		grep -q 'ci/fuzz.sh .*--merge' "$wf" && ok || bad "${wf##*/} uploads the corpus but runs ci/fuzz.sh without --merge"
	fi
done

# 5. A sanitizer finding is sorted by its DEDUP_TOKEN (fuzz/fuzz_support.c): an ASan bug
#    planted in every input (SNAFU_PLANT, fuzz/planted.c), ci/fuzz.sh on bin/ links whose
#    futex_mm_fuzzer is futex_mm_fuzzer_planted.
sig=asan-heap-use-after-free--planted_read_freed--planted_use_after_free
mkdir -p "$tmp/pbin" "$tmp/pin"
printf '\0' >"$tmp/pin/x"
if planted_asan asan-fuzz "$tmp/pin/x" "sanitizer findings in ci/fuzz.sh"; then
	ln -s "$planted" "$tmp/pbin/futex_mm_fuzzer"
	ln -s "$bin/snafu" "$tmp/pbin/snafu"
	: >"$tmp/none.txt"
	# (--oracles=deadlock: the planted bug crashes the mincore seeds too, which --ops=futex
	# never runs, and whose programs lockdep reports on 2.6.11 without a schedule; and
	# 2.6.11's futex bugs would come first)
	SNAFU_PLANT=asan-fuzz SNAFU_BIN=$tmp/pbin SNAFU_KNOWN=$tmp/none.txt SNAFU_FOUND=$tmp/found-p \
		SNAFU_WORK=$tmp/work-p "$src/ci/fuzz.sh" --seconds=2 --jobs=1 --kernel=2.6.11 --no-merge \
		--oracles=deadlock >"$tmp/plant.log" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q "NEW finding $sig:" "$tmp/plant.log" &&
		grep -q "^| 2\.6\.11 | [0-9]* | $sig ([0-9]*) | 0 known, 1 new | NEW |\$" "$tmp/plant.log" &&
		[ -e "$tmp/found-p/2.6.11/$sig.input" ] &&
		grep -q "^DEDUP_TOKEN: $sig\$" "$tmp/found-p/2.6.11/$sig.report"; then
		ok
	else
		bad "ci/fuzz.sh with a planted ASan bug: exit $rc, not sorted as $sig"
		grep -v '^  0x' "$tmp/plant.log" | tail -15
	fi
fi

# 6. ./build.sh --help and -h: the usage in its header, exit 0, nothing built
for h in --help -h; do
	env -u LIB_FUZZING_ENGINE -u OUT "$src/build.sh" "$h" >"$tmp/bhelp.log" 2>&1
	rc=$?
	[ $rc = 0 ] && grep -q '^  \./build\.sh fuzz ' "$tmp/bhelp.log" && ! grep -q '^build.sh:' "$tmp/bhelp.log" &&
		ok || { bad "./build.sh $h: exit $rc"; head -5 "$tmp/bhelp.log"; }
done
env -u LIB_FUZZING_ENGINE -u OUT "$src/build.sh" --bogus >/dev/null 2>"$tmp/bbogus.log"
[ $? = 2 ] && grep -q "argument 1 '--bogus'" "$tmp/bbogus.log" && ok || bad "./build.sh --bogus: not exit 2"
"$src/ci/fuzz.sh" --kernel=nope >/dev/null 2>&1
[ $? = 2 ] && ok || bad "ci/fuzz.sh --kernel=nope: not exit 2"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
