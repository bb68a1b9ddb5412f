#!/usr/bin/env bash
# Regenerates fuzz/futex_mm_fuzzer.dict: one entry per op record worth having at hand,
# encoded by snafu itself so the dictionary always matches the byte form.
#   fuzz/make-dict.sh [BIN_DIR]  >  fuzz/futex_mm_fuzzer.dict
set -euo pipefail
bin=${1:-build/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# futex_mm_fuzzer: single op records (8 bytes), made by fuzz/make-dict.sh"
while IFS='|' read -r name op; do
	printf 'task 1\n  mmap m0 pages=1 prot=rw\n  mmap m1 pages=1 prot=rw shared\n  %s\n' "$op" >"$tmp/x.case"
	"$bin/snafu" show --bytes -o "$tmp/x.bin" "$tmp/x.case"
	# header (1) + two mmaps (16), then the op's 8 bytes
	printf '%s="%s"\n' "$name" "$(od -An -tx1 -j17 -N8 "$tmp/x.bin" | tr -d ' \n' | sed 's/../\\x&/g')"
done <<'OPS'
mmap_private|mmap m2 pages=1 prot=rw
mmap_shared|mmap m2 pages=1 prot=rw shared
munmap|munmap m0 pages=1
mprotect_none|mprotect m0 pages=1 prot=none
load|load m0
store|store m0 val=1
futex_wait_1|futex_wait m0 val=1
futex_wait_0_timeout|futex_wait m1 val=0 timeout=1
futex_wake|futex_wake m0 nr=1
futex_requeue|futex_requeue m0 m1 nr_wake=1 nr_requeue=1
futex_cmp_requeue|futex_cmp_requeue m0 m1 val=0 nr_wake=1 nr_requeue=1
get_mempolicy_addr|get_mempolicy m0 addr=m1 flags=2
kill_2|kill 2
sleep_1|sleep 1
OPS
