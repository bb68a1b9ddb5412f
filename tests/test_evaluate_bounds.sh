#!/usr/bin/env bash
# snafu evaluate's bounds (docs/evaluate.md): --seeds=N runs N libFuzzer seeds a cell, and
# the cell says how many found it, the median of their executions and the most common
# signature, or "none in N x RUNS"; each seed's fuzzer runs as --seed=THAT alone would,
# its case in OUT/KERNEL/ORACLE.seed-S.case (the first seed's where it always was). The
# explore column: explore_bound() on every saved program (here four, --explore-cases)
# and every program the cells found, each once, the same table and OUT/explore.txt for
# --jobs=1 and --jobs=2, each cell the sum of explore.txt's lines; what a search finds
# within its budget is explore's business (tests/test_explore.sh), not checked here. Bad
# values exit 2 with one line. (tests/test_evaluate.sh: one seed, --no-explore.)
#
#   bash tests/test_evaluate_bounds.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $src, $snafu, $tmp
here=$PWD

mapfile -t kernels < <("$snafu" kernels | awk '{print $1}')
# rows FILE: the plain table's rows, from the line after the header to the first blank one
rows() { awk 'NR == 1 { next } /^$/ { exit } { print }' "$1"; }
# cell ROWS K C: column C of kernel K's row (cells are apart by two spaces or more)
cell() { awk -F'  +' -v k="$2" -v c="$3" '$1 == k { print $c }' "$1"; }
# the executions in a fuzzer's log (its final stats)
execs_of() { sed -n 's/^stat::number_of_executed_units: *//p' "$1"; }

# 1. --seeds=3: a cell per kernel and oracle over three seeds (1, 2, 3).
run "$snafu" evaluate --runs=300 --seeds=3 --jobs=2 --oracles=deadlock,lockdep --no-explore \
	--out="$tmp/s"
