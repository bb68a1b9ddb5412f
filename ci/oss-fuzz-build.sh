#!/usr/bin/env bash
# OSS-Fuzz / ClusterFuzzLite build: ./build.sh execs this when $LIB_FUZZING_ENGINE and $OUT
# are set (any argument), as OSS-Fuzz's `compile` does through .clusterfuzzlite/build.sh.
#
# OSS-Fuzz runs each binary in $OUT without flags, so there is one binary per kernel
# worth fuzzing continuously: every listed kernel (ref/kernels.c, not the test-only ones)
# that has no known finding in ci/known-findings.txt, i.e. the fixes believed to hold.
# The unfixed ones would only report their known deadlock again and again; ci/fuzz.sh
# covers them. fuzz/futex_mm_fuzzer.c is compiled once per kernel with
# -DSNAFU_FUZZ_KERNEL='"NAME"'; the binary is futex_mm_fuzzer_NAME with dots and dashes as
# underscores, with NAME_seed_corpus.zip (corpus/futex_mm_fuzzer), NAME.dict and
# NAME.options beside it.
# The case parser's target, case_text_fuzzer (fuzz/case_text_fuzzer.c: text in, the
# print/parse and byte-form round trips checked), is built too, with
# case_text_fuzzer_seed_corpus.zip (corpus/case_text_fuzzer) and case_text_fuzzer.dict.
#
# Compile with $CC $CFLAGS, link with $CXX $CXXFLAGS $LIB_FUZZING_ENGINE; no CMake. The
# source lists are read from CMakeLists.txt (SNAFU_SIM_SRCS, SNAFU_REF_SRCS,
# SNAFU_PROG_SRCS and the two fuzz targets' sources), so CMakeLists.txt stays
# the one list: a shared list file would need CMakeLists.txt to read it, and parsing keeps
# it untouched. A list that comes out empty, or names a missing file, stops the build.
# As in CMakeLists.txt, sim/ (the scheduler) is built without coverage, and ref/, prog/
# and the harness without comparison tracing (-fno-sanitize-coverage=trace-cmp).
#
# $SANITIZER: address, undefined and coverage work (the fibers' hand-written stack switch
# tells ASan about every switch). memory is refused: MemorySanitizer has no fiber API, so
# its shadow of parameters and return values would not follow the switches in
# sim/fiber.c. x86-64 only ($ARCHITECTURE), as sim/fiber.c is.
# SNAFU_WERROR=0 builds without -Werror (a newer clang's new warnings).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log() { printf 'oss-fuzz-build: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

: "${OUT:?oss-fuzz-build: OUT must be set (the directory for the fuzz targets)}"
: "${LIB_FUZZING_ENGINE:?oss-fuzz-build: LIB_FUZZING_ENGINE must be set (e.g. -fsanitize=fuzzer)}"
CC=${CC:-clang}
CXX=${CXX:-clang++}
CFLAGS=${CFLAGS:-}
CXXFLAGS=${CXXFLAGS:-}

case "${SANITIZER:-address}" in
memory)
	die "SANITIZER=memory is not supported: MemorySanitizer has no fiber API, and the \
simulator switches stacks by hand (sim/fiber.c), so MSan's shadow of parameters and return \
values would not follow the switches. Use address, undefined or coverage."
	;;
thread)
	die "SANITIZER=thread: build the tsan flavour with ./build.sh tsan instead (it needs sim/ \
uninstrumented and annotated, see CMakeLists.txt); OSS-Fuzz runs address, undefined, coverage."
	;;
esac
case "${ARCHITECTURE:-x86_64}" in
x86_64) ;;
*) die "ARCHITECTURE=$ARCHITECTURE is not supported: x86-64 only (sim/fiber.c switches stacks by hand)" ;;
esac

# shellcheck source=ci/lib.sh
. ci/lib.sh
sim_srcs=$(srcs_of SNAFU_SIM_SRCS) || exit 1
ref_srcs=$(srcs_of SNAFU_REF_SRCS) || exit 1
prog_srcs=$(srcs_of SNAFU_PROG_SRCS) || exit 1
harness_srcs=$(srcs_of futex_mm_fuzzer) || exit 1
harness_main=fuzz/futex_mm_fuzzer.c
grep -qxF "$harness_main" <<<"$harness_srcs" || die "CMakeLists.txt: futex_mm_fuzzer is no longer built from $harness_main"
text_srcs=$(srcs_of case_text_fuzzer) || exit 1

