#!/usr/bin/env bash
# Every saved case, on every kernel: 100 replays give one trace digest, and the digest
# is the same in this build and in the other flavour's build (gcc without sanitizers).
set -euo pipefail
bin=$1 src=$2 other=${3:-}
kernels=$("$bin/snafu" kernels | awk '{print $1}')
fail=0 n=0
for c in "$src"/repro/cases/*.case; do
	for k in $kernels; do
		a=$("$bin/snafu" replay --quiet --repeat=100 --digest --kernel="$k" "$c" | grep digest || true)
		if [ -z "$a" ]; then
			echo "FAIL: $c [$k]: no stable digest over 100 runs"; fail=$((fail + 1)); continue
		fi
		if [ -n "$other" ]; then
			b=$("$other/snafu" replay --quiet --digest --kernel="$k" "$c" | grep digest || true)
			da=$(echo "$a" | awk '{print $4}') db=$(echo "$b" | awk '{print $4}')
			if [ "$da" != "$db" ]; then
				echo "FAIL: $c [$k]: digest $da here, $db in $other"; fail=$((fail + 1)); continue
			fi
		fi
		n=$((n + 1))
	done
done
[ -n "$other" ] || echo "note: no other build given; compared 100 replays within this build only"
echo "$n passed, $fail failed"
[ $fail = 0 ]
