#!/usr/bin/env bash
# The case parser and printer under case_text_fuzzer (fuzz/case_text_fuzzer.c): 100,000
# inputs, -seed=1, from the seed corpus (corpus/case_text_fuzzer, plus repro/cases so a
# new saved case counts at once) with the grammar's dictionary. Any report fails: a broken
# property (print -> parse -> print, the byte form, the error message's form), ASan, UBSan,
# a libFuzzer timeout or leak. Prints the executions per second. Also: the dictionary has
# every op name of prog/ops.c's op_table[] and every kernel name of ref/kernels.c.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $bin, $src, $tmp
dict=$src/fuzz/case_text_fuzzer.dict

[ -x "$bin/case_text_fuzzer" ] && ok || { bad "no case_text_fuzzer beside futex_mm_fuzzer"; exit 1; }

# 1. the dictionary: every op and every kernel, as a quoted word
ops=$(grep -o '\.name = "[a-z_]*", \.weight' "$src/prog/ops.c" | cut -d'"' -f2)
[ "$(wc -w <<<"$ops")" -ge 15 ] && ok || bad "prog/ops.c: op_table[]'s names not found (renamed?)"
kernel_names=$(grep -o '\.name = "[^"]*"' "$src/ref/kernels.c" | cut -d'"' -f2)
for w in $ops $kernel_names task tasks preempt at op point to expect schedule pages= prot= val= \
	timeout= nr= nr_wake= nr_requeue= nmask addr= flags= vec= shared private each-page null \
	unfired '*'; do
	grep -qF "=\"$w\"" "$dict" || bad "$dict: no \"$w\""
done
ok

# 2. 100,000 inputs, deterministic
mkdir -p "$tmp/corpus" "$tmp/art"
start=$(date +%s.%N)
"$bin/case_text_fuzzer" -runs=100000 -seed=1 -dict="$dict" -print_final_stats=1 \
	-artifact_prefix="$tmp/art/" "$tmp/corpus" "$src/corpus/case_text_fuzzer" "$src/repro/cases" \
	>"$tmp/fuzz.log" 2>&1
rc=$?
end=$(date +%s.%N)
if [ $rc = 0 ] && grep -q '^Done 100000 runs' "$tmp/fuzz.log" && [ -z "$(ls -A "$tmp/art")" ] &&
	! grep -qE 'DEDUP_TOKEN|ERROR: |runtime error|SUMMARY: |^case_text_fuzzer: ' "$tmp/fuzz.log"; then
	ok
else
	bad "case_text_fuzzer: exit $rc after $(grep -o '^#[0-9]*' "$tmp/fuzz.log" | tail -1)"
	grep -v '^  0x\|^#[0-9]' "$tmp/fuzz.log" | grep -B2 -A40 -m1 'case_text_fuzzer: \|ERROR\|runtime error' | head -60
	for f in "$tmp"/art/*; do
		[ -f "$f" ] || continue
		mkdir -p /tmp/case-fuzz-findings && cp "$f" /tmp/case-fuzz-findings/ &&
			echo "input kept: /tmp/case-fuzz-findings/${f##*/}"
	done
fi
execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$tmp/fuzz.log" | awk '{print $2}')
echo "case_text_fuzzer: ${execs:-0} executions in $(awk -v s="$start" -v e="$end" 'BEGIN {printf "%.1f", e - s}')s," \
	"$(awk -v s="$start" -v e="$end" -v n="${execs:-0}" 'BEGIN {printf "%d", n / (e - s > 0 ? e - s : 1)}')/s" \
	"(libFuzzer: $(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$tmp/fuzz.log" | awk '{print $2}')/s)"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
