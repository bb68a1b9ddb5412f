#!/usr/bin/env bash
# Writes again what the fuzzers start from, from the saved cases and the op table, with
# the snafu in BIN_DIR (./build.sh corpus builds it first). Run it after any change to
# the byte form (prog/codec.c: a new op, a new weight), which old seeds do not survive.
#
#   fuzz/make-corpus.sh [--check] [BIN_DIR]      (BIN_DIR: build/bin)
#
#   corpus/futex_mm_fuzzer/NAME     the byte form of repro/cases/NAME.case without its
#                                   schedule (the fuzzer must find the interleaving),
#                                   but for the cases of not_seeds below
#   corpus/case_text_fuzzer/NAME.case   a copy of repro/cases/NAME.case
#   fuzz/futex_mm_fuzzer.dict       snafu ops --dict=bytes
#   fuzz/case_text_fuzzer.dict      its lines that are not the op table's or a kernel's, then
#                                   snafu ops --dict=text
#   docs/cases.md                   the op table between its "snafu ops" markers
#
# Seeds with no case (merged by ci/fuzz.sh --merge) stay while they are in this byte
# form; those that are not are removed, each named (they cannot be read any more).
# --check writes nothing: it says which file differs and exits 1 (tests/test_corpus.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=0
[ "${1:-}" = --check ] && check=1 && shift
snafu=${1:-$root/build/bin}/snafu
[ -x "$snafu" ] || { echo "make-corpus.sh: $snafu: not an executable (./build.sh builds it)" >&2; exit 2; }
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
mkdir -p "$new/corpus/futex_mm_fuzzer" "$new/corpus/case_text_fuzzer" "$new/fuzz" "$new/docs"
cp "$root"/corpus/case_text_fuzzer/* "$new/corpus/case_text_fuzzer/"

# Not seeds: seed-testcase is Olof's testcase as he ran it, 1,028 op runs (1,024 waits,
# each faulting in a page), some 36,000 scheduling points a run where every other case
# runs under 100. Every mutant of it costs as much: from the seed corpus, 300,000
# executions took 9.5 s of CPU with it and 5.2 s without (docs/fuzzing.md, "Executions
# per second"). Its shape, a fault in futex_wait while another task maps,
# is futex-wait-mmap-sem's, in 3 ops.
not_seeds=" seed-testcase "
for c in "$root"/repro/cases/*.case; do
	name=$(basename "$c" .case)
	cp "$c" "$new/corpus/case_text_fuzzer/$name.case"
	[[ $not_seeds == *" $name "* ]] && continue
	"$snafu" show --no-schedule --bytes -o "$new/corpus/futex_mm_fuzzer/$name" "$c"
done
for f in "$root"/corpus/futex_mm_fuzzer/*; do
	[ -f "$root/repro/cases/${f##*/}.case" ] && continue
	if "$snafu" show --input=bytes "$f" >/dev/null 2>"$new/err"; then
		cp "$f" "$new/corpus/futex_mm_fuzzer/"
	else
		echo "make-corpus.sh: removing ${f#"$root"/}: $(cat "$new/err")" >&2
	fi
done
"$snafu" ops --dict=bytes >"$new/fuzz/futex_mm_fuzzer.dict"
{
	grep -v '^\(op\|key\|flag\|kernel\)_' "$root/fuzz/case_text_fuzzer.dict"
	"$snafu" ops --dict=text
} >"$new/fuzz/case_text_fuzzer.dict"
# the rows between <!-- snafu ops --markdown --> and <!-- end of snafu ops -->
"$snafu" ops --markdown >"$new/rows"
awk -v rows="$new/rows" '
	state == 2 && $0 == "<!-- end of snafu ops -->" { while ((getline l < rows) > 0) print l; state = 3 }
	state == 2 { next }
	{ print }
	state == 1 && /^\| op \|/ { getline; print; state = 2 }
	state == 0 && $0 == "<!-- snafu ops --markdown -->" { state = 1 }' "$root/docs/cases.md" >"$new/docs/cases.md"
grep -q '^<!-- end of snafu ops -->$' "$new/docs/cases.md" ||
	{ echo "make-corpus.sh: docs/cases.md: expected the <!-- snafu ops --markdown --> markers" >&2; exit 2; }

status=0
for d in corpus/futex_mm_fuzzer corpus/case_text_fuzzer fuzz/futex_mm_fuzzer.dict \
	fuzz/case_text_fuzzer.dict docs/cases.md; do
	if [ $check = 1 ]; then
		diff -r "$root/$d" "$new/$d" >/dev/null ||
			{ echo "make-corpus.sh: $d is not what the cases and the op table make (./build.sh corpus writes it)"; status=1; }
	elif [ -d "$new/$d" ]; then
		rm -rf "${root:?}/$d" && cp -r "$new/$d" "$root/$d"
	else
		cp "$new/$d" "$root/$d"
	fi
done
[ $check = 1 ] || echo "make-corpus.sh: wrote corpus/, the two dictionaries and the op table of docs/cases.md (byte form $("$snafu" show --bytes -o - "$root/repro/cases/seed-testcase.case" | od -An -tx1 -j1 -N2 | awk '{print $2 $1}'))"
exit $status
