#!/usr/bin/env bash
# OSS-Fuzz / ClusterFuzzLite build: ./build.sh execs this when $LIB_FUZZING_ENGINE and $OUT
# are set (any argument), as OSS-Fuzz's `compile` does through .clusterfuzzlite/build.sh.
#
# OSS-Fuzz runs each binary in $OUT without flags, so there is one binary per kernel
# worth fuzzing continuously: every listed kernel (`snafu kernels`, not the test-only
# ones) that has no known finding in ci/known-findings.txt, i.e. the fixes believed to
# hold. The unfixed ones would only report their known deadlock again and again;
# ci/fuzz.sh covers them. The binary is futex_mm_fuzzer_NAME (fuzz/futex_mm_fuzzer.c with
# -DSNAFU_FUZZ_KERNEL='"NAME"'), dots and dashes as underscores, with NAME_seed_corpus.zip
# (corpus/futex_mm_fuzzer), NAME.dict and NAME.options beside it. The case parser's
# target, case_text_fuzzer (fuzz/case_text_fuzzer.c: text in, the print/parse and
# byte-form round trips checked), is built too, with case_text_fuzzer_seed_corpus.zip
# (corpus/case_text_fuzzer) and case_text_fuzzer.dict.
#
# Two CMake builds, no source list of their own:
#  1. snafu, plainly ($CC without $CFLAGS), in $WORK/snafu-oss-fuzz/host, only to ask it
#     `snafu kernels`;
#  2. the targets: CMakeLists.txt with -DSNAFU_OSS_FUZZ=ON compiles with $CC $CFLAGS and
#     links with $CXX $CXXFLAGS $LIB_FUZZING_ENGINE straight into $OUT (see there), in
#     $WORK/snafu-oss-fuzz/fuzz. As in the other builds, sim/ (the scheduler) is built
#     without coverage, ref/, prog/ and the harness without comparison tracing.
# Without $WORK, a temporary directory. CMake is the one build system; the OSS-Fuzz image
# needs cmake (.clusterfuzzlite/Dockerfile installs it).
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

command -v cmake >/dev/null || die "cmake not found: the build goes through CMakeLists.txt (apt-get install cmake)"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
jobs=$(nproc 2>/dev/null || echo 2)
if [ -n "${WORK:-}" ]; then
	obj=$WORK/snafu-oss-fuzz
	rm -rf "$obj"
	mkdir -p "$obj"
else
	obj=$(mktemp -d)
	trap 'rm -rf "$obj"' EXIT
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# 1. the kernels: snafu lists them (not the test-only ones); those without a known finding
env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake -S "$root" -B "$obj/host" "${gen[@]}" \
	-DCMAKE_C_COMPILER="$CC" -DSNAFU_SANITIZE=none >"$obj/host.log" 2>&1 ||
	{ tail -20 "$obj/host.log" >&2; die "cmake (snafu, to list the kernels) failed"; }
cmake --build "$obj/host" --target snafu --parallel "$jobs" >>"$obj/host.log" 2>&1 ||
	{ tail -20 "$obj/host.log" >&2; die "building snafu (to list the kernels) failed"; }
listed=$("$obj/host/bin/snafu" kernels | awk '{print $1}')
[ -n "$listed" ] || die "snafu kernels lists no kernel"
known=$(sed 's/#.*//' ci/known-findings.txt | awk 'NF {print $1}' | sort -u)
kernels=$(grep -vxF -f <(echo "$known") <<<"$listed" || true)
[ -n "$kernels" ] || die "no kernel to fuzz: snafu kernels lists none without a known finding"

# 2. the targets, with OSS-Fuzz's compiler and flags, into $OUT
no_default_flags=OFF
# AFL++'s driver takes every argument for an input file: no libFuzzer flags in argv
[ "${FUZZING_ENGINE:-libfuzzer}" = afl ] && no_default_flags=ON
werror=ON
[ "${SNAFU_WERROR:-1}" = 0 ] && werror=OFF
CC=$CC CXX=$CXX CFLAGS=$CFLAGS CXXFLAGS=$CXXFLAGS cmake -S "$root" -B "$obj/fuzz" "${gen[@]}" \
	-DSNAFU_OSS_FUZZ=ON -DSNAFU_OSS_FUZZ_OUT="$OUT" -DSNAFU_FUZZ_KERNELS="$(tr '\n' ';' <<<"$kernels")" \
	-DSNAFU_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" -DSNAFU_FUZZ_NO_DEFAULT_FLAGS=$no_default_flags \
	-DSNAFU_WERROR=$werror >"$obj/fuzz.log" 2>&1 ||
	{ tail -20 "$obj/fuzz.log" >&2; die "cmake -DSNAFU_OSS_FUZZ=ON failed"; }
cmake --build "$obj/fuzz" --parallel "$jobs" >&2
for k in $kernels; do
	t=futex_mm_fuzzer_$(tr '.-' '__' <<<"$k")
	[ -x "$OUT/$t" ] || die "$OUT/$t was not built"
	log "$OUT/$t (kernel $k)"
done
log "$OUT/case_text_fuzzer (the case parser)"
