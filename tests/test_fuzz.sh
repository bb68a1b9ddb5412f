#!/usr/bin/env bash
# The fuzzer end to end: it finds the deadlock from an empty corpus for fixed seeds
# (bounded by executions, never by time) with --oracles=deadlock, and lockdep's prediction
# of it with the default oracles; no deadlock on the kernel that fixed it, the futex
# oracles' findings there (--oracles, docs/oracles.md) and nothing on 2.6.12-jj;
# fuzz/run.sh turns the prediction into a minimal readable case, and snafu confirm into
# one whose report shows the article's table. Also: bad flags are refused with one line
# and exit 2 (the binary's --
# flags, fuzz/run.sh's libFuzzer flags); SIGINT to fuzz/run.sh says "interrupted", exit
# 130; without -artifact_prefix the crash file goes to <bindir>/../artifacts/, not the
# current directory; ASan and UBSan reports carry a stable DEDUP_TOKEN of ours (bugs
# planted in futex_mm_fuzzer_planted, fuzz/planted.c).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $bin, $src, $tmp

# 1. From an empty corpus, a few fixed seeds, at most 50,000 executions each, the
#    deadlock oracle alone (--oracles=deadlock). The get_mempolicy entry is the same mmap_sem
#    deadlock (REFERENCE.md), so any "possible deadlock in do_page_fault" counts.
for seed in 1 2 3; do
	mkdir -p "$tmp/empty$seed" "$tmp/art$seed"
	"$bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 --oracles=deadlock -seed=$seed -runs=50000 -print_final_stats=1 \
		-artifact_prefix="$tmp/art$seed/" "$tmp/empty$seed" >"$tmp/log$seed" 2>&1
	if grep -q '^DEDUP_TOKEN: deadlock--do_page_fault--' "$tmp/log$seed" &&
		grep -q '^possible deadlock in do_page_fault' "$tmp/log$seed"; then ok; else
		bad "seed $seed: no deadlock in do_page_fault within 50000 runs"; fi
done
# ... and with lockdep beside it, its prediction comes first: a get_user() or
#    put_user() under mmap_sem, with no schedule needed (docs/lockdep.md). Those two
#    alone: in a run the other default oracles judge too, a wrong result outranks the
#    prediction (docs/oracles.md, "When they judge").
for seed in 1 2 3; do
	rm -rf "$tmp/empty$seed" "$tmp/art$seed"
	mkdir -p "$tmp/empty$seed" "$tmp/art$seed"
	"$bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 --oracles=deadlock,lockdep -seed=$seed -runs=50000 -print_final_stats=1 \
		-artifact_prefix="$tmp/art$seed/" "$tmp/empty$seed" >"$tmp/ld$seed" 2>&1
	n=$(grep -o 'number_of_executed_units: [0-9]*' "$tmp/ld$seed" | awk '{print $2}')
	m=$(grep -o 'number_of_executed_units: [0-9]*' "$tmp/log$seed" | awk '{print $2}')
	if grep -q '^DEDUP_TOKEN: lockdep--recursive-read--mmap_sem--' "$tmp/ld$seed" &&
		grep -q '^possible recursive locking detected' "$tmp/ld$seed"; then ok
	elif grep -q '^DEDUP_TOKEN: deadlock--do_page_fault--' "$tmp/ld$seed"; then
		# the first finding ends the run, and a search can find the deadlock itself
		# before any run predicts it: past it (--keep-going), the prediction must come
		rm -rf "$tmp/empty$seed" "$tmp/art$seed" && mkdir -p "$tmp/empty$seed" "$tmp/art$seed"
		"$bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 --oracles=deadlock,lockdep -seed=$seed -runs=50000 \
			--keep-going="$tmp/art$seed/" "$tmp/empty$seed" >"$tmp/ldk$seed" 2>&1
		check "seed $seed: the deadlock first, and lockdep's report within 50000 runs past it" \
			grep -qE "^futex_mm_fuzzer: finding after [0-9]+ executions: lockdep--recursive-read--mmap_sem--" "$tmp/ldk$seed"
	else
		bad "seed $seed: no lockdep report within 50000 runs"; fi
	echo "note: seed $seed: lockdep's report after ${n:-?} executions, the deadlock after ${m:-?}"
done

