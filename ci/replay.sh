#!/usr/bin/env bash
# Every saved case (repro/cases/*.case) against every listed kernel (`snafu kernels`) and
# every test-only kernel its expect lines name, in two builds: ASan+UBSan (build/bin/snafu)
# and ThreadSanitizer (build-tsan/bin/snafu). A case fails when a verdict differs from its
# expect line (its own, or `expect *`), when a listed kernel has neither, when snafu cannot
# run it (exit 2 and up: bad input, a sanitizer report), or when one of those kernels gives
# no verdict line.
#
#   ci/replay.sh [CASE...]        (default: repro/cases/*.case)
#
# Builds a missing flavour with ./build.sh (asan, tsan). Exit: 0 every verdict as
# expected, 1 a mismatch or a failure (each printed, then a summary).
# Environment: SNAFU_BIN (default build/bin), SNAFU_TSAN_BIN (default build-tsan/bin);
# when set, nothing is built.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 atexit_sleep_ms=0"

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=("$root"/repro/cases/*.case)

builds=("asan|${SNAFU_BIN:-$root/build/bin}|${SNAFU_BIN:+given}"
	"tsan|${SNAFU_TSAN_BIN:-$root/build-tsan/bin}|${SNAFU_TSAN_BIN:+given}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=() fails=() failed=0

for b in "${builds[@]}"; do
	IFS='|' read -r flavour dir given <<<"$b"
	if [ ! -x "$dir/snafu" ]; then
		if [ -n "$given" ]; then
			echo "ci/replay.sh: no snafu in $dir" >&2
			summary+=("$flavour: no build at $dir")
			failed=$((failed + 1))
			continue
		fi
		env -u LIB_FUZZING_ENGINE "$root/build.sh" "$flavour" || {
			summary+=("$flavour: ./build.sh $flavour failed")
			failed=$((failed + 1))
			continue
		}
	fi
	pass=0 bad=0
	for c in "${cases[@]}"; do
		shown=${c#"$root"/}
		# the listed kernels and those its expect lines name (`expect *` covers the
		# listed ones without a line of their own)
		want=$({
			"$dir/snafu" kernels | awk '{print $1}'
			awk '$1 == "expect" && $2 != "*" {print $2}' "$c"
		} | sort -u)
		if ! awk '$1 == "expect" {found = 1} END {exit !found}' "$c"; then
			echo "ci/replay.sh: [$flavour] $shown: no expect lines" >&2
			fails+=("[$flavour] $shown: no expect lines")
			bad=$((bad + 1))
			continue
		fi
		"$dir/snafu" replay --check --quiet "$c" >"$tmp/out" 2>&1
		rc=$?
		# the kernels that gave a verdict line, as expected or not
		got=$(sed -n 's/^.* \[\([^]]*\)\]: .* \(PASS\|MISMATCH\)$/\1/p' "$tmp/out" | sort -u)
		while read -r line; do
			echo "ci/replay.sh: [$flavour] $line"
			fails+=("[$flavour] $line")
			bad=$((bad + 1))
		done < <(grep ' MISMATCH$' "$tmp/out")
		pass=$((pass + $(grep -c ' PASS$' "$tmp/out")))
		missing=$(comm -23 <(echo "$want") <(echo "$got") | tr '\n' ' ')
		if [ $rc -gt 1 ] || [ -n "$missing" ]; then
			echo "ci/replay.sh: [$flavour] $shown: snafu replay --check exit $rc; no verdict for:" \
				"${missing:-none}" >&2
			grep -v ' PASS$' "$tmp/out" | head -20 | sed 's/^/    /' >&2
			fails+=("[$flavour] $shown: exit $rc, no verdict for: ${missing:-none}")
			bad=$((bad + 1))
		elif [ $rc = 1 ] && ! grep -q ' MISMATCH$' "$tmp/out"; then
			echo "ci/replay.sh: [$flavour] $shown: exit 1 without a MISMATCH line" >&2
			fails+=("[$flavour] $shown: exit 1 without a MISMATCH line")
			bad=$((bad + 1))
		fi
	done
	summary+=("$flavour ($dir/snafu): ${#cases[@]} cases, $pass verdicts as expected, $bad mismatches or failures")
	failed=$((failed + bad))
done

echo
echo "ci/replay.sh summary:"
printf '  %s\n' "${summary[@]}"
if [ $failed -gt 0 ]; then
	[ ${#fails[@]} -gt 0 ] && printf '  failed: %s\n' "${fails[@]}"
	echo "ci/replay.sh: FAILED ($failed)"
	exit 1
fi
echo "ci/replay.sh: every case gives every listed kernel the verdict its expect lines say, in both builds"
