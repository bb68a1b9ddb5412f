#!/usr/bin/env bash
# Judge the oracles by planted bugs: for each mutant of ref/ (bench/mutants/*.mutant),
# in a scratch copy of the tree, build the clang ASan+UBSan flavour, run the fast tier
# of the tests (the C unit tests and the saved cases: ctest -L 'unit|case') and fuzz one
# kernel (default 2.6.11) from the seed corpus for a fixed number of executions, going on
# past the kernel's known findings (ci/known-findings.txt) until the first new one; then
# one table: which mutants the tests kill, which the fuzzer kills, which survive. The
# unmutated tree is the first row (baseline): it must be clean. bench/mutants/README.md
# has the format of a mutant and the figures.
#
#   bench/mutants/run.sh [--runs=N] [--jobs=J] [--only=NAME,...] [--seed=S]
#                        [--kernel=NAME] [--markdown] [--work=DIR] [--no-baseline]
#                        [--report]
#
#   --runs=N        fuzzer executions per mutant (default 1000000; 0: no fuzzing)
#   --jobs=J        mutants at once, each in its own scratch tree (default 1)
#   --only=A,B      these mutants only (names without .mutant)
#   --seed=S        libFuzzer seed of the first fuzzer run (default 1; the k-th restart
#                   after a known finding uses S+k)
#   --kernel=NAME   the kernel the fuzzer runs (default 2.6.11)
#   --markdown      print the table as GitHub markdown
#   --work=DIR      scratch trees, logs and results in DIR, kept (default: a temporary
#                   directory, removed at the end)
#   --no-baseline   skip the unmutated row
#   --report        run nothing: print the table of the run kept in --work=DIR again
#                   (with --markdown, --only, --no-baseline as wanted)
#
# The fuzzer: `snafu fuzz` without --fork (one process, the same run for the same seed),
# --fresh the first time, so the seeds of corpus/futex_mm_fuzzer and an empty corpus.
# libFuzzer stops at its first finding; when the driver sorts it as known for the
# kernel, the script runs it again on the corpus it has grown (seed S+1, S+2, ...) with
# what is left of the budget, at most 200 times. The executions of the first new
# finding are the sum over those runs (each counts the corpus it loads again).
# Exit status: 0 done (whatever the table says), 2 bad usage, a mutant that does not
# apply, or a scratch tree that does not build unmutated.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
me=bench/mutants/run.sh
usage() {
	echo "$me: $1; usage: $me [--runs=N] [--jobs=J] [--only=NAME,...] [--seed=S] [--kernel=NAME] [--markdown] [--work=DIR] [--no-baseline] [--report]" >&2
	exit 2
}
runs=1000000 jobs=1 only= seed=1 kernel=2.6.11 markdown=0 work= baseline=1 report=0
for a in "$@"; do
	case "$a" in
	--runs=*) runs=${a#*=} ;;
	--jobs=*) jobs=${a#*=} ;;
	--only=*) only=${a#*=} ;;
	--seed=*) seed=${a#*=} ;;
	--kernel=*) kernel=${a#*=} ;;
	--markdown) markdown=1 ;;
	--work=*) work=${a#*=} ;;
	--no-baseline) baseline=0 ;;
	--report) report=1 ;;
	-h | --help)
		sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) usage "unexpected argument '$a'" ;;
	esac
done
[[ $runs =~ ^[0-9]+$ ]] || usage "--runs=$runs: expected a whole number"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage "--jobs=$jobs: expected a whole number from 1"
[[ $seed =~ ^[1-9][0-9]*$ ]] || usage "--seed=$seed: expected a whole number from 1"
[[ $kernel =~ ^[A-Za-z0-9._-]+$ ]] && grep -qF ".name = \"$kernel\"" "$root/ref/kernels.c" ||
	usage "--kernel=$kernel: expected a kernel of ref/kernels.c (snafu kernels)"
