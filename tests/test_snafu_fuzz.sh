#!/usr/bin/env bash
# snafu fuzz, the driver under fuzz/run.sh, ci/fuzz.sh and snafu evaluate: bad usage is
# one line and exit 2 before anything is written; a short --runs campaign on 2.6.11-rc4
# finds lockdep's prediction of the deadlock, minimizes it into
# FOUND/KERNEL/SIGNATURE.case with its report and input, confirms it with snafu confirm
# into SIGNATURE.confirmed.case (a deadlock), says "predicted and confirmed" in its table,
# and exits 1; with --oracles=deadlock it finds the deadlock itself; with that signature
# in --known it exits 0; the same seed with --fresh gives the same table; the seeds reach
# the fuzzer as a list in name order; the fixed kernel (2.6.12-jj) finds nothing;
# --oracles reaches the fuzzer, the replay and the minimizer (a lost wake-up or wrong
# result on 2.6.11, saved with its token; none with --oracles=deadlock); a sanitizer
# finding of the planted fuzzer is saved with the fuzzer's report, not minimized; --fork
# runs to its time box; GITHUB_STEP_SUMMARY gets the markdown table; a fuzzer that does
# not stop on SIGTERM is killed after 10 s.
#
#   bash tests/test_snafu_fuzz.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $bin, $src, $snafu, $tmp
cd / || exit 2 # every path is printed whole

# 1. Bad usage: one line naming the argument, exit 2, nothing on stdout, nothing written.
for a in --bogus --runs=0 --runs=x --seconds=0 --jobs=0 --seed=0 --ops=mm --kernel=nope \
	--out= --found= --known= --fork=2 --merge=x -runs=abc -bogus_flag=1 -seed=-1 -runs \
	-artifact_prefix=/tmp/x/ --oracles=nope --oracles= --oracles=deadlock,,result extra; do
	run "$snafu" fuzz --out="$tmp/bad" --found="$tmp/bad-found" "$a"
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
		grep -qF -- "'${a#--kernel=}'" "$tmp/err" && [ ! -e "$tmp/bad" ] && [ ! -e "$tmp/bad-found" ]; then
		ok
	else
		bad "fuzz $a: want exit 2 and one line naming it, got exit $rc"
		show_output
	fi
done
run "$snafu" fuzz --known="$tmp/none.txt" --out="$tmp/bad"
check "fuzz --known=MISSING: exit 2, one line (got $rc)" test "$rc" = 2 -a "$(wc -l <"$tmp/err")" = 1
printf '2.6.11 a b\n' >"$tmp/bad-known.txt"
run "$snafu" fuzz --known="$tmp/bad-known.txt" --out="$tmp/bad"
check "fuzz --known with a bad line: exit 2, FILE:LINE" grep -q "^$tmp/bad-known.txt:1: expected KERNEL SIGNATURE" "$tmp/err"
run "$snafu" fuzz --fuzzer="$tmp/nope" --out="$tmp/bad"
check "fuzz --fuzzer=MISSING: exit 2, names it" grep -q "$tmp/nope" "$tmp/err"
check "nothing written on bad usage" test ! -e "$tmp/bad"

# 2. A campaign bounded in executions: 2.6.11-rc4's get_user() or put_user() under
#    mmap_sem, which lockdep reports with no schedule, minimized, saved and confirmed.
fuzz() { run "$snafu" fuzz --kernel=2.6.11-rc4 --seed=1 --runs=20000 --fresh --out="$tmp/out1" \
	--found="$tmp/found" "$@"; }
fuzz
check "fuzz on 2.6.11-rc4: exit 1 (got $rc)" test "$rc" = 1
[ "$rc" = 1 ] || show_output
c=$(ls "$tmp"/found/2.6.11-rc4/lockdep--recursive-read--mmap_sem--*.case 2>/dev/null |
	grep -v '\.confirmed\.case$' | head -1)
if [ -n "$c" ] && [ -s "${c%.case}.report" ] && [ -s "${c%.case}.input" ]; then ok; else
	bad "no case, report and input in $tmp/found/2.6.11-rc4: '$(ls "$tmp/found/2.6.11-rc4" 2>&1)'"