# 2. The merged fix: no deadlock in a bounded run from the seed corpus (the deadlock
#    oracle alone: 2.6.11 still has the futex bugs the other oracles see, below).
mkdir -p "$tmp/corpus" "$tmp/art"
cp "$src"/corpus/futex_mm_fuzzer/* "$tmp/corpus/"
if "$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock -seed=1 -runs=20000 \
	-artifact_prefix="$tmp/art/" "$tmp/corpus" >"$tmp/fixed.log" 2>&1 && ! ls "$tmp/art" | grep -q . &&
	grep -qx "futex_mm_fuzzer: oracles deadlock" "$tmp/fixed.log"; then ok; else
	bad "2.6.11, --oracles=deadlock: finding or failure in 20000 runs"; tail -40 "$tmp/fixed.log"; fi
#    With every oracle (the default), 2.6.11's futex bugs: a lost wake-up or
#    FUTEX_CMP_REQUEUE's spurious -EAGAIN, from the seed corpus
rm -rf "$tmp/corpus" "$tmp/art" && mkdir -p "$tmp/corpus" "$tmp/art"
cp "$src"/corpus/futex_mm_fuzzer/* "$tmp/corpus/"
"$bin/futex_mm_fuzzer" --kernel=2.6.11 -seed=1 -runs=50000 -artifact_prefix="$tmp/art/" \
	"$tmp/corpus" >"$tmp/futex.log" 2>&1
if grep -qE '^DEDUP_TOKEN: (lost-wakeup--absorbed--futex_wait|wrong-result--futex_cmp_requeue)$' "$tmp/futex.log" &&
	grep -qx "futex_mm_fuzzer: oracles deadlock,lost-wakeup,result,integrity,lockdep" "$tmp/futex.log" &&
	ls "$tmp/art" | grep -qE '^(crash|finding)-'; then ok; else # finding-: the joint search's
	bad "2.6.11: no lost wake-up or wrong result in 50000 runs"; tail -20 "$tmp/futex.log"; fi
#    2.6.12-jj, every oracle: nothing
rm -rf "$tmp/corpus" "$tmp/art" && mkdir -p "$tmp/corpus" "$tmp/art"
cp "$src"/corpus/futex_mm_fuzzer/* "$tmp/corpus/"
if "$bin/futex_mm_fuzzer" --kernel=2.6.12-jj -seed=1 -runs=20000 -artifact_prefix="$tmp/art/" \
	"$tmp/corpus" >"$tmp/jj.log" 2>&1 && ! ls "$tmp/art" | grep -q .; then ok; else
	bad "2.6.12-jj: finding or failure in 20000 runs"; tail -40 "$tmp/jj.log"; fi

# 3. An unknown kernel is refused with the list of valid names.
"$bin/futex_mm_fuzzer" --kernel=nope -runs=1 "$tmp/empty1" >"$tmp/nope.log" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "valid kernels: 2.6.11-rc4" "$tmp/nope.log"; then ok; else
	bad "--kernel=nope: exit $rc"; fi

# 4. fuzz/run.sh: finding (lockdep's prediction) -> minimized case -> snafu confirm ->
#    a deadlocking case whose report has the article's table. The fuzzer is deterministic
#    for a seed (no ASLR-dependent comparison feedback), so the first seeds whose first
#    finding is futex_wait's are fixed: take the first. From an empty corpus (--empty):
#    with the seed corpus the first finding is whichever seed program the run's coverage
#    reaches first, which moves with any change to the code's shape; from nothing, the
#    fuzzer's first program of a futex op and a fault is futex_wait's in nearly every
#    seed. Run from the source tree, as ./build.sh fuzz does: the commands it prints name
#    build/bin/snafu relative to the working directory.
export SNAFU_BIN=$bin SNAFU_FOUND=$tmp/found SNAFU_WORK=$tmp/work
case_file=
for seed in 1 2 3 4 5 6; do
	rm -rf "$tmp/found" "$tmp/work"
	(cd "$src" && bash fuzz/run.sh --kernel=2.6.11-rc4 --empty -seed=$seed -runs=50000) >"$tmp/run.log" 2>&1
	rc=$?
	predicted=$(ls "$tmp"/found/2.6.11-rc4/lockdep--recursive-read--mmap_sem--futex_wait.case 2>/dev/null | head -1)
	case_file=$(ls "$tmp"/found/2.6.11-rc4/lockdep--recursive-read--mmap_sem--futex_wait.confirmed.case 2>/dev/null | head -1)
	[ -n "$predicted" ] && break
done
if [ $rc = 1 ] && [ -n "$predicted" ] && [ -n "$case_file" ]; then ok; else
	bad "fuzz/run.sh: exit $rc, no futex_wait prediction confirmed for seeds 1..6"; tail -30 "$tmp/run.log"; fi
if [ -n "$predicted" ]; then
	"$bin/snafu" replay --check --quiet "$predicted" >/dev/null && ok || bad "the predicted case fails its own expect lines"
	grep -q "^predicted and confirmed: build/bin/snafu confirm found deadlock--do_page_fault--futex_wait: " "$tmp/run.log" &&
		ok || bad "fuzz/run.sh did not say predicted and confirmed"
fi
if [ -n "$case_file" ]; then
	tasks=$(grep -c '^task ' "$case_file")
	ops=$(grep -c '^  ' "$case_file")
	pre=$(grep -c '^preempt ' "$case_file")
	if [ "$tasks" -le 2 ] && [ "$ops" -le 3 ] && [ "$pre" -le 1 ]; then ok; else
		bad "minimized case too big: $tasks tasks, $ops ops, $pre preemptions"; cat "$case_file"; fi
	grep -q "reproduce with: build/bin/snafu replay --kernel=2.6.11-rc4" "$tmp/run.log" && ok ||
		bad "fuzz/run.sh printed no replay command"
	grep -q "picture it with: build/bin/snafu trace --kernel=2.6.11-rc4 .*\.case -o .*\.case\.html" \
		"$tmp/run.log" && ok || bad "fuzz/run.sh printed no trace command"
	# the article's events, in the article's order; T1 may also take its fault before T2's
	# down_write, as long as it sleeps in do_page_fault's down_read after T2 sleeps (which
	# finding a fuzzer run meets first depends on its coverage feedback, so on code shape)
	"$bin/snafu" replay --kernel=2.6.11-rc4 "$case_file" >"$tmp/replay.log"
	in_order() { # in_order "EVENT|EVENT|...": the events appear in this order
		awk -v seq="$1" '
		BEGIN { n = split(seq, want, "|"); i = 1 }
		/^interleaving:/ { on = 1; next }
		on && i <= n && index($0, want[i]) { i++ }
		END { exit !(i > n) }' "$tmp/replay.log"
	}
	if in_order "sys_futex(FUTEX_WAIT|down_read(&mm->mmap_sem)|down_write(&mm->mmap_sem)|goes to sleep in down_write|get_user(|do_page_fault(|down_read(&mm->mmap_sem)|goes to sleep in down_read" ||
		in_order "sys_futex(FUTEX_WAIT|down_read(&mm->mmap_sem)|get_user(|do_page_fault(|down_write(&mm->mmap_sem)|goes to sleep in down_write|down_read(&mm->mmap_sem)|goes to sleep in down_read"; then ok; else
		bad "the replayed report does not show the article's table in order"; cat "$tmp/replay.log"; fi
	"$bin/snafu" replay --check --quiet "$case_file" >/dev/null && ok || bad "minimized case fails its own expect lines"
fi

# 5. fuzz/run.sh on a fixed kernel with a run limit says how many executions found
#    nothing: 2.6.11 for the deadlock (--oracles=deadlock), 2.6.12-jj for every oracle.
bash "$src/fuzz/run.sh" --kernel=2.6.11 --oracles=deadlock -seed=1 -runs=3000 >"$tmp/run2.log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "no finding in 3000 executions" "$tmp/run2.log"; then ok; else
	bad "fuzz/run.sh --kernel=2.6.11 --oracles=deadlock: exit $rc"; tail -5 "$tmp/run2.log"; fi
bash "$src/fuzz/run.sh" --kernel=2.6.12-jj -seed=1 -runs=3000 >"$tmp/run3.log" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "no finding in 3000 executions" "$tmp/run3.log"; then ok; else
	bad "fuzz/run.sh --kernel=2.6.12-jj: exit $rc"; tail -5 "$tmp/run3.log"; fi
bash "$src/fuzz/run.sh" --kernel=nope >/dev/null 2>&1
[ $? = 2 ] && ok || bad "fuzz/run.sh --kernel=nope: not exit 2"

# 6. Bad flags: exit 2 and one line, before anything runs.
for a in --ops=bogus --oracles=bogus --oracles= --bogus --kernel; do
	"$bin/futex_mm_fuzzer" "$a" -runs=1 "$tmp/empty1" >"$tmp/flag.log" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q "^futex_mm_fuzzer: .*'$a'" "$tmp/flag.log" && ! grep -q '^INFO:' "$tmp/flag.log"; then
		ok
	else
		bad "futex_mm_fuzzer $a: exit $rc, not refused"; cat "$tmp/flag.log"
	fi
done
for a in -runs=abc -bogus_flag=1 -seed=-1 -max_len= --ops=bogus --oracles=deadlock,x --help_me -runs nope-dir \
	-artifact_prefix=/tmp/x/; do
	rm -rf "$tmp/work"
	# bounded, in case a bad flag is let through (-runs=abc overrides -runs=2000)
	bash "$src/fuzz/run.sh" --kernel=2.6.11 -runs=2000 -max_total_time=20 "$a" >"$tmp/flag.out" 2>"$tmp/flag.err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/flag.out" ] && [ "$(wc -l <"$tmp/flag.err")" = 1 ] &&
		grep -qF -- "'$a'" "$tmp/flag.err" && [ ! -e "$tmp/work" ]; then
		ok
	else
		bad "fuzz/run.sh $a: exit $rc, not refused with one line"; cat "$tmp/flag.out" "$tmp/flag.err"
	fi
done
grep -q "not a libFuzzer flag" <(bash "$src/fuzz/run.sh" -runs=10 -bogus_flag=1 2>&1) && ok ||
	bad "fuzz/run.sh -bogus_flag=1: no 'not a libFuzzer flag'"
grep -q "\-runs takes a whole number, not 'abc'" <(bash "$src/fuzz/run.sh" -runs=abc 2>&1) && ok ||
	bad "fuzz/run.sh -runs=abc: no 'takes a whole number'"
bash "$src/fuzz/run.sh" --help >"$tmp/help.out" 2>&1
[ $? = 0 ] && grep -q '^  fuzz/run.sh \[--kernel=NAME\]' "$tmp/help.out" && ok || bad "fuzz/run.sh --help"

# 7. SIGINT (Ctrl-C) to fuzz/run.sh's process group: "interrupted", exit 130, no fuzzer left.
#    The deadlock oracle alone: 2.6.11 has no deadlock with the futex ops, so the run ends
#    by the signal (with every oracle its wrong -EAGAIN, found in some 30 executions, could
#    end it before the signal comes).
rm -rf "$tmp/work"
set -m # job control: the background job gets a process group of its own
bash "$src/fuzz/run.sh" --kernel=2.6.11 --oracles=deadlock -max_total_time=120 >"$tmp/int.out" 2>&1 &
pg=$!
set +m
for _ in $(seq 300); do # the fuzzer has started once it has printed its seed
	grep -q '^INFO: Seed:' "$tmp/work/2.6.11/fuzz.log" 2>/dev/null && break
	sleep 0.1
done
kill -INT -- -"$pg"
wait "$pg"
rc=$?
for _ in $(seq 100); do kill -0 -- -"$pg" 2>/dev/null || break; sleep 0.1; done
if [ $rc = 130 ] && grep -q '^fuzz: interrupted after [0-9]* executions on 2.6.11' "$tmp/int.out" &&
	! grep -q 'failed' "$tmp/int.out" && ! kill -0 -- -"$pg" 2>/dev/null; then
	ok
else
	bad "SIGINT to fuzz/run.sh: exit $rc"; cat "$tmp/int.out"
fi

# 8. Without -artifact_prefix, the crash file goes to <bindir>/../artifacts/ (said so on
#    stderr), not the current directory. A copy of the binary: its own bin/. The corpus
#    holds the article's deadlock (libFuzzer saves no artifact when it runs single files),
#    its schedule as explicit preemptions: --schedule=preempt runs it (under the default,
#    PCT, it would be skipped and the finding left to ten random mutations).
mkdir -p "$tmp/inst/bin" "$tmp/cwd" "$tmp/dl"
cp "$bin/futex_mm_fuzzer" "$tmp/inst/bin/"
"$bin/snafu" show --bytes -o "$tmp/dl/deadlock.bin" "$src/repro/cases/futex-wait-mmap-sem.case"
(cd "$tmp/cwd" && "$tmp/inst/bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 --schedule=preempt -runs=10 "$tmp/dl") >"$tmp/art.log" 2>&1
rc=$?
if [ $rc != 0 ] && [ -z "$(ls -A "$tmp/cwd")" ] && ls "$tmp/inst/artifacts"/crash-* >/dev/null 2>&1 &&
	grep -qF "artifacts (crash-*, timeout-*, ...) go to $tmp/inst/artifacts/" "$tmp/art.log"; then
	ok
else
	bad "default artifacts: exit $rc; current directory: '$(ls "$tmp/cwd")'; artifacts/: '$(ls "$tmp/inst/artifacts" 2>&1)'"
	tail -5 "$tmp/art.log"
fi
rm -rf "$tmp/inst"

# 9. Sanitizer findings: a DEDUP_TOKEN of ours, "asan-"/"ubsan-" KIND, then the top two
#    frames in ref/ or prog/ (else in another directory of ours); the same in every run.
if planted_asan asan-prog "$tmp/dl/deadlock.bin" "sanitizer tokens"; then
	token_of() { # PLANT: the first DEDUP_TOKEN of a run with that bug planted
		SNAFU_PLANT=$1 "$planted" --kernel=2.6.11 -runs=1 "$tmp/dl/deadlock.bin" >"$tmp/plant.log" 2>&1
		grep -m1 '^DEDUP_TOKEN: ' "$tmp/plant.log" | cut -d' ' -f2
	}
	# prog_print's own frame, or a helper it inlines and then prog_print
	while read -r plant want; do
		got=$(token_of "$plant")
		again=$(token_of "$plant")
		if [[ $got =~ ^$want$ ]] && [ "$got" = "$again" ]; then ok; else
			bad "SNAFU_PLANT=$plant: DEDUP_TOKEN '$got', then '$again'; expected /^$want\$/"; fi
	done <<'EOF'
asan-prog asan-heap-use-after-free(--[a-z_]+)?--prog_print
ubsan-prog ubsan-misaligned-pointer-use(--[a-z_]+)?--prog_print
asan-fuzz asan-heap-use-after-free--planted_read_freed--planted_use_after_free
ubsan-fuzz ubsan-signed-integer-overflow--planted_add--planted_overflow
EOF
	# after ASan's report, before libFuzzer saves the input and the process dies
	SNAFU_PLANT=asan-fuzz "$planted" -runs=10 -artifact_prefix="$tmp/plant-" "$tmp/dl" >"$tmp/plant.log" 2>&1
	awk '/^DEDUP_TOKEN: asan-/ {t = NR} /^SUMMARY: AddressSanitizer/ {s = NR} END {exit !(t && s && t > s)}' \
		"$tmp/plant.log" && ok || bad "asan-fuzz: no DEDUP_TOKEN after ASan's SUMMARY"
	ls "$tmp"/plant-crash-* >/dev/null 2>&1 && ok || bad "asan-fuzz: libFuzzer saved no crash file"
	# fuzz/run.sh on it: the sanitizer's report and its token, exit 1
	mkdir -p "$tmp/pbin"
	ln -s "$planted" "$tmp/pbin/futex_mm_fuzzer"
	ln -s "$bin/snafu" "$tmp/pbin/snafu"
	rm -rf "$tmp/work"
	SNAFU_PLANT=ubsan-fuzz SNAFU_BIN=$tmp/pbin bash "$src/fuzz/run.sh" --kernel=2.6.11 -runs=100 \
		>"$tmp/prun.log" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q '^fuzz: a sanitizer report, not a finding of the model' "$tmp/prun.log" &&
		grep -q 'runtime error: signed integer overflow' "$tmp/prun.log" &&
		grep -qx 'DEDUP_TOKEN: ubsan-signed-integer-overflow--planted_add--planted_overflow' "$tmp/prun.log" &&
		grep -qxF "reproduce with: $tmp/pbin/futex_mm_fuzzer --kernel=2.6.11 --ops=futex $tmp/found/2.6.11/ubsan-signed-integer-overflow--planted_add--planted_overflow.input" "$tmp/prun.log" &&
		cmp -s "$tmp/found/2.6.11/ubsan-signed-integer-overflow--planted_add--planted_overflow.input" \
			"$(ls "$tmp"/work/2.6.11/crash-* | head -1)"; then
		ok
	else
		bad "fuzz/run.sh on a UBSan finding: exit $rc"; tail -20 "$tmp/prun.log"
	fi
fi

# The joint search (--joint=N, fuzz/joint.c; on by default, N = 30): Seto's missed
# wake-up's program without its schedule finds nothing on its own run (--joint=0); by
# default the search of its schedules finds the lost wake-up, counts its runs as
# executions, writes the program with that schedule to -artifact_prefix + finding-HASH
# (which snafu replays to the same signature) and ends the run. With no op of another
# task on the wait's page (the LWN program with its writer's mmap elsewhere), on 2.6.11
# (no lockdep prediction either), the program is not searched.
grep -v '^preempt' "$src/repro/cases/futex-seto-missed-wakeup.case" >"$tmp/seto.case"
"$bin/snafu" show --bytes -o "$tmp/seto.bin" "$tmp/seto.case"
mkdir -p "$tmp/jart0" "$tmp/jart" "$tmp/jart2"
"$bin/futex_mm_fuzzer" --kernel=2.6.10-seto --oracles=lost-wakeup --schedule=preempt --joint=0 \
	-artifact_prefix="$tmp/jart0/" "$tmp/seto.bin" >"$tmp/j0.log" 2>&1
check "--joint=0: the program finds nothing (exit $?)" test -z "$(ls "$tmp/jart0")"
check "--joint=0: no search" sh -c '! grep -q "joint search" "$1"' - "$tmp/j0.log"
"$bin/futex_mm_fuzzer" --kernel=2.6.10-seto --oracles=lost-wakeup --schedule=preempt \
	-artifact_prefix="$tmp/jart/" "$tmp/seto.bin" >"$tmp/j30.log" 2>&1
check "joint search by default: 30 schedules at most, no lockdep steering without the deadlock oracle" \
	grep -qx "futex_mm_fuzzer: joint search: each program with new coverage, 30 schedules at most (150 with a contended futex word), up to 2 preemptions" "$tmp/j30.log"
check "joint search by default: the program searched" \
	grep -qE "^futex_mm_fuzzer: the joint search: 1 programs searched \(0 for a lockdep prediction, 0 on a plateau\), ([1-9]|[12][0-9]|30) schedules run" "$tmp/j30.log"
# The search's order is random, seeded by the program's ops, so a change to struct op
# moves it; within 30 runs it meets Seto's schedule in 153 orders of 200, within 150 in
# all (docs/fuzzing.md, "A random order, and a contended word's runs"): 150 here.
rm -rf "$tmp/jart" && mkdir -p "$tmp/jart"
"$bin/futex_mm_fuzzer" --kernel=2.6.10-seto --oracles=lost-wakeup --schedule=preempt --joint=150 \
	-artifact_prefix="$tmp/jart/" "$tmp/seto.bin" >"$tmp/j.log" 2>&1
rc=$?
check "joint search: exit 1 at the search's finding (got $rc)" test $rc = 1
f=$(ls "$tmp"/jart/finding-* 2>/dev/null | head -1)
check "joint search: the finding's line counts the search's runs" \
	grep -qE "^futex_mm_fuzzer: finding after ([2-9]|[1-9][0-9]+) executions: lost-wakeup--missed--futex_wait -> ${f:-x}\$" "$tmp/j.log"
check "joint search: what it did" grep -qE "^futex_mm_fuzzer: the joint search: 1 programs searched \(0 for a lockdep prediction, 0 on a plateau\), [0-9]+ schedules run" "$tmp/j.log"
"$bin/snafu" replay --quiet --kernel=2.6.10-seto "${f:-/nonexistent}" >"$tmp/jr.out" 2>&1
check "joint search: the finding replays to the lost wake-up" grep -q "\]: lost-wakeup--missed--futex_wait\$" "$tmp/jr.out"
# The absorbed wake-up's program (repro/cases/futex-absorbed-wakeup.case without its
# schedule): a contended futex word (two tasks wait on it, a third wakes it), so 5 x 30
# runs; the first of its 588 schedules within 2 preemptions that loses the wake-up is
# the 259th of snafu explore's order, which the search's random order (explore_sample(),
# seeded by the program) meets sooner. The same input, the same runs.
grep -v '^preempt' "$src/repro/cases/futex-absorbed-wakeup.case" >"$tmp/abs.case"
"$bin/snafu" show --bytes -o "$tmp/abs.bin" "$tmp/abs.case"
for i in 1 2; do
	mkdir -p "$tmp/jabs$i"
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=lost-wakeup --schedule=preempt \
		-artifact_prefix="$tmp/jabs$i/" "$tmp/abs.bin" >"$tmp/jabs$i.log" 2>&1
done
f=$(ls "$tmp"/jabs1/finding-* 2>/dev/null | head -1)
n=$(sed -n 's/^futex_mm_fuzzer: the joint search: 1 programs searched (0 for a lockdep prediction, 0 on a plateau), \([0-9]*\) schedules run.*/\1/p' "$tmp/jabs1.log")
check "joint search, a contended word: the absorbed wake-up found in ${n:-?} runs, fewer than explore's 259, at most 150" \
	test -n "$f" -a "${n:-999}" -lt 259 -a "${n:-999}" -le 150
