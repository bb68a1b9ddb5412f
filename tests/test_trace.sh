#!/usr/bin/env bash
# snafu trace: the Perfetto JSON and the HTML picture of a run.
#
#   bash tests/test_trace.sh BIN_DIR SRC_DIR [OTHER_BIN_DIR] [TSAN_BIN_DIR]
#
# The JSON must parse and hold what Perfetto needs to draw the article's case: a named
# track per task, the system calls and lock holds as slices that nest on every track, an
# arrow between tasks, and the finding as a global instant. The HTML must name its lanes
# and the wait-for cycle in red, and need nothing from outside the file. Then headless
# Chromium (Debian's chromium; ./build.sh test installs it) loads the page: the DOM it
# built and a screenshot must show the lanes and the cycle. Without chromium the test
# says so and is skipped (77), once every other check has passed.
set -u
bin=${1:?usage: test_trace.sh BIN_DIR SRC_DIR}
src=${2:?usage: test_trace.sh BIN_DIR SRC_DIR}
snafu=$bin/snafu
[ -x "$snafu" ] || {
	echo "test_trace.sh: $snafu: not an executable"
	exit 2
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/snafu-trace.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case_=$src/repro/cases/futex-wait-mmap-sem.case

. "$(dirname "$0")/lib.sh"
run() { # run COMMAND...: $rc, stdout and stderr in $tmp/out and $tmp/err
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
expect_rc() { # expect_rc WHAT RC
	if [ "$rc" = "$2" ]; then ok; else
		bad "$1: exit $rc, want $2"
		sed -n '1,5s/^/    /p' "$tmp/out" "$tmp/err"
	fi
}
# check WHAT COMMAND...: passes when COMMAND succeeds (its output goes with a failure)
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then ok; else
		bad "$what"
		printf '%s\n' "$out" | sed -n '1,10s/^/    /p'
	fi
}

# --- JSON ---------------------------------------------------------------------------
run "$snafu" trace "$case_" -o "$tmp/rc4.json"
expect_rc "trace -o rc4.json (a deadlock)" 1
check "trace -o prints the verdict" grep -q "deadlock--do_page_fault--futex_wait" "$tmp/out"
check "rc4.json: Perfetto's structure" python3 - "$tmp/rc4.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name" and e["tid"] < 100}
assert len(names) == 2, names
assert names[1].startswith("T1 (") and "sys_futex" in names[1], names
assert names[2].startswith("T2 (") and "sys_mmap2" in names[2], names
sl = [e for e in ev if e["ph"] == "X"]
assert any(e["name"] == "sys_futex" and e["tid"] == 1 for e in sl), "no sys_futex slice"
assert any(e["name"] == "sys_mmap2" and e["tid"] == 2 for e in sl), "no sys_mmap2 slice"
held = [e for e in sl if e["cat"] == "lock" and e["name"] == "&mm->mmap_sem"
        and e["tid"] // 100 == 1 and e["args"].get("unfinished")]
assert held and held[0]["args"]["mode"] == "read", "T1 holds mmap_sem for read to the end"
assert any(e["cat"] == "wait" and e["tid"] == 2 and "down_write" in e["name"] for e in sl)
assert any(e["ph"] == "i" and e["cat"] == "sleep" and e["tid"] == 1 for e in ev)
starts = {e["id"]: e for e in ev if e["ph"] == "s"}
ends = {e["id"]: e for e in ev if e["ph"] == "f"}
pairs = [i for i in starts if i in ends]
assert pairs, "no flow pair"
assert all(starts[i]["tid"] != ends[i]["tid"] and starts[i]["ts"] < ends[i]["ts"] for i in pairs)
g = [e for e in ev if e["ph"] == "i" and e.get("s") == "g"]
assert len(g) == 1 and "possible deadlock" in g[0]["name"], g
assert g[0]["args"]["token"] == "deadlock--do_page_fault--futex_wait"
EOF

run "$snafu" trace --kernel=2.6.11 "$case_" -o "$tmp/fixed.json"
expect_rc "trace --kernel=2.6.11 (no finding)" 0
check "fixed.json: wake-ups as arrows, no finding" python3 - "$tmp/fixed.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
s = {e["id"]: e for e in ev if e["ph"] == "s" and e["cat"] == "wake"}
f = {e["id"]: e for e in ev if e["ph"] == "f" and e["cat"] == "wake"}
assert any(i in f and s[i]["tid"] == 1 and f[i]["tid"] == 2 for i in s), "no T1 -> T2 wake"
assert any(i in f and s[i]["tid"] == 2 and f[i]["tid"] == 1 for i in s), "no T2 -> T1 wake"
assert not [e for e in ev if e.get("s") == "g"], "a finding on the fixed kernel"
EOF

# every saved case on every kernel it names: valid JSON whose slices nest on each track
jsons=()
for c in "$src"/repro/cases/*.case; do
	for k in $(awk '$1 == "expect" && $2 != "*" {print $2}' "$c"); do
		out=$tmp/all-$(basename "$c" .case)-$k.json
		"$snafu" trace --kernel="$k" "$c" -o "$out" >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc -le 1 ] && [ -s "$out" ]; then jsons+=("$out"); else
			bad "trace --kernel=$k $c: exit $rc: $(head -1 "$tmp/err")"; fi
	done
done
check "every case, every kernel: slices nest" python3 - "${jsons[@]}" <<'EOF'
import collections, json, sys
for path in sys.argv[1:]:
    tracks = collections.defaultdict(list)
    for e in json.load(open(path))["traceEvents"]:
        if e["ph"] == "X":
            assert e["dur"] >= 0, (path, e)
            tracks[e["tid"]].append((e["ts"], -(e["ts"] + e["dur"]), e["name"]))
    for tid, sl in tracks.items():
        stack = []
        for ts, nend, name in sorted(sl):
            while stack and stack[-1] <= ts:
                stack.pop()
            assert not stack or -nend <= stack[-1], (path, tid, name, ts)
            stack.append(-nend)
EOF

# --- HTML ---------------------------------------------------------------------------
html=$tmp/rc4.html
run "$snafu" trace "$case_" -o "$html"
expect_rc "trace -o rc4.html" 1
check "html: two lanes" test "$(grep -o 'class="lane"' "$html" | wc -l)" = 2
check "html: the cycle group" grep -q '<g id="cycle">' "$html"
check "html: red cycle edges naming mmap_sem" test "$(grep 'class="cycle-edge"' "$html" |
	grep 'stroke="red"' | grep -c 'mmap_sem')" = 2
check "html: a hatched wait" grep -q 'class="wait"[^>]*fill="url(#hatch-rwsem)"' "$html"
check "html: T1's read hold" grep -q 'class="hold hold-read"' "$html"
check "html: the report beside it" grep -q 'DEDUP_TOKEN: deadlock--do_page_fault--futex_wait' "$html"
check "html: the table's rows" grep -q '(goes to sleep in down_read)' "$html"
check "html: nothing from outside" test -z "$(grep -Eio '<script|<link|<img|<iframe|@import|(src|href)=' "$html")"
check "html: no address but the SVG namespace" test \
	"$(grep -Eo '(https?|ftp)://[^" ]*' "$html" | sort -u)" = "http://www.w3.org/2000/svg"
run "$snafu" trace --kernel=2.6.11 "$case_" -o "$tmp/fixed.html"
expect_rc "trace --kernel=2.6.11 -o fixed.html" 0
check "fixed.html: two lanes, no cycle" test "$(grep -c 'class="lane"\|id="cycle"' "$tmp/fixed.html")" = 2

# --- without -o, and bad usage ------------------------------------------------------
run "$snafu" trace "$case_"
expect_rc "trace without -o" 1
check "without -o: the report" grep -q "^DEDUP_TOKEN: deadlock--do_page_fault--futex_wait" "$tmp/out"
for args in "-o $tmp/x.txt $case_" "--bogus $case_" "--kernel=nope $case_" "" \
	"$tmp/missing.case" "$case_ $case_" "$case_ -o" "$case_ -o $tmp/no/such/dir/x.json"; do
	# shellcheck disable=SC2086
	run "$snafu" trace $args
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]; then ok; else
		bad "trace $args: exit $rc, $(wc -l <"$tmp/err") lines on stderr, want 2 and one line"
	fi
done
check "no temporaries left" test -z "$(find "$tmp" -name '*.tmp.*')"
check "nothing written for a bad -o" test ! -e "$tmp/x.txt"

# --- headless Chromium --------------------------------------------------------------
if [ $fail -gt 0 ]; then
	echo "$pass passed, $fail failed"
	exit 1
fi
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "$pass passed, $fail failed"
	echo "skipped: no chromium to open the HTML in (./build.sh test installs Debian's chromium)"
	exit 77
fi
browse() { # browse ARGS...: headless, offline, a profile of its own
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --hide-scrollbars --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" \
		"$@" 2>>"$tmp/chromium.log"
}
browse --dump-dom "file://$html" >"$tmp/dom.html"
check "chromium: the DOM it built has two lanes" test "$(grep -o 'class="lane"' "$tmp/dom.html" | wc -l)" = 2
check "chromium: ... and the red cycle edges" test "$(grep -o 'class="cycle-edge"[^>]*stroke="red"' "$tmp/dom.html" | wc -l)" = 2
png=$tmp/rc4.png
(cd "$tmp" && browse --screenshot="$png" --window-size=1200,900 "file://$html" >/dev/null)
check "chromium: a screenshot" test -s "$png"
# Decode the PNG (zlib, no PIL) and look at the pixels: both lanes' backgrounds, the
# bars, and red lines of the cycle running from one lane into the other.
check "screenshot: lanes, bars and the cycle drawn" python3 - "$png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
rows, prev = [], bytearray(stride)
for y in range(h):
    ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if ftype == 1:
        for i in range(bpp, stride):
            line[i] = (line[i] + line[i - bpp]) & 255
    elif ftype == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif ftype == 3:
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
    elif ftype == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
colours = {"lane1": (0xe8, 0xf0, 0xfc), "lane2": (0xee, 0xf6, 0xe6), "read": (0x6f, 0xa8, 0xe8)}
found = {name: [] for name in list(colours) + ["red"]}
for y, line in enumerate(rows):
    for x in range(w):
        r, g, b = line[x * bpp:x * bpp + 3]
        if r >= 200 and g <= 60 and b <= 60:
            found["red"].append((x, y))
        for name, (cr, cg, cb) in colours.items():
            if abs(r - cr) <= 6 and abs(g - cg) <= 6 and abs(b - cb) <= 6:
                found[name].append((x, y))
lane1, lane2, read, red = found["lane1"], found["lane2"], found["read"], found["red"]
print("lane 1 %d px, lane 2 %d px, read hold %d px, red %d px" % (len(lane1), len(lane2), len(read), len(red)))
assert len(lane1) > 20000 and len(lane2) > 20000, "the two lanes are not drawn"
l1 = max(x for x, _ in lane1)
l2 = min(x for x, _ in lane2)
assert l1 < l2, "lane 1 is not left of lane 2"
assert len(read) > 300, "no read hold bar"
assert len(red) > 500, "no red cycle"
xs = [x for x, _ in red]
assert min(xs) < l1 and max(xs) > l2, "the red cycle does not join the lanes"
EOF
echo "$pass passed, $fail failed"
[ $fail = 0 ]
