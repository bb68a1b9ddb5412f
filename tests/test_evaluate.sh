#!/usr/bin/env bash
# snafu evaluate end to end: every kernel gets a row and every oracle a column (each run
# alone); the unfixed kernel's lockdep cell is the prediction of the mmap_sem deadlock
# with a minimized case that replays and a confirmed case (snafu confirm) that deadlocks,
# its deadlock cell the deadlock, 2.6.12-jj's row empty; --markdown prints a table, the
# same seed gives the same table, bad flags exit 2 with one line, a missing or failing
# fuzzer is reported, the default --out is next to snafu's directory whatever the
# working directory. One seed a cell and no explore column (--no-explore) throughout
# (tests/test_evaluate_parallel.sh: two at once, on a loaded machine;
# tests/test_evaluate_bounds.sh: --seeds and the explore column).
#
#   bash tests/test_evaluate.sh BIN_DIR SRC_DIR [OTHER_BIN_DIR]
set -u
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $src, $snafu, $tmp
here=$PWD

# expect_error WHAT: the last run exited 2, printed nothing on stdout and one line on
# stderr
expect_error() {
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]; then
		ok
	else
		bad "$1: want exit 2 and one line, got exit $rc, $(wc -l <"$tmp/err") lines"
		show_output
	fi
}

mapfile -t kernels < <("$snafu" kernels | awk '{print $1}')
[ ${#kernels[@]} -gt 0 ] || {
	echo "test_evaluate.sh: snafu kernels lists nothing"
	exit 2
}
seeds_before=$(cd "$src/corpus/futex_mm_fuzzer" && ls -A | xargs md5sum)

# 1. The plain table at a small budget: a row per kernel, a column per oracle (each run
#    alone); cells are separated by two spaces or more, and hold single spaces only.
oracles="deadlock lost-wakeup result integrity lockdep" # prog/oracle.c's table, in order
run "$snafu" evaluate --runs=20000 --no-explore --out="$tmp/ev"
cp "$tmp/out" "$tmp/plain.out"
check "evaluate --runs=20000: exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
# rows: from the header to the first blank line
awk 'NR == 1 { next } /^$/ { exit } { print }' "$tmp/plain.out" >"$tmp/rows"
check "plain table: a header line" grep -q "^kernel  *$(echo $oracles | sed 's/ /  */g')\$" "$tmp/plain.out"
check "plain table: one row per kernel (${#kernels[@]}, got $(wc -l <"$tmp/rows"))" \
	test "$(wc -l <"$tmp/rows")" = ${#kernels[@]}
check "plain table: rows in the order of snafu kernels" \
	test "$(awk '{print $1}' "$tmp/rows" | tr '\n' ' ')" = "${kernels[*]} "
# col O: the column of oracle O; cell K C: the cell of kernel K in column C
col() {
	local o i=2
	for o in $oracles; do
		[ "$o" = "$1" ] && echo $i
		i=$((i + 1))
	done
}
cell() { awk -F'  +' -v k="$1" -v c="$2" '$1 == k { print $c }' "$tmp/rows"; }
prefix() { case $1 in deadlock) echo 'deadlock--\|hung--' ;; lost-wakeup) echo lost-wakeup-- ;;
	result) echo wrong-result-- ;; integrity) echo integrity-- ;; lockdep) echo lockdep-- ;; esac; }
# a finding no oracle names (a livelock, the model's own checkers: docs/oracles.md) is
# always on, so it may stand in any column
always_on() { ! grep -q '^\(deadlock--\|hung--\|lost-wakeup--\|wrong-result--\|integrity--\|lockdep--\)' <<<"$1"; }
for k in "${kernels[@]}"; do
	c=2
	for o in $oracles; do
		v=$(cell "$k" $c)
		c=$((c + 1))
		case "$v" in
		"none in 20000") ok ;;
		*" after "*)
			sig=${v%% after *} n=${v#* after } n=${n%%,*}
			if [ "$n" -ge 1 ] 2>/dev/null && [ "$n" -le 20000 ] &&
				{ grep -q "^\($(prefix $o)\)" <<<"$sig" || always_on "$sig"; } &&
				[ -f "$tmp/ev/$k/$o.case" ] &&
				"$snafu" replay --quiet --oracles=$o --kernel="$k" "$tmp/ev/$k/$o.case" 2>/dev/null |
				grep -qxF "$tmp/ev/$k/$o.case [$k]: $sig"; then ok; else
				bad "$k, $o: cell '$v': want executions 1..20000, a $o token and a case that replays to it"
			fi
			"$snafu" replay --check --quiet "$tmp/ev/$k/$o.case" >/dev/null 2>&1 ||
				bad "$k, $o: the case fails its expect lines"
			;;
		*) bad "$k, $o: cell '$v'" ;;
		esac
	done
