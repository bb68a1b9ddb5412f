#!/usr/bin/env bash
# snafu explore end to end (tools/explore.c, docs/explore.md): the LWN program with no
# schedule deadlocks 2.6.11-rc4 with one preemption, and the case written passes its
# expect lines; 2.6.11 has no finding within two, nor in every trace (--preemptions=all);
# the reduction loses no outcome (--check-reduction, on saved cases on every kernel and
# on random programs) and runs fewer schedules than --no-reduction; the shards' counts
# add up to the whole search's; the output is the same every time; SIGTERM stops a long
# search with the line that says how far it got (exit 130); --sample's random order
# finds what the fewest-first order finds; bad usage gets one line and exit 2. No
# timing.
#
#   bash tests/test_explore.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $snafu, $tmp
cases=$src/repro/cases
lwn=$cases/lockdep-futex-wait.case
dl=deadlock--do_page_fault--futex_wait
n='[0-9]+'
# "... no finding within K preemptions: T traces, S schedules" or "...: S schedules (no reduction)"
schedules() { sed -nE 's/.*[:,] ([0-9]+) schedules?( \(no reduction\))?( \(.*)?$/\1/p' "$1"; }

# 1. The LWN program, no schedule: the deadlock with one preemption, its report, a case.
run "$snafu" explore --kernel=2.6.11-rc4 -o "$tmp/lwn.case" "$lwn"
check "LWN on 2.6.11-rc4: exit 1 (got $rc)" test "$rc" = 1
[ "$rc" = 1 ] || show_output
check "the line: found $dl with 1 preemption after S schedules (T traces)" grep -qE "^explore: .*lockdep-futex-wait.case \[2\.6\.11-rc4\]: found $dl with 1 preemption after $n schedules \($n traces\): preempt 1 at op 2 point $n to 2\$" "$tmp/out"
check "the report, as replay prints it" grep -qx "DEDUP_TOKEN: $dl" "$tmp/out"
check "the report's wait-for cycle" grep -q "^wait-for cycle:" "$tmp/out"
check "the line names the case written" grep -qx "explore: minimized case: $tmp/lwn.case" "$tmp/out"
check "the case: one preemption" test "$(grep -c '^preempt ' "$tmp/lwn.case" 2>/dev/null)" = 1
check "the case expects the deadlock on 2.6.11-rc4" grep -qx "expect 2.6.11-rc4 $dl" "$tmp/lwn.case"
"$snafu" replay --check --quiet "$tmp/lwn.case" >"$tmp/check" 2>&1
check "the case passes replay --check" test $? = 0
# the case's own schedule is ignored: the article's case finds the same
run "$snafu" explore "$cases/futex-wait-mmap-sem.case"
check "futex-wait-mmap-sem.case (default kernel): exit 1, 1 preemption (got $rc)" grep -qE "\[2\.6\.11-rc4\]: found $dl with 1 preemption after" "$tmp/out"

# 2. The merged fix: nothing within two preemptions, nor in every trace.
run "$snafu" explore --kernel=2.6.11 "$lwn"
check "LWN on 2.6.11: exit 0 (got $rc)" test "$rc" = 0
check "the line: no finding within 2 preemptions: T traces, S schedules" grep -qE "^explore: .*\[2\.6\.11\]: no finding within 2 preemptions: $n traces, $n schedules\$" "$tmp/out"
check "nothing else on stdout" test "$(wc -l <"$tmp/out")" = 1
check "nothing on stderr" test ! -s "$tmp/err"
# a program that arms a timer: every schedule within 3 preemptions, said so (every
# trace is too many, docs/explore.md); the check agrees
printf 'task 1\n  mmap m0 pages=2 prot=rw\n  munmap m0+0x1004 pages=2\ntask 2\n  sleep 3\n  sleep 2\n  kill 1\n  futex_cmp_requeue m0 m0+0xc val=0 nr_wake=1 nr_requeue=1\n' >"$tmp/timers.case"
run "$snafu" explore --kernel=2.6.11 --preemptions=all --quiet "$tmp/timers.case"
check "timers, --preemptions=all: within 3 preemptions, said so (exit $rc)" \
	grep -q "(it arms timers, whose firing points make every trace too many: every schedule within 3 preemptions instead) no finding within 3 preemptions" "$tmp/out"