check "joint search: the same input, the same search" \
	test "$(grep 'the joint search:' "$tmp/jabs1.log")" = "$(grep 'the joint search:' "$tmp/jabs2.log")"
"$bin/snafu" replay --quiet --kernel=2.6.11 "${f:-/nonexistent}" >"$tmp/jabsr.out" 2>&1
check "joint search: the finding replays to the absorbed wake-up" grep -q "\]: lost-wakeup--absorbed--futex_wait\$" "$tmp/jabsr.out"
# Robin Holt's race (repro/cases/ptrace-zero-page.case without its schedule): a forced
# write with another task's read on its page, so 5 x 30 runs where the integrity oracle
# is; the search finds the debugger's write in the ZERO_PAGE.
grep -v '^preempt' "$src/repro/cases/ptrace-zero-page.case" >"$tmp/holt.case"
"$bin/snafu" show --bytes -o "$tmp/holt.bin" "$tmp/holt.case"
mkdir -p "$tmp/jholt"
"$bin/futex_mm_fuzzer" --kernel=2.6.11 --ops=all --oracles=integrity --schedule=preempt \
	-artifact_prefix="$tmp/jholt/" "$tmp/holt.bin" >"$tmp/jholt.log" 2>&1
check "joint search, the integrity oracle: 150 runs for a forced write beside another task's op" \
	grep -qx "futex_mm_fuzzer: joint search: each program with new coverage, 30 schedules at most (150 with a forced write beside another task's op), up to 2 preemptions" "$tmp/jholt.log"
