#!/usr/bin/env bash
# The documentation's examples, run, so that README.md and docs/*.md cannot drift from
# the tools they describe.
#
#   bash tests/test_readme.sh BIN_DIR SRC_DIR [OTHER_BIN_DIR] [TSAN_BIN_DIR]
#
# The convention (docs/README.md repeats it for writers):
#  - A fenced block tagged ```console is run. Each line starting with `$ ` is a command;
#    a trailing `\` continues it on the next line; a trailing comment `# exit N` gives
#    the exit status it must have (default 0). The lines after it, up to the next `$ `
#    line, are expected output: each must match a line of the command's stdout and
#    stderr together (one pipe), in order, other lines in between allowed. Trailing
#    spaces are ignored, `...` inside a line matches any text, and a line that is just
#    `...` (or blank) stands for lines left out.
#  - Commands run in a fresh temporary directory where build/bin/ is BIN_DIR and
#    repro/, corpus/, fuzz/ and ci/ are copies of the source tree's (read-only): a command
#    that writes `-o x.html` writes into the temporary directory, never into the tree.
#    Each command has 30 s.
#  - Blocks not tagged console (``` or ```sh: ./build.sh fuzz, long evaluate runs, gdb
#    and rr sessions, stress for a minute) are not run, but every `build/bin/snafu SUB`
#    in ANY block, and every inline `snafu SUB ...` code span, is checked: SUB must be a
#    command of snafu, and every `--option` after it must appear in the output of
#    `build/bin/snafu SUB --help`.
# A self-test runs the checker on a document with a wrong output line, a wrong exit
# status and an unknown option first: each must be caught, or this test fails.
set -u
. "$(dirname "$0")/lib.sh"
setup_test "$@" # $bin, $src, $tmp
command -v python3 >/dev/null || {
	echo "skipped: no python3"
	exit 77
}
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

# The tree the commands see: build/bin is the build under test, the rest read-only copies.
mkdir -p "$tmp/tree/build" "$tmp/tree/repro"
ln -s "$bin" "$tmp/tree/build/bin"
for d in corpus fuzz ci; do
	[ -d "$src/$d" ] && cp -R "$src/$d" "$tmp/tree/$d"