# the kernels: listed (not test_only) and without a known finding
known=$(sed 's/#.*//' ci/known-findings.txt | awk 'NF {print $1}' | sort -u)
kernels=$(listed_kernels | grep -vxF -f <(echo "$known") || true)
[ -n "$kernels" ] || die "no kernel to fuzz: ref/kernels.c lists none without a known finding"

warn=(-std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes -fno-omit-frame-pointer)
[ "${SNAFU_WERROR:-1}" = 0 ] || warn+=(-Werror)
# AFL++'s driver takes every argument for an input file: no libFuzzer flags in argv
[ "${FUZZING_ENGINE:-libfuzzer}" = afl ] && warn+=(-DSNAFU_FUZZ_NO_DEFAULT_FLAGS)
if [ -n "${WORK:-}" ]; then
	obj=$WORK/snafu-oss-fuzz-objs
	rm -rf "$obj"
	mkdir -p "$obj"
else
	obj=$(mktemp -d)
	trap 'rm -rf "$obj"' EXIT
fi
mkdir -p "$OUT"
read -r -a cflags <<<"$CFLAGS"
read -r -a cxxflags <<<"$CXXFLAGS"
read -r -a engine <<<"$LIB_FUZZING_ENGINE"

compile() { # SRC OBJ EXTRA...
	local src=$1 o=$2
	shift 2
	"$CC" "${cflags[@]}" "${warn[@]}" "$@" -c "$src" -o "$o"
}
objs=() lib_objs=()
for f in $sim_srcs; do
	o=$obj/$(tr / _ <<<"${f%.c}").o
	compile "$f" "$o" -fno-sanitize=fuzzer-no-link
	lib_objs+=("$o")
done
for f in $ref_srcs $prog_srcs; do
	o=$obj/$(tr / _ <<<"${f%.c}").o
	compile "$f" "$o" -fno-sanitize-coverage=trace-cmp
	lib_objs+=("$o")
done
objs=("${lib_objs[@]}")
for f in $(grep -vxF "$harness_main" <<<"$harness_srcs"); do
	o=$obj/$(tr / _ <<<"${f%.c}").o
	compile "$f" "$o" -fno-sanitize-coverage=trace-cmp
	objs+=("$o")
done

zip_dir() { # ZIP DIR: the files of DIR, flat
	if command -v zip >/dev/null; then
		(cd "$2" && zip -q -j "$1" ./*)
	else
		python3 - "$1" "$2" <<'EOF'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(sys.argv[2])):
        path = os.path.join(sys.argv[2], name)
        if os.path.isfile(path):
            z.write(path, name)
EOF
	fi
}
seed_zip=$obj/seed_corpus.zip
zip_dir "$seed_zip" corpus/futex_mm_fuzzer

for k in $kernels; do
	target=$(target_name "$k")
	o=$obj/$target.o
	compile "$harness_main" "$o" -fno-sanitize-coverage=trace-cmp -DSNAFU_FUZZ_KERNEL="\"$k\""
	"$CXX" "${cxxflags[@]}" "$o" "${objs[@]}" "${engine[@]}" -o "$OUT/$target"
	cp "$seed_zip" "$OUT/${target}_seed_corpus.zip"
	cp fuzz/futex_mm_fuzzer.dict "$OUT/$target.dict"
	sed "s/^dict = .*/dict = $target.dict/" fuzz/futex_mm_fuzzer.options >"$OUT/$target.options"
	log "$OUT/$target (kernel $k)"
done

# the case parser's target: its own sources, the same library objects, its seeds and its
# dictionary
text_objs=()
for f in $text_srcs; do
	o=$obj/text_$(tr / _ <<<"${f%.c}").o
	compile "$f" "$o"
	text_objs+=("$o")
done
"$CXX" "${cxxflags[@]}" "${text_objs[@]}" "${lib_objs[@]}" "${engine[@]}" -o "$OUT/case_text_fuzzer"
zip_dir "$obj/case_text_seed_corpus.zip" corpus/case_text_fuzzer
cp "$obj/case_text_seed_corpus.zip" "$OUT/case_text_fuzzer_seed_corpus.zip"
cp fuzz/case_text_fuzzer.dict "$OUT/case_text_fuzzer.dict"
printf '[libfuzzer]\ndict = case_text_fuzzer.dict\n' >"$OUT/case_text_fuzzer.options"
log "$OUT/case_text_fuzzer (the case parser)"
