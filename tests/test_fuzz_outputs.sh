#!/usr/bin/env bash
# Nothing lost: snafu fuzz checks every directory a result goes to before the
# first execution (--found a regular file, or under one; --merge-into missing: one line,
# exit 2, nothing run); --merge-into=DIR merges (and says nothing of leaving it as it
# is), unless --no-merge says not to; a second run into a --out in use is refused
# ("in use by pid N"); an interrupted --fork run counts what ran and saves what it
# found; a result that cannot be written (here: under a
# file-size limit, the report on standard output) fails the run with exit 2 and a line,
# and no file is left half written; the commands printed for a finding paste into a
# shell when the path has a space in it.
#
#   bash tests/test_fuzz_outputs.sh BIN_DIR SRC_DIR
set -u
. "$(dirname "$0")/lib.sh"
setup_test --fuzzer "$@" # $snafu, $tmp
cd "$tmp" || exit 2
refused() { # refused WHAT LINE: exit 2, that one line, no fuzzer run
	if [ "$rc" = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -qxF "$2" err && [ ! -e o/2.6.12-jj/fuzz.log ]; then ok; else
		bad "$1: want exit 2 and '$2' before any run, got exit $rc:"
		sed 's/^/    /' err | head -5
	fi
}

: >afile
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=o --found=afile
refused "--found a regular file" "snafu fuzz: afile (--found): cannot write there: Not a directory"
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=o --found=afile/found
refused "--found under a regular file" "snafu fuzz: afile/found (--found): cannot write there: Not a directory"
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=afile/o
refused "--out under a regular file" "snafu fuzz: afile/o (--out): cannot write there: Not a directory"
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=o --merge --merge-into="$tmp/none/d"
refused "--merge-into a missing directory" "snafu fuzz: $tmp/none/d (--merge-into): cannot merge into: No such file or directory"
mkdir named
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=o --no-merge --merge-into=named
check "--no-merge with --merge-into: no merge (exit $rc)" test "$rc" = 0 -a -z "$(ls named)"
check "--no-merge with --merge-into: DIR named" grep -q "^fuzz: named left as it is" err

mkdir corpus
run "$snafu" fuzz --kernel=2.6.12-jj --seed=1 --runs=2000 --out=o --merge-into=corpus
check "--merge-into alone merges: exit 0 (got $rc)" test "$rc" = 0
check "--merge-into alone merges: the line" grep -qE "^fuzz: merged [1-9][0-9]* new inputs into corpus " err
check "--merge-into alone merges: the files" test -n "$(ls corpus)"
check "--merge-into: nothing said of leaving it as it is" test -z "$(grep "left as it is" err)"

# a finding whose report cannot be written whole: the run says so and exits 2
rm -rf o f
(
	trap '' XFSZ
	ulimit -f 2
	"$snafu" fuzz --kernel=2.6.11-rc4 --oracles=deadlock --seed=1 --runs=20000 --fresh \
		--out=o --found=f >out 2>err
	echo $? >rc
)
rc=$(cat rc)
check "a write that fails: exit 2 (got $rc)" test "$rc" = 2
check "a write that fails: a line says so" grep -q "cannot write: File too large" err
check "a write that fails: no temporary left" test -z "$(find f o -name '*.tmp' 2>/dev/null)"

# two runs into one --out: the second is refused while the first runs
rm -rf o
"$snafu" fuzz --kernel=2.6.12-jj --runs=100000000 --out=o --found=f >first.out 2>&1 &
first=$!
for _ in $(seq 100); do [ -s o/.lock ] && break; sleep 0.1; done
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=o --found=f
check "a second run into the same --out: exit 2 (got $rc)" test "$rc" = 2
check "a second run into the same --out: in use by pid $first" grep -qx "snafu fuzz: o: in use by pid $first (another snafu fuzz or evaluate)" err
kill -TERM $first
wait $first
run "$snafu" fuzz --kernel=2.6.12-jj --runs=10 --out=o --found=f
check "once the first has ended, the next runs (exit $rc)" test "$rc" = 0

# --fork interrupted: it counts what ran, and what it found is saved where the next run
# does not empty it (FOUND/KERNEL/SIGNATURE.input, not minimized)
rm -rf o f
"$snafu" fuzz --fork --jobs=2 --kernel=2.6.11-rc4 --seconds=120 --out=o --found=f >fork.out 2>fork.err &
forked=$!
for _ in $(seq 150); do ls o/2.6.11-rc4/crash-* >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1
kill -TERM $forked
wait $forked
rc=$?
check "--fork interrupted: exit 130 (got $rc)" test "$rc" = 130
check "--fork interrupted: the executions counted, or said not to be yet" \
	grep -qE "^fuzz: interrupted (after [1-9][0-9]* executions on 2.6.11-rc4|on 2.6.11-rc4 before fork mode counted any executions)" fork.err
check "--fork interrupted: never 'after 0 executions'" test -z "$(grep "after 0 executions" fork.err)"
check "--fork interrupted: the findings saved" test -n "$(ls f/2.6.11-rc4/*.input 2>/dev/null)"
check "--fork interrupted: each said" grep -qE "^fuzz: 2.6.11-rc4: lockdep--[^ ]* saved, not minimized: f/2.6.11-rc4/" fork.err

# the commands printed for a finding paste into a shell, whatever the path
rm -rf o "my dir"
mkdir "my dir"
run "$snafu" fuzz --kernel=2.6.11-rc4 --oracles=deadlock --seed=1 --runs=20000 --fresh --out=o \
	--found="$tmp/my dir/found"
check "a --found with a space: exit 1 (got $rc)" test "$rc" = 1
line=$(sed -n 's/^reproduce with: //p' out | head -1)
check "the reproduce line quotes the path: '$line'" grep -q "'my dir/found/" <<<"$line"
(eval "$line") >paste.out 2>&1
check "the reproduce line, pasted, replays the deadlock" grep -q "^DEDUP_TOKEN: deadlock--" paste.out
line=$(sed -n 's/^picture it with: //p' out | head -1)
(eval "$line") >paste.out 2>&1
check "the picture line, pasted, writes the picture" test -s "my dir/found/2.6.11-rc4/$(ls "my dir/found/2.6.11-rc4" | grep '\.case$' | grep -v confirmed | head -1).html"

# --- the fuzzer's log past a file-size limit -------------------------------------------
# The driver copies the fuzzer's output into OUT/KERNEL/fuzz.log itself, every write
# checked: past `ulimit -f 1` (SIGXFSZ ignored, as the shell's trap '' XFSZ does) the
# log's write fails, one line names the log and what failed, the run exits 2, the log is
# whole or not there, and the findings are still sorted, saved and counted: the
# executions come from the fuzzer's output, not from a cut log ("?" before). Standard
# output and error go to a pipe, to a cat outside the limit. From an empty corpus: the
# list of seed inputs the run prepares (OUT/KERNEL/seeds.txt) grows with corpus/ and
# would meet the limit before the log does.
rm -rf o f
(
	trap '' XFSZ
	ulimit -f 1
	"$snafu" fuzz --kernel=2.6.11-rc4 --seed=1 --jobs=1 --runs=20000 --fresh --empty --out=o --found=f
	echo $? >rc
) 2>&1 | cat >xfsz.out
rc=$(cat rc)
check "fuzz.log past the limit: exit 2 (got $rc)" test "$rc" = 2
check "fuzz.log past the limit: one line names it and what failed" grep -qE \
	"^snafu fuzz: o/2\.6\.11-rc4/fuzz\.log: cannot write: File too large after [0-9]+ bytes; removed \(a file is whole or not there\)\$" xfsz.out
check "fuzz.log past the limit: whole or not there" test ! -e o/2.6.11-rc4/fuzz.log
check "fuzz.log past the limit: the finding saved" test -n "$(ls f/2.6.11-rc4/*.case f/2.6.11-rc4/*.input 2>/dev/null)"
check "fuzz.log past the limit: its executions counted" grep -qE \
	"^fuzz: 2\.6\.11-rc4: finding after [0-9]+ executions" xfsz.out
check "fuzz.log past the limit: no '?' in the table" grep -qE "^2\.6\.11-rc4 +[0-9]+ " xfsz.out
check "fuzz.log past the limit: no temporary left" test -z "$(find f o -name '*.tmp' 2>/dev/null)"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
