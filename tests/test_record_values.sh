#!/usr/bin/env bash
# The values gdb shows at a finding are true: snafu record's commands run the debug build
# (build-debug/bin/snafu, -O0; ./build.sh debug), not the -O2 one, whose frames show
# stale arguments without <optimized out> (futex_wait's uaddr=12751 above get_user_u32's
# 1073741824, rwsem_down_read's site=<__pthread_kill_implementation+268>, sys_mmap2's
# prot=5 for an rw mapping).
#  - where the debug build is missing (forced with SNAFU_DEBUG_BUILD=DIR), snafu record
#    says so in one line with the one command that builds it, records nothing (exit 3),
#    and its commands still name the debug build, never this one; where it is missing
#    for real, this test builds it with the command that line gives; where it fails, the
#    line quotes its error, cut at a whole word (with " ...") or not at all;
#  - the debug build replays the same runs as this one: for every saved case on every
#    kernel, the same verdict, trace digest and steps (snafu replay --digest);
#  - the land-on-the-finding command snafu record prints for the LWN case, with gdb
#    -batch, `run` and `snafu-bt 1`, shows futex_wait_2_6_11_rc4 (... uaddr=1073741824 ...), the
#    same address in do_futex and get_user_u32, down_read's site "do_page_fault", and no
#    <optimized out> in a frame of snafu's own code; `snafu-bt 2` shows T2's
#    sys_mmap2 (... prot=3 ...), the case's rw mapping.
# Where gdb is missing or may not run a program (ptrace), the gdb session is left out
# and, when every other check passed, the test exits 77 (CTest: skipped).
#
#   bash tests/test_record_values.sh BIN_DIR SRC_DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $snafu, $tmp
cd "$src" || exit 2
export ASAN_OPTIONS=detect_leaks=0 SNAFU_RR=/nonexistent/rr # gdb's fallback, where rr records too
unset SNAFU_GDB SNAFU_DEBUG_BUILD
case_file=repro/cases/futex-wait-mmap-sem.case
# grep_in / grep_not FILE WHAT PATTERN: FILE has a line matching PATTERN (grep -E) / none
grep_in() { if grep -qE -- "$3" "$1"; then ok; else bad "$2: no /$3/ in ${1##*/}"; fi; }
grep_not() { if grep -qE -- "$3" "$1"; then bad "$2: /$3/ in ${1##*/}"; else ok; fi; }
landing() { # landing FILE: the land-on-the-finding gdb command of snafu record's output
	grep -m1 -E '^  (ASAN_OPTIONS=[^ ]* )?[^ ]*gdb -x ' "$1" | sed 's/^  //'
}

# --- no debug build: one line with the command that builds it ------------------------------
nobuild=$tmp/no-debug
SNAFU_DEBUG_BUILD=$nobuild/bin "$snafu" record "$case_file" >"$tmp/nb.out" 2>"$tmp/nb.err"
rc=$?
check "snafu record without a debug build: exit $rc, expected 3" [ "$rc" = 3 ]
want="snafu record: no debug build yet ($nobuild/bin/snafu: not found), which the commands below run: at -O2 gdb shows stale values in the frames; build it with: cmake -S $src -B $nobuild -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug && ninja -C $nobuild snafu"
check "no debug build: the line '$want'" grep -qxF -- "$want" "$tmp/nb.err"
grep_in "$tmp/nb.out" "no debug build: a gdb command naming it" "--args $nobuild/bin/snafu replay "
grep_not "$tmp/nb.out" "no debug build: never this snafu in its place" "--args $snafu "

# --- a debug build that fails: its error quoted in one line, cut at a whole word or not at all
fake=$tmp/fake-debug/bin
mkdir -p "$fake"
printf '#!/bin/sh\nprintf "%%s\\n" "$FAKE_ERROR"\nexit 2\n' >"$fake/snafu"
chmod +x "$fake/snafu"
# quoted FILE: what the line about the failing debug build quotes of its error
quoted() { sed -n 's/^snafu record: the debug build .* does not replay the case (status 2: \(.*\)); rebuild it with: .*/\1/p' "$1"; }
long="snafu: $(printf 'word%02d-xyzzy ' $(seq 1 40))"
long=${long% }
FAKE_ERROR=$long SNAFU_DEBUG_BUILD=$fake "$snafu" record "$case_file" >"$tmp/fail.out" 2>"$tmp/fail.err"
check "a failing debug build: exit 3" [ $? = 3 ]
q=$(quoted "$tmp/fail.err")
check "a failing debug build: one line quoting its error ($(cat "$tmp/fail.err"))" \
	test -n "$q" -a "$(grep -c 'debug build' "$tmp/fail.err")" = 1
check "a long error: cut after a whole word, then ' ...': '$q'" \
	test "${q% ...}" != "$q" -a "${long#"${q% ...} "}" != "$long" -a "${#q}" -le 220 -a "${#q}" -ge 200
FAKE_ERROR="snafu: $(printf 'x%.0s' $(seq 1 300))" SNAFU_DEBUG_BUILD=$fake "$snafu" record "$case_file" >/dev/null 2>"$tmp/fail.err"
check "one word longer than the quote: whole" test "$(quoted "$tmp/fail.err")" = "snafu: $(printf 'x%.0s' $(seq 1 300))"
FAKE_ERROR="snafu: a short error" SNAFU_DEBUG_BUILD=$fake "$snafu" record "$case_file" >/dev/null 2>"$tmp/fail.err"
check "a short error: whole" test "$(quoted "$tmp/fail.err")" = "snafu: a short error"

