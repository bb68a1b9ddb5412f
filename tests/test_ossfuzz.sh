#!/usr/bin/env bash
# The OSS-Fuzz / ClusterFuzzLite build contract: ./build.sh with OSS-Fuzz's variables
# (libFuzzer, ASan, into a temporary $OUT) makes one target per fixed kernel, each with its
# seed corpus zip, dictionary and options; every target runs its seed corpus and 3,000
# executions with no finding (they are the fixed kernels); so does the case parser's
# target, case_text_fuzzer; MSan is refused with a reason. The build goes through CMake
# (-DSNAFU_OSS_FUZZ=ON); the kernels are the ones `snafu kernels` lists.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $bin, $src, $tmp
command -v clang >/dev/null && command -v clang++ >/dev/null ||
	{ echo "skipped: no clang/clang++"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3 (to unzip the seed corpora)"; exit 77; }
command -v cmake >/dev/null || { echo "skipped: no cmake"; exit 77; }

mkdir -p "$tmp/out" "$tmp/work"
flags="-fsanitize=address,fuzzer-no-link -g"
# env -i: nothing of this machine's environment, as in OSS-Fuzz's builder
env -i PATH="$PATH" HOME="$tmp" CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" \
	LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address FUZZING_ENGINE=libfuzzer \
	ARCHITECTURE=x86_64 OUT="$tmp/out" SRC="$src/.." WORK="$tmp/work" \
	"$src/build.sh" >"$tmp/build.log" 2>&1
rc=$?
[ $rc = 0 ] && ok || { bad "./build.sh with OSS-Fuzz's variables: exit $rc"; tail -20 "$tmp/build.log"; }

# the fixed kernels: listed (snafu kernels), not in ci/known-findings.txt
known=$(sed 's/#.*//' "$src/ci/known-findings.txt" | awk 'NF {print $1}' | sort -u)
[ -n "$known" ] && ok || bad "ci/known-findings.txt names no kernel"
want=$("$bin/snafu" kernels | awk '{print $1}' | grep -vxF -f <(echo "$known"))
[ -n "$want" ] && ok || bad "no fixed kernel listed"
got=$(cd "$tmp/out" && find . -maxdepth 1 -type f -executable -name 'futex_mm_fuzzer_*' | sed 's|^\./||' | sort)
expect=$(for k in $want; do echo "futex_mm_fuzzer_$(tr '.-' '__' <<<"$k")"; done | sort)
[ "$got" = "$expect" ] && ok || bad "targets in \$OUT: '$(tr '\n' ' ' <<<"$got")', expected '$(tr '\n' ' ' <<<"$expect")'"
for k in $known; do # the unfixed ones are not continuous-fuzzing targets
	[ ! -e "$tmp/out/futex_mm_fuzzer_$(tr '.-' '__' <<<"$k")" ] && ok || bad "a target for the unfixed $k"
done
# the build is CMake's: no source or kernel list of its own
grep -q 'SNAFU_OSS_FUZZ=ON' "$src/ci/oss-fuzz-build.sh" &&
	! grep -q 'ci/lib.sh\|srcs_of\|listed_kernels\|kernels\.c' "$src/ci/oss-fuzz-build.sh" &&
	ok || bad "ci/oss-fuzz-build.sh does not build through CMake alone"

# unzip_seeds T DIR: $OUT/T_seed_corpus.zip, unzipped into a fresh $tmp/corpus (beside a
# fresh $tmp/art for the run's artifacts), holds as many files as the seed corpus DIR
unzip_seeds() {
	local n seeds
	rm -rf "$tmp/corpus" "$tmp/art" && mkdir -p "$tmp/corpus" "$tmp/art"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
		"$tmp/out/${1}_seed_corpus.zip" "$tmp/corpus" 2>/dev/null
	n=$(find "$tmp/corpus" -type f | wc -l)
	seeds=$(find "$2" -maxdepth 1 -type f | wc -l)
	[ "$n" = "$seeds" ] && ok || bad "$1: seed corpus zip holds $n files, ${2#"$src/"} $seeds"
}
# run_target T: as OSS-Fuzz runs it, no flags but the options file's, from the seed corpus:
# 3000 runs, its output in $tmp/T.log, its exit status in $rc
run_target() {
	(cd "$tmp/out" && ./"$1" -runs=3000 -seed=1 -dict="$1.dict" -artifact_prefix="$tmp/art/" \
		"$tmp/corpus") >"$tmp/$1.log" 2>&1
	rc=$?
}

for k in $want; do
	t=futex_mm_fuzzer_$(tr '.-' '__' <<<"$k")
	for f in "$t.dict" "$t.options" "${t}_seed_corpus.zip"; do
		[ -s "$tmp/out/$f" ] && ok || bad "\$OUT/$f missing or empty"
	done
	grep -qx "dict = $t.dict" "$tmp/out/$t.options" 2>/dev/null && ok ||
		bad "$t.options does not name $t.dict"
	unzip_seeds "$t" "$src/corpus/futex_mm_fuzzer"
	[ -x "$tmp/out/$t" ] || continue
	run_target "$t"
	if [ $rc = 0 ] && [ -z "$(ls -A "$tmp/art")" ] && grep -qxF "futex_mm_fuzzer: kernel $k" "$tmp/$t.log" &&
		grep -qE "^(Done 3000 runs|futex_mm_fuzzer: done: 3000 executions, the search's included)" "$tmp/$t.log"; then
		ok
	else
		bad "$t: exit $rc after $(grep -o '^#[0-9]*' "$tmp/$t.log" | tail -1) (a finding on a fixed kernel?)"
		grep -m3 'DEDUP_TOKEN\|SUMMARY\|ERROR' "$tmp/$t.log"
	fi
done

# the case parser's target, from its seeds with its dictionary
t=case_text_fuzzer
for f in "$t" "$t.dict" "$t.options" "${t}_seed_corpus.zip"; do
	[ -s "$tmp/out/$f" ] && ok || bad "\$OUT/$f missing or empty"
done
unzip_seeds "$t" "$src/corpus/$t"
if [ -x "$tmp/out/$t" ]; then
	run_target "$t"
	[ $rc = 0 ] && [ -z "$(ls -A "$tmp/art")" ] && grep -q "^Done 3000 runs" "$tmp/$t.log" && ok ||
		{ bad "$t: exit $rc"; grep -m3 'DEDUP_TOKEN\|SUMMARY\|ERROR' "$tmp/$t.log"; }
fi

# MemorySanitizer is refused, with the reason
env -i PATH="$PATH" CC=clang CXX=clang++ CFLAGS="-fsanitize=memory" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	SANITIZER=memory OUT="$tmp/msan" WORK="$tmp/work" "$src/build.sh" >"$tmp/msan.log" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "SANITIZER=memory is not supported" "$tmp/msan.log" && ok ||
	bad "SANITIZER=memory: exit $rc, no clear refusal"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
