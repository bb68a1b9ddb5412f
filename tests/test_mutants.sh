#!/usr/bin/env bash
# The planted bugs of bench/mutants/, without building anything: every .mutant applies to
# this tree (each text to find occurs exactly once), has a class and cites the kernel
# source it breaks; the applier refuses a mutant whose text is missing or not unique with
# one line naming the mutant file and the block, exit 2, and writes nothing; it applies
# a good one; run.sh refuses bad usage with one line, exit 2.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $tmp
apply=$src/bench/mutants/apply.py
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

# 1. every mutant applies once to this tree, with a class and a kernel citation
python3 "$apply" --root="$src" --check "$src"/bench/mutants/*.mutant 2>"$tmp/err" && ok ||
	{ bad "mutants that do not apply to this tree:"; cat "$tmp/err"; }
n=0
for m in "$src"/bench/mutants/*.mutant; do
	n=$((n + 1))
	grep -qE '^# class: (real|equivalent)$' "$m" && ok || bad "$(basename "$m"): no '# class:' line"
	grep -qE '^# kernel: .*(kernel|mm|arch)/[a-z0-9_/]+\.c' "$m" && ok ||
		bad "$(basename "$m"): no '# kernel:' line citing the kernel source"
done
[ $n -ge 12 ] && ok || bad "only $n mutants in bench/mutants/"
[ "$(grep -l '^# class: real$' "$src"/bench/mutants/*.mutant | wc -l)" -ge 12 ] && ok ||
	bad "fewer than 12 real mutants"

# a scratch tree with ref/futex.c, for the applier to write to
mkdir -p "$tmp/tree/ref"
cp "$src/ref/futex.c" "$tmp/tree/ref/futex.c"
cp "$tmp/tree/ref/futex.c" "$tmp/futex.orig"

# expect_refusal NAME PATTERN: apply.py refuses $tmp/NAME.mutant: exit 2, one line on
# stderr that names the file and matches PATTERN, nothing on stdout, the tree unchanged
expect_refusal() {
	python3 "$apply" --root="$tmp/tree" "$tmp/$1.mutant" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] && ok || bad "$1: exit $rc, expected 2"
	[ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && ok ||
		{ bad "$1: expected one line on stderr"; cat "$tmp/err" "$tmp/out"; }
	grep -qE "^apply\.py: $tmp/$1\.mutant.*$2" "$tmp/err" && ok ||
		bad "$1: the line does not say '$2': $(cat "$tmp/err")"
	cmp -s "$tmp/tree/ref/futex.c" "$tmp/futex.orig" && ok || bad "$1: the tree was written"
}

# 2. a text to find that is not there
cat >"$tmp/missing.mutant" <<'EOF'
# class: real
# kernel: kernel/futex.c, nowhere
file: ref/futex.c
--- find
this line is in no kernel
--- replace
nor is this one
--- end
EOF
expect_refusal missing "block 1 \(line 4\): the text to find .* occurs 0 times in ref/futex.c, expected exactly once"

# 3. a text to find that is there twice (the kernel's comment before both of
#    futex_wait()'s unqueue_me() calls), the second block of a mutant whose first applies
line=$'\t/* If we were woken (and unqueued), we succeeded, whatever. */'
printf '# class: real\n# kernel: kernel/futex.c\nfile: ref/futex.c\n--- find\n\tq->lock_ptr = NULL;\n--- replace\n\tq->lock_ptr = 0;\n--- end\n--- find\n%s\n--- replace\n--- end\n' \
	"$line" >"$tmp/twice.mutant"
[ "$(grep -cxF "$line" "$tmp/futex.orig")" = 2 ] && ok ||
	bad "the duplicated text of this test is no longer in ref/futex.c twice"
expect_refusal twice "block 2 \(line 9\): the text to find .* occurs [2-9] times in ref/futex.c"

