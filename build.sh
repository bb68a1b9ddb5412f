#!/usr/bin/env bash
# snafu's one entry point. Installs what is missing (Debian), configures and builds.
#
#   ./build.sh            build the default flavour (clang, ASan+UBSan) into build/
#   ./build.sh test       build build/ (ASan+UBSan), build-gcc/ (gcc, no sanitizers),
#                         build-tsan/ (ThreadSanitizer) and build-debug/'s snafu, then run
#                         every CTest test
#   ./build.sh fuzz       fuzz the unfixed kernel until the first finding (see README)
#   ./build.sh evaluate   fuzz every kernel with the same budget; one table (see README)
#   ./build.sh bench      build build-release/ and print the benchmarks' figures
#   ./build.sh corpus     write corpus/, the fuzzers' dictionaries and docs/cases.md's
#                         op table again from repro/cases/ and the op table
#                         (fuzz/make-corpus.sh; after a change to the byte form)
#   ./build.sh FLAVOUR    build one flavour: asan (build/), gcc (build-gcc/),
#                         release (build-release/), tsan (build-tsan/: ThreadSanitizer on
#                         both runtimes), debug (build-debug/bin/snafu: ASan+UBSan at -O0,
#                         whose frames gdb shows true; snafu record's commands run it)
#   ./build.sh afl        AFL++ targets, one per kernel, into build-afl/ (ci/afl-build.sh)
#   ./build.sh -h|--help  this text
# With $LIB_FUZZING_ENGINE and $OUT set (OSS-Fuzz, ClusterFuzzLite), any other argument:
# their build.
case "${1:-}" in
-h | --help | help)
	sed -n '2,/^case /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	exit 0
	;;
esac
[ -n "${LIB_FUZZING_ENGINE:-}" ] && [ -n "${OUT:-}" ] && exec "$(dirname "$0")/ci/oss-fuzz-build.sh"
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

log() { printf 'build.sh: %s\n' "$*" >&2; }

# Debian packages, installed only when something is missing.
ensure_tools() {
	local need=()
	command -v clang >/dev/null || need+=(clang)
	command -v gcc >/dev/null || need+=(gcc)
	command -v cmake >/dev/null || need+=(cmake)
	command -v ninja >/dev/null || need+=(ninja-build)
	command -v python3 >/dev/null || need+=(python3)
	# `test` opens snafu trace's HTML in headless Chromium (tests/test_trace.sh)
	[ "${1:-}" != test ] || command -v chromium >/dev/null || need+=(chromium)
	# `test` drives the gdb helpers with gdb -batch (tests/test_record.sh)
	[ "${1:-}" != test ] || command -v gdb >/dev/null || need+=(gdb)
	# `test` records a case under rr where the machine has performance counters, and
	# reports rr's own error where not (tests/test_record_rr.sh)
	[ "${1:-}" != test ] || command -v rr >/dev/null || need+=(rr)
	# `test` runs a bounded campaign with the second engine (tests/test_afl.sh)
	[ "${1:-}" != test ] || { command -v afl-fuzz >/dev/null && command -v afl-clang-fast >/dev/null; } ||
		need+=(afl++)
	if command -v clang >/dev/null; then
		local rt
		rt=$(clang -print-file-name=libclang_rt.asan-x86_64.a 2>/dev/null || true)
		[ -f "$rt" ] || need+=(libclang-rt-14-dev)
		rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
		[ -f "$rt" ] || need+=(libclang-rt-14-dev)
	else
		need+=(libclang-rt-14-dev)
	fi
	if [ ${#need[@]} -gt 0 ]; then
		log "installing: ${need[*]}"
		local sudo=""
		[ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
			$(printf '%s\n' "${need[@]}" | sort -u) >/dev/null
	fi
}

# configure DIR CC SANITIZE [extra cmake args]; $targets: what ninja builds (default: all)
configure() {
	local dir=$1 cc=$2 san=$3
	shift 3
	if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$dir/.snafu-flavour" 2>/dev/null)" != "$cc $san $*" ]; then
		rm -rf "$dir"
		cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" \
			-DSNAFU_SANITIZE="$san" "$@" >/dev/null
		echo "$cc $san $*" >"$dir/.snafu-flavour"
	fi
	ninja -C "$dir" --quiet ${targets:+"$targets"} >&2
}

build_flavour() {
	case "$1" in
	asan) configure build clang "address,undefined" -DSNAFU_OTHER_BUILD="$ROOT/build-gcc/bin" \
		-DSNAFU_TSAN_BUILD="$ROOT/build-tsan/bin" ;;
	tsan) configure build-tsan clang thread ;;
	gcc) configure build-gcc gcc none ;;
	release) configure build-release clang none ;;
	debug) targets=snafu configure build-debug clang "address,undefined" -DCMAKE_BUILD_TYPE=Debug ;;
	*)
		echo "build.sh: argument 1 '$1': expected build, test, fuzz, evaluate, bench, corpus, asan, gcc, release, tsan, debug, afl or --help" >&2
		exit 2
		;;
	esac
}

cmd=${1:-build}
[ $# -gt 0 ] && shift
case "$cmd" in
build)
	ensure_tools
	build_flavour asan
	;;
asan | gcc | release | tsan | debug)
	ensure_tools
	build_flavour "$cmd"
	;;
test)
	ensure_tools test
	build_flavour gcc
	build_flavour tsan
	build_flavour asan
	build_flavour debug # snafu record's commands run it (tests/test_record*.sh)
	ctest --test-dir build --output-on-failure -j "$(nproc)" "$@"
	;;
bench)
	ensure_tools
	build_flavour asan
	build_flavour release
	for b in build/bin/bench_* build-release/bin/bench_*; do
		[ -x "$b" ] && "$b" "$@"
	done
	for b in bench/*.sh; do
		bash "$b" build/bin
	done
	;;
fuzz)
	ensure_tools
	build_flavour asan
	exec "$ROOT/fuzz/run.sh" "$@"
	;;
evaluate)
	ensure_tools
	build_flavour asan
	exec "$ROOT/build/bin/snafu" evaluate "$@"
	;;
corpus)
	ensure_tools
	build_flavour asan
	exec "$ROOT/fuzz/make-corpus.sh" "$@"
	;;
afl) ensure_tools && exec "$ROOT/ci/afl-build.sh" "$@" ;;
*)
	build_flavour "$cmd"
	;;
esac
