#!/usr/bin/env bash
# The seed corpora, the dictionaries and docs/cases.md's op table are what the saved cases
# and the op table make (fuzz/make-corpus.sh --check), every seed decodes to the program
# its case says, and an input of another byte form is refused, never run as some program.
#
#   bash tests/test_corpus.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $bin, $src, $snafu, $tmp

out=$("$src/fuzz/make-corpus.sh" --check "$bin" 2>&1)
check "make-corpus.sh --check: $out" test -z "$out"

# each seed: the case's program without its schedule (the byte form holds no expect
# lines and no comments; show prints both forms the same way)
for f in "$src"/corpus/futex_mm_fuzzer/*; do
	c=$src/repro/cases/${f##*/}.case
	"$snafu" show --input=bytes "$f" >"$tmp/seed" 2>&1 || bad "${f##*/}: does not decode: $(cat "$tmp/seed")"
	[ -f "$c" ] || continue
	"$snafu" show --no-schedule "$c" | grep -v '^expect ' >"$tmp/case"
	check "${f##*/} decodes to repro/cases/${f##*/}.case: $(diff "$tmp/case" "$tmp/seed" | head -5)" \
		cmp -s "$tmp/case" "$tmp/seed"
done

# the same seed without its header, as the byte form was before it had one: refused with
# one line naming the file, the position and the header expected; exit 2
tail -c +4 "$src/corpus/futex_mm_fuzzer/futex-wait-mmap-sem" >"$tmp/old"
"$snafu" replay --input=bytes "$tmp/old" >"$tmp/out" 2>&1
rc=$?
check "a seed without the header: exit 2, not $rc" test $rc = 2
check "one line: $(cat "$tmp/out")" test "$(wc -l <"$tmp/out")" = 1
check "names the file and byte 0: $(cat "$tmp/out")" \
	grep -q "^$tmp/old: byte 0: expected the header of snafu's byte form [0-9a-f]\{4\} (f5 " "$tmp/out"
# the fuzzer skips it (not run, not kept) and says so once
if [ -x "$bin/futex_mm_fuzzer" ]; then
	mkdir "$tmp/c"
	cp "$tmp/old" "$tmp/c/old1" && cp "$tmp/old" "$tmp/c/old2"
	"$bin/futex_mm_fuzzer" -runs=0 -artifact_prefix="$tmp/" "$tmp/c" >"$tmp/fz" 2>&1
	check "the fuzzer runs on an old corpus: $(tail -3 "$tmp/fz")" test $? = 0
	check "and says once that it skips it: $(grep -c 'skipping inputs' "$tmp/fz")" \
		test "$(grep -c '^futex_mm_fuzzer: skipping inputs not in this byte form: byte 0: expected' "$tmp/fz")" = 1
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
