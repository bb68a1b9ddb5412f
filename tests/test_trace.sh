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
#
# The new findings: the JSON of a lost wake-up (absorbed, missed), a wrong result and a
# lockdep report carries the oracle's facts (the wake call, the waiter the wake-up was
# spent on, the sleeper passed over or missed and since when it sleeps; the call with the
# wrong -EAGAIN and the queue_me() that moved nqueued; the acquisition and the held lock),
# and the HTML draws them in red; Chromium shows the lost wake-up's arrow and band.
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $src, $snafu, $tmp
case_=$src/repro/cases/futex-wait-mmap-sem.case

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

# --- the new findings: what the oracle recorded, in the JSON --------------------------------
# The facts of a lost wake-up, a wrong result and a lockdep report ride on the finding's
# instant (args.facts), each place as task, op.point and ts (the event's index, as the
# slices'), and Perfetto gets flows and instants for them.
absorbed=$src/repro/cases/futex-absorbed-wakeup.case
seto=$src/repro/cases/futex-seto-missed-wakeup.case
eagain=$src/repro/cases/cmp-requeue-spurious-eagain.case
ldcase=$src/repro/cases/lockdep-futex-wait.case
run "$snafu" trace --kernel=2.6.11 "$absorbed" -o "$tmp/absorbed.json"
expect_rc "trace absorbed-wakeup" 1
check "absorbed.json: the spent wake-up and the passed-over sleeper" python3 - "$tmp/absorbed.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
g = [e for e in ev if e.get("s") == "g"][0]
assert g["args"]["token"] == "lost-wakeup--absorbed--futex_wait", g["args"]["token"]
f = g["args"]["facts"]
assert f["kind"] == "lost-wakeup" and f["how"] == "absorbed", f
w = f["wake"]
assert (w["task"], w["comm"], w["op"], w["point"], w["futex_op"]) == (1, "T1", 3, 5, "FUTEX_WAKE"), w
assert w["may_wake"] == 1 and w["returned"] == 1 and w["woke"] == [3], w
a = f["spent_on"]
assert (a["task"], a["comm"], a["val"], a["read"]) == (3, "T3", 1, 0), a
assert (a["read_at"]["op"], a["read_at"]["point"]) == (1, 7) and a["returned"] == 0, a
assert a["read_at"]["ts"] < w["ts"] < a["ts"], (a, w)
p = f["passed_over"]
assert (p["task"], p["comm"], p["val"], p["read"]) == (2, "T2", 0, 0), p
assert (p["slept_at"]["op"], p["slept_at"]["point"]) == (1, 10) and p["still_asleep"], p
assert (p["queued_at"]["op"], p["queued_at"]["point"]) == (1, 5), p
assert (p["read_at"]["op"], p["read_at"]["point"]) == (1, 7), p
assert p["queued_at"]["ts"] < p["read_at"]["ts"] < p["slept_at"]["ts"] < w["ts"], p
# the report says the same
assert "asleep in futex_wait(0x40000000, val 0) since 1.10" in g["args"]["report"]
assert "FUTEX_WAKE(0x40000000), which may wake 1, at 3.5: returned 1, woke T3" in g["args"]["report"]
# the sleeper's wait slice begins where it slept; "still asleep" runs from there to the end
waits = [e for e in ev if e["ph"] == "X" and e["cat"] == "wait" and e["tid"] == 2
         and "futex_wait" in e["name"]]
assert waits and waits[-1]["ts"] == p["slept_at"]["ts"] and waits[-1]["args"].get("unfinished"), waits
lost = [e for e in ev if e["ph"] == "X" and e["cat"] == "lost-wakeup"]
assert len(lost) == 1 and lost[0]["tid"] == 2 and lost[0]["name"] == "still asleep: wake-up lost", lost
assert lost[0]["ts"] == p["slept_at"]["ts"] and lost[0]["ts"] + lost[0]["dur"] == p["until_ts"], lost
s = {e["id"]: e for e in ev if e["ph"] == "s" and e["name"] == "spent wake-up"}
t = {e["id"]: e for e in ev if e["ph"] == "f" and e["name"] == "spent wake-up"}
assert len(s) == 1 and set(s) == set(t), (s, t)
i = list(s)[0]
assert (s[i]["tid"], s[i]["ts"], t[i]["tid"], t[i]["ts"]) == (1, w["ts"], 3, a["ts"]), (s, t)
assert any(e["ph"] == "i" and e.get("cat") == "lost-wakeup" and e["tid"] == 2
           and e["ts"] == w["ts"] and "passed over" in e["name"] for e in ev)