done
for f in "$src"/repro/*; do
	[ "$(basename "$f")" = found ] || cp -R "$f" "$tmp/tree/repro/"
done
chmod -R a-w "$tmp/tree/corpus" "$tmp/tree/fuzz" "$tmp/tree/ci" "$tmp/tree/repro" 2>/dev/null

cat >"$tmp/check.py" <<'EOF'
import os, re, shlex, shutil, signal, subprocess, sys, tempfile

snafu_bin, tree = sys.argv[1], sys.argv[2]
snafu = os.path.join(snafu_bin, "snafu")

def run(cmd, cwd, timeout=30):
    try:
        p = subprocess.run(["bash", "-c", cmd], cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return 124, (e.output or b"").decode("utf-8", "replace") + "\n(timed out)"
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    return rc, p.stdout.decode("utf-8", "replace")

helps = {}
def help_of(sub):
    """(is SUB a command, the text its options must appear in)"""
    if sub not in helps:
        _, usage = run(f"'{snafu}'", tree)
        if sub.startswith("-"):
            helps[sub] = (True, run(f"'{snafu}' --help", tree)[1] + usage)
        else:
            rc, text = run(f"'{snafu}' {shlex.quote(sub)} --help", tree)
            listed = re.search(rf"^\s+{re.escape(sub)}(\s|$)", usage, re.M) is not None
            own = rc == 0 and re.search(rf"(^|\s){re.escape(sub)}\b", text) is not None \
                and "expected a command" not in text
            helps[sub] = (listed or own, text)
    return helps[sub]

def check_snafu_line(where, text, errors, prefix=r"build/bin/"):
    """every `build/bin/snafu SUB --opt` in text (`snafu SUB` too with prefix optional):
    SUB a command, --opt in `snafu SUB --help`"""
    for m in re.finditer(r"(?:^|(?<=[\s(=]))(?:" + prefix + r")snafu[ \t]+(\S+)([^\n]*)", text):
        sub, rest = m.group(1), m.group(2)
        rest = re.split(r"\s[|;#>]|&&|`", rest)[0]
        ok, help_text = help_of(sub)
        if not ok:
            errors.append(f"{where}: 'snafu {sub}': not a command of snafu")
            continue
        opts = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", (sub + " " if sub.startswith("-") else "") + rest)
        for o in opts:
            if o == "--help":
                continue
            if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", help_text):
                errors.append(f"{where}: 'snafu {sub} ... {o}': {o} is not in 'snafu {sub} --help'")

def pattern(line):
    return re.compile(".*".join(re.escape(part) for part in line.split("...")))

def check_console(where, cmd, want_rc, expected, errors, cwd):
    rc, out = run(cmd, cwd)
    lines = [l.rstrip() for l in out.split("\n")]
    i = 0
    for e in expected:
        e = e.rstrip()
        if e.strip() in ("", "..."):
            continue
        p = pattern(e)
        while i < len(lines) and not p.fullmatch(lines[i]):
            i += 1
        if i == len(lines):
            errors.append(f"{where}: '$ {cmd}': no output line matches (in order):\n    {e}\n"
                          + "  its output was:\n" + "\n".join("    | " + l for l in lines[:60]))
            break
        i += 1
    if rc != want_rc:
        errors.append(f"{where}: '$ {cmd}': exit status {rc}, the document says {want_rc}\n"
                      + "\n".join("    | " + l for l in lines[:20]))

def check_file(path, errors, cwd):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # HTML comments (notes to writers) are not documentation: blank them, keeping lines
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    doc = text.split("\n")
    name = os.path.relpath(path, os.environ.get("SNAFU_DOC_ROOT", "/"))
    ncmd = 0
    n = 0
    while n < len(doc):
        line = doc[n]
        fence = re.match(r"^\s*```\s*([\w+-]*)", line)
        if not fence:
            for code in re.findall(r"`((?:build/bin/)?snafu [^`]*)`", line):
                check_snafu_line(f"{name}:{n + 1}", code, errors, r"build/bin/|")
            n += 1
            continue
        tag, start = fence.group(1), n + 1
        n += 1
        block = []
        while n < len(doc) and not re.match(r"^\s*```\s*$", doc[n]):
            block.append((n + 1, doc[n]))
            n += 1
        n += 1  # the closing fence
        for ln, text in block:
            check_snafu_line(f"{name}:{ln}", text, errors)
        if tag != "console":
            continue
        k = 0
        while k < len(block):
            ln, text = block[k]
            if not text.startswith("$ "):
                k += 1  # text before the first command
                continue
            cmd = text[2:]
            while cmd.endswith("\\") and k + 1 < len(block):
                k += 1
                cmd += "\n" + block[k][1]
            k += 1
            m = re.search(r"#\s*exit\s+(\d+)\b[^\n]*$", cmd)
            want = int(m.group(1)) if m else 0
            expected = []
            while k < len(block) and not block[k][1].startswith("$ "):
                expected.append(block[k][1])
                k += 1
            tool = re.match(r"\s*build/bin/(\S+)", cmd)
            if tool and not os.access(os.path.join(snafu_bin, tool.group(1)), os.X_OK):
                print(f"note: {name}:{ln}: no {tool.group(1)} in this build; not run")
                continue
            # snafu evaluate runs the fuzzer beside snafu, which a gcc build has not
            if re.match(r"\s*build/bin/snafu\s+evaluate\b", cmd) and \
                    not os.access(os.path.join(snafu_bin, "futex_mm_fuzzer"), os.X_OK):
                print(f"note: {name}:{ln}: no futex_mm_fuzzer in this build; not run")
                continue
            ncmd += 1
            check_console(f"{name}:{ln}", cmd, want, expected, errors, cwd)
    return ncmd

def self_test():
    """The checker must catch a wrong line, a wrong exit status and an unknown option."""
    bad = {
        "wrong output": "```console\n$ build/bin/snafu kernels\n2.6.11-rc4 ... no such text\n```\n",
        "wrong order": "```console\n$ build/bin/snafu kernels\n2.6.11 ...\n2.6.11-rc4 ...\n```\n",
        "wrong exit": "```console\n$ build/bin/snafu replay repro/cases/futex-wait-mmap-sem.case\n```\n",
        "unknown option": "```\nbuild/bin/snafu replay --no-such-option x.case\n```\n",
        "unknown command": "```sh\nbuild/bin/snafu frobnicate x.case\n```\n",
        "inline": "Run `snafu show --no-such-flag FILE`.\n",
    }
    good = ("```console\n$ build/bin/snafu kernels\n2.6.11-rc4 ... unfixed: ...\n...\n"
            "2.6.11   ...\n$ build/bin/snafu replay \\\n    repro/cases/futex-wait-mmap-sem.case  # exit 1\n"
            "DEDUP_TOKEN: deadlock--...\n```\n")
    failures = 0
    d = tempfile.mkdtemp(dir=os.path.dirname(tree))
    for what, text in list(bad.items()) + [("good", good)]:
        p = os.path.join(d, "doc.md")
        with open(p, "w") as f:
            f.write(text)
        errs = []
        check_file(p, errs, tree)
        if (what == "good") == bool(errs):
            failures += 1
            print(f"FAIL: self-test: a document with {what}: "
                  + ("an error: " + errs[0] if errs else "no error"))
    shutil.rmtree(d)
    return failures

fails = self_test()
ncmds = 0
for doc in sys.argv[3:]:
    errors = []
    work = tempfile.mkdtemp(dir=os.path.dirname(tree), prefix="run-")
    for entry in os.listdir(tree):
        os.symlink(os.path.join(tree, entry), os.path.join(work, entry))
    ncmds += check_file(doc, errors, work)
    for e in errors:
        print("FAIL: " + e)
    fails += len(errors)
print(f"{len(sys.argv) - 3} documents, {ncmds} commands run, {fails} failed")
sys.exit(1 if fails else 0)
EOF

docs=("$src/README.md")
for f in "$src"/docs/*.md; do
	[ -f "$f" ] && docs+=("$f")
done
SNAFU_DOC_ROOT=$src python3 "$tmp/check.py" "$bin" "$tmp/tree" "${docs[@]}"