done
v=$(cell 2.6.11-rc4 "$(col lockdep)")
sig=${v%% after *} n=${v#* after } n=${n%%,*}
if [ "${sig#lockdep--recursive-read--mmap_sem--}" != "$sig" ] && [ "${v%, confirmed}" != "$v" ]; then ok; else
	bad "2.6.11-rc4: want lockdep--recursive-read--mmap_sem--*, confirmed; got '$v'"
fi
check "2.6.11-rc4: the deadlock oracle alone finds the deadlock" \
	grep -q '^deadlock--do_page_fault--' <<<"$(cell 2.6.11-rc4 "$(col deadlock)")"
# (mincore's deadlock and its prediction aside: --ops=all, and 2.6.12 kept mincore.c)
check "2.6.12-jj: no lost wake-up or wrong result" \
	test "$(cell 2.6.12-jj "$(col lost-wakeup)")|$(cell 2.6.12-jj "$(col result)")" = "none in 20000|none in 20000"
for c in $(col deadlock) $(col lockdep); do
	check "2.6.12-jj: no futex finding in column $c ($(cell 2.6.12-jj $c))" \
		grep -qE '^(none in 20000|[a-z-]*--[a-z_]*--sys_mincore after .*)$' <<<"$(cell 2.6.12-jj $c)"
done
case_file=$tmp/ev/2.6.11-rc4/lockdep.case
if [ -f "$case_file" ]; then
	"$snafu" replay --kernel=2.6.11-rc4 "$case_file" >"$tmp/replay.out" 2>&1
	check "2.6.11-rc4's lockdep case replays to a report" grep -q "^DEDUP_TOKEN: $sig\$" "$tmp/replay.out"
	check "2.6.11-rc4's artifact is in $tmp/ev/2.6.11-rc4/lockdep/" \
		grep -q "from $tmp/ev/2.6.11-rc4/lockdep/crash-" "$case_file"
	# snafu confirm found the deadlock it predicts, at the same site
	confirmed=$tmp/ev/2.6.11-rc4/lockdep.confirmed.case
	"$snafu" replay --kernel=2.6.11-rc4 "$confirmed" >"$tmp/replay.out" 2>&1
	check "2.6.11-rc4's confirmed case deadlocks in do_page_fault" \
		grep -q "^DEDUP_TOKEN: deadlock--do_page_fault--${sig#lockdep--recursive-read--mmap_sem--}\$" "$tmp/replay.out"
	"$snafu" replay --check --quiet "$confirmed" >"$tmp/check.out" 2>&1
	check "2.6.11-rc4's confirmed case passes its expect lines" test $? = 0
else
	bad "2.6.11-rc4: no minimized case '$case_file'"
fi
check "the signature is the log's first DEDUP_TOKEN" \
	test "DEDUP_TOKEN: $sig" = "$(grep -m1 '^DEDUP_TOKEN: ' "$tmp/ev/2.6.11-rc4/lockdep/fuzz.log")"
check "the executions are the log's final stats" \
	grep -q "^stat::number_of_executed_units: *$n\$" "$tmp/ev/2.6.11-rc4/lockdep/fuzz.log"
check "each oracle runs alone" grep -qx "futex_mm_fuzzer: oracles result" "$tmp/ev/2.6.11-rc4/result/fuzz.log"
check "the command line is printed" \
	grep -q "^command: .*/snafu evaluate --runs=20000 --jobs=[0-9]* --ops=all --seed=1 --no-explore --out=$tmp/ev\$" "$tmp/plain.out"
check "the wall time is printed" grep -q '^wall time: [0-9.]* s$' "$tmp/plain.out"
# the seeds: copied, and handed to the fuzzer as a list in name order (bytes, not the
# locale), not through the corpus directory, whose listing order is the file system's
d=$tmp/ev/${kernels[0]}/deadlock
check "each job's seeds are a copy of the seed corpus" diff -r "$src/corpus/futex_mm_fuzzer" "$d/seeds"
check "the seed list is the copies in name order" test "$(cat "$d/seeds.txt")" = \
	"$(cd "$src/corpus/futex_mm_fuzzer" && LC_ALL=C ls | sed "s|^|$d/seeds/|" | paste -sd,)"
check "the corpus directory holds only what the fuzzer added" \
	test "$(ls "$d/corpus" | grep -cv '^[0-9a-f]\{40\}$')" = 0
check "the repository's seed corpus is untouched" \
	test "$(cd "$src/corpus/futex_mm_fuzzer" && ls -A | xargs md5sum)" = "$seeds_before"

# 2. --markdown: a header, a separator and one row of a cell per oracle and the kernel's
#    per kernel; and the same seed gives the same table, however many jobs run at once.
#    Both runs write --out=md relative to a working directory of their own, so that the
#    rows, paths included, must be the same bytes. Three kernels (--kernel): the unfixed
#    one (a confirmed lockdep cell), one with empty cells, the newest; every kernel's
#    table is compared in tests/test_evaluate_parallel.sh. --oracles picks the columns.
picked=(2.6.11-rc4 2.6.12-jj "${kernels[${#kernels[@]} - 1]}")
kopts=()
for k in "${picked[@]}"; do kopts+=(--kernel="$k"); done
mkdir -p "$tmp/w1" "$tmp/w2"
cd "$tmp/w1" && run "$snafu" evaluate "${kopts[@]}" --runs=3000 --jobs=1 --markdown --no-explore --out=md
cd "$here"
check "evaluate --markdown: exit 0 (got $rc)" test "$rc" = 0
grep '^|' "$tmp/out" >"$tmp/md"
ncells=$(($(wc -w <<<"$oracles") + 1))
check "markdown: header" test "$(sed -n 1p "$tmp/md")" = "| kernel | $(echo $oracles | sed 's/ / | /g') |"
check "markdown: separator" grep -qx "|\\(:\\?-\\+:\\?|\\)\\{$ncells\\}" <(sed -n 2p "$tmp/md")
check "markdown: $((${#picked[@]} + 2)) table lines (got $(wc -l <"$tmp/md"))" \
	test "$(wc -l <"$tmp/md")" = $((${#picked[@]} + 2))
check "markdown: every line has $ncells cells" \
	test "$(awk -F'|' -v n=$((ncells + 2)) 'NF != n || $1 != "" || $n != ""' "$tmp/md" | wc -l)" = 0
check "markdown: a row per kernel, in order" \
	test "$(sed -n '3,$p' "$tmp/md" | awk -F'|' '{gsub(/[ `]/, "", $2); print $2}' | tr '\n' ' ')" = "${picked[*]} "
check "markdown: the table is contiguous" \
	test "$(grep -n '^|' "$tmp/out" | cut -d: -f1 | tr '\n' ' ')" = "$(seq 1 $((${#picked[@]} + 2)) | tr '\n' ' ')"
check "markdown: the command line" grep -q "^Command: \`.*snafu evaluate ${kopts[*]} --runs=3000 --jobs=1 --ops=all --seed=1 --no-explore --out=md --markdown\`; wall time [0-9.]* s\.\$" "$tmp/out"
cd "$tmp/w2" && run "$snafu" evaluate "${kopts[@]}" --runs=3000 --jobs=3 --markdown --no-explore --out=md
cd "$here"
grep '^|' "$tmp/out" >"$tmp/md.again"
if grep -q "cannot turn off address randomization" "$tmp/err"; then
	echo "note: address randomization stays on here (the tables are compared all the same)"
fi
if [ "$rc" = 0 ] && [ -s "$tmp/md" ] && cmp -s "$tmp/md" "$tmp/md.again"; then ok; else
	bad "the same seed gave a different table (exit $rc)"
	diff "$tmp/md" "$tmp/md.again" | sed 's/^/    /'
fi
cd "$tmp/w2" && run "$snafu" evaluate "${kopts[@]}" --runs=300 --jobs=2 --markdown --oracles=lockdep,deadlock --no-explore --out=md2
cd "$here"
check "--oracles=lockdep,deadlock: two columns, in the table's order" \
	test "$(grep -m1 '^|' "$tmp/out")" = "| kernel | deadlock | lockdep |"

# 3. Bad usage: one line naming the argument, exit 2, nothing run.
for a in --runs=0 --runs=abc --runs=-5 --runs= --jobs=0 --jobs=x --ops=mm --ops= --seed=0 \
	--seed=4294967296 --out= --bogus -runs=5 extra; do
	run "$snafu" evaluate "$a"
	expect_error "evaluate $a"
	check "evaluate $a: the message names the argument" grep -qF "'$a'" "$tmp/err"
done

# 4. No fuzzer next to snafu: one line, exit 2.
mkdir -p "$tmp/lonely"
cp "$snafu" "$tmp/lonely/snafu"
run "$tmp/lonely/snafu" evaluate --runs=10 --no-explore --out="$tmp/lonely/ev"
expect_error "evaluate without a fuzzer"
check "evaluate without a fuzzer: names it" grep -q "$tmp/lonely/futex_mm_fuzzer" "$tmp/err"

# 5. A fuzzer that fails without an artifact: the row says error, exit 1; and the fuzzer
#    gets the documented command line.
mkdir -p "$tmp/fake"
cp "$snafu" "$tmp/fake/snafu"
cat >"$tmp/fake/futex_mm_fuzzer" <<'EOF'
#!/bin/sh
for corpus; do :; done # the last argument: OUT/KERNEL/ORACLE/corpus
echo "$@" >"$(dirname "$corpus")/args"
echo "fake fuzzer: exit 3"
exit 3
EOF
chmod +x "$tmp/fake/futex_mm_fuzzer"
run "$tmp/fake/snafu" evaluate --runs=77 --seed=5 --ops=futex --jobs=2 --no-explore --out="$tmp/fake/ev"
check "a failing fuzzer: exit 1 (got $rc)" test "$rc" = 1
check "a failing fuzzer: every cell says error" \
	test "$(awk 'NR > 1 && /^$/ { exit } NR > 1' "$tmp/out" | grep -o 'error: fuzzer exit 3, no artifact' | wc -l)" = $((${#kernels[@]} * $(wc -w <<<"$oracles")))
k=${kernels[0]}
d=$tmp/fake/ev/$k/lost-wakeup
check "the fuzzer's command line" test "$(cat "$d/args" 2>/dev/null)" = \
	"--kernel=$k --ops=futex --oracles=lost-wakeup -runs=77 -seed=5 -reload=0 -print_final_stats=1 -artifact_prefix=$d/ -seed_inputs=@$d/seeds.txt $d/corpus"
check "the fuzzer's output goes to its log" grep -q "fake fuzzer: exit 3" "$d/fuzz.log"

# 6. The default --out: DIR/../evaluate for DIR/snafu (build/evaluate for build/bin/snafu),
#    whatever the working directory, also when snafu is reached through a symbolic link;
#    nothing is written where it runs.
mkdir -p "$tmp/tree/bin" "$tmp/elsewhere" "$tmp/links"
cp "$tmp/fake/snafu" "$tmp/fake/futex_mm_fuzzer" "$tmp/tree/bin/"
ln -s "$tmp/tree/bin/snafu" "$tmp/links/snafu"
tree=$(cd "$tmp/tree" && pwd -P) # as /proc/self/exe names it: no symbolic links
for exe in "$tmp/tree/bin/snafu" "$tmp/links/snafu"; do
	rm -rf "$tmp/tree/evaluate"
	cd "$tmp/elsewhere" && run "$exe" evaluate --runs=5 --jobs=2 --no-explore
	cd "$here"
	check "default --out ($exe): the fuzzers ran (exit 1 from the fake, got $rc)" test "$rc" = 1
	check "default --out ($exe): the logs are in $tmp/tree/evaluate" \
		grep -q "fake fuzzer: exit 3" "$tmp/tree/evaluate/$k/deadlock/fuzz.log"
	check "default --out ($exe): the fuzzer was told so" grep -q \
		" -artifact_prefix=$tree/evaluate/$k/deadlock/ .* $tree/evaluate/$k/deadlock/corpus\$" \
		"$tmp/tree/evaluate/$k/deadlock/args"
	check "default --out ($exe): the command line names it" \
		grep -q "^command: .* --out=$tree/evaluate\$" "$tmp/out"
	check "default --out ($exe): nothing written in the working directory" \
		test -z "$(ls -A "$tmp/elsewhere")"
done

echo "$pass passed, $fail failed"
[ $fail = 0 ]