EOF
run "$snafu" trace --kernel=2.6.10-seto "$seto" -o "$tmp/seto.json"
expect_rc "trace seto-missed-wakeup" 1
check "seto.json: the wake that found nobody, the sleeper queuing after it" python3 - "$tmp/seto.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
g = [e for e in ev if e.get("s") == "g"][0]
f = g["args"]["facts"]
assert f["kind"] == "lost-wakeup" and f["how"] == "missed" and "spent_on" not in f, f
w = f["wake"]
assert (w["task"], w["op"], w["point"], w["returned"], w["woke"]) == (2, 2, 5, 0, []), w
m = f["missed"]
assert (m["task"], m["comm"], m["val"], m["read"], m["word_at_wake"]) == (1, "T1", 0, 0, 1), m
assert (m["read_at"]["op"], m["read_at"]["point"]) == (3, 5), m
assert (m["queued_at"]["op"], m["queued_at"]["point"]) == (3, 6), m
assert (m["slept_at"]["op"], m["slept_at"]["point"]) == (3, 10) and m["still_asleep"], m
assert m["read_at"]["ts"] < w["ts"] < m["queued_at"]["ts"] < m["slept_at"]["ts"], (m, w)
assert "queued only at 3.6, after it" in g["args"]["report"]
fl = [e for e in ev if e.get("name") == "missed: queued after the wake"]
assert [(e["ph"], e["tid"], e["ts"]) for e in fl] == [("s", 2, w["ts"]), ("f", 1, m["queued_at"]["ts"])], fl
assert any(e["ph"] == "X" and e["cat"] == "lost-wakeup" and e["tid"] == 1 for e in ev)
EOF
run "$snafu" trace --kernel=2.6.11 "$eagain" -o "$tmp/eagain.json"
expect_rc "trace cmp-requeue-spurious-eagain" 1
check "eagain.json: the wrong -EAGAIN and the queue_me() that moved nqueued" python3 - "$tmp/eagain.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
g = [e for e in ev if e.get("s") == "g"][0]
assert g["args"]["token"] == "wrong-result--futex_cmp_requeue"
f = g["args"]["facts"]
assert f["kind"] == "wrong-result", f
c = f["call"]
assert (c["task"], c["op"], c["point"], c["futex_op"]) == (1, 3, 7, "FUTEX_CMP_REQUEUE"), c
assert (c["val"], c["read"], c["word_at_return"], c["returned"], c["errno"]) == (0, 0, 0, -11, "EAGAIN"), c
assert (c["nqueued_before"], c["nqueued_after"]) == (0, 1), c
q = f["queued_during"]
assert [(x["task"], x["op"], x["point"], x["what"]) for x in q] == [(2, 1, 5, "queue_me")], q
assert c["syscall_ts"] < q[0]["ts"] < c["ts"] <= c["syscall_ts"] + c["syscall_dur"], (c, q)
sc = [e for e in ev if e["ph"] == "X" and e["name"] == "sys_futex" and e["tid"] == 1
      and e["ts"] == c["syscall_ts"]]
assert sc and sc[0]["args"]["ret"] == -11 and "FUTEX_CMP_REQUEUE" in sc[0]["args"]["detail"], sc
assert "returned -EAGAIN at 3.7" in g["args"]["report"]
fl = [e for e in ev if e.get("name") == "queue_me moved nqueued"]
assert [(e["ph"], e["tid"], e["ts"]) for e in fl] == [("s", 2, q[0]["ts"]), ("f", 1, c["ts"])], fl
EOF
run "$snafu" trace "$ldcase" -o "$tmp/lockdep.json"
expect_rc "trace lockdep-futex-wait" 1
check "lockdep.json: the acquisition reported and where the held lock was taken" python3 - "$tmp/lockdep.json" <<'EOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
g = [e for e in ev if e.get("s") == "g"][0]
assert g["args"]["token"] == "lockdep--recursive-read--mmap_sem--futex_wait"
f = g["args"]["facts"]
assert f["kind"] == "lockdep" and f["circular"] is False, f
a = f["acquire"]
assert (a["task"], a["op"], a["point"], a["step"], a["lock"]) == (1, 2, 7, 15, "&mm->mmap_sem"), a
h = f["held"]
assert (h["task"], h["op"], h["point"], h["lock"], h["taken_at"], h["mode"], h["taken_by"]) == \
    (1, 2, 2, "&mm->mmap_sem", "futex_wait", "read", "down_read"), h