run "$snafu" explore --kernel=2.6.11 --preemptions=all --check-reduction --quiet "$tmp/timers.case"
check "timers, --check-reduction: 0 missing (exit $rc)" grep -q "searched within the same bound instead).*: 0 missing\$" "$tmp/out"
run "$snafu" explore --kernel=2.6.11 --preemptions=all "$lwn"
check "LWN on 2.6.11, --preemptions=all: exit 0 (got $rc)" test "$rc" = 0
check "the line: no finding in T traces (unbounded)" grep -qE "^explore: .*\[2\.6\.11\]: no finding in $n traces \(unbounded\): $n schedules\$" "$tmp/out"
run "$snafu" explore --kernel=2.6.11-rc4 --preemptions=all "$lwn"
check "LWN on 2.6.11-rc4, --preemptions=all: the deadlock (exit $rc)" grep -qE "found $dl with $n preemptions? after" "$tmp/out"

# 3. Shards (without the reduction): 1/3, 2/3 and 3/3 run what one process does.
for c in futex-wait-mmap-sem madvise-writer; do
	"$snafu" explore --kernel=2.6.11 --no-reduction "$cases/$c.case" >"$tmp/whole" 2>&1
	whole=$(schedules "$tmp/whole")
	sum=0
	for i in 1 2 3; do
		"$snafu" explore --kernel=2.6.11 --no-reduction --shard=$i/3 "$cases/$c.case" >"$tmp/shard" 2>&1
		check "$c shard $i/3: its line says so" grep -q "(shard $i/3)\$" "$tmp/shard"
		e=$(sed -nE 's/.*: ([0-9]+) schedules? \(no reduction\).*/\1/p' "$tmp/shard")
		sum=$((sum + ${e:-0}))
	done
	check "$c: shards ran $sum, whole ${whole:-?}" test "$sum" = "${whole:-x}"
done

# 4. The reduction: fewer schedules than without it, fewer than it once ran, and the
# same outcomes (verdicts and end states) at every bound up to 2, on every kernel; on
# random programs too.
mw=$cases/madvise-writer.case
"$snafu" explore --kernel=2.6.11 "$mw" >"$tmp/red" 2>&1
"$snafu" explore --kernel=2.6.11 --no-reduction "$mw" >"$tmp/full" 2>&1
re=$(schedules "$tmp/red") fe=$(schedules "$tmp/full")
check "madvise-writer: ${re:-?} schedules with the reduction, ${fe:-?} without" test "${re:-9999999}" -lt "${fe:-0}"
# what the footprints read as independent (docs/explore.md, "The footprint"): the
# absorbed wake-up's program within 3 preemptions in at most 9,000 schedules (8,607
# before faults, stores and spinners' tries were read as they are, 5,055 after); a store
# that faults the word's page in against two futex_waits that fault on it: every trace
# took 19,395 schedules while a fault held page_table_lock throughout; since do_no_page()
# drops it around the page lookup, as 2.6.11 does, every trace is 284,400 traces (some
# past 15 preemptions, docs/explore.md), so the check is the bound of 4 preemptions,
# 19,515 schedules
run "$snafu" explore --kernel=2.6.12-jj --preemptions=3 --quiet "$cases/futex-absorbed-wakeup.case"
re=$(schedules "$tmp/out")
check "absorbed wake-up, 2.6.12-jj, within 3: ${re:-?} schedules, at most 9,000" test "${re:-9999999}" -le 9000
cat >"$tmp/faults.case" <<'EOF2'
task 1
  mmap futex pages=1 prot=rw shared
  store futex val=0
