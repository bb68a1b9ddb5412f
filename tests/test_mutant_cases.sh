#!/usr/bin/env bash
# The kill cases of bench/mutants/: each NAME.case beside NAME.mutant is the minimized
# case the fuzzer saved when it killed that planted bug (bench/mutants/run.sh keeps it),
# its expect lines written by the mutated build. The check that found it must keep
# finding it: on a scratch tree with the mutant applied (gcc, no sanitizer: the build
# takes seconds), `snafu replay --check` passes; on this tree, unmutated, it fails (a
# case the unmutated model also gives kills nothing). Each on the kernels its expect
# lines name: a kernel added since the mutant was killed makes no claim about it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $bin, $src, $tmp
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
apply=$src/bench/mutants/apply.py

# check_named SNAFU CASE: `SNAFU replay --check` on each kernel CASE's expect lines name,
# the output in $tmp/out; 0 when each passes, 1 when one does not, 2 on bad input
check_named() {
	local k rc st=0
	: >"$tmp/out"
	for k in $(awk '$1 == "expect" && $2 != "*" { print $2 }' "$2"); do
		"$1" replay --check --quiet --kernel="$k" "$2" >>"$tmp/out" 2>&1
		rc=$?
		[ $rc = 0 ] || [ $st = 2 ] || st=$rc
	done
	return $st
}

cases=()
for c in "$src"/bench/mutants/*.case; do
	[ -e "$c" ] || continue
	m=${c%.case}.mutant
	[ -f "$m" ] && ok || bad "$(basename "$c"): no $(basename "$m") beside it"
	cases+=("$c")
done
[ ${#cases[@]} -ge 6 ] && ok || bad "only ${#cases[@]} kill cases in bench/mutants/"

# 1. unmutated, each case fails its expect lines
for c in "${cases[@]}"; do
	[ "$(awk '$1 == "expect" && $2 != "*"' "$c" | wc -l)" -gt 0 ] && ok ||
		bad "$(basename "$c"): no expect line names a kernel"
	check_named "$bin/snafu" "$c"
	rc=$?
	[ $rc = 1 ] && ok || { bad "$(basename "$c"): exit $rc on the unmutated tree, expected 1"; tail -3 "$tmp/out"; }
done

# 2. a scratch copy of the sources, built once; each mutant in turn, its files restored
#    before the next
mkdir -p "$tmp/tree"
(cd "$src" && tar -cf - CMakeLists.txt sim ref prog search cli trace fuzz driver tools repro tests bench corpus) | tar -C "$tmp/tree" -xf - ||
	{ bad "cannot copy the sources"; echo "$pass passed, $fail failed"; exit 1; }
cp -a "$tmp/tree" "$tmp/pristine"
if ! { cmake -S "$tmp/tree" -B "$tmp/build" -G Ninja -DCMAKE_C_COMPILER=gcc -DSNAFU_SANITIZE=none &&
	ninja -C "$tmp/build" snafu; } >"$tmp/build.log" 2>&1; then
	bad "the scratch tree does not build"
	tail -20 "$tmp/build.log"
	echo "$pass passed, $fail failed"
	exit 1
fi
for c in "${cases[@]}"; do
	name=$(basename "$c" .case)
	files=$(python3 "$apply" --info "${c%.case}.mutant" | sed -n 's/^file //p')
	if ! python3 "$apply" --root="$tmp/tree" "${c%.case}.mutant" >"$tmp/apply.log" 2>&1; then
		bad "$name: does not apply"
		cat "$tmp/apply.log"
		continue
	fi
	if ninja -C "$tmp/build" snafu >"$tmp/build.log" 2>&1; then
		check_named "$tmp/build/bin/snafu" "$c" && ok ||
			{ bad "$name: its case fails its expect lines on the mutated build"; tail -5 "$tmp/out"; }
	else
		bad "$name: the mutated tree does not build"
		tail -5 "$tmp/build.log"
	fi
	for f in $files; do cp "$tmp/pristine/$f" "$tmp/tree/$f"; done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
