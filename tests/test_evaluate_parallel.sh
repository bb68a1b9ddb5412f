#!/usr/bin/env bash
# The same seed gives the same table, byte for byte, with two evaluations running at once
# on a loaded machine, one with its --out on tmpfs (/dev/shm) where there is one: then
# the two corpora are listed in different orders (creation order on tmpfs, hash order on
# ext4), and libFuzzer used to take the seeds in that order. And the fuzzer itself: two
# runs at once, with its default flags, from a corpus that holds an input that adds no
# coverage, execute the same inputs in the same order; with -reload=1 they do not (a
# reload runs that input again whenever a second of wall time has passed, which depends
# on the load). See tools/evaluate.c and fuzz/futex_mm_fuzzer.c.
#
# The load: one CPU-bound loop per CPU, for the duration (about 20 s; under ctest -j4
# the other tests add theirs). Nothing here depends on how long anything takes.
#
#   bash tests/test_evaluate_parallel.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $bin, $src, $tmp

shm=
if [ -d /dev/shm ] && [ -w /dev/shm ] &&
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" != "$(stat -f -c %T "$tmp")" ]; then
	shm=$(mktemp -d /dev/shm/snafu-evaluate-parallel.XXXXXX 2>/dev/null) || shm=
fi
hogs=()
cleanup() {
	[ ${#hogs[@]} = 0 ] || kill "${hogs[@]}" 2>/dev/null
	rm -rf "$tmp" ${shm:+"$shm"}
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A hog spins until this script is gone (checked between bursts: a SIGKILLed test leaves
# none behind), and for 10 minutes at most.
me=$$
for ((i = 0; i < $(nproc 2>/dev/null || echo 2); i++)); do
	timeout 600 bash -c "while kill -0 $me 2>/dev/null; do
		for ((n = 0; n < 200000; n++)); do :; done; done" &
	hogs+=($!)
done
limit=300 # per command, generous: each takes seconds

# 1. Two evaluations at once, each with --out=ev relative to a working directory of its
#    own (on tmpfs for the second where there is one): the table rows must be the same
#    bytes. (--no-explore: the explore column reads no clock and runs no fuzzer;
#    test_evaluate_bounds.sh compares it for --jobs=1 and --jobs=2.)
a=$tmp/a b=${shm:-$tmp}/b
mkdir -p "$a" "$b"
runs=()
for d in "$a" "$b"; do
	(
		cd "$d" && timeout $limit "$bin/snafu" evaluate --runs=3000 --jobs=2 \
			--no-explore --out=ev >out 2>err
		echo $? >rc
	) &
	runs+=($!)
done
wait "${runs[@]}"
for d in "$a" "$b"; do
	check "evaluate in $d: exit 0 (got $(cat "$d/rc" 2>/dev/null))" test "$(cat "$d/rc" 2>/dev/null)" = 0
	awk '/^$/ { exit } { print }' "$d/out" >"$d/table"
done
nk=$("$bin/snafu" kernels | wc -l)
check "a header and a row per kernel ($((nk + 1)) lines, got $(wc -l <"$a/table"))" \
	test "$(wc -l <"$a/table")" = $((nk + 1))
check "the cases are in ev/KERNEL/ORACLE.case" test -n "$(ls "$a"/ev/*/*.case 2>/dev/null)"
if cmp -s "$a/table" "$b/table"; then ok; else
	bad "two evaluations at once, seed 1: different tables${shm:+ (the second on tmpfs)}"
	diff "$a/table" "$b/table" | sed 's/^/    /'
fi
[ -n "$shm" ] || echo "note: no tmpfs /dev/shm apart from $tmp; both evaluations on one file system"

# 2. The fuzzer's default -reload=0. The corpus: the seeds and one input that adds no
#    coverage (a seed with a byte appended that the decoder ignores; the first of them
#    that libFuzzer does not keep), which -reload=1 would run again once a second.
seeds=("$src"/corpus/futex_mm_fuzzer/*)
extra=
for s in "${seeds[@]}"; do
	rm -rf "$tmp/probe" && mkdir -p "$tmp/probe"
	cp "${seeds[@]}" "$tmp/probe/"
	{ cat "$s" && printf '\0'; } >"$tmp/probe/zz-extra"
	inited=$(timeout $limit "$bin/futex_mm_fuzzer" --kernel=2.6.11 -runs=0 \
		-seed=1 "$tmp/probe" 2>&1 | sed -n 's/.*INITED.* corp: \([0-9]*\)\/.*/\1/p')
	if [ "$inited" = ${#seeds[@]} ]; then
		extra=$s
		break
	fi
done
if [ -z "$extra" ]; then
	echo "note: every seed with a byte appended adds coverage; the fuzzer's reload check is not run"
else
	runs=()
	for x in f1 f2; do
		mkdir -p "$tmp/$x/corpus" "$tmp/$x/art"
		cp "$tmp/probe/"* "$tmp/$x/corpus/"
		timeout $limit "$bin/futex_mm_fuzzer" --kernel=2.6.11 -runs=8000 -seed=1 \
			-print_final_stats=1 -artifact_prefix="$tmp/$x/art/" "$tmp/$x/corpus" \
			>"$tmp/$x/log" 2>&1 &
		runs+=($!)
	done
	wait "${runs[@]}"
	for x in f1 f2; do
		# what ran, in order: the NEW and REDUCE lines (not exec/s, rss or the pulse
		# lines libFuzzer prints by the clock) and the final counts
		{
			grep -E '^#[0-9]+' "$tmp/$x/log" | grep -v pulse |
				sed 's/ exec\/s: [0-9]*//; s/ rss: [0-9]*Mb//'
			grep -E '^stat::(number_of_executed_units|new_units_added)' "$tmp/$x/log"
		} >"$tmp/$x/seq"
		ls "$tmp/$x/corpus" >>"$tmp/$x/seq"
	done
	check "fuzzer: final stats printed" grep -q '^stat::number_of_executed_units' "$tmp/f1/seq"
	if cmp -s "$tmp/f1/seq" "$tmp/f2/seq"; then ok; else
		bad "fuzzer: two runs at once, seed 1, ${extra##*/} plus a byte in the corpus: they differ"
		diff "$tmp/f1/seq" "$tmp/f2/seq" | head -10 | sed 's/^/    /'
	fi
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