fi
sig=$(basename "${c:-x.case}" .case)
"$snafu" replay --check --quiet "${c:-/nonexistent}" >"$tmp/check.out" 2>&1
check "the case passes its expect lines" test $? = 0
check "the case expects its signature on 2.6.11-rc4" grep -qx "expect 2.6.11-rc4 $sig" "${c:-/dev/null}"
check "the report is the case's replay" grep -qx "DEDUP_TOKEN: $sig" "${c%.case}.report"
check "the input is the fuzzer's artifact" cmp -s "${c%.case}.input" "$(ls "$tmp"/out1/2.6.11-rc4/crash-* | head -1)"
check "the case came from the artifact" grep -q "minimized by snafu minimize from $tmp/out1/2.6.11-rc4/crash-" "${c:-/dev/null}"
# confirmed: snafu confirm's case beside it deadlocks in do_page_fault, at the same site
cc=${c%.case}.confirmed.case
dsig=deadlock--do_page_fault--${sig#lockdep--recursive-read--mmap_sem--}
check "the confirmed case is there: $cc" test -s "$cc"
check "the confirmed case expects $dsig on 2.6.11-rc4" grep -qx "expect 2.6.11-rc4 $dsig" "$cc"
"$snafu" replay --check --quiet "$cc" >"$tmp/check.out" 2>&1
check "the confirmed case passes its expect lines" test $? = 0
check "the confirmed case says what it confirms" grep -q "^# confirms the lockdep prediction $sig on 2.6.11-rc4" "$cc"
check "stdout: NEW finding" grep -q "^fuzz: 2.6.11-rc4: NEW finding $sig: " "$tmp/out"
check "stdout: the replay command" grep -qF "reproduce with: $snafu replay --kernel=2.6.11-rc4 $c" "$tmp/out"
check "stdout: predicted and confirmed" grep -qF "predicted and confirmed: $snafu confirm found $dsig: $cc" "$tmp/out"
check "stdout: the confirmed case's replay command" grep -qF "reproduce the deadlock with: $snafu replay --kernel=2.6.11-rc4 $cc" "$tmp/out"
check "stdout: the table" grep -q "^2\.6\.11-rc4  *[0-9][0-9]*  $sig (1; predicted and confirmed)  0 known, 1 new  NEW\$" "$tmp/out"
check "stderr: the finding line" grep -q "^fuzz: 2.6.11-rc4: finding after [0-9]* executions, .*: $sig -> $c (confirmed: $cc)\$" "$tmp/err"
check "stderr: NEW findings" grep -qx "fuzz: NEW findings: $c" "$tmp/err"
check "the seeds: a list in name order" test "$(cat "$tmp/out1/2.6.11-rc4/seeds.txt")" = \
	"$(cd "$src/corpus/futex_mm_fuzzer" && LC_ALL=C ls | sed "s|^|$tmp/out1/2.6.11-rc4/seeds/|" | paste -sd,)"
check "the fuzzer got the list" grep -q "^fuzz: each runs .* -seed_inputs=@$tmp/out1/KERNEL/seeds.txt $tmp/out1/KERNEL/corpus " "$tmp/err"

# 3. The same seed, from an empty corpus again, with --known: the run goes on past its
#    findings to the whole budget (--keep-going), its first finding the same after the
#    same executions, each signature once with the executions to it; all known: exit 0,
#    nothing saved (a known signature is not confirmed again).
n1=$(sed -n "s/^2\.6\.11-rc4  *\([0-9][0-9]*\)  $sig (1; .*/\1/p" "$tmp/out")
rm -rf "$tmp/found"
fuzz --known="$src/ci/known-findings.txt"
check "fuzz with every signature known: exit 0 (got $rc)" test "$rc" = 0
check "known: nothing saved" test ! -e "$tmp/found"
check "known: the whole budget, $sig after the same $n1 executions" \
	grep -q "^2\.6\.11-rc4  *20000  .*$sig (after ${n1:-x})[,  ].* known, 0 new  known bugs only\$" "$tmp/out"
check "known: each signature once" test "$(grep -c "^fuzz: 2\.6\.11-rc4: 20000 executions, .*$sig after ${n1:-x} known" "$tmp/err")" = 1
dup=$(sed -n 's/^2\.6\.11-rc4  *20000  //p' "$tmp/out" | grep -o '[a-z_-]*--[a-z_-]* (after' | sort | uniq -d)
check "known: no signature twice: '$dup'" test -z "$dup"

# 2b. --oracles=deadlock: the fuzzer's deadlock oracle alone; it finds the deadlock itself.
run "$snafu" fuzz --kernel=2.6.11-rc4 --oracles=deadlock --seed=1 --runs=20000 --fresh \
	--out="$tmp/out1n" --found="$tmp/foundn"
check "fuzz --oracles=deadlock on 2.6.11-rc4: exit 1 (got $rc)" test "$rc" = 1
cn=$(ls "$tmp"/foundn/2.6.11-rc4/deadlock--do_page_fault--*.case 2>/dev/null | head -1)
check "--oracles=deadlock: a deadlock case: '$(ls "$tmp/foundn/2.6.11-rc4" 2>&1)'" test -n "$cn"
signn=$(basename "${cn:-x.case}" .case)
"$snafu" replay --check --quiet "${cn:-/nonexistent}" >"$tmp/check.out" 2>&1
check "--oracles=deadlock: the case passes its expect lines" test $? = 0
check "--oracles=deadlock: no confirm" test -z "$(ls "$tmp"/foundn/2.6.11-rc4/*.confirmed.case 2>/dev/null)"
check "--oracles=deadlock: the table" grep -q "^2\.6\.11-rc4  *[0-9][0-9]*  $signn (1)  0 known, 1 new  NEW\$" "$tmp/out"
check "--oracles=deadlock: the fuzzer is told" grep -q -- "^fuzz: each runs .* --oracles=deadlock " "$tmp/err"
check "--oracles=deadlock: the command line says it" grep -q -- "^command: .* --oracles=deadlock --seed=1 --fresh " "$tmp/out"

# 4. The fixed kernel: no finding in the budget, exit 0; the corpus stays for the next run.
run "$snafu" fuzz --kernel=2.6.12-jj --seed=1 --runs=3000 --out="$tmp/out2" --found="$tmp/found2" --markdown
check "fuzz on 2.6.12-jj: exit 0 (got $rc)" test "$rc" = 0
check "2.6.12-jj: no finding in 3000 executions" grep -q "^fuzz: 2.6.12-jj: no finding in 3000 executions" "$tmp/err"
check "2.6.12-jj: the markdown row" grep -qx '| 2.6.12-jj | 3000 | - | 0 known, 0 new | clean |' "$tmp/out"
n=$(ls "$tmp/out2/2.6.12-jj/corpus" | wc -l)
run "$snafu" fuzz --kernel=2.6.12-jj --seed=2 --runs=10 --out="$tmp/out2" --found="$tmp/found2"
check "without --fresh the corpus is kept ($n files before)" test "$n" -gt 0 -a "$(ls "$tmp/out2/2.6.12-jj/corpus" | wc -l)" -ge "$n"
# --fresh forgets that corpus but loads the seed corpus; --empty starts from nothing.
run "$snafu" fuzz --kernel=2.6.12-jj --seed=2 --runs=10 --fresh --out="$tmp/out2" --found="$tmp/found2"
check "--fresh: the seeds are loaded" grep -q -- "^fuzz: each runs .* -seed_inputs=@$tmp/out2/KERNEL/seeds.txt .*(seeds copied from .*, [1-9][0-9]* of them)\$" "$tmp/err"
run "$snafu" fuzz --kernel=2.6.12-jj --seed=2 --runs=10 --empty --out="$tmp/out2" --found="$tmp/found2"
check "--empty: exit 0 (got $rc)" test "$rc" = 0
check "--empty: no seed inputs" grep -q -- "^fuzz: each runs .*/KERNEL/corpus (no seed inputs: --empty)\$" "$tmp/err"
check "--empty: no -seed_inputs" test -z "$(grep -- "-seed_inputs" "$tmp/err")"
check "--empty: no corpus of earlier runs ($n files then)" test "$(ls "$tmp/out2/2.6.12-jj/corpus" | wc -l)" -lt "$n"
check "--empty: on the command line" grep -q "^command: .* --empty " "$tmp/out"

# 4b. --oracles: 2.6.11 fixed the deadlock, not the futex semantics. With the deadlock
#     oracle alone, nothing; with the default oracles, a lost wake-up or FUTEX_CMP_REQUEUE's
#     spurious -EAGAIN, minimized with its token (the driver hands --oracles to the fuzzer,
#     snafu replay and snafu minimize; the printed commands carry it).
run "$snafu" fuzz --kernel=2.6.11 --oracles=deadlock --seed=1 --runs=3000 --out="$tmp/out5" \
	--found="$tmp/found5" --markdown
check "fuzz on 2.6.11, --oracles=deadlock: exit 0 (got $rc)" test "$rc" = 0
check "2.6.11, --oracles=deadlock: the markdown row" grep -qx '| 2.6.11 | 3000 | - | 0 known, 0 new | clean |' "$tmp/out"
check "2.6.11, --oracles=deadlock: to the fuzzer" grep -q -- "^fuzz: each runs .* --ops=futex --oracles=deadlock " "$tmp/err"
#     (whether a seed finds one within the budget depends on the seed corpus: the first of
#     seeds 1..3 that does is taken; each run is deterministic for its seed)
for seed in 1 2 3; do
	rm -rf "$tmp/out6" "$tmp/found6"
	run "$snafu" fuzz --kernel=2.6.11 --seed=$seed --runs=50000 --fresh --out="$tmp/out6" --found="$tmp/found6"
	[ "$rc" = 1 ] && break
done
check "fuzz on 2.6.11, default oracles: exit 1 for one of seeds 1..3 (got $rc)" test "$rc" = 1
c=$(ls "$tmp"/found6/2.6.11/lost-wakeup--absorbed--futex_wait.case "$tmp"/found6/2.6.11/wrong-result--futex_cmp_requeue.case 2>/dev/null | head -1)
check "2.6.11: a lost-wakeup or wrong-result case" test -n "$c"
sig=$(basename "${c:-x.case}" .case)
check "2.6.11: the case expects its token" grep -qx "expect 2.6.11 $sig" "${c:-/dev/null}"
"$snafu" replay --check --quiet "${c:-/nonexistent}" >"$tmp/check6.out" 2>&1
check "2.6.11: the case passes its expect lines" test $? = 0
check "2.6.11: and ok on 2.6.12-jj" grep -qx "expect 2.6.12-jj ok" "${c:-/dev/null}"
check "2.6.11: the report" grep -qx "DEDUP_TOKEN: $sig" "${c%.case}.report"
run "$snafu" fuzz --kernel=2.6.11 --oracles=deadlock,lost-wakeup --seed=1 --runs=10 --out="$tmp/out6" \
	--found="$tmp/found6"
check "--oracles in the command line" grep -q "^command: .* --oracles=deadlock,lost-wakeup" "$tmp/out"
#     the search's kind (docs/fuzzing.md) goes to the fuzzer and onto the command line
run "$snafu" fuzz --kernel=2.6.11 --schedule=preempt --interleaving-coverage=0 --seed=1 --runs=10 \
	--out="$tmp/out7" --found="$tmp/found7"
check "--schedule, --interleaving-coverage to the fuzzer" \
	grep -q -- "^fuzz: each runs .* --schedule=preempt --interleaving-coverage=0 " "$tmp/err"
check "--schedule, --interleaving-coverage in the command line" \
	grep -q "^command: .* --schedule=preempt --interleaving-coverage=0 " "$tmp/out"
run "$snafu" fuzz --schedule=random --runs=10 --out="$tmp/out7"
check "--schedule=random: exit 2 (got $rc)" test "$rc" = 2
check "--schedule=random: one line" test "$(wc -l <"$tmp/err")" = 1
run "$snafu" evaluate --interleaving-coverage=2 --runs=10 --out="$tmp/out7"
check "evaluate --interleaving-coverage=2: exit 2 (got $rc)" test "$rc" = 2

# 5. A sanitizer report (a bug planted in the fuzzer, fuzz/planted.c): sorted by its
#    DEDUP_TOKEN, saved with the fuzzer's report, not minimized.
planted=$bin/futex_mm_fuzzer_planted
psig=asan-heap-use-after-free--planted_read_freed--planted_use_after_free
printf '\0' >"$tmp/x"
if [ ! -x "$planted" ] || SNAFU_PLANT=asan-fuzz "$planted" -runs=1 "$tmp/x" >"$tmp/probe" 2>&1 ||
	! grep -q 'ERROR: AddressSanitizer' "$tmp/probe"; then
	echo "note: no ASan in this build; planted findings not checked"
else
	SNAFU_PLANT=asan-fuzz run "$snafu" fuzz --fuzzer="$planted" --kernel=2.6.11 --runs=100 \
		--out="$tmp/out3" --found="$tmp/found3"
	check "planted ASan bug: exit 1 (got $rc)" test "$rc" = 1
	check "planted: sorted by its token" test -f "$tmp/found3/2.6.11/$psig.input"
	check "planted: no case" test ! -e "$tmp/found3/2.6.11/$psig.case"
	check "planted: the fuzzer's report" grep -qx "DEDUP_TOKEN: $psig" "$tmp/found3/2.6.11/$psig.report"
	check "planted: said to be a sanitizer report" grep -q "^fuzz: a sanitizer report, not a finding of the model's" "$tmp/out"
	check "planted: its report's head" grep -q "ERROR: AddressSanitizer: heap-use-after-free" "$tmp/out"
fi

# 6. --fork: to the time box, every finding; the step summary gets the table.
: >"$tmp/summary"
GITHUB_STEP_SUMMARY=$tmp/summary run "$snafu" fuzz --kernel=2.6.12-jj --kernel=2.6.11-rc4 --fork \
	--jobs=2 --seconds=2 --known="$src/ci/known-findings.txt" --out="$tmp/out4" --found="$tmp/found4"
check "--fork on 2.6.12-jj and 2.6.11-rc4, known findings: exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
check "--fork: a row per kernel" test "$(grep -cE '^2\.6\.1(2-jj|1-rc4) ' "$tmp/out")" = 2
check "--fork: 2.6.12-jj clean" grep -q '^2\.6\.12-jj  *[0-9][0-9]*  -  *0 known, 0 new  clean$' "$tmp/out"
check "--fork: the seeds as a corpus directory" grep -q -- "-fork=2 -ignore_crashes=1 .* $tmp/out4/KERNEL/corpus $tmp/out4/KERNEL/seeds " "$tmp/err"
check "step summary: heading" grep -qx '### snafu fuzz, 2 s per kernel' "$tmp/summary"
check "step summary: the table" grep -q '^| 2\.6\.12-jj | [0-9]* | - | 0 known, 0 new | clean |$' "$tmp/summary"

# 7. SIGTERM to snafu fuzz while its fuzzer will not stop (libFuzzer's own SIGTERM handler
#    can hang in malloc): the fuzzer is killed after 10 s, snafu says so and exits 130.
#    The fuzzer is a script in libFuzzer's place: it ignores SIGTERM (so do its sleeps),
#    writes its pid and runs until killed.
cat >"$tmp/deaf_fuzzer" <<EOF
#!/bin/sh
trap "" TERM
echo \$\$ >"$tmp/deaf_fuzzer.pid"
while :; do sleep 0.2; done
EOF
chmod +x "$tmp/deaf_fuzzer"
"$snafu" fuzz --fuzzer="$tmp/deaf_fuzzer" --kernel=2.6.11 --runs=1000 --out="$tmp/out5" \
	--found="$tmp/found5" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/deaf_fuzzer.pid" ] && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
rc=$?
check "a fuzzer deaf to SIGTERM: snafu fuzz exits 130 (got $rc)" test "$rc" = 130
check "a fuzzer deaf to SIGTERM: killed, and said so" \
	grep -q '^fuzz: the fuzzer on 2.6.11 did not stop within 10 s; killed$' "$tmp/err"
check "a fuzzer deaf to SIGTERM: none left" sh -c '! kill -0 "$1" 2>/dev/null' - "$(cat "$tmp/deaf_fuzzer.pid")"
[ "$rc" = 130 ] || show_output

echo "$pass passed, $fail failed"
[ $fail = 0 ]