task 2
  futex_wait futex val=1
task 3
  futex_wait futex val=1
EOF2
run "$snafu" explore --kernel=2.6.12-jj --preemptions=4 --quiet --max-schedules=30000 "$tmp/faults.case"
check "a store and two futex_waits faulting one page in: within 4 preemptions in 30,000 schedules (exit $rc)" grep -qE "no finding within 4 preemptions: $n traces, $n schedules\$" "$tmp/out"
nk=$("$snafu" kernels | wc -l) # the listed kernels
for c in madvise-writer futex-absorbed-wakeup futex-seto-missed-wakeup cmp-requeue-spurious-eagain reclaim-olof-rfc; do
	run "$snafu" explore --all-kernels --check-reduction --quiet "$cases/$c.case"
	check "$c --check-reduction: every kernel and bound checked (exit $rc)" test "$(grep -c -- '--check-reduction at [012] preemptions\?: .*: 0 missing, 0 extra$' "$tmp/out")" = $((nk * 3))
	[ "$rc" = 0 ] || grep -v ' 0 missing, 0 extra$' "$tmp/out" | sed 's/^/    /'
done
run "$snafu" explore --check-reduction --preemptions=all --all-kernels --quiet "$cases/futex-seto-missed-wakeup.case"
check "--check-reduction --preemptions=all: every trace covers every schedule within 3 (exit $rc)" test "$(grep -cE -- '--check-reduction, every trace: .*: 0 missing$' "$tmp/out")" = "$nk"
run "$snafu" explore --check-reduction --random=12 --seed=7 --preemptions=2 --kernel=2.6.11 --max-schedules=5000
check "--check-reduction --random=12: none differs (exit $rc)" grep -qE "^explore: --check-reduction: 12 random programs \(seed 7\), bounds 0\.\.2: 36 checks, $n cut by --max-schedules, 0 with a difference\$" "$tmp/out"
[ "$rc" = 0 ] || show_output
run "$snafu" explore --check-reduction --random=1000 --seed=5 --preemptions=1 --kernel=2.6.11 --max-schedules=3000
check "--check-reduction --random=1000 --preemptions=1: none differs (exit $rc)" grep -qE "^explore: --check-reduction: 1000 random programs \(seed 5\), bounds 0\.\.1: 2000 checks, $n cut by --max-schedules, 0 with a difference\$" "$tmp/out"
[ "$rc" = 0 ] || grep -A12 "missing with" "$tmp/out" | head -40 | sed 's/^/    /'
# Programs random ones found the check failing on: a fault that adds a shmem page to
# the page cache while mincore() reads it (which fault adds it decides what mincore()
# writes: RB_PCACHE in search/footprint.c); 2.6.28's get_futex_key() going round its
# loop on the ZERO_PAGE (its trace drops its first events), and past the step budget
# (the tasks take turns, and equivalent runs loop a different number of times).
printf 'task 1\n  mmap m0 pages=1 prot=rw shared\n  futex_cmp_requeue m0+4 m0+8 val=1 nr_wake=0 nr_requeue=0\ntask 2\n  mincore m0 pages=1 vec=m0+0xc\n' >"$tmp/pcache.case"
printf 'task 1\n  mmap m0 pages=1 prot=rw\ntask 2\n  store m0+4 val=0\n  mmap m1 pages=2 prot=rw\n  futex_cmp_requeue m1+4 m1+0xc val=1 nr_wake=1 nr_requeue=0\n' >"$tmp/loop.case"
printf 'task 1\n  mmap m0 pages=1 prot=rw\ntask 2\n  store m0 val=0\ntask 3\n  munmap m0+4 pages=2\n  futex_wake m0+4 nr=2\n  futex_wait m0+0x1000 val=0 timeout=3\n  reclaim m0+0x1000\n' >"$tmp/turns.case"
for c in pcache:2.6.11 loop:2.6.28 turns:2.6.28; do
	run "$snafu" explore --check-reduction --preemptions=1 --kernel="${c#*:}" --quiet "$tmp/${c%%:*}.case"
	check "${c%%:*} on ${c#*:} --check-reduction: 0 missing (exit $rc)" test "$(grep -c -- '--check-reduction at [01] preemptions\?: .*: 0 missing, 0 extra$' "$tmp/out")" = 2
