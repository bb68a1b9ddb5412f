# Shared by the tests/test_*.sh scripts: counters and the checks every one of them uses.
# Source it, then end with: echo "$pass passed, $fail failed"; [ $fail = 0 ]
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
check() { # check DESCRIPTION COMMAND...: passes when COMMAND succeeds
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
run() { # run COMMAND...: $rc, stdout and stderr in $tmp/out and $tmp/err
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
show_output() { # the first lines of what the last run printed, for a failure message
	sed -n '1,15s/^/    stdout: /p' "$tmp/out"
	sed -n '1,10s/^/    stderr: /p' "$tmp/err"
}
has() { # has FILE WHAT PATTERN: FILE has a line matching PATTERN (grep -E); else FILE goes with the failure
	if grep -qE -- "$3" "$1"; then ok; else
		bad "$2: no /$3/ in $1"
		sed 's/^/    | /' "$1" | head -60
	fi
}
hasnt() { # hasnt FILE WHAT PATTERN: no line of FILE matches PATTERN
	if grep -qE -- "$3" "$1"; then
		bad "$2: /$3/ in $1"
		sed 's/^/    | /' "$1" | head -60
	else ok; fi
}

# setup_test [--fuzzer] "$@": the start of a test script, given the script's own arguments,
# BIN_DIR SRC_DIR [OTHER_BIN_DIR [TSAN_BIN_DIR]] as CTest passes them (tests/CMakeLists.txt):
#  - $bin and $src, the first two as absolute paths (one missing: the usage line, exit 2);
#    $other and $tsan, the last two (empty when not given);
#  - --fuzzer: a build without futex_mm_fuzzer (gcc: no libFuzzer) skips the test, exit 77;
#  - $snafu, $bin/snafu, which must be an executable (else exit 2);
#  - $tmp, a new directory $TMPDIR/snafu-NAME.XXXXXX (test_NAME.sh) removed when the script
#    exits, its path without symlinks (as snafu prints the paths under it).
setup_test() {
	local me=${0##*/} name
	local fuzzer=false
	[ "${1:-}" = --fuzzer ] && fuzzer=true && shift
	if [ -z "${1:-}" ] || [ -z "${2:-}" ]; then
		echo "usage: bash tests/$me BIN_DIR SRC_DIR [OTHER_BIN_DIR [TSAN_BIN_DIR]]" >&2
		exit 2
	fi
	bin=$(cd "$1" && pwd) && src=$(cd "$2" && pwd) || exit 2
	other=${3:-} tsan=${4:-}
	if $fuzzer && [ ! -x "$bin/futex_mm_fuzzer" ]; then
		echo "skipped: no futex_mm_fuzzer in this build (gcc?)"
		exit 77
	fi
	snafu=$bin/snafu
	[ -x "$snafu" ] || {
		echo "$me: $snafu: not an executable"
		exit 2
	}
	name=${me#test_}
	name=${name%.sh}
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/snafu-${name//_/-}.XXXXXX") || exit 2
	trap 'rm -rf "$tmp"' EXIT
	tmp=$(cd "$tmp" && pwd -P)
}

# planted_asan PLANT INPUT WHAT: $planted, futex_mm_fuzzer_planted (fuzz/planted.c), is
# beside futex_mm_fuzzer (else a failure) and, with SNAFU_PLANT=PLANT, reports ASan's error
# on INPUT (else a note: a build without ASan, where WHAT is not checked).
planted_asan() {
	planted=$bin/futex_mm_fuzzer_planted
	if [ ! -x "$planted" ]; then
		bad "no futex_mm_fuzzer_planted beside futex_mm_fuzzer (CMakeLists.txt)"
		return 1
	fi
	if SNAFU_PLANT=$1 "$planted" -runs=1 "$2" >"$tmp/plant.log" 2>&1 ||
		! grep -q 'ERROR: AddressSanitizer' "$tmp/plant.log"; then
		echo "note: no ASan in this build; $3 not checked"
		return 1
	fi
}