check "--seeds=3: exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
rows "$tmp/out" >"$tmp/s.rows"
check "--seeds=3: the header" grep -qx 'kernel  *deadlock  *lockdep' "$tmp/out"
check "--seeds=3: a row per kernel" test "$(wc -l <"$tmp/s.rows")" = ${#kernels[@]}
# a signature: KIND--DETAIL--FUNCTION, or KIND--CALL (livelock--futex_wait, docs/triage.md)
token_re='[a-z_-]+--[a-z_-]+(--[a-z_-]+)?'
form='^(none in 3 x 300|'"$token_re"'( \(\+[0-9]+ others?\))? found by ([23] of 3 seeds, median|1 of 3 seeds, after) [0-9][0-9,]*(, confirmed|, predicted only|, confirmed for [0-9]+ of [0-9]+)?)$'
for k in "${kernels[@]}"; do
	for c in 2 3; do
		v=$(cell "$tmp/s.rows" "$k" $c)
		if grep -qE "$form" <<<"$v"; then ok; else bad "$k, column $c: cell '$v'"; fi
	done
done
check "rwsem-lockdepth: nothing in three seeds" \
	test "$(cell "$tmp/s.rows" rwsem-lockdepth 2)|$(cell "$tmp/s.rows" rwsem-lockdepth 3)" = \
	"none in 3 x 300|none in 3 x 300"
# 2.6.11-rc4's lockdep prediction comes within a few executions for every seed: the
# median is the middle one of the three logs' counts
v=$(cell "$tmp/s.rows" 2.6.11-rc4 3)
d=$tmp/s/2.6.11-rc4
median=$(for l in "$d/lockdep/fuzz.log" "$d/lockdep.seed-2/fuzz.log" "$d/lockdep.seed-3/fuzz.log"; do
	execs_of "$l"
done | sort -n | sed -n 2p)
if grep -qE "^lockdep--recursive-read--mmap_sem--[a-z_]*( \(\+[0-9]+ others?\))? found by 3 of 3 seeds, median $median, confirmed" <<<"$v"; then ok; else
	bad "2.6.11-rc4, lockdep: want found by 3 of 3 seeds, median $median (the logs'), confirmed; got '$v'"
fi
for s in 1 2 3; do
	dir=$d/lockdep.seed-$s base=$d/lockdep.seed-$s
	[ $s = 1 ] && dir=$d/lockdep base=$d/lockdep
	check "seed $s runs with -seed=$s" grep -q "^INFO: Seed: $s\$" "$dir/fuzz.log"
	check "seed $s's case, report, input and confirmed case: $base.*" \
		test -f "$base.case" -a -f "$base.report" -a -f "$base.input" -a -f "$base.confirmed.case"
	sig=$(grep -m1 '^DEDUP_TOKEN: ' "$dir/fuzz.log" | cut -d' ' -f2)
	check "seed $s's case replays to its fuzzer's finding ($sig)" grep -qxF "$base.case [2.6.11-rc4]: $sig" \
		<("$snafu" replay --quiet --oracles=lockdep --kernel=2.6.11-rc4 "$base.case" 2>/dev/null)
done
check "--seeds=3: the command line" \
	grep -q "^command: .*/snafu evaluate --runs=300 --jobs=2 --ops=all --oracles=deadlock,lockdep --seed=1 --seeds=3 --no-explore --out=$tmp/s\$" "$tmp/out"
check "--seeds=3: the first line says so" grep -q "^evaluate: ${#kernels[@]} kernels x 2 oracles x 3 seeds, one fuzzer each, 300 executions each, seeds 1\\.\\.3, " "$tmp/err"

# 2. Seed 2 of --seeds=3 is --seed=2 alone: one seed's cell reads as it always did.
run "$snafu" evaluate --runs=300 --seed=2 --jobs=2 --oracles=lockdep --no-explore --out="$tmp/one"
rows "$tmp/out" >"$tmp/one.rows"
n2=$(execs_of "$d/lockdep.seed-2/fuzz.log")
sig2=$(grep -m1 '^DEDUP_TOKEN: ' "$d/lockdep.seed-2/fuzz.log" | cut -d' ' -f2)
check "--seed=2 alone: '$sig2 after $n2, confirmed', as seed 2 of three found" \
	test "$(cell "$tmp/one.rows" 2.6.11-rc4 2)" = "$sig2 after $n2, confirmed"
check "--seed=2 alone: 'none in 300' on rwsem-lockdepth" \
	test "$(cell "$tmp/one.rows" rwsem-lockdepth 2)" = "none in 300"

# 3. Bad values: one line naming the argument, exit 2, nothing run.
for a in --seeds=0 --seeds=x --seeds=1001 --seeds= --seeds=-1 --explore-schedules=0 \
	--explore-schedules=x --explore-schedules= --no-explore=1 --explore-cases= \
	--explore-cases="$tmp/missing"; do
	run "$snafu" evaluate "$a" --out="$tmp/bad"
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
		grep -qF "'$a'" "$tmp/err"; then ok; else
		bad "evaluate $a: want exit 2 and one line naming it, got exit $rc, $(wc -l <"$tmp/err") lines"
		show_output
	fi
done
run "$snafu" evaluate --seed=4294967295 --seeds=2 --out="$tmp/bad"
check "--seed=4294967295 --seeds=2: exit 2, one line on --seeds (got $rc)" \
	test "$rc" = 2 -a "$(wc -l <"$tmp/err")" = 1 -a ! -s "$tmp/out"
check "--seed=4294967295 --seeds=2: why" grep -q "'--seeds=2': expected .*4294967295" "$tmp/err"
check "bad values: nothing ran" test ! -e "$tmp/bad"

# 4. The explore column, two seeds, four saved cases (two of them the same program): the
#    same table and the same OUT/explore.txt for --jobs=1 and --jobs=2 (each with
#    --out=md under a working directory of its own).
mkdir -p "$tmp/w1" "$tmp/w2" "$tmp/cases"
for c in futex-wait-mmap-sem lockdep-futex-wait futex-absorbed-wakeup cmp-requeue-spurious-eagain; do
	cp "$src/repro/cases/$c.case" "$tmp/cases/"
done
opts=(--runs=200 --seeds=2 --oracles=deadlock --explore-schedules=20 --explore-cases="$tmp/cases"
	--markdown --out=md)
cd "$tmp/w1" && run "$snafu" evaluate --jobs=1 "${opts[@]}"
cd "$here"
check "explore, --jobs=1: exit 0 (got $rc)" test "$rc" = 0
[ "$rc" = 0 ] || show_output
grep '^|' "$tmp/out" >"$tmp/md1"
cp "$tmp/err" "$tmp/err1"
cd "$tmp/w2" && run "$snafu" evaluate --jobs=2 "${opts[@]}"
cd "$here"
check "explore, --jobs=2: exit 0 (got $rc)" test "$rc" = 0
grep '^|' "$tmp/out" >"$tmp/md2"
check "explore: the header" test "$(sed -n 1p "$tmp/md1")" = "| kernel | deadlock | explore |"
check "explore: a row per kernel" test "$(wc -l <"$tmp/md1")" = $((${#kernels[@]} + 2))
if [ -s "$tmp/md1" ] && cmp -s "$tmp/md1" "$tmp/md2"; then ok; else
	bad "explore: --jobs=1 and --jobs=2 gave different tables"
	diff "$tmp/md1" "$tmp/md2" | sed 's/^/    /'
fi
ex=$tmp/w1/md/explore.txt
check "explore: --jobs=1 and --jobs=2 wrote the same explore.txt" cmp -s "$ex" "$tmp/w2/md/explore.txt"
check "explore: the command line" \
	grep -q "^Command: \`.*snafu evaluate --runs=200 --jobs=2 --ops=all --oracles=deadlock --seed=1 --seeds=2 --explore-schedules=20 --explore-cases=$tmp/cases --out=md --markdown\`" "$tmp/out"
# cells: the fuzzer's over two seeds; explore's: signatures with their programs, then the
# bound of the programs without a finding, or the bound alone
bound='no finding in [0-9][0-9,]* traces? \((unbounded|to [0-9]+ preemptions?|cut at 20 schedules|unbounded for [0-9]+ of [0-9]+ programs, .*|to [0-9]+ preemptions? for [0-9]+ of [0-9]+ programs, .*)\)'
sigs="$token_re \\([0-9]+ programs?\\)(, $token_re \\([0-9]+\\))*"
sed -n '3,$p' "$tmp/md1" | while IFS='|' read -r _ k fz ex_cell _; do
	k=${k//[ \`]/} fz=${fz# } fz=${fz% } ex_cell=${ex_cell# } ex_cell=${ex_cell% }
	grep -qE '^(none in 2 x 200|.* found by [12] of 2 seeds, (median|after) [0-9,]+)$' <<<"$fz" ||
		echo "FAIL: explore run, $k: fuzzer cell '$fz'"
	grep -qE "^($bound|$sigs(; the other [0-9]+: $bound)?)\$" <<<"$ex_cell" ||
		echo "FAIL: $k: explore cell '$ex_cell'"
	# the cell sums explore.txt's lines of this kernel: each signature with its count of
	# programs, and the traces of the programs without a finding
	grep -F " [$k]: " "$ex" | awk -v k="$k" -v cell="$ex_cell" '
		function commas(n, s, r) { # 41020 -> 41,020
			for (s = n ""; length(s) > 3; s = substr(s, 1, length(s) - 3)) r = "," substr(s, length(s) - 2) r
			return s r
		}
		{ v = $0; sub(/^.*\]: /, "", v); t = v; sub(/,.*$/, "", v); sub(/ with .*$/, "", v)
		  if (v == "ok") { none++; sub(/ traces?,.*$/, "", t); sub(/^.*, /, "", t); traces += t } else sig[v]++ }
		END {
			for (s in sig) if (index(cell, s " (" sig[s]) == 0) print "FAIL: " k ": " s " x" sig[s] " not in the cell: " cell
			if (none && index(cell, "no finding in " commas(traces) " trace") == 0)
				print "FAIL: " k ": " none " programs, " traces " traces: not the cell: " cell
			if (none && length(sig) && index(cell, "; the other " none ": ") == 0)
				print "FAIL: " k ": not \"the other " none "\": " cell
		}'
done >"$tmp/cells"
check "explore: every cell in its form, explore.txt's sums" test ! -s "$tmp/cells"
cat "$tmp/cells"
ex_cell() { grep "^| \`$1\` |" "$tmp/md1" | awk -F'|' '{print $4}'; }
check "explore: no deadlock on rwsem-lockdepth" grep -q '^ no finding in ' <<<"$(ex_cell rwsem-lockdepth)"
# OUT/explore.txt: a line per program and kernel, the saved cases first, a program once
progs=$(sed -n 's/^evaluate: explore: \([0-9]*\) programs (\([0-9]*\) saved, \([0-9]*\) found) x .*/\1/p' "$tmp/err1")
check "explore: three saved programs of four cases" grep -q '^evaluate: explore: [0-9]* programs (3 saved, ' "$tmp/err1"
check "explore.txt: a line per program and kernel ($progs x ${#kernels[@]})" \
	test "$(grep -cv '^#' "$ex")" = $((${progs:-0} * ${#kernels[@]}))
check "explore.txt: the LWN program once, its copy named" \
	grep -qxF "# $tmp/cases/futex-wait-mmap-sem.case: also $tmp/cases/lockdep-futex-wait.case" "$ex"
check "explore.txt: its line on 2.6.11" \
	grep -qE "^$tmp/cases/futex-wait-mmap-sem.case \[2\.6\.11\]: ok, [0-9]+ traces?, (unbounded|to 3 preemptions(, cut)?)\$" "$ex"
# a kernel both seeds found the deadlock on (which one is the fuzzer's trajectory's)
k2=$(grep -F 'found by 2 of 2 seeds' "$tmp/md1" | head -1 | awk -F'|' '{gsub(/[ `]/, "", $2); print $2}')
check "explore: a kernel where both seeds found it" test -n "$k2"
check "explore.txt: the first seed's finding on ${k2:-?} is a program" \
	grep -qF "${k2:-?}/deadlock.case" "$ex"
check "explore.txt: so is the second seed's" grep -qF "${k2:-?}/deadlock.seed-2.case" "$ex"

# every oracle (the default: all five) and the explore column after them
mkdir -p "$tmp/w3" "$tmp/one" && cp "$src/repro/cases/futex-wait-mmap-sem.case" "$tmp/one/"
cd "$tmp/w3" && run "$snafu" evaluate --kernel=2.6.11 --runs=20 --explore-schedules=2 \
	--explore-cases="$tmp/one" --markdown --out=md
cd "$here"
check "explore: a column for each of the five oracles, then explore's" \
	test "$(grep -m1 '^|' "$tmp/out")" = "| kernel | deadlock | lost-wakeup | result | integrity | lockdep | explore |"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