[ -z "$work" ] || [ ! -e "$work" ] || [ -d "$work" ] || usage "--work=$work: not a directory"
[ $report = 0 ] || [ -f "$work/results/meta" ] || usage "--report: no earlier run kept in --work=DIR"
for tool in git tar cmake ninja clang ctest python3; do
	command -v "$tool" >/dev/null || usage "no $tool on PATH (./build.sh installs what is missing)"
done

# the mutants, in name order; --only picks some
names=()
for f in "$here"/*.mutant; do
	[ -e "$f" ] && names+=("$(basename "$f" .mutant)")
done
if [ -n "$only" ]; then
	picked=()
	IFS=, read -ra want <<<"$only"
	for w in "${want[@]}"; do
		w=${w%.mutant}
		[ -f "$here/$w.mutant" ] || usage "--only: no mutant '$w' in bench/mutants/"
		picked+=("$w")
	done
	names=("${picked[@]}")
fi
[ ${#names[@]} -gt 0 ] || [ $baseline = 1 ] || usage "nothing to run"
# every mutant must apply to this tree before anything is built
if [ $report = 0 ] && [ ${#names[@]} -gt 0 ]; then
	paths=()
	for n in "${names[@]}"; do
		paths+=("$here/$n.mutant")
	done
	python3 "$here/apply.py" --root="$root" --check "${paths[@]}" || exit 2
fi
items=()
[ $baseline = 1 ] && items+=(baseline)
items+=("${names[@]}")

if [ -n "$work" ]; then
	mkdir -p "$work" && work=$(cd "$work" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/snafu-mutants.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
log() { printf '%s: %s\n' "mutants" "$*" >&2; }

if [ $report = 0 ]; then
rm -rf "$work/results" "$work/logs" "$work/pristine"
mkdir -p "$work/results" "$work/logs" "$work/pristine"

# the tree as it is on disk (tracked and untracked files, not the ignored build dirs)
(cd "$root" && git ls-files -co --exclude-standard -z |
	tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$work/pristine" -xf - ||
	usage "cannot copy the tree at $root"
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
printf 'commit=%s\nkernel=%s\nruns=%s\nseed=%s\n' "$commit" "$kernel" "$runs" "$seed" >"$work/results/meta"

# the mutants and the applier as they were at the start (edits meanwhile change nothing)
mdir=$work/pristine/bench/mutants
[ -f "$mdir/apply.py" ] || { mdir=$work/mutants && mkdir -p "$mdir" && cp "$here"/apply.py "$here"/*.mutant "$mdir/"; }

# what each scratch tree builds: snafu, the fuzzer, the C unit tests
targets=(snafu futex_mm_fuzzer)
for t in "$work"/pristine/tests/test_*.c; do
	targets+=("$(basename "$t" .c)")
done

# prepare JOB: a scratch tree, configured as build.sh configures build/, built unmutated
prepare() {
	local dir=$work/job-$1
	if [ ! -f "$dir/tree/build/build.ninja" ]; then
		rm -rf "$dir" && mkdir -p "$dir/tree"
		cp -a "$work/pristine/." "$dir/tree/"
		cmake -S "$dir/tree" -B "$dir/tree/build" -G Ninja -DCMAKE_C_COMPILER=clang \
			-DSNAFU_SANITIZE="address,undefined" >"$work/logs/job-$1.configure.log" 2>&1 ||
			return 1
	else # a kept --work: back to the pristine sources (plain cp: ninja sees them change)
		rsync_like "$work/pristine" "$dir/tree"
	fi
	ninja -C "$dir/tree/build" -j2 "${targets[@]}" >"$work/logs/job-$1.build.log" 2>&1
}

# copy every source file that differs from the pristine copy back (cp, not cp -p: a new
# mtime, so ninja rebuilds it)
rsync_like() {
	local from=$1 to=$2 f
	while IFS= read -r -d '' f; do
		cmp -s "$from/$f" "$to/$f" || cp "$from/$f" "$to/$f"
	done < <(cd "$from" && find . -type f -print0)
}

# the fast tier of the tests in TREE: the failing tests' names, one a line, in OUT
run_tests() {
	local tree=$1 out=$2 logf=$3
	(cd "$tree/build" && ctest -L '^(unit|case)$' --timeout 300 --output-on-failure) >"$logf" 2>&1
	local rc=$?
	sed -n '/The following tests FAILED:/,$p' "$logf" |
		sed -n 's/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) .*/\1/p' >"$out"
	if [ $rc != 0 ] && [ ! -s "$out" ]; then
		echo "ctest-error" >"$out"
	fi
	grep -q "tests passed\|tests failed" "$logf" || echo "ctest-error" >>"$out"
}