f=$(ls "$tmp"/jholt/finding-* 2>/dev/null | head -1)
"$bin/snafu" replay --quiet --kernel=2.6.11 "${f:-/nonexistent}" >"$tmp/jholtr.out" 2>&1
check "joint search: Robin Holt's race found, and it replays" \
	grep -q "\]: integrity--zero-page--access_process_vm\$" "$tmp/jholtr.out"
# On a plateau (--plateau=N: no new code for N executions) a program worth a search gets
# one without new code. The Holt program twice (the second run reaches the code that
# only a second run of a process does, and is not searched again: the same ops), then
# with another value poked (the same code, other ops): searched with --plateau=1 (the
# same signature, reported once), not with --plateau=0.
sed 's/val=1/val=2/' "$tmp/holt.case" >"$tmp/holt2.case"
"$bin/snafu" show --bytes -o "$tmp/holt2.bin" "$tmp/holt2.case"
for n in 1 0; do
	mkdir -p "$tmp/jpl$n"
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --ops=all --oracles=integrity --schedule=preempt \
		--plateau=$n --keep-going="$tmp/jpl$n/" -artifact_prefix="$tmp/jpl$n/" \
		"$tmp/holt.bin" "$tmp/holt.bin" "$tmp/holt2.bin" >"$tmp/jpl$n.log" 2>&1
