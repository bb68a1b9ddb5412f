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
