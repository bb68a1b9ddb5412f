#!/usr/bin/env bash
# Regenerates fuzz/futex_mm_fuzzer.dict: one entry per op record worth having at hand
# (the op table's dict strings, prog/ops.c), encoded by snafu itself so the dictionary always matches the byte form.
#   fuzz/make-dict.sh [BIN_DIR]  >  fuzz/futex_mm_fuzzer.dict
set -euo pipefail
bin=${1:-build/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# futex_mm_fuzzer: single op records (8 bytes), made by fuzz/make-dict.sh"
# the entries are the dict strings of the op table, prog/ops.c ("NAME|OP LINE")
src=$(cd "$(dirname "$0")/.." && pwd)
grep -o '"[a-z0-9_]*|[^"]*"' "$src/prog/ops.c" | tr -d '"' |
	while IFS='|' read -r name op; do
		printf 'tasks 2\ntask 1\n  mmap m0 pages=1 prot=rw\n  mmap m1 pages=1 prot=rw shared\n  %s\n' "$op" >"$tmp/x.case"
		"$bin/snafu" show --bytes -o "$tmp/x.bin" "$tmp/x.case"
		# header (1) + two mmaps (16) (tasks 2: `kill 2` names a task), then the op's 8 bytes
		printf '%s="%s"\n' "$name" "$(od -An -tx1 -j17 -N8 "$tmp/x.bin" | tr -d ' \n' | sed 's/../\\x&/g')"
	done