done
check "--plateau=1: the program without new code searched" \
	grep -qE "^futex_mm_fuzzer: the joint search: 2 programs searched \(0 for a lockdep prediction, 1 on a plateau\)" "$tmp/jpl1.log"
check "--plateau=0: only the program with new code searched" \
	grep -qE "^futex_mm_fuzzer: the joint search: 1 programs searched \(0 for a lockdep prediction, 0 on a plateau\)" "$tmp/jpl0.log"
check "--plateau: the signature reported once" test "$(grep -c '^futex_mm_fuzzer: finding after' "$tmp/jpl1.log")" = 1
"$bin/futex_mm_fuzzer" --plateau=x "$tmp/holt.bin" >"$tmp/jplx.log" 2>&1
rc=$?
check "--plateau=x: exit 2 (got $rc)" test $rc = 2
check "--plateau=x: one line says what was expected" grep -q "'--plateau=x': expected --plateau=N" "$tmp/jplx.log"
printf 'task 1\n  mmap futex pages=1 prot=rw shared\n  futex_wait futex val=1\ntask 2\n  mmap other pages=1 prot=rw\n' >"$tmp/lwn2.case"
"$bin/snafu" show --bytes -o "$tmp/lwn2.bin" "$tmp/lwn2.case"
"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock --schedule=preempt --joint=100 \
	-artifact_prefix="$tmp/jart2/" "$tmp/lwn2.bin" >"$tmp/j2.log" 2>&1
