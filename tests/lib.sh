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