# 4. malformed mutants: no class, no end, a file outside the tree
printf 'file: ref/futex.c\n--- find\n\tq->lock_ptr = NULL;\n--- replace\n--- end\n' >"$tmp/noclass.mutant"
expect_refusal noclass "no '# class: real' or '# class: equivalent' line"
printf '# class: real\nfile: ref/futex.c\n--- find\n\tq->lock_ptr = NULL;\n--- replace\n' >"$tmp/noend.mutant"
expect_refusal noend "block 1: no '--- end' line"
printf '# class: real\nfile: ../etc/passwd\n--- find\nx\n--- replace\n--- end\n' >"$tmp/outside.mutant"
expect_refusal outside "file '../etc/passwd': expected a path inside the tree"
printf '# class: maybe\n' >"$tmp/badclass.mutant"
expect_refusal badclass "class 'maybe': expected one of real, equivalent"

# alternatives ('--- or find'): exactly one of the texts must occur, once
alt() { # alt NAME TEXT1 TEXT2: a mutant whose one block has the two texts to find
	printf '# class: real\n# kernel: kernel/futex.c\nfile: ref/futex.c\n--- find\n%s\n--- replace\n\t/* one */\n--- or find\n%s\n--- replace\n\t/* two */\n--- end\n' \
		"$2" "$3" >"$tmp/$1.mutant"
}
alt neither $'\tno such line;' $'\tnor this one;'
expect_refusal neither "block 1 \(line 4\): of its 2 texts to find \(1: 0 times, 2: 0 times\) in ref/futex.c, exactly one must occur, exactly once"
alt both $'\tq->lock_ptr = NULL;' $'\tfo_woken(q);'
expect_refusal both "block 1 \(line 4\): of its 2 texts to find \(1: 1 times, 2: 1 times\)"
alt one $'\tno such line;' $'\tq->lock_ptr = NULL;'
python3 "$apply" --root="$tmp/tree" --dry-run "$tmp/one.mutant" && ok || bad "an alternative that occurs once is refused"

# --check: each mutant alone, a line for every one refused, exit 2
python3 "$apply" --root="$tmp/tree" --check "$tmp/missing.mutant" \
	"$src/bench/mutants/futex-requeue-nr-wake-off-by-one.mutant" "$tmp/twice.mutant" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 2 ] && grep -q "missing.mutant: block 1" "$tmp/err" &&
	grep -q "twice.mutant: block 2" "$tmp/err" && ok ||
	{ bad "--check of two bad mutants and a good one: exit $rc"; cat "$tmp/err"; }
cmp -s "$tmp/tree/ref/futex.c" "$tmp/futex.orig" && ok || bad "--check wrote the tree"

# 5. a good mutant applies: the text replaced, once, nothing else changed
cp "$src/bench/mutants/futex-requeue-nr-wake-off-by-one.mutant" "$tmp/good.mutant"
python3 "$apply" --root="$tmp/tree" "$tmp/good.mutant" && ok || bad "a good mutant does not apply"
changed=$(diff "$tmp/futex.orig" "$tmp/tree/ref/futex.c" | grep -c '^[<>]')
[ "$changed" = 2 ] && ok || bad "applying changed $changed lines, expected the one (2 in diff)"
grep -qF 'if (++ret < nr_wake) {' "$tmp/tree/ref/futex.c" && ok || bad "the replacement is not there"
python3 "$apply" --root="$tmp/tree" --dry-run "$tmp/good.mutant" 2>"$tmp/err"
[ $? = 2 ] && grep -q "occurs 0 times" "$tmp/err" && ok || bad "a mutant applied twice is not refused"
python3 "$apply" --info "$tmp/good.mutant" >"$tmp/info"
[ "$(cat "$tmp/info")" = "$(printf 'class real\nfile ref/futex.c')" ] && ok || bad "--info: $(cat "$tmp/info")"
python3 "$apply" --bogus "$tmp/good.mutant" 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok || bad "apply.py --bogus: not one line, exit 2"

# 6. run.sh: bad usage is one line and exit 2, before anything is built
run=$src/bench/mutants/run.sh
for args in "--runs=abc" "--jobs=0" "--kernel=no-such-kernel" "--only=no-such-mutant" "--seed=x" "extra" "--work=$tmp/futex.orig"; do
	bash "$run" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && ok ||
		{ bad "run.sh $args: exit $rc, expected 2 and one line"; cat "$tmp/err"; }
done
bash "$run" --help | grep -q -- '--runs=N' && ok || bad "run.sh --help"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