check "--joint=100: no op of another task on the wait's page, no search (exit $?)" \
	grep -qE "^futex_mm_fuzzer: the joint search: 0 programs searched \(0 for a lockdep prediction, 0 on a plateau\), 0 schedules run" "$tmp/j2.log"

# Lockdep-steered (fuzz/joint.c, joint_prediction_worth()): one task that waits on a word
# whose page is not in yet, nothing else. On 2.6.11-rc4 its run makes lockdep's
# prediction (get_user() under mmap_sem), and the search adds the writer and finds the
# deadlock; on olof-rfc (the page made sure of first) it takes kswapd's two passes
# before the writer; on 2.6.11, no prediction, no search; with lockdep's prediction as
# a finding but not the deadlock (--oracles=lockdep), no search.
printf 'task 1\n  mmap futex pages=1 prot=rw shared\n  futex_wait futex val=1\n' >"$tmp/lone.case"
"$bin/snafu" show --bytes -o "$tmp/lone.bin" "$tmp/lone.case"
for k in 2.6.11-rc4 olof-rfc 2.6.11; do
	mkdir -p "$tmp/jl-$k"
	"$bin/futex_mm_fuzzer" --kernel=$k --oracles=deadlock --schedule=preempt \
		-artifact_prefix="$tmp/jl-$k/" "$tmp/lone.bin" >"$tmp/jl-$k.log" 2>&1
	rc=$?
	f=$(ls "$tmp/jl-$k"/finding-* 2>/dev/null | head -1)
	if [ $k = 2.6.11 ]; then
		check "lockdep-steered, $k: no prediction, no search (exit $rc)" \
			grep -qE "^futex_mm_fuzzer: the joint search: 0 programs searched \(0 for a lockdep prediction, 0 on a plateau\), 0 schedules run" "$tmp/jl-$k.log"
		continue
	fi
	check "lockdep-steered, $k: the deadlock found by the prediction's search (exit $rc)" \
		grep -qE "^futex_mm_fuzzer: the joint search: 1 programs searched \(1 for a lockdep prediction, 0 on a plateau\), [0-9]+ schedules run" "$tmp/jl-$k.log"
	"$bin/snafu" replay --quiet --kernel=$k "${f:-/nonexistent}" >"$tmp/jl-$k.out" 2>&1
	check "lockdep-steered, $k: the finding replays to the deadlock" grep -q "\]: deadlock--do_page_fault--futex_wait\$" "$tmp/jl-$k.out"