done
# --preemptions=all runs past 3 preemptions depth first and compacts its tree: that
# changes no count, and the reduction still loses nothing with it
for at in 0 512; do
	SNAFU_EXPLORE_COMPACT_AT=$at "$snafu" explore --kernel=2.6.11 --preemptions=all --quiet \
		"$cases/futex-seto-missed-wakeup.case" >"$tmp/gc$at" 2>&1
done
check "compacted: $(grep -c "compacted the tree" "$tmp/gc512") times" grep -qE "^explore: compacted the tree: $n nodes, $n kept\$" "$tmp/gc512"
check "compacted: the same search" test "$(tail -1 "$tmp/gc512")" = "$(tail -1 "$tmp/gc0")"
check "compacted: every trace" grep -qE "no finding in $n traces \(unbounded\): $n schedules\$" "$tmp/gc0"
SNAFU_EXPLORE_COMPACT_AT=512 run "$snafu" explore --check-reduction --random=10 --seed=11 --preemptions=all --kernel=2.6.11 --max-schedules=3000
check "--check-reduction --random=10 --preemptions=all, compacted: none differs (exit $rc)" grep -qE "^explore: --check-reduction: 10 random programs \(seed 11\), every trace against 3 preemptions: 10 checks, $n cut by --max-schedules, 0 with a difference\$" "$tmp/out"
check "... and compacted" grep -q "compacted the tree" "$tmp/err"
SNAFU_EXPLORE_COMPACT_AT=x run "$snafu" explore --preemptions=all "$lwn"
check "\$SNAFU_EXPLORE_COMPACT_AT=x: exit 2 (got $rc), one line" test "$rc" = 2 -a "$(wc -l <"$tmp/err")" = 1
# A tree grown large (1,000,000 nodes; here 300) goes depth first at every level, with a
# bound or without, and is compacted: the reduction still loses nothing, and a long
# program's search ends by its budget, not by a full tree
SNAFU_EXPLORE_DEPTH_FIRST_AT=300 run "$snafu" explore --check-reduction --random=12 --seed=7 --preemptions=2 --kernel=2.6.11 --max-schedules=5000
check "--check-reduction --random=12, depth first: none differs (exit $rc)" grep -qE "^explore: --check-reduction: 12 random programs \(seed 7\), bounds 0\.\.2: 36 checks, $n cut by --max-schedules, 0 with a difference\$" "$tmp/out"
check "... and depth first" grep -q "every level depth first from" "$tmp/err"
SNAFU_EXPLORE_DEPTH_FIRST_AT=300 SNAFU_EXPLORE_COMPACT_AT=512 run "$snafu" explore --check-reduction --random=10 --seed=11 --preemptions=all --kernel=2.6.11 --max-schedules=3000
check "--check-reduction --random=10 --preemptions=all, depth first: none differs (exit $rc)" grep -qE "^explore: --check-reduction: 10 random programs \(seed 11\), every trace against 3 preemptions: 10 checks, $n cut by --max-schedules, 0 with a difference\$" "$tmp/out"
SNAFU_EXPLORE_DEPTH_FIRST_AT=x run "$snafu" explore --preemptions=all "$lwn"
check "\$SNAFU_EXPLORE_DEPTH_FIRST_AT=x: exit 2 (got $rc), one line" test "$rc" = 2 -a "$(wc -l <"$tmp/err")" = 1
# (130 runs of 20,000 choice points: the build without sanitizers where there is one)
fast=$snafu
[ -x "$other/snafu" ] && fast=$other/snafu
run "$fast" explore --kernel=2.6.11 --preemptions=all --max-schedules=130 --quiet "$cases/seed-testcase.case"
check "Olof's testcase, every trace: ends by --max-schedules, not a full tree (exit $rc)" grep -qE "no finding in 130 schedules \(--max-schedules\)" "$tmp/out"
# Every trace, where a step that only takes a spinlock is no choice: 2.6.12-jj reads
# the futex word inside the bucket lock
run "$snafu" explore --check-reduction --random=60 --random-ops=4 --seed=2 --preemptions=all --kernel=2.6.12-jj --max-schedules=3000
check "--check-reduction --random=60 --random-ops=4 --preemptions=all on 2.6.12-jj: none differs (exit $rc)" grep -qE "^explore: --check-reduction: 60 random programs of at most 4 ops \(seed 2\), every trace against 3 preemptions: 60 checks, $n cut by --max-schedules, 0 with a difference\$" "$tmp/out"