assert h["ts"] < a["ts"], (h, a)
assert "op 2 point 7 (scheduling point 15)" in g["args"]["report"]
# the hold slice the flow starts in: that lock, held from there past the acquisition
hold = [e for e in ev if e["ph"] == "X" and e["cat"] == "lock" and e["tid"] // 100 == 1
        and e["ts"] == h["ts"] and e["name"] == "&mm->mmap_sem"]
assert hold and hold[0]["ts"] + hold[0]["dur"] > a["ts"], hold
fl = [e for e in ev if e.get("name") == "held lock"]
assert [(e["ph"], e["tid"], e["ts"]) for e in fl] == [("s", hold[0]["tid"], h["ts"]), ("f", 1, a["ts"])], fl
EOF
check "rc4.json (a deadlock): no facts" python3 -c '
import json, sys
g = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("s") == "g"]
assert g[0]["args"]["facts"] is None, g[0]["args"]["facts"]' "$tmp/rc4.json"

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

# the new findings in the picture: the marks, in red, with the oracle's facts as titles
for c in "2.6.11 $absorbed absorbed" "2.6.10-seto $seto seto" "2.6.11 $eagain eagain" "2.6.11-rc4 $ldcase lockdep"; do
	set -- $c
	run "$snafu" trace --kernel="$1" "$2" -o "$tmp/$3.html"
	expect_rc "trace -o $3.html" 1
done
h=$tmp/absorbed.html
check "absorbed.html: the marks" grep -q '<g id="marks" data-kind="lost-wakeup" data-how="absorbed">' "$h"
check "absorbed.html: the spent wake-up, an arrow from T1's FUTEX_WAKE to T3" \
	grep -qE '<path class="lost-wake" [^>]*stroke="red"[^>]*marker-end="url\(#arrow-red\)"><title>FUTEX_WAKE spent its wake-up on T3, which read 0, not its val 1, at 1\.7' "$h"