done
"$bin/snafu" show "$(ls "$tmp"/jl-olof-rfc/finding-* | head -1)" >"$tmp/jl-olof.case" 2>&1
check "lockdep-steered, olof-rfc: through kswapd's two passes" test "$(grep -c '^  reclaim m0$' "$tmp/jl-olof.case")" = 2
mkdir -p "$tmp/jl-ld"
"$bin/futex_mm_fuzzer" --kernel=2.6.11-rc4 --oracles=lockdep --schedule=preempt \
	-artifact_prefix="$tmp/jl-ld/" "$tmp/lone.bin" >"$tmp/jl-ld.log" 2>&1
check "lockdep-steered: not without the deadlock oracle" \
	sh -c '! grep -q "lockdep prediction, its deadlock searched" "$1" && ! ls "$2"/finding-* >/dev/null 2>&1' - "$tmp/jl-ld.log" "$tmp/jl-ld"
# --conflicts=1 (fuzz/joint.c, joint_conflicts_record(); off by default): each input
# libFuzzer keeps is run once more, traced, for its conflict points, which the mutator
# then draws PCT change points at (tests/test_conflicts.c); the runs are counted, and the
# same seed gives the same run.
for i in 1 2; do
	mkdir -p "$tmp/cf$i"
	"$bin/futex_mm_fuzzer" --kernel=2.6.11 --oracles=deadlock --conflicts=1 -seed=1 -runs=3000 \
		-artifact_prefix="$tmp/cf$i/" "$tmp/cf$i" >"$tmp/cf$i.log" 2>&1