# 5. The same input, the same output.
"$snafu" explore --all-kernels "$cases/futex-absorbed-wakeup.case" >"$tmp/a" 2>&1
"$snafu" explore --all-kernels "$cases/futex-absorbed-wakeup.case" >"$tmp/b" 2>&1
check "two runs, one output" cmp -s "$tmp/a" "$tmp/b"
check "--all-kernels: one line per kernel" test "$(wc -l <"$tmp/a")" = "$("$snafu" kernels | wc -l)"
check "the absorbed wake-up on 2.6.11 with 2 preemptions" grep -qE "\[2\.6\.11\]: found lost-wakeup--absorbed--futex_wait with 2 preemptions after $n schedules" "$tmp/a"
check "none on 2.6.12-jj within 2" grep -qE "\[2\.6\.12-jj\]: no finding within 2 preemptions" "$tmp/a"
# --sample=S (the fuzzer's joint search's order, explore_sample()): the same stream, the
# same output; run to its end, every kernel's verdict the fewest-first order's; within
# 40 schedules it meets the absorbed wake-up (stream 2: the 40th) where that order does
# not
"$snafu" explore --all-kernels --sample=2 "$cases/futex-absorbed-wakeup.case" >"$tmp/s1" 2>&1
"$snafu" explore --all-kernels --sample=2 "$cases/futex-absorbed-wakeup.case" >"$tmp/s2" 2>&1
check "--sample=2: two runs, one output" cmp -s "$tmp/s1" "$tmp/s2"
verdicts() { sed -E 's/ after .*//; s/: no finding within.*/: none/; s/ with [0-9]+ preemptions?//' "$1"; }
check "--sample=2 run to its end: every kernel's verdict as in order" test "$(verdicts "$tmp/a")" = "$(verdicts "$tmp/s1")"
"$snafu" explore --kernel=2.6.11 --sample=2 "$cases/futex-absorbed-wakeup.case" >"$tmp/s3" 2>&1
check "--sample=2: each kernel of --all-kernels from the stream's start, as alone" \
	test "$(grep '\[2\.6\.11\]' "$tmp/s1")" = "$(grep '^explore: .*\[2\.6\.11\]' "$tmp/s3")"
run "$snafu" explore --kernel=2.6.11 --oracles=lost-wakeup --sample=2 --max-schedules=40 "$cases/futex-absorbed-wakeup.case"
check "--sample=2 --max-schedules=40: the absorbed wake-up (exit $rc)" grep -qE "\[2\.6\.11\]: found lost-wakeup--absorbed--futex_wait with 2 preemptions after ([1-9]|[1-3][0-9]|40) schedules" "$tmp/out"
# A run must not see what an earlier run of the process left: here T2's forced write
# lands in the ZERO_PAGE (get_user_pages()' race before 2.6.13), and a later run's
# futex_wait read that page's 3 where its first run read 0, so the replay of a path
# went another way ("internal error: choice 29 of a run was at 1.2.21, not at 2.1.1").
printf 'tasks 3\ntask 1\n  mmap m pages=1 prot=r\n  futex_wait m val=0\ntask 2\n  pokedata m val=3\n' >"$tmp/zp.case"
run "$snafu" explore --kernel=2.6.11-rc4 --oracles=deadlock --sample=2 --max-schedules=60 "$tmp/zp.case"
check "--sample=2: the ZERO_PAGE a forced write hit is zero again in the next run (exit $rc)" \
	sh -c '[ "$1" = 0 ] && ! grep -q "internal error" "$2"' - "$rc" "$tmp/out"
