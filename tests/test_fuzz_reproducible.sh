#!/usr/bin/env bash
# The same snafu fuzz command gives the same run whatever the load: two identical commands
# run at once (with a third process spinning, so that neither runs alone) reach the same
# findings after the same numbers of executions and keep the same corpus, from an empty
# start and from the seed corpus. Wall time must reach nothing the fuzzer's coverage sees
# (fuzz/futex_mm_fuzzer.c, report_progress()).
#
#   bash tests/test_fuzz_reproducible.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $snafu, $tmp
spinner=
trap '[ -n "$spinner" ] && kill "$spinner" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
: >EMPTY

# what must match: each finding's executions and signature, the corpus's files
outcome() { # outcome DIR
	sed -n 's/^fuzz: \([^:]*\): \([0-9]*\) executions, [0-9.]* s: /\1 \2 /p' "$1.log" |
		sed 's/ -> [^,]*//g'
	(cd "$1.out" && find . -path '*/corpus/*' -type f | sort)
}

(while :; do :; done) &
spinner=$!
for start in empty seeds; do
	extra=()
	[ $start = empty ] && extra=(-seed_inputs=EMPTY)
	pids=()
	for i in 1 2; do
		"$snafu" fuzz --kernel=2.6.11 --seed=1 --fresh --keep-going --jobs=1 --runs=200000 "${extra[@]}" \
			--out=$start$i.out --found=$start$i.found >$start$i.log 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	outcome ${start}1 >${start}1.outcome
	outcome ${start}2 >${start}2.outcome
	check "$start: the first run found something" grep -Eq '^2\.6\.11 200000 .* after [0-9]+' ${start}1.outcome
	check "$start: a corpus was kept" grep -q corpus/ ${start}1.outcome
	if cmp -s ${start}1.outcome ${start}2.outcome; then ok; else
		bad "$start: two identical commands run at once differ:"
		diff ${start}1.outcome ${start}2.outcome | head -5 | sed 's/^/    /'
	fi
done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