# fuzz in TREE until the first new finding or the budget: "sig execs restarts known..."
run_fuzz() {
	local tree=$1 name=$2 left=$runs total=0 k=0 fresh=--fresh sig= known=() line n s rc
	local fz=$work/job-$3/fz found=$work/job-$3/found
	while [ "$left" -gt 0 ] && [ $k -lt 200 ]; do
		rm -rf "$found"
		(cd "$tree" && timeout --foreground -k 30 $((600 + left / 100)) build/bin/snafu fuzz --kernel="$kernel" \
			--runs="$left" --seed=$((seed + k)) --jobs=1 $fresh --known=ci/known-findings.txt \
			--out="$fz" --found="$found" -timeout=60) >"$work/logs/$name.fuzz.$k.log" 2>&1
		rc=$?
		fresh=
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "snafu-fuzz-timed-out ? $k ${known[*]:-}"
			return
		fi
		line=$(grep -E "^fuzz: $kernel: (finding after |no finding in )?[0-9]+ executions" \
			"$work/logs/$name.fuzz.$k.log" | tail -1)
		if [ -z "$line" ]; then
			echo "snafu-fuzz-failed(exit-$rc) ? $k ${known[*]:-}"
			return
		fi
		n=$(sed -E 's/^fuzz: [^:]*: (finding after |no finding in )?([0-9]+) executions.*/\2/' <<<"$line")
		case "$line" in
		*"no finding in"*)
			echo "- $((total + n)) $k ${known[*]:-}"
			return
			;;
		*": finding after "*) ;; # stopped at its first finding: below
		*) # went on past known findings (--known): "SIG after N [known] [-> CASE], ..."
			local first='' at='' esig eafter ekn
			while read -r esig _ eafter ekn; do # SIG after N [known]
				if [ "$ekn" = known ]; then
					known+=("$esig")
				elif [ -z "$at" ] || [ "$eafter" -lt "$at" ]; then
					first=$esig at=$eafter
				fi
			done < <(grep -oE '[a-z0-9_]+(-[a-z0-9_]+)*(--[a-z0-9_]+(-[a-z0-9_]+)*)+ after [0-9]+( known)?' <<<"${line#*s: }")
			if [ -z "$first" ]; then
				echo "- $((total + n)) $k ${known[*]:-}"
				return
			fi
			mkdir -p "$work/cases"
			cp "$found/$kernel/$first.case" "$work/cases/$name.case" 2>/dev/null
			echo "$first $((total + at)) $k ${known[*]:-}"
			return
			;;
		esac
		total=$((total + n))
		s=$(sed -E 's/^[^:]*: [^:]*: finding after [0-9]+ executions, [0-9.]+ s: //' <<<"$line")
		sig=${s%% *}
		if [[ $s == "$sig known"* ]]; then
			known+=("$sig")
			left=$((left - n))
			[ "$n" -gt 0 ] || left=0 # never loop on a run that did nothing
			k=$((k + 1))
			continue
		fi
		# the minimized case that kills it, for bench/mutants/NAME.case
		mkdir -p "$work/cases"
		cp "$found/$kernel/$sig.case" "$work/cases/$name.case" 2>/dev/null
		echo "$sig $total $k ${known[*]:-}"
		return
	done
	echo "- $total $k ${known[*]:-}"
}