done
check "--conflicts=1: said" grep -qx "futex_mm_fuzzer: PCT change points drawn at conflicts too (each kept input run once more, traced)" "$tmp/cf1.log"
check "--conflicts=1: kept inputs traced and counted" \
	grep -qE "^futex_mm_fuzzer: the joint search: .*, [1-9][0-9]* runs traced for conflicts \(of 3000 executions\)" "$tmp/cf1.log"
check "--conflicts=1: the same seed, the same run" \
	test "$(grep 'the joint search:' "$tmp/cf1.log")" = "$(grep 'the joint search:' "$tmp/cf2.log")" -a \
	"$(ls "$tmp/cf1" | sort)" = "$(ls "$tmp/cf2" | sort)"
check "by default no conflicts traced" sh -c '! grep -q "runs traced for conflicts" "$1"' - "$tmp/j.log"
"$bin/futex_mm_fuzzer" --conflicts=2 -runs=1 >"$tmp/cfx.log" 2>&1
rc=$?
check "--conflicts=2: exit 2 with one line (got $rc)" test $rc = 2 -a "$(grep -c "expected --conflicts=0 or 1" "$tmp/cfx.log")" = 1
"$bin/futex_mm_fuzzer" --joint=x -runs=1 >"$tmp/jx.log" 2>&1
rc=$?
check "--joint=x: exit 2 with one line (got $rc)" test $rc = 2 -a "$(grep -c "expected --joint=N" "$tmp/jx.log")" = 1

echo "$pass passed, $fail failed"
[ $fail = 0 ]
