#!/usr/bin/env bash
# Continuous fuzzing: every kernel (`snafu kernels`) for a time box, with libFuzzer's fork
# mode, then one table. A kernel listed in ci/known-findings.txt may yield only the
# signatures listed for it; any other kernel must yield nothing. A new finding is
# minimized into repro/found/KERNEL/SIGNATURE.case, its report next to it (.report), the
# raw input too (.input), and the script exits 1 naming it.
#
#   ci/fuzz.sh [--seconds=S] [--jobs=N] [--kernel=NAME]... [--merge | --no-merge]
#
#   --seconds=S     time box per kernel (default 300)
#   --jobs=N        libFuzzer -fork=N (default: the cores)
#   --kernel=NAME   fuzz only this kernel (repeatable; default: every listed kernel)
#   --merge         afterwards, merge the inputs that add coverage into
#                   corpus/futex_mm_fuzzer (tracked by git: the nightly job does this)
#   --no-merge      leave corpus/futex_mm_fuzzer alone (the default)
#
# Each kernel starts from a fresh copy of corpus/futex_mm_fuzzer plus its work corpus
# ($SNAFU_WORK/KERNEL/corpus, the one fuzz/run.sh grows too), which receives the new
# inputs. libFuzzer runs with -fork=N -ignore_crashes=1 -max_total_time=S: in fork mode a
# crashing child ends its job, the parent prints only the children's "ERROR:" lines and
# starts another, and each crash leaves crash-SHA1 under -artifact_prefix. The signatures
# come from replaying those artifacts (snafu replay; the fuzzer binary itself for anything
# snafu cannot replay), never from the parent's log, which has no DEDUP_TOKEN lines. The
# fuzzer prints a DEDUP_TOKEN for its ASan and UBSan reports too (fuzz/fuzz_support.c:
# asan-heap-use-after-free--futex_wake--sys_futex and the like), so they sort the same way.
#
# With --merge, the inputs that add coverage are then merged into corpus/futex_mm_fuzzer:
# `-merge=1` into a temporary copy of it (the checked-in seeds stay, by name), kernel by
# kernel, then only the new files (named by their SHA-1) are copied in, and only those
# that give no finding on any kernel (the seed corpus holds programs, not reproducers: the
# fuzzer must find the interleaving itself). The merge counts edges only
# (-use_counters=0), so the checked-in corpus grows by the inputs that reach new code, not
# by every new hit count (a minute per kernel: about 100 files instead of 700); the work
# corpora keep everything.
#
# Exit: 0 nothing new, 1 a new finding, 2 bad usage or a fuzzer that failed.
# Environment: SNAFU_BIN (default build/bin; built with ./build.sh when missing),
# SNAFU_WORK (default build/fuzz), SNAFU_FOUND (default repro/found), SNAFU_KNOWN
# (default ci/known-findings.txt), SNAFU_MERGE_INTO (default corpus/futex_mm_fuzzer).
# With GITHUB_STEP_SUMMARY set, the table is appended there too.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SNAFU_BIN:-$root/build/bin}
work=${SNAFU_WORK:-$root/build/fuzz}
found=${SNAFU_FOUND:-$root/repro/found}
known_file=${SNAFU_KNOWN:-$root/ci/known-findings.txt}
seeds=$root/corpus/futex_mm_fuzzer
merge_into=${SNAFU_MERGE_INTO:-$seeds}

seconds=300
jobs=$(nproc 2>/dev/null || echo 2)
merge=0
only=()
n=0
for a in "$@"; do
	n=$((n + 1))
	case "$a" in
	--seconds=*) seconds=${a#--seconds=} ;;
	--jobs=*) jobs=${a#--jobs=} ;;
	--kernel=*) only+=("${a#--kernel=}") ;;
	--merge) merge=1 ;;
	--no-merge) merge=0 ;;
	-h | --help)
		sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "ci/fuzz.sh: argument $n '$a': expected --seconds=S, --jobs=N, --kernel=NAME, --merge or --no-merge" >&2
		exit 2
		;;
	esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "ci/fuzz.sh: --seconds=$seconds: expected a whole number of seconds, 1 or more" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "ci/fuzz.sh: --jobs=$jobs: expected a number of processes, 1 or more" >&2; exit 2; }
[ -f "$known_file" ] || { echo "ci/fuzz.sh: $known_file: no such file" >&2; exit 2; }

if [ ! -x "$bin/futex_mm_fuzzer" ] || [ ! -x "$bin/snafu" ]; then
	if [ -n "${SNAFU_BIN:-}" ]; then
		echo "ci/fuzz.sh: no futex_mm_fuzzer and snafu in $bin" >&2
		exit 2
	fi
	# not an OSS-Fuzz build, whatever the environment says
	env -u LIB_FUZZING_ENGINE "$root/build.sh" asan || exit 2
fi