check "absorbed.html: the passed-over sleeper" grep -qE '<path class="passed-over" [^>]*><title>passed over T2: queued at 1\.5, waiting since its read at 1\.7, asleep since 1\.10' "$h"
check "absorbed.html: T2 still asleep to the end" grep -qE '<rect class="lost-sleeper" data-task="2" [^>]*fill="url\(#hatch-lost\)"' "$h"
check "absorbed.html: ... marked so" grep -q '>still asleep: wake-up lost</text>' "$h"
check "absorbed.html: T3's read that did not match" grep -qE '<circle class="spent-read" [^>]*><title>T3 read 0, not its val 1, at 1\.7' "$h"
check "absorbed.html: what red means" grep -q '<text id="marks-legend"' "$h"
# the arrow runs from T1's lane (x 56..452) to T3's (x 856..1252), downwards
check "absorbed.html: the arrow joins T1's lane to T3's" python3 - "$h" <<'EOF'
import re, sys
d = re.search(r'<path class="lost-wake" d="M([0-9.]+),([0-9.]+) L([0-9.]+),([0-9.]+)"', open(sys.argv[1]).read())
x0, y0, x1, y1 = map(float, d.groups())
assert 56 <= x0 < 452 and 856 <= x1 < 1252 and y1 > y0, d.groups()
EOF
h=$tmp/seto.html
check "seto.html: the marks" grep -q '<g id="marks" data-kind="lost-wakeup" data-how="missed">' "$h"
check "seto.html: the wake that found nobody, ending in a cross" grep -qE '<path class="missed-wake" [^>]*marker-end="url\(#x-red\)"><title>FUTEX_WAKE woke nobody: T1 had read 0 at 3\.5 and was not queued yet; the word now held 1' "$h"
check "seto.html: T1 queuing after it" grep -qE '<circle class="late-queue" [^>]*><title>T1 queued only at 3\.6, after the wake \(2\.5\)' "$h"
check "seto.html: T1 still asleep to the end" grep -q '<rect class="lost-sleeper" data-task="1" ' "$h"
h=$tmp/eagain.html
check "eagain.html: the marks" grep -q '<g id="marks" data-kind="wrong-result">' "$h"
check "eagain.html: the call with the wrong -EAGAIN" grep -qE "<rect class=\"wrong-call\" data-task=\"1\" [^>]*stroke=\"red\"[^>]*><title>T1&#39;s FUTEX_CMP_REQUEUE\(0x40000000, val 0\) returned -EAGAIN, yet it read 0 and the word held 0 when it returned" "$h"
check "eagain.html: where it chose -EAGAIN" grep -qE '<circle class="eagain-point" [^>]*><title>T1 found nqueued moved \(0 -&gt; 1\) at 3\.7' "$h"
check "eagain.html: the queue_me() that moved nqueued" grep -qE "<circle class=\"queue-me\" [^>]*><title>T2&#39;s queue_me\(\) at 1\.5" "$h"
check "eagain.html: ... an arrow to the call" grep -q '<path class="nqueued-edge" ' "$h"
h=$tmp/lockdep.html
check "lockdep.html: the marks" grep -q '<g id="marks" data-kind="lockdep">' "$h"
check "lockdep.html: the acquisition reported" grep -qE '<circle class="lockdep-acquire" [^>]*><title>lockdep: possible recursive locking detected: T1 tries to acquire &amp;mm-&gt;mmap_sem at 2\.7 \(scheduling point 15\)' "$h"
check "lockdep.html: the held lock, taken in futex_wait at 2.2" grep -qE '<rect class="lockdep-held" data-task="1" [^>]*><title>held: &amp;mm-&gt;mmap_sem \(read\), taken by down_read at futex_wait, 2\.2' "$h"
check "lockdep.html: an arrow from one to the other" grep -q '<path class="lockdep-held-edge" ' "$h"
check "rc4.html (a deadlock): no marks" test -z "$(grep -E 'id="marks"|marks-legend' "$html")"
for f in absorbed.html seto.html eagain.html lockdep.html; do
	check "$f: nothing from outside" test -z "$(grep -Eio '<script|<link|<img|<iframe|@import|(src|href)=' "$tmp/$f")"
done
# the same input, the same bytes
"$snafu" trace --kernel=2.6.11 "$absorbed" -o "$tmp/again.html" >/dev/null
"$snafu" trace --kernel=2.6.11 "$absorbed" -o "$tmp/again.json" >/dev/null
check "absorbed: the same HTML twice" cmp -s "$tmp/absorbed.html" "$tmp/again.html"
check "absorbed: the same JSON twice" cmp -s "$tmp/absorbed.json" "$tmp/again.json"

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

# --- the trace's source column: the 2.6.11 file and function of each event ---
# `snafu replay --trace` gives each event the file:function of 2.6.11 it happened in, from
# ref/kernel.h's one table (KFRAME_SOURCES). Every name the model pushes on its shadow call
# stack (kframe(): its function's name, or KFUNC's where a file defines it, as
# ref/futex-*.c do; kframe_as("NAME")) and every syscall the entry
# names (prog/ops.c) has a line there, and every line is for a name that is pushed. Every
# case on every kernel it names traces with no event of an unknown source ("?NAME"), "-"
# only in user mode, and the columns line up; the article's cases name the files a kernel
# developer opens, a macro (get_user, put_user) its caller's; the report's Call Trace stays
# the kernel's own (names, no files).
pushed=$( (
	for f in "$src"/ref/*.c "$src"/ref/*.h; do
		awk '
		/^[A-Za-z_][^;]*\(/ && !/;[ \t]*$/ {
			s = $0
			gsub(/__attribute__\(\([^)]*\)\)/, "", s)
			if (match(s, /[A-Za-z_][A-Za-z0-9_]*\(/))
				fn = substr(s, RSTART, RLENGTH - 1)
		}
		/^#define KFUNC "/ { k = $0; sub(/.*KFUNC "/, "", k); sub(/".*/, "", k); kfunc = k }
		/^#define KFUNC __func__/ { kfunc = "" }
		/^[ \t]+kframe\(\);/ { print (kfunc != "" ? kfunc : fn) }
		/^[ \t]+kframe_as\("/ { s = $0; sub(/.*kframe_as\("/, "", s); sub(/".*/, "", s); print s }' "$f"
	done
	grep -oE '\.syscall = "[a-z0-9_]+"' "$src/prog/ops.c" | cut -d'"' -f2
) | sort -u)
listed=$(grep -oE '^[[:space:]]+KSRC(_AS|_MACRO)?\([A-Za-z0-9_]+' "$src/ref/kernel.h" | sed 's/.*(//' | sort)
check "source table: the names pushed are found ($(wc -w <<<"$pushed") of them)" test "$(wc -w <<<"$pushed")" -ge 40
check "source table: one line a name" test -z "$(uniq -d <<<"$listed")"
missing=$(comm -23 <(echo "$pushed") <(echo "$listed") | tr '\n' ' ')
check "source table: every name pushed has its 2.6.11 file (missing: ${missing:-none})" test -z "$missing"
stale=$(comm -13 <(echo "$pushed") <(echo "$listed") | tr '\n' ' ')
check "source table: no line for a name nobody pushes (${stale:-none})" test -z "$stale"