run "$snafu" explore --kernel=2.6.11 --oracles=lost-wakeup --max-schedules=40 "$cases/futex-absorbed-wakeup.case"
check "in order, --max-schedules=40: none (exit $rc)" grep -qE "no finding in 40 schedules \(--max-schedules\)" "$tmp/out"

# 6. Bounds, budgets, oracles, signals.
run "$snafu" explore --preemptions=0 "$lwn"
check "--preemptions=0: the sequential run alone, exit 0 (got $rc)" grep -qx "explore: .*: no finding within 0 preemptions: 1 trace, 1 schedule" "$tmp/out"
run "$snafu" explore --oracles=deadlock,lockdep "$lwn"
check "lockdep named: its prediction with 0 preemptions, exit 1 (got $rc)" grep -qE ": found lockdep--recursive-read--mmap_sem--futex_wait with 0 preemptions after 1 schedule \(1 trace\)\$" "$tmp/out"
run "$snafu" explore --kernel=2.6.11 --max-schedules=5 "$lwn"
check "--max-schedules=5: exit 0 (got $rc), says the bound is not covered" grep -qE "no finding in 5 schedules \(--max-schedules\), $n traces: not every schedule" "$tmp/out"
run "$snafu" explore --kernel=2.6.11 --oracles=lost-wakeup -o "$tmp/lw.case" "$cases/futex-absorbed-wakeup.case"
check "the lost wake-up, written: exit 1 (got $rc)" test "$rc" = 1 -a -s "$tmp/lw.case"
"$snafu" replay --check --quiet "$tmp/lw.case" >"$tmp/check" 2>&1
check "its case passes replay --check" test $? = 0
# a search of every trace of the absorbed wake-up on 2.6.12-jj runs for minutes: stopped
# after 4 s, it says how far it got (and its progress line came after 3 s)
"$snafu" explore --kernel=2.6.12-jj --preemptions=all "$cases/futex-absorbed-wakeup.case" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 4
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM: exit 130 (got $rc)" test "$rc" = 130
check "SIGTERM: the line says how far it got" grep -qE "^explore: .*\[2\.6\.12-jj\]: interrupted after $n schedules \($n traces\), at $n preemptions?: no finding so far" "$tmp/out"
check "a progress line on stderr" grep -qE "^explore: 2\.6\.12-jj: $n schedules, $n traces, at $n preemptions?(, $n queued| \(depth first\), $n stacked), $n s\$" "$tmp/err"

