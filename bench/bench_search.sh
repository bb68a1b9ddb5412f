#!/usr/bin/env bash
# The search table (docs/fuzzing.md "The search table"): for each bug of the
# model (a row) and each way of searching for it (a column), how long the search takes to
# find it. Fuzzer columns: executions to the first finding whose signature matches the
# row's, median and max over SEEDS seeds (1..SEEDS), each from an empty corpus, at most
# BUDGET executions a seed. The fuzzer runs as snafu fuzz runs it, with --keep-going: a
# finding of another signature (the row's kernel has other bugs) is saved and the search
# goes on. The explore column: snafu explore on the row's saved case
# (its program, its own schedule ignored), the schedules run to the first finding and its
# preemptions; one number, the search is deterministic. Every fuzzer column has the
# fuzzer's joint search (on by default, 30 runs a program), its runs counted, but for
# "pct, no joint" (--joint=0); "pct, no plateau": no search of a program without new code
# on a plateau (--plateau=0); pct+conflicts: PCT's change points drawn at the conflict
# points too (--conflicts=1); pct+joint: N=$SNAFU_JOINT (default 300) runs a program;
# pct+xo, with libFuzzer's crossover splicing programs by task (--crossover=1). The
# "explore, random order" column: the joint search's order (snafu explore --sample=S,
# seeds as the fuzzer's, within 2 preemptions as the joint search) on the row's case,
# schedules to the first finding, median / max, and in how many seeds within 30 (the
# joint search's runs a program) and 150 (a contended word's); 999999999: none.
#   bench/bench_search.sh [BIN_DIR] [SEEDS] [BUDGET] [ROWS] [COLUMNS]
# Defaults: build/bin, 10, 200000, every row, every column. ROWS and COLUMNS: regular
# expressions over the rows' and columns' names. SEED_FROM=S: seeds S..S+SEEDS-1. Address randomization off (setarch -R,
# as snafu fuzz does): a seed gives the same run every time, so the table is the same on
# any machine; only the wall time it takes depends on it.
set -uo pipefail
bin=${1:-build/bin} seeds=${2:-10} budget=${3:-200000} pick=${4:-.} cols=${5:-.} from=${SEED_FROM:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$bin/futex_mm_fuzzer" ] && [ -x "$bin/snafu" ] ||
	{ echo "bench_search: no $bin/futex_mm_fuzzer or $bin/snafu (./build.sh builds them)"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
norand=
setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"

# columns: name, the fuzzer's flags (docs/fuzzing.md, "Interleaving coverage and PCT")
columns=(
	"preempt|--schedule=preempt --interleaving-coverage=0"
	"preempt+icov|--schedule=preempt --interleaving-coverage=1"
	"pct (default)|--schedule=pct --interleaving-coverage=0"
	"pct+icov|--schedule=pct --interleaving-coverage=1"
	"pct, no joint|--schedule=pct --interleaving-coverage=0 --joint=0"
	"pct, no plateau|--schedule=pct --interleaving-coverage=0 --plateau=0"
	"pct+conflicts|--schedule=pct --interleaving-coverage=0 --conflicts=1"
	"pct+joint|--schedule=pct --interleaving-coverage=0 --joint=${SNAFU_JOINT:-300}"
	"pct+xo|--schedule=pct --interleaving-coverage=0 --crossover=1"
	"explore|"
	"explore, random order|"
)

# rows: name, kernel, ops, oracle, the signature (an extended regular expression), the
# saved case for explore
rows=(
	"LWN deadlock|2.6.11-rc4|futex|deadlock|^deadlock--do_page_fault--futex_|lockdep-futex-wait"
	"get_mempolicy deadlock|2.6.11-rc4|all|deadlock|^deadlock--do_page_fault--sys_get_mempolicy$|lockdep-get-mempolicy"
	"mincore deadlock|2.6.11|all|deadlock|^deadlock--do_page_fault--sys_mincore$|lockdep-mincore"
	"olof-rfc reclaim deadlock|olof-rfc|futex|deadlock|^deadlock--do_page_fault--futex_wait$|reclaim-olof-rfc"
	"absorbed wake-up|2.6.11|futex|lost-wakeup|^lost-wakeup--absorbed--futex_wait$|futex-absorbed-wakeup"
	"Seto's missed wake-up|2.6.10-seto|futex|lost-wakeup|^lost-wakeup--missed--futex_wait$|futex-seto-missed-wakeup"
	"spurious CMP_REQUEUE -EAGAIN|2.6.11|futex|result|^wrong-result--futex_cmp_requeue$|cmp-requeue-spurious-eagain"
	"lockdep prediction|2.6.11-rc4|futex|lockdep|^lockdep--recursive-read--mmap_sem--|lockdep-futex-wait"
	"Robin Holt's forced write|2.6.11|all|integrity|^integrity--|ptrace-zero-page"
	"FUTEX_WAKE_OP's second fault|2.6.14|futex|result|^wrong-result--futex_wake_op$|futex-wake-op-read-only"
)

median_max() { sort -n | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%d / %d", m, v[NR]}'; }

# one seed of one fuzzer cell: "EXECUTIONS SIGNATURE|none" (the executions to the
# row's signature, or the budget). The fuzzer runs as snafu fuzz runs it, with
# --keep-going: a finding of another signature is saved and the search goes on; it is
# stopped once the row's signature is reported, and the count is the one in its line.
fuzz_seed() {
	local kernel=$1 ops=$2 oracle=$3 want=$4 flags=$5 s=$6 pid line
	rm -rf "$tmp/c" "$tmp/a" && mkdir -p "$tmp/c" "$tmp/a"
	# emptied here, not by the redirection below, which the background job makes only
	# once it runs: the loop must not read the last seed's log meanwhile
	: >"$tmp/log"
	# shellcheck disable=SC2086
	$norand "$bin/futex_mm_fuzzer" --kernel="$kernel" --ops="$ops" --oracles="$oracle" $flags \
		--keep-going="$tmp/a/" -seed="$s" -runs="$budget" "$tmp/c" >"$tmp/log" 2>&1 &
	pid=$!
	while :; do
		line=$(found_line "$want") && break
		kill -0 "$pid" 2>/dev/null || { line=$(found_line "$want"); break; }
		sleep 0.1
	done
	# SIGKILL: libFuzzer's SIGTERM handler allocates, and hangs if the signal came in malloc
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -n "$line" ]; then
		awk '{print $4, $6}' <<<"$line"
	elif grep -aqE '^(Done [0-9]+ runs|futex_mm_fuzzer: done: )' "$tmp/log"; then
		echo "$budget none"
	else
		echo "$budget error"
	fi
}

# the fuzzer's line for the first finding of signature $1 (a regular expression), if any yet
found_line() {
	awk -v want="$1" '/^futex_mm_fuzzer: finding after [0-9]+ executions: / && $6 ~ want { print; exit }' \
		"$tmp/log" | grep .
}

printf '| bug | kernel, ops, oracle |'
for c in "${columns[@]}"; do
	name=${c%%|*}
	grep -qE "$cols" <<<"$name" && printf ' %s |' "$name"
done
printf '\n|---|---|'
for c in "${columns[@]}"; do grep -qE "$cols" <<<"${c%%|*}" && printf -- '--:|'; done
echo
for r in "${rows[@]}"; do
	IFS='|' read -r name kernel ops oracle want case <<<"$r"
	grep -qE "$pick" <<<"$name" || continue
	printf '| %s | `%s`, %s, %s |' "$name" "$kernel" "$ops" "$oracle"
	for c in "${columns[@]}"; do
		cname=${c%%|*} flags=${c#*|}
		grep -qE "$cols" <<<"$cname" || continue
		if [ "$cname" = "explore, random order" ]; then
			: >"$tmp/cell"
			for s in $(seq "$from" $((from + seeds - 1))); do
				line=$("$bin/snafu" explore --kernel="$kernel" --oracles="$oracle" \
					--preemptions=2 --sample="$s" --quiet "$root/repro/cases/$case.case" 2>&1 |
					grep '^explore: ' | tail -1)
				if [[ $line =~ found\ ([^ ]+)\ with\ [0-9]+\ preemptions?\ after\ ([0-9]+)\ schedules? ]] &&
					grep -qE "$want" <<<"${BASH_REMATCH[1]}"; then
					echo "${BASH_REMATCH[2]}" >>"$tmp/cell"
				else
					echo 999999999 >>"$tmp/cell"
				fi
			done
			echo "bench_search: $name, $cname: $(tr '\n' ';' <"$tmp/cell")" >&2
			printf ' %s; within 30: %s, 150: %s |' "$(median_max <"$tmp/cell")" \
				"$(awk '$1 <= 30' "$tmp/cell" | wc -l)" "$(awk '$1 <= 150' "$tmp/cell" | wc -l)"
			continue
		fi
		if [ "$cname" = explore ]; then
			line=$("$bin/snafu" explore --kernel="$kernel" --oracles="$oracle" --preemptions=3 \
				"$root/repro/cases/$case.case" 2>&1 | grep '^explore: ' | tail -1)
			if [[ $line =~ found\ ([^ ]+)\ with\ ([0-9]+)\ preemptions?\ after\ ([0-9]+)\ schedules? ]] &&
				grep -qE "$want" <<<"${BASH_REMATCH[1]}"; then
				printf ' %s (%s preempt.) |' "${BASH_REMATCH[3]}" "${BASH_REMATCH[2]}"
			else
				printf ' not found |'
			fi
			continue
		fi
		: >"$tmp/cell"
		for s in $(seq "$from" $((from + seeds - 1))); do
			fuzz_seed "$kernel" "$ops" "$oracle" "$want" "$flags" "$s" >>"$tmp/cell"
		done
		found=$(awk '$2 != "none" && $2 != "error"' "$tmp/cell" | wc -l)
		echo "bench_search: $name, $cname: $(tr '\n' ';' <"$tmp/cell")" >&2
		if [ "$found" = 0 ]; then
			printf ' not found in %s |' "$budget"
		else
			printf ' %s%s |' "$(awk '{print $1}' "$tmp/cell" | median_max)" \
				"$([ "$found" = "$seeds" ] || echo " ($found of $seeds)")"
		fi
	done
	echo
done
echo "cells: executions to the row's finding, median / max over $seeds seeds ($from..$((from + seeds - 1))) from an empty corpus, at most $budget each (a seed that does not find it counts as $budget); explore: schedules to the first finding of the row's case, at most 3 preemptions; explore, random order: the same in --sample=S's order for each seed S, at most 2 preemptions"