# --- the debug build snafu record runs; built here when it is missing ------------------------
"$snafu" record "$case_file" >"$tmp/out" 2>"$tmp/err"
build=$(sed -n 's/^snafu record: no debug build yet .*; build it with: //p' "$tmp/err")
if [ -n "$build" ]; then
	echo "note: building the debug flavour, as snafu record says: $build"
	(eval "$build") >"$tmp/build.log" 2>&1 || {
		bad "building the debug flavour failed: $build"
		tail -20 "$tmp/build.log"
	}
	"$snafu" record "$case_file" >"$tmp/out" 2>"$tmp/err"
fi
grep_not "$tmp/err" "the debug build is ready" "^snafu record: .*debug build"
land=$(landing "$tmp/out")
debug=$(echo "$land" | sed -n 's/.* --args \([^ ]*\) replay .*/\1/p')
check "no debug build in the landing command: $land" test -n "$debug" -a -x "$debug"

# --- the same runs: verdict, digest and steps of every case on every kernel -----------------
same=0
for k in $("$snafu" kernels | awk '{print $1}'); do
	"$snafu" replay --quiet --digest --kernel="$k" repro/cases/*.case >"$tmp/d.opt" 2>&1
	"$debug" replay --quiet --digest --kernel="$k" repro/cases/*.case >"$tmp/d.dbg" 2>&1
	if [ -s "$tmp/d.opt" ] && cmp -s "$tmp/d.opt" "$tmp/d.dbg"; then
		same=$((same + $(grep -c ': digest ' "$tmp/d.opt")))
	else
		bad "kernel $k: the debug build replays other runs than $snafu"
		diff "$tmp/d.opt" "$tmp/d.dbg" | head -10
	fi
done
echo "the debug build's runs: $same digests as this build's"

# --- gdb: can it run a program here (ptrace)? ---------------------------------------------
gdb_skip=
if ! command -v gdb >/dev/null; then
	gdb_skip="no gdb here (Debian: apt-get install gdb)"
elif ! timeout 300 gdb -nx -batch -iex 'set debuginfod enabled off' -ex starti \
	--args "$snafu" kernels >"$tmp/starti" 2>&1 </dev/null || ! grep -q '^Program stopped' "$tmp/starti"; then
	gdb_skip="gdb cannot run a program here: $(grep -vE '^warning:|Error in sourced' "$tmp/starti" |
		grep -m1 -E 'rror|annot|ermitted' || head -1 "$tmp/starti")"
fi
if [ -n "$gdb_skip" ]; then
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ] || exit 1
	echo "skipped: the gdb session: $gdb_skip"
	exit 77
fi

# --- the landing command, with gdb -batch, run and snafu-bt 1 -----------------------------
batch=" gdb -nx -batch -iex 'set debuginfod enabled off' -x "
exs=" -ex run -ex 'snafu-bt 1' -ex 'snafu-bt 2' --args "
cmd=" $land"
cmd=${cmd/ gdb -x /$batch}
cmd=${cmd/ --args /$exs}
echo "gdb batch: $cmd"
timeout 300 bash -c "$cmd" >"$tmp/gdb" 2>&1 </dev/null
g=$tmp/gdb
awk '/^T1 is (running|switched out)/ {f = 1; next} /^T2 is / {f = 0} f && /^#/' "$g" >"$tmp/bt1"
awk '/^T2 is (running|switched out)/ {f = 1; next} f && /^#/' "$g" >"$tmp/bt2"
grep -E ' at [^ ]*/(ref|sim|prog|tools)/[^ ]*:[0-9]+$' "$tmp/bt1" >"$tmp/own1"
grep_in "$g" "stopped at the finding" "^Program received signal SIGTRAP"
grep_in "$tmp/bt1" "futex_wait's uaddr" "^#[0-9]+ .* in futex_wait_[0-9a-z_]+ \(.*uaddr=1073741824[,)]"
grep_in "$tmp/bt1" "do_futex's uaddr" "^#[0-9]+ .* in do_futex \(uaddr=1073741824[,)]"
grep_in "$tmp/bt1" "get_user_u32's uaddr" "^#[0-9]+ .* in get_user_u32 \(.*uaddr=1073741824[,)].*\"futex_wait\""
grep_in "$tmp/bt1" "do_page_fault's address" "^#[0-9]+ .* in do_page_fault \(address=1073741824[,)]"
grep_in "$tmp/bt1" "down_read's site" "^#[0-9]+ .* in rwsem_down_read \(.*site=0x[0-9a-f]+ <[^>]*> \"do_page_fault\"\)"
grep_in "$tmp/bt2" "T2's sys_mmap2, rw" "^#[0-9]+ .* in sys_mmap2 \(addr=0, len=4096, prot=3, flags=[0-9]+, fd=-1, pgoff=0\)"
grep_in "$tmp/bt2" "T2's down_write" "^#[0-9]+ .* in rwsem_down_write \(.*\"sys_mmap2\"\)"
check "T1's frames of snafu's code: at least 10" [ "$(wc -l <"$tmp/own1")" -ge 10 ]
grep_not "$tmp/own1" "T1's frames of snafu's code" "<optimized out>"
grep_not "$g" "snafu-bt on an optimized build" "snafu-bt: this snafu is optimized"
grep_not "$g" "the helpers failed" "Python Exception|Error occurred in Python|snafu-bt: could not restore"
if [ "$fail" != 0 ]; then
	echo "the gdb session:"
	sed 's/^/    | /' "$g" | head -60
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
