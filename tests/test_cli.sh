#!/usr/bin/env bash
# End-to-end tests of the snafu command line.
#
#   bash tests/test_cli.sh BIN_DIR SRC_DIR [OTHER_BIN_DIR]
#
# The project's rule for every tool: a malformed file or flag gets ONE line naming the
# file (or argument), the position and what was expected, exit status 2, and nothing
# lost or half written. Then: replaying the saved cases, and the text and byte forms
# round-tripping through `snafu show`, for the saved cases and for pseudo-random bytes
# (a fixed-seed generator: every run tests the same files).
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $other, $snafu, $tmp
if [ -n "$other" ] && [ ! -x "$other/snafu" ]; then
	echo "note: no snafu in the other build $other; not comparing digests with it"
	other=
fi

lines() { # lines FILE: newline-terminated lines, plus one for an unterminated tail
	local n
	n=$(wc -l <"$1")
	[ -s "$1" ] && [ -n "$(tail -c 1 "$1")" ] && n=$((n + 1))
	echo $((n))
}

# expect_error WHAT PREFIX: the last run exited 2, printed nothing on stdout
# and exactly one line on stderr, starting with PREFIX (literally).
expect_error() {
	local what=$1 prefix=$2 line
	line=$(head -n 1 "$tmp/err")
	if [ "$rc" = 2 ] && [ "$(lines "$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
		[ "${line#"$prefix"}" != "$line" ]; then
		ok
	else
		bad "$what: want exit 2 and one line '$prefix...', got exit $rc, $(lines "$tmp/err") lines"
		show_output
	fi
}

# no_stray_files DIR WHAT: no temporaries (OUT.tmp.PID) left in DIR
no_stray_files() {
	local stray
	stray=$(find "$1" -maxdepth 1 -name '*.tmp.*' -printf '%f ')
	if [ -n "$stray" ]; then bad "$2: temporary files left in $1: $stray"; else ok; fi
}

cases=("$src"/repro/cases/*.case)
[ -e "${cases[0]}" ] || {
	echo "test_cli.sh: no cases in $src/repro/cases"
	exit 2
}
kernels=$("$snafu" kernels | awk '{print $1}')
[ -n "$kernels" ] || {
	echo "test_cli.sh: snafu kernels lists no kernel"
	exit 2
}

############################################################################
# 1. Malformed text cases: FILE:LINE:COL: expected ..., exit 2, from every tool.

mkdir "$tmp/bad"
# malformed NAME LINE COL FORMAT: the file made by printf FORMAT is rejected at LINE:COL
# by show, replay, replay --check and minimize, and none of them writes its -o file.
malformed() {
	local name=$1 line=$2 col=$3 fmt=$4
	local f="$tmp/bad/$name.case" prefix
	# shellcheck disable=SC2059 # the format is the test input
	printf "$fmt" >"$f"
	prefix="$f:$line:$col: expected "
	rm -f "$tmp/bad/out.bin" "$tmp/bad/min.case"
	run "$snafu" show "$f"
	expect_error "show $name" "$prefix"
	run "$snafu" show --bytes -o "$tmp/bad/out.bin" "$f"
	expect_error "show --bytes $name" "$prefix"
	check "show --bytes $name: wrote no output" test ! -e "$tmp/bad/out.bin"
	run "$snafu" replay --kernel=2.6.11 "$f"
	expect_error "replay $name" "$prefix"
	run "$snafu" replay --check --quiet "$f"
	expect_error "replay --check $name" "$prefix"
	run "$snafu" minimize -o "$tmp/bad/min.case" "$f"
	expect_error "minimize $name" "$prefix"
	check "minimize $name: wrote no output" test ! -e "$tmp/bad/min.case"
}

# unknown ops and words
malformed unknown-op 2 3 'task 1\n  frob m\n'
malformed unknown-op-2 3 3 'task 1\n  mmap a\n  futex_wiat a val=1\n'
malformed unknown-keyword 1 1 'tsak 1\n  mmap a\n'
malformed unknown-arg 2 10 'task 1\n  mmap a bogus\n'
malformed arg-of-other-op 3 10 'task 1\n  mmap a\n  load a val=1\n'
# FUTEX_PRIVATE_FLAG belongs to the futex ops only
malformed private-not-futex 3 10 'task 1\n  mmap a\n  load a private\n'
malformed too-many-words 2 38 'task 1\n  mmap a x x x x x x x x x x x x x x x x x x x x\n'
# bad numbers
malformed bad-number 2 9 'task 1\n  sleep abc\n'
malformed bad-number-suffix 2 9 'task 1\n  sleep 12x\n'
malformed bad-number-empty 2 16 'task 1\n  mmap a pages=\n'
malformed bad-number-huge 2 9 'task 1\n  sleep 99999999999999999999999\n'
malformed bad-task-number 1 6 'task one\n  mmap a\n'
malformed task-no-number 1 1 'task\n  mmap a\n'
malformed task-two-numbers 1 1 'task 1 2\n  mmap a\n'
# values out of range
malformed ticks-range 2 9 'task 1\n  sleep 200\n'
malformed task-range 1 6 'task 9\n  mmap a\n'
malformed task-zero 1 6 'task 0\n  mmap a\n'
malformed pages-zero 2 16 'task 1\n  mmap a pages=0\n'
malformed pages-range 2 16 'task 1\n  mmap a pages=257\n'
malformed val-range 3 15 'task 1\n  mmap a\n  store a val=128\n'
malformed val-negative 3 15 'task 1\n  mmap a\n  store a val=-1\n'
malformed timeout-range 3 30 'task 1\n  mmap a\n  futex_wait a val=0 timeout=300\n'
malformed nr-wake-range 3 31 'task 1\n  mmap a\n  futex_requeue a a+4 nr_wake=16\n'
malformed flags-range 3 25 'task 1\n  mmap a\n  get_mempolicy a flags=4\n'
malformed kill-range 2 8 'task 1\n  kill 5\n'
malformed bad-prot 2 16 'task 1\n  mmap a prot=rq\n'
malformed prot-twice 2 16 'task 1\n  mmap a prot=rr\n'
# bad addresses and offsets
malformed offset-unaligned 3 10 'task 1\n  mmap a pages=1\n  load a+5\n'
malformed offset-not-number 3 10 'task 1\n  mmap a pages=1\n  load a+x\n'
malformed offset-empty 3 10 'task 1\n  mmap a pages=1\n  load a+\n'
malformed offset-negative 3 10 'task 1\n  mmap a pages=1\n  load a+-4\n'
malformed offset-page-range 3 10 'task 1\n  mmap a pages=1\n  load a+0x80000\n'
malformed offset-word-range 3 10 'task 1\n  mmap a pages=1\n  load a+128\n'
malformed offset-narrow 3 21 'task 1\n  mmap a\n  futex_requeue a a+0x20000\n'
malformed offset-narrow-misaligned 3 21 'task 1\n  mmap a\n  futex_requeue a a+2\n'
malformed null-offset 2 13 'task 1\n  load null+3\n'
# mapping names
malformed undefined-mapping 2 8 'task 1\n  load zz\n'
malformed undefined-mapping-b 3 19 'task 1\n  mmap a\n  futex_requeue a b\n'
malformed undefined-mapping-addr 3 24 'task 1\n  mmap a\n  get_mempolicy a addr=b\n'
# a name may be used before its mmap (docs/cases.md), so the error does not say "earlier"
run "$snafu" show "$tmp/bad/undefined-mapping.case"
check "undefined mapping: what a name is" grep -qxF -- "$tmp/bad/undefined-mapping.case:2:8: expected an address: a mapping name defined by an mmap of the case, or null, found 'zz'" "$tmp/err"
printf 'task 1\n  load b\ntask 2\n  mmap b\n' >"$tmp/bad/name-before-mmap.case"
run "$snafu" show "$tmp/bad/name-before-mmap.case"
check "a mapping name used before its mmap, by another task: accepted (exit $rc)" test "$rc" = 0
malformed mapping-name-digit 2 8 'task 1\n  mmap 1a\n'
malformed mapping-name-null 2 8 'task 1\n  mmap null\n'
malformed mapping-name-taken 3 8 'task 1\n  mmap a\n  mmap a\n'
malformed mapping-name-long 2 8 'task 1\n  mmap aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n'
malformed mmap-no-name 2 8 'task 1\n  mmap\n'
# missing arguments
malformed missing-val 3 3 'task 1\n  mmap a\n  futex_wait a\n'
malformed missing-val-cmp 3 3 'task 1\n  mmap a\n  futex_cmp_requeue a a+4\n'
malformed val-no-equals 3 11 'task 1\n  mmap a\n  store a val\n'
malformed missing-prot 3 3 'task 1\n  mmap a\n  mprotect a\n'
malformed missing-operand 3 14 'task 1\n  mmap a\n  futex_wake\n'
malformed missing-operand-b 3 17 'task 1\n  mmap a\n  futex_requeue a\n'
# preemptions
malformed preempt-no-to 3 1 'task 1\n  mmap a\npreempt 1 at op 1 point 7\n'
malformed preempt-old-syntax 3 1 'task 1\n  mmap a\npreempt 1 at 9 to 2\n'
malformed preempt-misspelt 3 1 'task 1\n  mmap a\npreempt 1 on op 1 point 7 to 2\n'
malformed preempt-task 3 9 'task 1\n  mmap a\npreempt x at op 1 point 7 to 2\n'
malformed preempt-op-zero 3 17 'task 1\n  mmap a\npreempt 1 at op 0 point 7 to 2\n'
malformed preempt-op-range 3 17 'task 1\n  mmap a\npreempt 1 at op 9 point 7 to 2\n'
malformed preempt-point-range 3 25 'task 1\n  mmap a\npreempt 1 at op 1 point 65 to 2\n'
malformed preempt-to-range 3 30 'task 1\n  mmap a\npreempt 1 at op 1 point 7 to 5\n'
malformed preempt-to-self 3 30 'task 1\n  mmap a\npreempt 1 at op 1 point 7 to 1\n'
malformed preempt-op-each-page 4 17 'task 1\n  mmap a pages=3\n  load a each-page\npreempt 1 at op 5 point 1 to 2\n'
malformed preempt-late-line 3 17 'task 1\n  mmap a\npreempt 1 at op 2 point 1 to 2\ntask 2\n  mmap b\n'
# a preemption names tasks that exist (a `task N` block, or within `tasks N`): no idle
# task made up for it, and no "(1..0)"
malformed preempt-to-undeclared 6 30 'task 1\n  mmap a\n  load a\ntask 2\n  mmap b\npreempt 1 at op 2 point 3 to 3\n'
malformed preempt-task-undeclared 5 9 'task 1\n  mmap a\ntask 2\n  mmap b\npreempt 3 at op 1 point 3 to 1\n'
malformed preempt-to-implicit 3 30 'task 1\n  mmap a\npreempt 1 at op 1 point 7 to 2\n'
malformed preempt-task-no-ops 4 9 'tasks 3\ntask 1\n  mmap a\npreempt 3 at op 1 point 1 to 1\n'
malformed kill-undeclared 3 8 'task 1\n  mmap a\n  kill 3\ntask 2\n  mmap b\n'
# no silent merging or overwriting
malformed task-twice 5 6 'task 1\n  mmap a\ntask 2\n  mmap b\ntask 1\n  load a\n'
malformed key-twice 2 18 'task 1\n  mmap a pages=1 pages=2\n'
malformed flag-twice 3 20 'task 1\n  mmap a\n  load a each-page each-page\n'
malformed shared-private 2 17 'task 1\n  mmap a shared private\n'
malformed expect-twice 4 8 'task 1\n  mmap a\nexpect 2.6.11 ok\nexpect 2.6.11 deadlock--x\n'
# ops before any task
malformed op-before-task 1 3 '  mmap a\n'
malformed op-before-task-2 3 1 '# a comment\n\nmmap a pages=1\ntask 1\n'
# bytes that are not text
malformed nul-byte 2 9 'task 1\n  mmap a\000\n'
malformed nul-first 1 1 '\000task 1\n'
malformed nul-in-comment 1 5 '# a \000 comment\ntask 1\n  mmap a\n'
malformed control-byte 2 8 'task 1\n  mmap \001a\n'
malformed high-byte 2 8 'task 1\n  mmap \303\251\n'
# no task at all
malformed empty 1 1 ''
malformed comment-only 1 1 '# nothing but a comment\n'
# expect lines
malformed expect-short 3 1 'task 1\n  mmap a\nexpect 2.6.11\n'
malformed expect-long 3 1 'task 1\n  mmap a\nexpect 2.6.11 ok extra\n'

# limits: 257 ops, 16 preemptions
{
	echo "task 1"
	for i in $(seq 1 257); do echo "  sleep 0"; done
} >"$tmp/bad/ops.txt"
malformed too-many-ops 258 3 "$(sed 's/%/%%/g' "$tmp/bad/ops.txt")\n"
{
	printf 'task 1\n  sleep 0\n  sleep 0\ntask 2\n  sleep 0\n'
	for i in $(seq 1 16); do echo "preempt 1 at op 1 point $i to 2"; done
} >"$tmp/bad/pre.txt"
malformed too-many-preempts 21 1 "$(cat "$tmp/bad/pre.txt")\n"

no_stray_files "$tmp/bad" "malformed cases"

# the well-formed neighbours of some of the above are accepted
wellformed() {
	local name=$1 fmt=$2 f="$tmp/bad/$1.case"
	# shellcheck disable=SC2059
	printf "$fmt" >"$f"
	run "$snafu" show "$f"
	if [ "$rc" = 0 ] && [ ! -s "$tmp/err" ]; then ok; else
		bad "show $name: want exit 0 and no error, got exit $rc"
		show_output
	fi
}
wellformed ok-hex-offset 'task 1\n  mmap a pages=2\n  load a+0x1002\n'
wellformed ok-misaligned 'task 1\n  mmap a\n  futex_wait a+2 val=0\n'
wellformed ok-crlf 'task 1\r\n  mmap a pages=1\r\n'
wellformed ok-tabs 'task\t1\n\tmmap\ta\tpages=1\n'
wellformed ok-max 'task 4\n  mmap a pages=256 prot=rwx shared\n  store a+0x7f07c val=127\n  sleep 127\n'
wellformed ok-tasks-decl 'tasks 3\ntask 1\n  mmap a\n  kill 3\npreempt 1 at op 1 point 1 to 3\n'
wellformed ok-preempt-before-block 'task 1\n  mmap a\npreempt 1 at op 1 point 1 to 2\ntask 2\n  mmap b\n'
wellformed ok-256-ops "task 1\n$(for i in $(seq 1 256); do printf '  sleep 0\\n'; done)"

############################################################################
# 2. Flags, kernels, files.

run "$snafu" replay --kernel=nope "${cases[0]}"
expect_error "replay --kernel=nope" "snafu: "
for k in $kernels; do
	check "replay --kernel=nope lists kernel $k" grep -qF -- " $k" "$tmp/err"
done
check "replay --kernel=nope names 'nope'" grep -qF "nope" "$tmp/err"
run "$snafu" minimize --kernel=nope "${cases[0]}"
expect_error "minimize --kernel=nope" "snafu: "
for k in $kernels; do
	check "minimize --kernel=nope lists kernel $k" grep -qF -- " $k" "$tmp/err"
done
run "$snafu" replay --kernel= "${cases[0]}"
expect_error "replay --kernel=" "snafu: "

run "$snafu" replay --frob "${cases[0]}"
expect_error "replay --frob" "snafu: argument 2 '--frob': expected "
run "$snafu" show --frob "${cases[0]}"
expect_error "show --frob" "snafu: argument 2 '--frob': expected "
run "$snafu" minimize --frob "${cases[0]}"
expect_error "minimize --frob" "snafu: argument 2 '--frob': expected "
run "$snafu" replay --repeat=0 "${cases[0]}"
expect_error "replay --repeat=0" "snafu: argument 2 '--repeat=0': expected "
run "$snafu" replay --repeat=x "${cases[0]}"
expect_error "replay --repeat=x" "snafu: argument 2 '--repeat=x': expected "
run "$snafu" kernels extra
expect_error "kernels extra" "snafu: argument 2 'extra': expected "
# one line a kernel (scripts read the names with awk), each saying where it comes from
run "$snafu" kernels
check "kernels: one line a kernel, each with '. Source: '" \
	test "$(grep -c '^[^ ]\+  *[^ ].*\. Source: [^ ]' "$tmp/out")" = "$(wc -l <"$tmp/out")"
run "$snafu" frob
expect_error "unknown command" "snafu: argument 1 'frob': expected "
check "unknown command: see snafu --help (the commands)" grep -q " (see snafu --help)\$" "$tmp/err"
# an option error points to the command's own --help, which lists its options
# (stress: snafu-native's own, where it is built)
stress=
[ -x "${snafu%/*}/snafu-native" ] && stress=stress
for cmd in kernels replay record minimize confirm explore trace show ops fuzz evaluate $stress; do
	run "$snafu" "$cmd" --frob
	expect_error "$cmd --frob" "snafu: argument 2 '--frob': expected "
	check "$cmd --frob: see snafu $cmd --help" grep -q " (see snafu $cmd --help)\$" "$tmp/err"
done
run "$snafu" replay --repeat=0 "${cases[0]}"
check "replay --repeat=0: see snafu replay --help" grep -q " (see snafu replay --help)\$" "$tmp/err"
run "$snafu" fuzz --ops=nope
check "fuzz --ops=nope: see snafu fuzz --help" grep -q "^snafu: argument 2 '--ops=nope': expected .* (see snafu fuzz --help)\$" "$tmp/err"
run "$snafu" show --input=nope "${cases[0]}"
check "show --input=nope: see snafu show --help" grep -q " (see snafu show --help)\$" "$tmp/err"
run "$snafu" show "${cases[0]}" "${cases[1]:-${cases[0]}}"
expect_error "show with two files" "snafu: argument 3 "
run "$snafu" show --bytes "${cases[0]}"
expect_error "show --bytes without -o" "snafu show: expected "
run "$snafu" show
expect_error "show without a file" "snafu show: expected "
run "$snafu" replay
expect_error "replay without a case" "snafu replay: expected "
run "$snafu" replay --kernel=2.6.11
expect_error "replay with only a flag" "snafu replay: expected "
run "$snafu"
check "no arguments: exit 2 (got $rc)" test "$rc" = 2
run "$snafu" --help
check "--help: exit 0 (got $rc)" test "$rc" = 0
check "--help: usage on stdout" grep -q "usage: snafu" "$tmp/out"

for cmd in "show" "replay" "replay --check" "minimize"; do
	# shellcheck disable=SC2086 # cmd is a command and its flags
	run "$snafu" $cmd "$tmp/missing.case"
	expect_error "$cmd on a missing case" "snafu: $tmp/missing.case: "
	# shellcheck disable=SC2086
	run "$snafu" $cmd "$tmp/missing.bin"
	expect_error "$cmd on a missing byte file" "snafu: $tmp/missing.bin: "
done
mkdir "$tmp/dir.case"
run "$snafu" show "$tmp/dir.case"
expect_error "show on a directory" "snafu: $tmp/dir.case: "

# a byte file too large to be a case
truncate -s 65M "$tmp/huge.bin"
run "$snafu" show "$tmp/huge.bin"
expect_error "show on a 65 MiB file" "snafu: $tmp/huge.bin: expected "
rm -f "$tmp/huge.bin"

# --check needs expect lines, and expect lines must name real kernels: the file's
# line and column of the unknown name, like any other error in a case
printf 'task 1\n  mmap a\n' >"$tmp/noexpect.case"
run "$snafu" replay --check "$tmp/noexpect.case"
expect_error "replay --check without expect lines" "$tmp/noexpect.case:"
run "$snafu" replay --check --kernel=2.6.11 "$tmp/noexpect.case"
expect_error "replay --check --kernel without its expect line" "$tmp/noexpect.case:"
printf 'task 1\n  mmap a\nexpect nope ok\n' >"$tmp/nokernel.case"
run "$snafu" replay --check "$tmp/nokernel.case"
expect_error "replay --check, expect line with an unknown kernel" \
	"$tmp/nokernel.case:3:8: expected "

############################################################################
# 3. Output files: never half written.

mkdir "$tmp/outdir"
run "$snafu" show -o "$tmp/nodir/x.case" "${cases[0]}"
expect_error "show -o into a missing directory" "snafu: $tmp/nodir/x.case: "
check "show -o into a missing directory: no directory made" test ! -e "$tmp/nodir"
run "$snafu" show --bytes -o "$tmp/nodir/x.bin" "${cases[0]}"
expect_error "show --bytes -o into a missing directory" "snafu: $tmp/nodir/x.bin: "
check "show --bytes -o into a missing directory: no file" test ! -e "$tmp/nodir/x.bin"
run "$snafu" minimize -o "$tmp/nodir/x.case" "${cases[0]}"
expect_error "minimize -o into a missing directory" "snafu: $tmp/nodir/x.case: "
check "minimize -o into a missing directory: no file" test ! -e "$tmp/nodir/x.case"
# the minimized case's header counts in words: 1 preemption, 0 preemptions
run "$snafu" minimize -o - "$src/repro/cases/seed-testcase.case"
check "minimize: header '(12 ops, 1 preemption before; N runs ...)' (exit $rc)" \
	grep -qE '^# \(12 ops, 1 preemption before; [0-9]+ runs to minimize\)$' "$tmp/out"
run "$snafu" minimize -o - "$src/repro/cases/lockdep-futex-wait.case"
check "minimize: header '(3 ops, 0 preemptions before; N runs ...)' (exit $rc)" \
	grep -qE '^# \(3 ops, 0 preemptions before; [0-9]+ runs to minimize\)$' "$tmp/out"

# OUT is a directory: refused, the directory left alone
mkdir "$tmp/outdir/sub"
run "$snafu" show -o "$tmp/outdir/sub" "${cases[0]}"
expect_error "show -o onto a directory" "snafu: $tmp/outdir/sub: "
check "show -o onto a directory: still an empty directory" \
	test -d "$tmp/outdir/sub" -a -z "$(ls -A "$tmp/outdir/sub")"

# a malformed input leaves an existing OUT as it was
echo "precious" >"$tmp/outdir/keep.bin"
run "$snafu" show --bytes -o "$tmp/outdir/keep.bin" "$tmp/bad/unknown-op.case"
check "show --bytes -o over a file, bad input: exit 2 (got $rc)" test "$rc" = 2
check "show --bytes -o over a file, bad input: file kept" \
	test "$(cat "$tmp/outdir/keep.bin")" = precious
run "$snafu" show -o "$tmp/outdir/keep.bin" "$tmp/missing.case"
check "show -o over a file, missing input: file kept" \
	test "$(cat "$tmp/outdir/keep.bin")" = precious
no_stray_files "$tmp/outdir" "show -o after errors"

############################################################################
# 4. The saved cases: replay, and the text and byte forms round-tripping.

# expected KERNEL CASE: the verdict the case expects of KERNEL: its own expect line's,
# else its `expect *` line's
expected() {
	awk -v k="$1" '$1 == "expect" && $2 == k {own = $3} $1 == "expect" && $2 == "*" {any = $3}
		END {print own != "" ? own : any}' "$2"
}

for c in "${cases[@]}"; do
	name=$(basename "$c" .case)
	d="$tmp/case-$name"
	mkdir "$d"

	# every listed kernel (a saved case covers them all): a finding is a report and exit
	# 1, ok is exit 0; unfired is ok with a warning for the preemption that did not fire
	for k in $kernels; do
		want=$(expected "$k" "$c")
		check "$name [$k]: an expect line covers it" test -n "$want"
		run "$snafu" replay --kernel="$k" "$c"
		if [ "$want" = unfired ]; then
			check "$name [$k]: unfired: exit 0 (got $rc)" test "$rc" = 0
			check "$name [$k]: unfired: verdict ok" grep -q "\[$k\]: ok$" "$tmp/out"
			check "$name [$k]: unfired: a warning" grep -q "\[$k\]: warning: preempt .* did not fire" "$tmp/err"
			continue
		fi
		check "$name [$k]: nothing on stderr" test ! -s "$tmp/err"
		if [ "$want" = ok ]; then
			check "$name [$k]: exit 0 (got $rc)" test "$rc" = 0
			check "$name [$k]: no report" test "$(grep -c DEDUP_TOKEN "$tmp/out")" = 0
			check "$name [$k]: verdict ok" grep -q "\[$k\]: ok$" "$tmp/out"
		else
			check "$name [$k]: exit 1 (got $rc)" test "$rc" = 1
			check "$name [$k]: DEDUP_TOKEN is the expected $want" \
				grep -qx "DEDUP_TOKEN: $want" "$tmp/out"
			case "$want" in
			deadlock--do_page_fault--*)
				check "$name [$k]: report title" \
					grep -q "possible deadlock in do_page_fault" "$tmp/out"
				;;
			esac
		fi
	done
	run "$snafu" replay --check --quiet "$c"
	check "$name: replay --check: exit 0 (got $rc)" test "$rc" = 0

	# the canonical text: what show prints
	run "$snafu" show "$c"
	check "$name: show: exit 0 (got $rc)" test "$rc" = 0
	cp "$tmp/out" "$d/canon.case"
	# the byte form keeps no expect lines and no names: compare without them
	grep -v '^expect ' "$d/canon.case" >"$d/canon-noexpect.case"

	# text -> bytes -> text -> bytes: the same bytes
	run "$snafu" show --bytes -o "$d/b1.bin" "$c"
	check "$name: show --bytes: exit 0 (got $rc)" test "$rc" = 0
	check "$name: show --bytes: nothing on stdout or stderr" \
		test ! -s "$tmp/out" -a ! -s "$tmp/err"
	check "$name: show --bytes: a non-empty file" test -s "$d/b1.bin"
	run "$snafu" show "$d/b1.bin"
	check "$name: show of the bytes: exit 0 (got $rc)" test "$rc" = 0
	cp "$tmp/out" "$d/t2.case"
	run "$snafu" show --bytes -o "$d/b2.bin" "$d/t2.case"
	check "$name: show --bytes of the text of the bytes: exit 0 (got $rc)" test "$rc" = 0
	check "$name: text -> bytes -> text -> bytes gives the same bytes" \
		cmp -s "$d/b1.bin" "$d/b2.bin"

	# canonical text -> bytes -> text: the same text
	run "$snafu" show --bytes -o "$d/c1.bin" "$d/canon.case"
	check "$name: show --bytes of the canonical text: exit 0 (got $rc)" test "$rc" = 0
	check "$name: the canonical text encodes like the case" cmp -s "$d/b1.bin" "$d/c1.bin"
	run "$snafu" show "$d/c1.bin"
	if [ "$rc" = 0 ] && diff -u "$d/canon-noexpect.case" "$tmp/out" >"$d/diff"; then
		ok
	else
		bad "$name: canonical text -> bytes -> text differs (exit $rc)"
		sed -n '1,12s/^/    /p' "$d/diff"
	fi
	# show of the canonical text is the canonical text
	run "$snafu" show "$d/canon.case"
	check "$name: show is idempotent on text" cmp -s "$d/canon.case" "$tmp/out"

	# the byte form runs like the case, on every kernel: both in one process, without
	# LeakSanitizer (the loop above replayed the case on each kernel with it, and show
	# parsed the bytes with it), whose scan at exit costs more than most runs
	for k in $kernels; do
		ASAN_OPTIONS=${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0 \
			"$snafu" replay --quiet --digest --kernel="$k" "$c" "$d/b1.bin" >"$tmp/out" 2>&1
		a=$(awk -v f="$c" '$1 == f && $3 == "digest" {print $4, $6}' "$tmp/out")
		b=$(awk -v f="$d/b1.bin" '$1 == f && $3 == "digest" {print $4, $6}' "$tmp/out")
		check "$name [$k]: the byte form replays with the same digest ('$a' vs '$b')" \
			test -n "$a" -a "$a" = "$b"
	done
	no_stray_files "$d" "$name"
done

############################################################################
# 5. Pseudo-random byte files: behind the byte form's header they all decode, and the
#    forms settle after one canonicalization. The bytes come from a fixed-seed LCG.

mkdir "$tmp/rand"
hdr=$(printf 'tasks 2\n' | "$snafu" show --bytes -o - - | od -An -tx1 -N3 | tr -d ' \n')
if ! command -v python3 >/dev/null; then
	bad "python3 is needed to generate the random byte files"
else
	python3 - "$tmp/rand" "$hdr" <<'EOF'
import sys
out = sys.argv[1]
header = bytes.fromhex(sys.argv[2])
x = 20050223
def rnd():
    global x
    x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    return x >> 33
for i in range(60):
    n = [0, 1, 2, 9, 10, 17][i] if i < 6 else rnd() % 601
    style = rnd() % 3
    b = bytearray()
    for j in range(n):
        v = rnd() & 255
        if style == 1 and j % 8 == 1:
            v &= 0x1f  # mostly mmaps: more mappings to refer to
        b.append(v)
    with open("%s/r%02d.bin" % (out, i), "wb") as f:
        f.write(header + bytes(b) if n else b"")
EOF
fi
# digest FILE [SNAFU]: "DIGEST STEPS" of a quiet replay on 2.6.11-rc4
digest() {
	"${2:-$snafu}" replay --quiet --digest --kernel=2.6.11-rc4 "$1" 2>/dev/null |
		awk '$3 == "digest" {print $4, $6}'
}
nrand=0
for r in "$tmp"/rand/r*.bin; do
	[ -e "$r" ] || continue
	nrand=$((nrand + 1))
	name=$(basename "$r" .bin)
	d="$tmp/rand/$name.d"
	mkdir "$d"
	if [ ! -s "$r" ]; then
		# an empty file is no case: an error (text, with nothing in it), not a silent
		# "ok"; --input=bytes reads it as the byte form, which decodes every string
		run "$snafu" show "$r"
		expect_error "random $name (empty): show" "$r:1:1: expected "
		run "$snafu" show --input=bytes "$r"
		check "random $name (empty): show --input=bytes: exit 0 (got $rc)" test "$rc" = 0
		continue
	fi
	run "$snafu" show "$r"
	if [ "$rc" != 0 ] || [ -s "$tmp/err" ]; then
		bad "random $name ($(wc -c <"$r") bytes): show: exit $rc"
		show_output
		continue
	fi
	ok
	cp "$tmp/out" "$d/t1.case"
	# bytes -> bytes: settles at once
	run "$snafu" show --bytes -o "$d/e1.bin" "$r"
	check "random $name: show --bytes of the bytes: exit 0 (got $rc)" test "$rc" = 0
	run "$snafu" show --bytes -o "$d/e2.bin" "$d/e1.bin"
	check "random $name: bytes -> bytes -> bytes is a fixed point" cmp -s "$d/e1.bin" "$d/e2.bin"
	a=$(digest "$r")
	check "random $name: replays to a digest" test -n "$a"
	b=$(digest "$d/e1.bin")
	check "random $name: the re-encoded bytes replay with the same digest ('$a' vs '$b')" \
		test "$a" = "$b"
	# the other build (gcc, no sanitizers) runs the bytes the same way
	if [ -n "$other" ]; then
		o=$(digest "$r" "$other/snafu")
		check "random $name: the same digest in $other ('$a' vs '$o')" test "$a" = "$o"
	fi
	# bytes -> text -> bytes -> text: the text parses, encodes like the bytes, settles
	run "$snafu" show --bytes -o "$d/b1.bin" "$d/t1.case"
	if [ "$rc" != 0 ]; then
		bad "random $name: the text form of the bytes does not parse: $(head -n 1 "$tmp/err")"
		continue
	fi
	ok
	check "random $name: the text form encodes like the bytes" cmp -s "$d/e1.bin" "$d/b1.bin"
	run "$snafu" show "$d/b1.bin"
	check "random $name: bytes -> text -> bytes -> text is a fixed point" \
		cmp -s "$d/t1.case" "$tmp/out"
	b=$(digest "$d/t1.case")
	check "random $name: the text form replays with the same digest ('$a' vs '$b')" \
		test "$a" = "$b"
	no_stray_files "$d" "random $name"
done
check "random byte files: generated 60 (got $nrand)" test "$nrand" = 60

############################################################################
# 6. No silent wrong answers.

art=$src/repro/cases/futex-wait-mmap-sem.case
token=deadlock--do_page_fault--futex_wait
mkdir "$tmp/ten"
# replays_as_text WHAT CMD...: the run found the article's deadlock (the text case was
# read as text, not decoded as bytes into some program that runs "ok")
replays_as_text() {
	local what=$1
	shift
	run "$@"
	if [ "$rc" = 1 ] && grep -qx "DEDUP_TOKEN: $token" "$tmp/out"; then ok; else
		bad "$what: want exit 1 and $token, got exit $rc"
		show_output
	fi
}

# Text or bytes by content, not by name; - and /dev/stdin read standard input.
cp "$art" "$tmp/ten/x.txt"
cp "$art" "$tmp/ten/x.CASE"
replays_as_text "text case named x.txt" "$snafu" replay "$tmp/ten/x.txt"
replays_as_text "text case named x.CASE" "$snafu" replay "$tmp/ten/x.CASE"
replays_as_text "text case on - (a pipe)" sh -c 'cat "$2" | "$1" replay -' sh "$snafu" "$art"
check "replay -: the verdict names <stdin>" grep -q "^<stdin> \[2.6.11-rc4\]: $token" "$tmp/out"
replays_as_text "text case on /dev/stdin" sh -c '"$1" replay /dev/stdin <"$2"' sh "$snafu" "$art"
run sh -c '"$1" replay - - <"$2"' sh "$snafu" "$art"
check "replay - -: exit 2 (got $rc)" test "$rc" = 2
check "replay - -: says stdin is read already" grep -q "<stdin>: expected - once" "$tmp/err"
# show -o x.bin without --bytes writes text: it replays as the text it is
run "$snafu" show -o "$tmp/ten/x.bin" "$art"
check "show -o x.bin: exit 0 (got $rc)" test "$rc" = 0
replays_as_text "show -o x.bin (text), replayed" "$snafu" replay "$tmp/ten/x.bin"
# the byte form is bytes whatever its name, and show --bytes -o - feeds a pipe
run "$snafu" show --bytes -o "$tmp/ten/bytes.txt" "$art"
replays_as_text "byte form named bytes.txt" "$snafu" replay "$tmp/ten/bytes.txt"
replays_as_text "show --bytes -o - | replay -" \
	sh -c '"$1" show --bytes -o - "$2" | "$1" replay -' sh "$snafu" "$art"
run "$snafu" show --bytes -o "$tmp/ten/y.case" "$art"
expect_error "show --bytes -o y.case (would be read as text)" "snafu show: expected "
# a text case with a typo is an error with a hint, not a program decoded from its bytes
printf 'tsak 1\n  mmap a\n' >"$tmp/ten/typo.txt"
run "$snafu" replay "$tmp/ten/typo.txt"
expect_error "a typo'd text case named .txt" "$tmp/ten/typo.txt:1:1: expected "
check "the typo's error says --input=bytes" grep -q -- "--input=bytes" "$tmp/err"
# a UTF-8 byte-order mark marks text (docs/cases.md), and the parser skips it
printf '\357\273\277task 1\n  mmap a pages=1 prot=rw\n' >"$tmp/ten/bom.txt"
run "$snafu" replay --quiet "$tmp/ten/bom.txt"
check "a text case with a UTF-8 BOM replays (exit $rc)" grep -qx "$tmp/ten/bom.txt \[2.6.11-rc4\]: ok" "$tmp/out"
printf '\357\273\277task 1\n  mmap a pages=x\n' >"$tmp/ten/bom2.txt"
run "$snafu" replay "$tmp/ten/bom2.txt"
expect_error "a BOM, then an error: its line and column" "$tmp/ten/bom2.txt:2:16: expected pages"
printf '# \303\251t\303\251\ntask 1\n  mmap a\n  sleep 300\n' >"$tmp/ten/utf8.txt"
run "$snafu" replay "$tmp/ten/utf8.txt"
expect_error "a text case with UTF-8 in a comment" "$tmp/ten/utf8.txt:4:9: expected "
# names are what the grammar says, and no byte outside a comment is echoed raw
printf 'task 1\n  mmap a\033[31m pages=1\n' >"$tmp/ten/esc.case"
run "$snafu" replay "$tmp/ten/esc.case"
expect_error "a control byte inside a name" "$tmp/ten/esc.case:2:9: expected printable text, found byte 0x1b"
printf 'task 1\n  mmap a\303\251 pages=1\n' >"$tmp/ten/utf8name.case"
run "$snafu" replay "$tmp/ten/utf8name.case"
expect_error "non-ASCII inside a name" "$tmp/ten/utf8name.case:2:9: expected printable text, found byte 0xc3"
printf 'task 1\n  mmap a%%$,x pages=1\n' >"$tmp/ten/punct.case"
run "$snafu" replay "$tmp/ten/punct.case"
expect_error "punctuation in a name" "$tmp/ten/punct.case:2:8: expected a mapping name (a letter, then up to 30 letters, digits or _), found 'a%\$,x'"
printf 'task 1\n  mmap file_2 pages=1\n  store file_2 val=1\n' >"$tmp/ten/under.case"
run "$snafu" replay --quiet "$tmp/ten/under.case"
check "a name with _ and digits replays (exit $rc)" grep -q "under.case \[2.6.11-rc4\]: ok" "$tmp/out"
# --input forces either form
run "$snafu" show --input=bytes "$tmp/ten/x.txt"
expect_error "show --input=bytes on text: no byte form header" "$tmp/ten/x.txt: byte 0: expected the header"
run "$snafu" show --input text "$tmp/ten/bytes.txt"
expect_error "show --input text on bytes" "$tmp/ten/bytes.txt:1:1: expected "
run "$snafu" show --input=nope "$art"
expect_error "show --input=nope" "snafu: argument 2 '--input=nope': expected "

# A preemption that never fires, a --stop-at-step past the end: warnings, and --check
# calls the schedule's failure a MISMATCH.
sed 's/^preempt 1 at op 2 point 7 to 2$/preempt 1 at op 2 point 30 to 2/' "$art" >"$tmp/ten/late.case"
check "late.case has the late preemption" grep -q "point 30 to 2" "$tmp/ten/late.case"
# (the run is sequential: no deadlock, only lockdep's prediction, a finding all the same;
# with --oracles=deadlock, none)
run "$snafu" replay --kernel=2.6.11-rc4 "$tmp/ten/late.case"
check "unfired preemption: exit 1, lockdep's prediction (got $rc)" test "$rc" = 1
check "unfired preemption: the verdict is lockdep's" grep -q \
	"late.case \[2.6.11-rc4\]: lockdep--recursive-read--mmap_sem--futex_wait$" "$tmp/out"
check "unfired preemption: one line on stderr (got $(lines "$tmp/err"))" test "$(lines "$tmp/err")" = 1
check "unfired preemption: the warning names it and the op's points" grep -q \
	"late.case \[2.6.11-rc4\]: warning: preempt 1 at op 2 point 30 to 2 did not fire: task 1's op 2 has only 24 points" "$tmp/err"
run "$snafu" replay --no-schedule --kernel=2.6.11-rc4 "$tmp/ten/late.case"
check "unfired preemption, --no-schedule: no warning" test ! -s "$tmp/err"
run "$snafu" replay --oracles=deadlock --kernel=2.6.11-rc4 "$tmp/ten/late.case"
check "unfired preemption, --oracles=deadlock: exit 0, the run being sequential (got $rc)" test "$rc" = 0
check "unfired preemption, --oracles=deadlock: ok" grep -q "late.case \[2.6.11-rc4\]: ok$" "$tmp/out"
check "unfired preemption, --oracles=deadlock: the warning all the same" grep -q \
	"late.case \[2.6.11-rc4\]: warning: preempt 1 at op 2 point 30 to 2 did not fire" "$tmp/err"
printf 'task 1\n  mmap a\n  load a\ntask 2\n  mmap b\npreempt 1 at op 2 point 30 to 2\nexpect 2.6.11-rc4 ok\n' \
	>"$tmp/ten/late-ok.case"
run "$snafu" replay --check --quiet "$tmp/ten/late-ok.case"
check "replay --check, unfired preemption: exit 1 (got $rc)" test "$rc" = 1
check "replay --check, unfired preemption: MISMATCH" grep -q "\[2.6.11-rc4\]: ok, 1 of 1 preemption did not fire (expected ok) MISMATCH$" "$tmp/out"

# `expect KERNEL unfired`: the run ends ok and a preemption does not fire; `expect *`
# covers every listed kernel without a line of its own; a listed kernel with neither is
# a MISMATCH that says what to add.
sed 's/^expect 2.6.11-rc4 ok$/expect 2.6.11-rc4 unfired/' "$tmp/ten/late-ok.case" >"$tmp/ten/unfired.case"
run "$snafu" replay --check --quiet --kernel=2.6.11-rc4 "$tmp/ten/unfired.case"
check "replay --check, expect unfired: exit 0 (got $rc)" test "$rc" = 0
check "replay --check, expect unfired: PASS" grep -q "\[2.6.11-rc4\]: ok, 1 of 1 preemption did not fire (expected unfired) PASS$" "$tmp/out"
run "$snafu" replay --check --quiet "$tmp/ten/unfired.case"
check "replay --check, kernels without an expect line: exit 1 (got $rc)" test "$rc" = 1
check "replay --check: one verdict line per listed kernel" \
	test "$(grep -c ' \(PASS\|MISMATCH\)$' "$tmp/out")" = "$(wc -w <<<"$kernels")"
check "replay --check, no expect line: the MISMATCH says what to add" grep -q \
	"unfired.case \[2.6.11\]: ok, 1 of 1 preemption did not fire (no expect line for 2.6.11: add 'expect 2.6.11 unfired', or an 'expect \* VERDICT' line) MISMATCH$" "$tmp/out"
# --kernel=K alone judges K as the run over every kernel does: a listed kernel with
# neither line is the same MISMATCH (exit 1), for every listed kernel
for k in $kernels; do
	[ "$k" = 2.6.11-rc4 ] && continue
	run "$snafu" replay --check --quiet --kernel="$k" "$tmp/ten/unfired.case"
	check "replay --check --kernel=$k, no expect line: exit 1 (got $rc)" test "$rc" = 1
	check "replay --check --kernel=$k, no expect line: one MISMATCH line saying so" \
		test "$(grep -c "^$tmp/ten/unfired.case \[$k\]: .* (no expect line for $k: add 'expect $k .*', or an 'expect \* VERDICT' line) MISMATCH\$" "$tmp/out")" = 1
	check "replay --check --kernel=$k, no expect line: no usage error on stderr" \
		test -z "$(grep -F "unfired.case: no expect line" "$tmp/err")"
done
printf 'expect * unfired\n' >>"$tmp/ten/unfired.case"
run "$snafu" replay --check --quiet "$tmp/ten/unfired.case"
check "replay --check, expect * unfired: exit 0 (got $rc)" test "$rc" = 0
check "replay --check, expect * unfired: every listed kernel PASS" \
	test "$(grep -c ' PASS$' "$tmp/out")" = "$(wc -w <<<"$kernels")"
run "$snafu" show "$tmp/ten/unfired.case"
check "show prints expect * back" grep -qx 'expect \* unfired' "$tmp/out"
check "show prints expect KERNEL unfired back" grep -qx 'expect 2.6.11-rc4 unfired' "$tmp/out"
printf 'expect * ok\n' >>"$tmp/ten/unfired.case"
run "$snafu" replay --check "$tmp/ten/unfired.case"
expect_error "two expect * lines" "$tmp/ten/unfired.case:9:8: expected one expect line per kernel"
# unfired where the preemption fires, and the fired case's own verdict: MISMATCH
sed -n '/^task/,$p' "$art" | grep -v '^expect' >"$tmp/ten/fires.case"
# (2.6.10-seto reads the word under mmap_sem as 2.6.11-rc4 does: the same deadlock)
printf 'expect 2.6.11-rc4 unfired\nexpect olof-rfc %s\nexpect 2.6.10-seto deadlock--do_page_fault--futex_wait\nexpect * ok\n' \
	lockdep--recursive-read--mmap_sem--futex_wait >>"$tmp/ten/fires.case"
run "$snafu" replay --check --quiet "$tmp/ten/fires.case"
check "replay --check, unfired where it fires: exit 1 (got $rc)" test "$rc" = 1
check "replay --check, unfired where it fires: MISMATCH" grep -q \
	"\[2.6.11-rc4\]: deadlock--do_page_fault--futex_wait (expected unfired) MISMATCH$" "$tmp/out"
check "replay --check, their own lines: PASS" grep -q \
	"\[olof-rfc\]: lockdep--recursive-read--mmap_sem--futex_wait (expected lockdep--recursive-read--mmap_sem--futex_wait) PASS$" "$tmp/out"
check "replay --check, their own lines: 2.6.10-seto PASS" grep -q \
	"\[2.6.10-seto\]: deadlock--do_page_fault--futex_wait (expected deadlock--do_page_fault--futex_wait) PASS$" "$tmp/out"
# what a kernel without a line of its own gives is its verdict, not this test's: each is
# judged by expect *, and 2.6.11 (the merged fix) passes it
check "replay --check, expect * ok: every kernel without a line of its own judged by it" \
	test "$(grep -c '(expected ok) \(PASS\|MISMATCH\)$' "$tmp/out")" = "$(($(wc -w <<<"$kernels") - 3))"
check "replay --check, expect * ok: 2.6.11 PASS" grep -q "\[2.6.11\]: ok (expected ok) PASS$" "$tmp/out"
run "$snafu" replay --check --quiet --kernel=2.6.11 "$tmp/ten/fires.case"
check "replay --check --kernel, covered by expect *: PASS" grep -q "\[2.6.11\]: ok (expected ok) PASS$" "$tmp/out"
run "$snafu" replay --check --quiet --kernel=test-futex-wake-unlocked "$tmp/ten/fires.case"
expect_error "replay --check --kernel=TEST-ONLY: expect * covers listed kernels only" \
	"$tmp/ten/fires.case: no expect line for kernel test-futex-wake-unlocked"
# a finding with a preemption that does not fire: no expect line fits
printf 'preempt 2 at op 1 point 31 to 1\n' >>"$tmp/ten/fires.case"
run "$snafu" replay --check --quiet "$tmp/ten/fires.case"
check "replay --check, a finding with an unfired preemption: MISMATCH" grep -q \
	"\[2.6.11-rc4\]: deadlock--do_page_fault--futex_wait, 1 of 2 preemptions did not fire (expected unfired) MISMATCH$" "$tmp/out"
grep -v '^expect' "$tmp/ten/fires.case" >"$tmp/ten/nofit.case"
run "$snafu" replay --check --quiet "$tmp/ten/nofit.case"
check "replay --check without expect lines: exit 2 (got $rc)" test "$rc" = 2
run "$snafu" replay --check --quiet --kernel=2.6.11 "$tmp/ten/nofit.case"
expect_error "replay --check --kernel without expect lines: as without --kernel" \
	"$tmp/ten/nofit.case: expected 'expect KERNEL VERDICT' lines for --check"
printf 'expect 2.6.11 ok\n' >>"$tmp/ten/nofit.case"
run "$snafu" replay --check --quiet "$tmp/ten/nofit.case"
check "replay --check, no expect line and none fits: MISMATCH, saying so" grep -q \
	"\[2.6.11-rc4\]: deadlock--do_page_fault--futex_wait, 1 of 2 preemptions did not fire (no expect line for 2.6.11-rc4, and none fits a finding with an unfired preemption: change the schedule) MISMATCH$" "$tmp/out"
run "$snafu" replay --check --quiet --kernel=2.6.11-rc4 "$tmp/ten/nofit.case"
check "replay --check --kernel, no expect line and none fits: exit 1 (got $rc)" test "$rc" = 1
check "replay --check --kernel, no expect line and none fits: the same MISMATCH" grep -q \
	"\[2.6.11-rc4\]: deadlock--do_page_fault--futex_wait, 1 of 2 preemptions did not fire (no expect line for 2.6.11-rc4, and none fits a finding with an unfired preemption: change the schedule) MISMATCH$" "$tmp/out"
run "$snafu" replay --quiet --stop-at-step=100000 "$art"
check "--stop-at-step past the end: exit 1, the finding (got $rc)" test "$rc" = 1
check "--stop-at-step past the end: the warning gives the run's steps" grep -q \
	"warning: --stop-at-step=100000 never came: the run has 28 steps" "$tmp/err"

# -o writes onto a regular file or a new name only
mkfifo "$tmp/ten/fifo"
touch "$tmp/ten/target"
ln -s target "$tmp/ten/link"
ln -s target "$tmp/ten/link.html"
run "$snafu" show -o "$tmp/ten/fifo" "$art"
expect_error "show -o FIFO" "snafu: $tmp/ten/fifo: expected a regular file or a new name"
check "show -o FIFO: still a FIFO" test -p "$tmp/ten/fifo"
run "$snafu" show --bytes -o "$tmp/ten/link" "$art"
expect_error "show --bytes -o symlink" "snafu: $tmp/ten/link: expected a regular file or a new name"
check "show -o symlink: still a link, its target empty" test -L "$tmp/ten/link" -a ! -s "$tmp/ten/target"
run "$snafu" minimize -o "$tmp/ten/fifo" "$art"
expect_error "minimize -o FIFO" "snafu: $tmp/ten/fifo: expected a regular file or a new name"
run "$snafu" trace -o "$tmp/ten/link.html" "$art"
expect_error "trace -o symlink" "snafu: $tmp/ten/link.html: expected a regular file or a new name"
check "trace -o symlink: still a link" test -L "$tmp/ten/link.html" -a ! -s "$tmp/ten/target"
if command -v python3 >/dev/null; then
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/ten/sock"
	run "$snafu" show -o "$tmp/ten/sock" "$art"
	expect_error "show -o socket" "snafu: $tmp/ten/sock: expected a regular file or a new name"
	check "show -o socket: still a socket" test -S "$tmp/ten/sock"
fi
run "$snafu" show -o - "$art"
check "show -o -: the text on stdout" grep -q "^preempt 1 at op 2 point 7 to 2$" "$tmp/out"
no_stray_files "$tmp/ten" "-o refusals"

# Options anywhere, GNU style; -- ends them; --NAME VALUE; -h on every command.
run "$snafu" replay "$art" --kernel=2.6.11
check "replay CASE --kernel=2.6.11: exit 0 (got $rc)" test "$rc" = 0
check "replay CASE --kernel=2.6.11: one verdict, on 2.6.11" \
	test "$(grep -c '\]: ' "$tmp/out")" = 1 -a "$(grep -c '\[2.6.11\]: ok$' "$tmp/out")" = 1
run "$snafu" replay "$art" --kernel 2.6.11 --quiet
check "replay CASE --kernel 2.6.11 --quiet: exit 0 (got $rc)" test "$rc" = 0 -a ! -s "$tmp/err"
run "$snafu" replay --check "$art" --quiet --kernel 2.6.11
check "replay --check CASE --quiet --kernel 2.6.11: PASS" grep -q "\[2.6.11\]: ok (expected ok) PASS" "$tmp/out"
run "$snafu" show "$art" -o "$tmp/ten/after.case" --no-schedule
check "show CASE -o OUT --no-schedule: exit 0 (got $rc)" test "$rc" = 0
check "show CASE -o OUT --no-schedule: no preemption" test -s "$tmp/ten/after.case" -a \
	"$(grep -c '^preempt' "$tmp/ten/after.case")" = 0
run "$snafu" show "$art" -o"$tmp/ten/glued.case"
check "show CASE -oOUT: written" test "$rc" = 0 -a -s "$tmp/ten/glued.case"
run "$snafu" trace "$art" --kernel 2.6.11 -o "$tmp/ten/t.json"
check "trace CASE --kernel 2.6.11 -o t.json: exit 0 (got $rc)" test "$rc" = 0 -a -s "$tmp/ten/t.json"
cp "$art" "$tmp/ten/-dash.case"
run sh -c 'cd "$2" && "$1" replay --kernel=2.6.11 -- -dash.case' sh "$snafu" "$tmp/ten"
check "replay -- -dash.case: the file (exit $rc)" test "$rc" = 0
check "replay -- -dash.case: its verdict" grep -q "dash.case \[2.6.11\]: ok" "$tmp/out"
run "$snafu" replay "$art" --kernel
expect_error "replay CASE --kernel (no value)" "snafu: argument 3 '--kernel': expected a value"
run "$snafu" replay "$art" --frob
expect_error "replay CASE --frob: its position" "snafu: argument 3 '--frob': expected "
run "$snafu" replay "$art" --repeat 0
expect_error "replay CASE --repeat 0: its position" "snafu: argument 3 '--repeat=0': expected "
for cmd in kernels replay record minimize stress trace show fuzz evaluate; do
	for h in -h --help; do
		run "$snafu" "$cmd" "$art" $h
		check "$cmd ... $h: exit 0 (got $rc)" test "$rc" = 0
		check "$cmd ... $h: its help" grep -q "^usage: snafu $cmd" "$tmp/out"
	done
done
run "$snafu" --version
check "--version: exit 0 (got $rc)" test "$rc" = 0
check "--version: snafu VERSION" grep -qx "snafu [0-9][0-9.]*" "$tmp/out"
run "$snafu" --version extra
expect_error "--version extra" "snafu: argument 2 'extra': expected nothing after --version"
check "--version extra: see snafu --help" grep -q " (see snafu --help)\$" "$tmp/err"
# snafu ops: plain text (no markdown quotes), each-page too
run "$snafu" ops
check "ops: exit 0 (got $rc)" test "$rc" = 0
check "ops: no markdown quotes" test -z "$(grep -F '`' "$tmp/out")"
check "ops: each-page" grep -q "^each-page\$" "$tmp/out"
# -o onto an existing file keeps its mode
"$snafu" show -o "$tmp/mode.case" "$src/repro/cases/lockdep-futex-wait.case"
chmod 640 "$tmp/mode.case"
run "$snafu" show --no-schedule -o "$tmp/mode.case" "$src/repro/cases/lockdep-futex-wait.case"
check "-o onto an existing file keeps its mode ($(stat -c %a "$tmp/mode.case"))" test "$(stat -c %a "$tmp/mode.case")" = 640

# --oracles=LIST (docs/oracles.md): what counts as a finding, for replay and minimize
abs=$src/repro/cases/futex-absorbed-wakeup.case
run "$snafu" replay --quiet --kernel=2.6.11 "$abs"
check "replay, default oracles: the lost wake-up (exit $rc)" \
	grep -qx "$abs \[2.6.11\]: lost-wakeup--absorbed--futex_wait" "$tmp/out"
run "$snafu" replay --quiet --kernel=2.6.11 --oracles=deadlock,result "$abs"
check "replay --oracles=deadlock,result: ok, exit 0 (got $rc)" test "$rc" = 0
check "replay --oracles=deadlock,result: ok" grep -qx "$abs \[2.6.11\]: ok" "$tmp/out"
run "$snafu" replay --quiet --kernel=2.6.11-rc4 --oracles lost-wakeup,result "$art"
check "replay --oracles LIST: a deadlock is no finding without the deadlock oracle (exit $rc)" \
	grep -qx "$art \[2.6.11-rc4\]: ok" "$tmp/out"
run "$snafu" replay --quiet --kernel=2.6.11-rc4 --oracles=all "$art"
check "replay --oracles=all (exit $rc)" grep -qx "$art \[2.6.11-rc4\]: deadlock--do_page_fault--futex_wait" "$tmp/out"
for bad_list in nope "" deadlock,nope lost_wakeup; do
	run "$snafu" replay --oracles="$bad_list" "$art"
	expect_error "replay --oracles='$bad_list'" "snafu: argument 2 '--oracles=$bad_list': expected --oracles=LIST with LIST names among deadlock,lost-wakeup,result"
done
run "$snafu" minimize --kernel=2.6.11 --oracles=lost-wakeup -o "$tmp/ten/lw.case" "$abs"
check "minimize --oracles=lost-wakeup: exit 0 (got $rc)" test "$rc" = 0
check "minimize --oracles=lost-wakeup: the token kept" grep -qx "# lost-wakeup--absorbed--futex_wait" "$tmp/ten/lw.case"
check "minimize --oracles=lost-wakeup: the replay line names them" \
	grep -q "^# replay: build/bin/snafu replay --kernel=2.6.11 --oracles=lost-wakeup " "$tmp/ten/lw.case"
check "minimize --oracles=lost-wakeup: expect 2.6.11" grep -qx "expect 2.6.11 lost-wakeup--absorbed--futex_wait" "$tmp/ten/lw.case"
run "$snafu" minimize --kernel=2.6.11 -o "$tmp/ten/lw2.case" "$abs"
check "minimize, default oracles: no --oracles on the replay line" \
	grep -q "^# replay: build/bin/snafu replay --kernel=2.6.11 $tmp/ten/lw2.case" "$tmp/ten/lw2.case"
run "$snafu" minimize --kernel=2.6.11 --oracles=deadlock -o "$tmp/ten/none.case" "$abs"
check "minimize --oracles=deadlock on a lost wake-up: exit 2 (got $rc)" test "$rc" = 2
check "minimize --oracles=deadlock: no finding to keep" grep -q "expected an input with a finding on 2.6.11" "$tmp/err"

# Names in error lines are cut at 64 bytes
long=$(head -c 100000 /dev/zero | tr '\0' k)
run "$snafu" replay --kernel="$long" "$art"
expect_error "replay --kernel=<100 KB>" "snafu: unknown kernel 'kkkk"
check "replay --kernel=<100 KB>: a short line ($(wc -c <"$tmp/err") bytes)" test "$(wc -c <"$tmp/err")" -lt 400
check "replay --kernel=<100 KB>: cut with ..." grep -q "k\.\.\.'" "$tmp/err"
run "$snafu" replay "--frob$long" "$art"
expect_error "replay --frob<100 KB>" "snafu: argument 2 '--frob"
check "replay --frob<100 KB>: a short line" test "$(wc -c <"$tmp/err")" -lt 400
printf 'task 1\n  %s\n' "$long" >"$tmp/ten/longword.case"
run "$snafu" show "$tmp/ten/longword.case"
expect_error "a 100 KB word in a case" "$tmp/ten/longword.case:2:3: expected "
check "a 100 KB word: cut with ..." grep -q "k\.\.\.'" "$tmp/err"

# --- record's and replay's --help say what is new, and list every flag ---------------------
# record: its commands run the -O0 debug build (./build.sh debug, build-debug/); replay: the
# report's Call Trace and lock state, --trace's source column; snafu --help says the same.
# The flags each takes are read from its parser (tools/snafu.c's cmd_replay(),
# tools/record.c's cmd_record()): its --help lists every one of them and no other, and
# every flag listed is taken (run with it, no usage error).
flags_parsed() { # flags_parsed FILE FUNCTION: the --flags FUNCTION compares its arguments with
	awk -v f="$2" '$0 ~ "^(static )?int " f "\\(" && !/;$/ {on = 1} on && /^}/ {on = 0} on' "$1" |
		grep -oE '"--[a-z-]+=?"' | tr -d '"=' | sort -u | tr '\n' ' '
}
flags_listed() { # flags_listed CMD: the --flags on the option lines of CMD's --help
	"$snafu" "$1" --help | grep -oE '^      --[a-z-]+' | tr -d ' ' | sort -u | tr '\n' ' '
}
for c in "replay $src/tools/snafu.c" "record $src/tools/record.c"; do
	set -- $c
	parsed=$(flags_parsed "$2" "cmd_$1") listed=$(flags_listed "$1")
	check "$1: flags found in cmd_$1() ($parsed)" test -n "$parsed"
	check "$1 --help lists every flag it takes and no other: listed '$listed', taken '$parsed'" \
		test "$parsed" = "$listed"
done
art=$src/repro/cases/futex-wait-mmap-sem.case
for f in --kernel=2.6.11 --check --repeat=2 --digest --trace --no-schedule --oracles=deadlock \
	--quiet --stop-at-step=100000; do
	grep -q -- "${f%%=*}" <<<"$(flags_listed replay)" || bad "replay: $f not in its --help"
	run "$snafu" replay "$f" "$art"
	check "replay $f: taken (exit $rc: 0 or 1)" test "$rc" -le 1 -a -z "$(grep 'expected' "$tmp/err")"
done
SNAFU_RR=/nonexistent/rr SNAFU_GDB=/nonexistent/gdb run "$snafu" record --kernel=2.6.11-rc4 "$art"
check "record --kernel=NAME: taken (exit $rc: 3, the fallback)" test "$rc" = 3
run "$snafu" record --help
check "record --help: the -O0 debug build" grep -q -- "-O0 debug build, build-debug/bin/snafu" "$tmp/out"
check "record --help: ./build.sh debug" grep -q "(./build.sh debug makes it" "$tmp/out"
run "$snafu" replay --help
check "replay --help: the report's Call Trace" grep -q "locks held and Call Trace" "$tmp/out"
check "replay --help: the lock state" grep -q "each rwsem's lock state (activity, wait_list)" "$tmp/out"
check "replay --help: --trace's source column" grep -q "its 2.6.11 source (file:function" "$tmp/out"
run "$snafu" --help
for what in "-O0 debug build" "./build.sh debug" "Call Trace" "lock state" "2.6.11 source (file:function"; do
	check "snafu --help: $what" grep -qF -- "$what" "$tmp/out"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