srcs=()
for c in "$src"/repro/cases/*.case; do
	for k in $(awk '$1 == "expect" && $2 != "*" {print $2}' "$c"); do
		out=$tmp/src-$(basename "$c" .case)-$k.txt
		"$snafu" replay --trace --quiet --kernel="$k" "$c" >"$out" 2>"$tmp/err"
		rc=$?
		if [ $rc -le 1 ] && [ -s "$out" ]; then srcs+=("$out"); else
			bad "replay --trace --kernel=$k $c: exit $rc: $(head -1 "$tmp/err")"; fi
	done
done
check "every case, every kernel: each event's source known, aligned, '-' only in user mode" \
	python3 - "${srcs[@]}" <<'EOF'
import re, sys
events = 0
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    head = lines[0]
    fn, src, obj = head.index("function"), head.index("source (2.6.11)"), head.index("object / argument")
    for n, line in enumerate(lines[1:], 2):
        if not line.startswith("T"):
            continue
        events += 1
        where = "%s:%d: %s" % (path, n, line)
        assert len(line) >= obj and line[fn - 1] == " " and line[src - 1] == " " and line[obj - 1] == " ", where
        s, f = line[src:obj].strip(), line[fn:src].strip()
        assert s and " " not in s, where
        if s == "-":
            assert line.split()[2] == "user" or f.startswith("user ") or f == "signal delivered" \
                or line.startswith("T0 "), where
        else:
            assert re.fullmatch(r"[a-z0-9_/.-]+\.[chS]:[A-Za-z_][A-Za-z0-9_]*", s), where
print(events, "events in", len(sys.argv) - 1, "traces")
assert events > 1000
EOF
run "$snafu" replay --trace --quiet "$case_"
t=$tmp/out
check "trace: the header names the source column" grep -qE '^task op\.point +event +function +source \(2\.6\.11\) +object / argument$' "$t"
check "trace: T2's sys_mmap2 in arch/i386/kernel/sys_i386.c" grep -qE '^T2 +1\.0 +syscall +sys_mmap2 +arch/i386/kernel/sys_i386\.c:sys_mmap2 +1 pages, private$' "$t"
check "trace: T1's sys_futex in kernel/futex.c" grep -qE '^T1 +2\.0 +syscall +sys_futex +kernel/futex\.c:sys_futex +FUTEX_WAIT, val 1$' "$t"
check "trace: the get_user in futex_wait" grep -qE '^T1 +2\.7 +uaccess +get_user +kernel/futex\.c:futex_wait +0x40000000 0$' "$t"
check "trace: queue_me's spin_unlock" grep -qE '^T1 +2\.5 +unlock +spin_unlock +kernel/futex\.c:queue_me +&bh->lock$' "$t"
check "trace: the fault in do_page_fault" grep -qE '^T1 +2\.8 +fault +do_page_fault +arch/i386/mm/fault\.c:do_page_fault +read 0x40000000 0$' "$t"
check "trace: the trylock that fails in __down_read_trylock" grep -qE '^T1 +2\.11 +tryfail +down_read_trylock +lib/rwsem-spinlock\.c:__down_read_trylock +&mm->mmap_sem$' "$t"
check "trace: T1 asleep in __down_read (lib/rwsem-spinlock.c)" grep -qE '^T1 +2\.14 +sleep +down_read +lib/rwsem-spinlock\.c:__down_read +&mm->mmap_sem$' "$t"
check "trace: T2 asleep in __down_write" grep -qE '^T2 +1\.4 +sleep +down_write +lib/rwsem-spinlock\.c:__down_write +&mm->mmap_sem$' "$t"
check "trace: schedule in kernel/sched.c" grep -qE '^T1 +2\.15 +point +schedule +kernel/sched\.c:schedule *$' "$t"
run "$snafu" replay --trace --quiet "$src/repro/cases/get-mempolicy-mmap-sem.case"
check "trace: the put_user in sys_get_mempolicy (mm/mempolicy.c)" grep -qE '^T1 +2\.5 +uaccess +put_user +mm/mempolicy\.c:sys_get_mempolicy +0x40000000 0$' "$tmp/out"
run "$snafu" replay "$case_"
sed -n '/^Call Trace:/,/^[^ ]/{/^ /p}' "$tmp/out" >"$tmp/calltrace"
check "report: Call Trace lines as the kernel prints them, no files" test -s "$tmp/calltrace" -a \
	-z "$(grep -v '^ \[<0>\] [a-z_0-9]*$' "$tmp/calltrace")"
check "report: no source column in the interleaving" test -z "$(grep -E '\.[chS]:[a-z_]' "$tmp/out")"

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
# A PNG's pixels, decoded with zlib alone (no PIL): decode(PATH) gives the width, the
# height, the bytes a pixel and the rows, unfiltered, as bytearrays.
cat >"$tmp/png.py" <<'EOF'
import struct, zlib


def decode(path):
    data = open(path, "rb").read()
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
    return w, h, bpp, rows
EOF
# The screenshot's pixels: both lanes' backgrounds, the bars, and red lines of the cycle
# running from one lane into the other.
check "screenshot: lanes, bars and the cycle drawn" env PYTHONPATH="$tmp" python3 - "$png" <<'EOF'
import sys
from png import decode
w, h, bpp, rows = decode(sys.argv[1])
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
# the lost wake-up in Chromium: the marks in the DOM, and red from T1's lane to T3's
browse --dump-dom "file://$tmp/absorbed.html" >"$tmp/absorbed-dom.html"
check "chromium: the spent wake-up's arrow" grep -q 'class="lost-wake"' "$tmp/absorbed-dom.html"
check "chromium: the sleeper's band" grep -q 'class="lost-sleeper"' "$tmp/absorbed-dom.html"
(cd "$tmp" && browse --screenshot="$tmp/absorbed.png" --window-size=1300,900 "file://$tmp/absorbed.html" >/dev/null)
check "screenshot: the lost wake-up drawn in red across the lanes" env PYTHONPATH="$tmp" python3 - "$tmp/absorbed.png" <<'EOF'
import sys
from png import decode
w, h, bpp, rows = decode(sys.argv[1])
red, lane2, band = [], [], 0
for line in rows:
    for x in range(w):
        r, g, b = line[x * bpp:x * bpp + 3]
        if r >= 200 and g <= 60 and b <= 60:
            red.append(x)
        elif abs(r - 0xee) <= 6 and abs(g - 0xf6) <= 6 and abs(b - 0xe6) <= 6:
            lane2.append(x)
        elif r >= 230 and 170 <= g <= 235 and 170 <= b <= 235 and r - g >= 15:
            band += 1  # the pinkish hatch of "still asleep"
print("red %d px from x %d to %d, lane 2 from x %d to %d, band %d px" % (
    len(red), min(red or [0]), max(red or [0]), min(lane2 or [0]), max(lane2 or [0]), band))
assert len(red) > 300, "no red marks"
assert lane2, "no T2 lane"
assert min(red) < min(lane2) and max(red) > max(lane2), "the red arrow does not cross T2's lane"
assert band > 2000, "no still-asleep band"
EOF
echo "$pass passed, $fail failed"
[ $fail = 0 ]