# one job: its scratch tree, then its mutants one after the other
run_job() {
	local j=$1 dir=$work/job-$1 prev= name m class t0 tests fz what
	shift
	if ! prepare "$j"; then
		echo "job $j: the unmutated scratch tree does not build: see $work/logs/job-$j.build.log" >"$work/results/job-$j.error"
		return
	fi
	for name in "$@"; do
		t0=$(date +%s)
		# back to the pristine sources of the files the previous mutant touched
		if [ -n "$prev" ]; then
			python3 "$mdir/apply.py" --info "$mdir/$prev.mutant" | sed -n 's/^file //p' |
				while IFS= read -r f; do cp "$work/pristine/$f" "$dir/tree/$f"; done
		fi
		prev=
		class=-
		if [ "$name" != baseline ]; then
			m=$mdir/$name.mutant
			class=$(python3 "$mdir/apply.py" --info "$m" | sed -n 's/^class //p')
			python3 "$mdir/apply.py" --root="$dir/tree" "$m" 2>"$work/logs/$name.apply.log" || {
				printf 'class=%s\nstatus=not-applied\n' "$class" >"$work/results/$name"
				continue
			}
			prev=$name
		fi
		if ! ninja -C "$dir/tree/build" -j2 "${targets[@]}" >"$work/logs/$name.build.log" 2>&1; then
			printf 'class=%s\nstatus=build-failed\n' "$class" >"$work/results/$name"
			log "$name: does not build (see $work/logs/$name.build.log)"
			continue
		fi
		run_tests "$dir/tree" "$work/results/$name.tests" "$work/logs/$name.tests.log"
		fz="- 0 0"
		[ "$runs" = 0 ] || fz=$(run_fuzz "$dir/tree" "$name" "$j")
		{
			printf 'class=%s\nstatus=ok\n' "$class"
			printf 'fuzz=%s\n' "$fz"
			printf 'secs=%s\n' $(($(date +%s) - t0))
		} >"$work/results/$name"
		tests=$(wc -l <"$work/results/$name.tests")
		[ "$class" = - ] && what=$name || what="$name ($class)"
		log "$what: $tests tests fail; fuzzer: $(cut -d' ' -f1-2 <<<"$fz"); $(($(date +%s) - t0)) s"
	done
}