# 7. Bad usage: one line on stderr, nothing on stdout, exit 2.
bad_usage() { # bad_usage DESCRIPTION ARGS... (of snafu explore, or of CMD=evaluate)
	local what=$1
	shift
	run "$snafu" "${CMD:-explore}" "$@"
	check "$what: exit 2 (got $rc)" test "$rc" = 2
	check "$what: one line on stderr" test "$(wc -l <"$tmp/err")" = 1
	check "$what: nothing on stdout" test ! -s "$tmp/out"
}
bad_usage "--preemptions=16" --preemptions=16 "$lwn"
bad_usage "--preemptions=x" --preemptions=x "$lwn"
bad_usage "--shard=0/3" --shard=0/3 "$lwn"
bad_usage "--shard=4/3" --shard=4/3 "$lwn"
bad_usage "--shard=2" --shard=2 "$lwn"
bad_usage "--shard with the reduction" --shard=1/2 "$lwn"
bad_usage "--preemptions=some" --preemptions=some "$lwn"
bad_usage "--random without --check-reduction" --random=3
bad_usage "--check-reduction with --no-reduction" --check-reduction --no-reduction "$lwn"
bad_usage "--random=0" --check-reduction --random=0
bad_usage "--random-ops without --random" --check-reduction --random-ops=5 "$lwn"
bad_usage "--random-ops=2" --check-reduction --random=3 --random-ops=2
bad_usage "--sample=x" --sample=x "$lwn"
bad_usage "--sample with --check-reduction" --sample=1 --check-reduction "$lwn"
bad_usage "--sample with --shard" --sample=1 --no-reduction --shard=1/2 "$lwn"
bad_usage "--max-schedules=0" --max-schedules=0 "$lwn"
bad_usage "--oracles=nope" --oracles=nope "$lwn"
bad_usage "--kernel=nope" --kernel=nope "$lwn"
bad_usage "an unknown option" --bogus "$lwn"
bad_usage "no CASE"
bad_usage "two CASEs" "$lwn" "$lwn"
bad_usage "--kernel with --all-kernels" --kernel=2.6.11 --all-kernels "$lwn"
bad_usage "-o with --all-kernels" --all-kernels -o "$tmp/x.case" "$lwn"
bad_usage "a missing CASE" "$tmp/missing.case"
grep -q "missing.case" "$tmp/err"
check "a missing CASE: the line names the file" test $? = 0

# 8. snafu evaluate --explore: every program on every kernel (here two and one), a line
#    each and a table; the same output whatever the number of processes
eagain=$cases/cmp-requeue-spurious-eagain.case
run "$snafu" evaluate --explore --kernel=2.6.11 --jobs=2 "$lwn" "$eagain"
check "evaluate --explore: exit 0 (got $rc)" test "$rc" = 0
check "evaluate --explore: the LWN program holds on 2.6.11" \
	grep -qE "^explore: .*lockdep-futex-wait.case \[2\.6\.11\]: no finding within 2 preemptions: [0-9]+ traces, [0-9]+ schedules$" "$tmp/out"
check "evaluate --explore: the spurious -EAGAIN found" \
	grep -qE "^explore: .*cmp-requeue-spurious-eagain.case \[2\.6\.11\]: found wrong-result--futex_cmp_requeue with 1 preemption after [0-9]+ schedules" "$tmp/out"
check "evaluate --explore: the table row" \
	grep -qE "^2\.6\.11 +2 +1 +0 +1 +[0-9]+ +[0-9]+  wrong-result--futex_cmp_requeue \(cmp-requeue-spurious-eagain\)$" "$tmp/out"
cp "$tmp/out" "$tmp/two"
run "$snafu" evaluate --explore --kernel=2.6.11 --jobs=1 "$lwn" "$eagain"
sed 1d "$tmp/two" >"$tmp/two.b"
sed 1d "$tmp/out" >"$tmp/one.b"
check "evaluate --explore: --jobs=1 prints the same" cmp -s "$tmp/two.b" "$tmp/one.b"
run "$snafu" evaluate --explore=1 --max-schedules=5 --markdown --kernel=2.6.11 "$lwn"
# traces: the 5 runs less those that stopped at a state met before
check "evaluate --explore=1 --max-schedules=5: cut" \
	grep -qE '^\| `2\.6\.11` \| 1 \| 0 \| 1 \| 0 \| 5 \| [1-5] \| - \|$' "$tmp/out"
CMD=evaluate bad_usage "evaluate --explore=16" --explore=16 "$lwn"
CMD=evaluate bad_usage "evaluate --explore --jobs=0" --explore --jobs=0 "$lwn"
CMD=evaluate bad_usage "evaluate --explore --bogus" --explore --bogus "$lwn"
CMD=evaluate bad_usage "evaluate --explore, a missing CASE" --explore "$tmp/missing.case"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