all_kernels=$("$bin/snafu" kernels | awk '{print $1}')
if [ ${#only[@]} -gt 0 ]; then
	for k in "${only[@]}"; do
		grep -qxF -- "$k" <<<"$all_kernels" || {
			echo "ci/fuzz.sh: unknown kernel '$k'; valid kernels: $(tr '\n' ' ' <<<"$all_kernels")" >&2
			exit 2
		}
	done
	kernels=$(printf '%s\n' "${only[@]}")
else
	kernels=$all_kernels
fi
# known-findings.txt: KERNEL SIGNATURE lines; # comments and blank lines skipped
known_list=$(sed 's/#.*//' "$known_file" | awk 'NF == 2 {print $1, $2} NF != 2 && NF {print "bad " NR > "/dev/stderr"}')
is_known() { grep -qxF -- "$1 $2" <<<"$known_list"; }
is_broken() { awk -v k="$1" '$1 == k {f = 1} END {exit !f}' <<<"$known_list"; }

fuzz_pid=
trap '[ -n "$fuzz_pid" ] && kill "$fuzz_pid" 2>/dev/null; exit 130' INT TERM

# signature_of KERNEL FILE: what the fuzzer binary says of one input, when snafu cannot.
signature_of() {
	local out
	out=$("$bin/futex_mm_fuzzer" --kernel="$1" -runs=1 "$2" 2>&1)
	local sig
	sig=$(grep -o '^DEDUP_TOKEN: [^ ]*' <<<"$out" | head -1 | cut -d' ' -f2)
	[ -z "$sig" ] && sig=$(grep -o 'SUMMARY: [A-Za-z]*Sanitizer: [^ ]*' <<<"$out" | head -1 |
		awk '{print tolower($2) "--" $3}')
	echo "${sig:-unreproducible}"
}

# classify KERNEL DIR: "SIGNATURE FILE" for every artifact in DIR
classify() {
	local k=$1 dir=$2 f
	local crashes=()
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		case "${f##*/}" in
		crash-*) crashes+=("$f") ;;
		timeout-*) echo "libfuzzer-timeout $f" ;;
		oom-*) echo "libfuzzer-oom $f" ;;
		leak-*) echo "libfuzzer-leak $f" ;;
		esac
	done
	[ ${#crashes[@]} -eq 0 ] && return
	# one snafu process for them all; "PATH [KERNEL]: VERDICT" per file
	local verdicts
	verdicts=$(printf '%s\0' "${crashes[@]}" | xargs -0 "$bin/snafu" replay --quiet --input=bytes --kernel="$k" 2>/dev/null |
		awk -v tag=" [$k]: " '{ i = index($0, tag); if (i) print substr($0, i + length(tag)), substr($0, 1, i - 1) }')
	for f in "${crashes[@]}"; do
		local v
		v=$(awk -v f="$f" '$2 == f {print $1; exit}' <<<"$verdicts")
		# not replayed, or replayed without a finding: ask the binary that crashed
		[ -z "$v" ] || [ "$v" = ok ] && v=$(signature_of "$k" "$f")
		echo "$v $f"
	done
}

mkdir -p "$work"
rows=() new_cases=() errors=0
echo "ci/fuzz.sh: $(wc -w <<<"$kernels") kernels, ${seconds}s each, -fork=$jobs, work $work"
for k in $kernels; do
	kw=$work/$k run=$work/$k/ci
	rm -rf "$run"
	mkdir -p "$kw/corpus" "$run/seeds" "$run/artifacts"
	cp "$seeds"/* "$run/seeds/"
	start=$SECONDS
	echo "ci/fuzz.sh: $k: fuzzing (corpus $(ls "$kw/corpus" | wc -l) + $(ls "$run/seeds" | wc -l) seeds)"
	"$bin/futex_mm_fuzzer" --kernel="$k" -fork="$jobs" -ignore_crashes=1 \
		-max_total_time="$seconds" -timeout=25 -artifact_prefix="$run/artifacts/" \
		"$kw/corpus" "$run/seeds" >"$run/fuzz.log" 2>&1 &
	fuzz_pid=$!
	wait "$fuzz_pid"
	rc=$?
	fuzz_pid=
	execs=$(grep -o '^#[0-9]*' "$run/fuzz.log" | tail -1 | tr -d '#')
	execs=${execs:-0}
	# fork mode exits with the last failed child's status; it ran to the end if it says so
	if ! grep -q '^INFO: exiting: ' "$run/fuzz.log" && [ -z "$(ls -A "$run/artifacts")" ]; then
		echo "ci/fuzz.sh: $k: the fuzzer failed (exit $rc) after $((SECONDS - start))s; see $run/fuzz.log" >&2
		tail -20 "$run/fuzz.log" >&2
		rows+=("$k|$execs|-|-|ERROR (exit $rc)")
		errors=$((errors + 1))
		continue
	fi
	classify "$k" "$run/artifacts" >"$run/signatures"
	sigs="" nknown=0 nnew=0
	while read -r sig count; do
		[ -n "$sig" ] || continue
		sigs+="${sigs:+, }$sig ($count)"
		if is_known "$k" "$sig"; then
			nknown=$((nknown + 1))
			continue
		fi
		nnew=$((nnew + 1))
		# the smallest input with this signature
		art=$(awk -v s="$sig" '$1 == s {print $2}' "$run/signatures" | xargs ls -S | tail -1)
		mkdir -p "$found/$k"
		out=$found/$k/$sig
		cp "$art" "$out.input"
		if "$bin/snafu" minimize --kernel="$k" --input=bytes -o "$out.case" "$art" >"$run/minimize.log" 2>&1; then
			"$bin/snafu" replay --kernel="$k" "$out.case" >"$out.report" 2>&1
			new_cases+=("${out#"$root"/}.case")
		else
			# not a finding snafu can replay (a libFuzzer timeout, a sanitizer report):
			# the raw input and what the fuzzer says of it
			"$bin/futex_mm_fuzzer" --kernel="$k" -runs=1 "$art" >"$out.report" 2>&1
			new_cases+=("${out#"$root"/}.input")
		fi
		echo "ci/fuzz.sh: $k: NEW finding $sig: ${out#"$root"/}.{case,report,input}"
	done < <(awk '{print $1}' "$run/signatures" | sort | uniq -c | awk '{print $2, $1}')
	if [ $nnew -gt 0 ]; then
		verdict=NEW
	elif [ $nknown -gt 0 ]; then
		verdict="known bugs only"
	elif is_broken "$k"; then
		verdict="clean (known bugs not hit)"
	else
		verdict=clean
	fi
	echo "ci/fuzz.sh: $k: $execs executions in $((SECONDS - start))s: ${sigs:-no finding}"
	rows+=("$k|$execs|${sigs:--}|$nknown known, $nnew new|$verdict")
done

if [ $merge = 1 ]; then
	mtmp=$(mktemp -d)
	mkdir -p "$mtmp/corpus"
	cp "$merge_into"/* "$mtmp/corpus/" 2>/dev/null
	for k in $kernels; do
		[ -d "$work/$k/corpus" ] || continue
		"$bin/futex_mm_fuzzer" --kernel="$k" -merge=1 -use_counters=0 -timeout=25 -artifact_prefix="$mtmp/" \
			"$mtmp/corpus" "$work/$k/corpus" >"$work/$k/ci/merge.log" 2>&1 ||
			echo "ci/fuzz.sh: $k: merge failed; see $work/$k/ci/merge.log" >&2
	done
	# the new files, kept only if every kernel replays them without a finding
	newfiles=()
	for f in "$mtmp/corpus"/*; do
		[ -e "$merge_into/${f##*/}" ] || newfiles+=("$f")
	done
	nk=$(wc -w <<<"$all_kernels")
	added=0
	if [ ${#newfiles[@]} -gt 0 ]; then
		for kk in $all_kernels; do
			printf '%s\0' "${newfiles[@]}" |
				xargs -0 "$bin/snafu" replay --quiet --input=bytes --kernel="$kk" 2>/dev/null |
				awk -v tag=" [$kk]: " '{ i = index($0, tag); if (i && substr($0, i + length(tag)) == "ok") print substr($0, 1, i - 1) }'
		done | sort | uniq -c | awk -v nk="$nk" '$1 == nk {print $2}' >"$mtmp/clean"
		while read -r f; do
			cp "$f" "$merge_into/${f##*/}" && added=$((added + 1))
		done <"$mtmp/clean"
	fi
	dropped=$((${#newfiles[@]} - added))
	rm -rf "$mtmp"
	echo "ci/fuzz.sh: merged $added new inputs into ${merge_into#"$root"/} ($(ls "$merge_into" | wc -l) files; $dropped more left out: they find something on some kernel)"
fi

[ $merge = 1 ] || echo "ci/fuzz.sh: corpus/futex_mm_fuzzer left as it is; the new inputs stay in $work/KERNEL/corpus (--merge adds those with new coverage)"

table() {
	echo "| kernel | executions | signatures found | known/new | verdict |"
	echo "|---|--:|---|---|---|"
	for r in "${rows[@]}"; do
		echo "| ${r//|/ | } |"
	done
}
echo
echo "ci/fuzz.sh: ${seconds}s per kernel, -fork=$jobs, known findings from ${known_file#"$root"/}"
table
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && { echo "### ci/fuzz.sh, ${seconds}s per kernel"; echo; table; } >>"$GITHUB_STEP_SUMMARY"
if [ ${#new_cases[@]} -gt 0 ]; then
	echo "ci/fuzz.sh: NEW findings: ${new_cases[*]}" >&2
	exit 1
fi
[ $errors -gt 0 ] && exit 2
exit 0