[ "$jobs" -le ${#items[@]} ] || jobs=${#items[@]}
log "${#names[@]} mutants$([ $baseline = 1 ] && echo ' and the baseline'), tree $commit, kernel $kernel, $runs executions each, seed $seed, $jobs at a time; work in $work"
# each job in a process group of its own (set -m), so that an interrupt stops what it runs
pids=()
trap 'for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null; done; echo "mutants: interrupted" >&2; exit 130' INT TERM
set -m
for ((j = 1; j <= jobs; j++)); do
	mine=()
	for ((i = j - 1; i < ${#items[@]}; i += jobs)); do
		mine+=("${items[i]}")
	done
	run_job "$j" "${mine[@]}" &
	pids+=($!)
done
set +m
wait "${pids[@]}"
trap - INT TERM
for e in "$work"/results/job-*.error; do
	[ -e "$e" ] && { cat "$e" >&2; exit 2; }
done
fi # not --report

meta() { sed -n "s/^$1=//p" "$work/results/meta"; }
commit=$(meta commit) kernel=$(meta kernel) runs=$(meta runs) seed=$(meta seed)

# ---- the table ----
shorten() { # the failing tests, shortened: "N: a, b, c +M"
	local f=$1 n
	n=$(wc -l <"$f")
	[ "$n" = 0 ] && { echo "-"; return; }
	printf '%s: %s' "$n" "$(sed -e 's/^test_//' -e 's/^case_\(.*\)/\1.case/' "$f" | head -3 | paste -sd, | sed 's/,/, /g')"
	[ "$n" -gt 3 ] && printf ' +%s' $((n - 3))
	echo
}
rows=$work/rows.tsv
: >"$rows"
real=0 real_fuzz=0 real_tests=0 real_any=0 equiv=0 equiv_flag=0 survivors=() baseline_ok=
for name in "${items[@]}"; do
	r=$work/results/$name
	[ -f "$r" ] || { printf '%s\t?\tnot run\t\t\t\n' "$name" >>"$rows"; continue; }
	class=$(sed -n 's/^class=//p' "$r")
	status=$(sed -n 's/^status=//p' "$r")
	if [ "$status" != ok ]; then
		printf '%s\t%s\t%s\t\t\tnot judged\n' "$name" "$class" "$status" >>"$rows"
		continue
	fi
	read -r sig execs restarts knownsigs <<<"$(sed -n 's/^fuzz=//p' "$r")"
	tests=$(shorten "$r.tests")
	by_t=0 by_f=0
	[ -s "$r.tests" ] && by_t=1
	[ "$sig" != - ] && by_f=1
	case $by_t$by_f in
	11) verdict="both" ;;
	10) verdict="tests" ;;
	01) verdict="fuzzer" ;;
	*) verdict="survived" ;;
	esac
	if [ "$runs" = 0 ]; then
		finding="(not fuzzed)" ex=-
	elif [ "$sig" = - ]; then
		finding="none" ex="none in $execs"
	else
		finding=$sig ex=$execs
	fi
	if [ "$restarts" != 0 ]; then # "(3 known passed: 2 wrong-result, 1 lost-wakeup)"
		ex="$ex ($restarts known passed: $(tr ' ' '\n' <<<"$knownsigs" | sed 's/--.*//' | sort | uniq -c |
			awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}'))"
	fi
	if [ "$name" = baseline ]; then
		class=-
		[ $by_t$by_f = 00 ] && baseline_ok=clean || baseline_ok="NOT clean ($verdict)"
		verdict=$([ $by_t$by_f = 00 ] && echo clean || echo "NOT clean")
	elif [ "$class" = real ]; then
		real=$((real + 1))
		[ $by_f = 1 ] && real_fuzz=$((real_fuzz + 1))
		[ $by_t = 1 ] && real_tests=$((real_tests + 1))
		[ $by_t$by_f != 00 ] && real_any=$((real_any + 1)) || survivors+=("$name")
	else
		equiv=$((equiv + 1))
		[ $by_t$by_f != 00 ] && equiv_flag=$((equiv_flag + 1))
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$class" "$tests" "$finding" "$ex" "$verdict" >>"$rows"
done

head=$'mutant\tclass\ttests that fail\tfuzzer\'s first new finding\texecutions\tkilled by'
if [ $markdown = 1 ]; then
	{ echo "$head"; cat "$rows"; } | awk -F'\t' '{
		line = "|"; for (i = 1; i <= NF; i++) line = line " " ($i == "" ? "" : $i) " |"; print line
		if (NR == 1) { line = "|"; for (i = 1; i <= NF; i++) line = line "---|"; print line } }'
else
	{ echo "$head"; cat "$rows"; } | column -t -s $'\t'
fi
echo
echo "tree $commit, kernel $kernel, $runs executions a mutant (seed $seed), tests: ctest -L 'unit|case'"
[ -n "$baseline_ok" ] && echo "baseline (no mutant): $baseline_ok"
pct() { [ "$2" -gt 0 ] && echo "$((100 * $1 / $2))%" || echo "-"; }
if [ $real -gt 0 ]; then
	[ "$runs" = 0 ] || echo "fuzzer alone kills $real_fuzz of $real real mutants ($(pct $real_fuzz $real))"
	echo "tests alone kill $real_tests of $real ($(pct $real_tests $real)); tests or fuzzer: $real_any of $real ($(pct $real_any $real))"
	echo "survivors: ${survivors[*]:-none}"
fi
[ $equiv -gt 0 ] && echo "equivalent mutants flagged (tests or fuzzer): $equiv_flag of $equiv"
exit 0
