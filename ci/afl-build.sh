#!/usr/bin/env bash
# ./build.sh afl: the fuzz target for AFL++, a second engine, in build-afl/.
#
# The libFuzzer harness (fuzz/futex_mm_fuzzer.c) links against AFL++'s libFuzzer driver
# (afl-clang-fast -fsanitize=fuzzer links /usr/lib/afl/libAFLDriver.a: persistent mode,
# shared-memory input). That driver calls LLVMFuzzerInitialize with argv, but takes any
# argument left over for an input file to run, so neither --kernel= nor the harness's
# libFuzzer defaults can go through argv: there is one binary per kernel, compiled with
# -DSNAFU_FUZZ_KERNEL='"NAME"' and -DSNAFU_FUZZ_NO_DEFAULT_FLAGS:
#
#   build-afl/bin/futex_mm_fuzzer_NAME     (dots and dashes as underscores)
#
# for every listed kernel, the unfixed ones too. ASan+UBSan as in the default flavour;
# sim/ (the scheduler) compiled by plain clang, so AFL's coverage is about the kernel, as
# libFuzzer's is. AFL++ does not use the structure-aware mutator (LLVMFuzzerCustomMutator
# is libFuzzer's interface): it mutates bytes, with the dictionary (-x). README.md,
# "Fuzzing with AFL++", says how to run it.
#
# Installs Debian's afl++ when afl-clang-fast is missing (apt-get, as root or with sudo).
# Environment: SNAFU_AFL_BUILD (default build-afl).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${SNAFU_AFL_BUILD:-$root/build-afl}
log() { printf 'afl-build: %s\n' "$*" >&2; }

if ! command -v afl-clang-fast >/dev/null || ! command -v afl-fuzz >/dev/null; then
	log "installing: afl++"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends afl++ >/dev/null
fi
command -v afl-clang-fast >/dev/null || { log "afl-clang-fast not found after installing afl++"; exit 1; }

# shellcheck source=ci/lib.sh
. ci/lib.sh
sim_srcs=$(srcs_of SNAFU_SIM_SRCS)
ref_srcs=$(srcs_of SNAFU_REF_SRCS)
prog_srcs=$(srcs_of SNAFU_PROG_SRCS)
harness_srcs=$(srcs_of futex_mm_fuzzer)
joint_srcs=$(srcs_of SNAFU_JOINT_SRCS)
harness_main=fuzz/futex_mm_fuzzer.c
kernels=$(listed_kernels)

# shellcheck disable=SC2054 # commas inside one flag
flags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -fno-omit-frame-pointer
	-fsanitize=address,undefined -fno-sanitize-recover=all)
export AFL_QUIET=1
obj=$out/obj
rm -rf "${obj:?}" "${out:?}/bin"
mkdir -p "$obj" "$out/bin"
objs=()
for f in $sim_srcs; do
	o=$obj/$(tr / _ <<<"${f%.c}").o
	clang "${flags[@]}" -c "$f" -o "$o"
	objs+=("$o")
done
for f in $joint_srcs; do # the joint search: no coverage (CMakeLists.txt, snafu_joint)
	o=$obj/$(tr / _ <<<"${f%.c}").o
	clang "${flags[@]}" -c "$f" -o "$o"
	objs+=("$o")
done
for f in $ref_srcs $prog_srcs $(grep -vxF "$harness_main" <<<"$harness_srcs"); do
	o=$obj/$(tr / _ <<<"${f%.c}").o
	afl-clang-fast "${flags[@]}" -c "$f" -o "$o"
	objs+=("$o")
done
for k in $kernels; do
	t=$(target_name "$k")
	afl-clang-fast "${flags[@]}" -DSNAFU_FUZZ_KERNEL="\"$k\"" -DSNAFU_FUZZ_NO_DEFAULT_FLAGS \
		-c "$harness_main" -o "$obj/$t.o"
	afl-clang-fast -fsanitize=fuzzer -fsanitize=address,undefined "$obj/$t.o" "${objs[@]}" \
		-o "$out/bin/$t"
done
log "$(wc -w <<<"$kernels") targets in ${out#"$root"/}/bin: $(cd "$out/bin" && echo *)"
