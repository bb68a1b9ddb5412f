#!/usr/bin/env python3
"""Apply (or check) mutants of ref/: bench/mutants/README.md describes the format.

    apply.py [--root=DIR] [--dry-run] MUTANT...
    apply.py [--root=DIR] --check MUTANT...   each one alone against the tree, writing
                                              nothing: a line for every one that fails
    apply.py --info MUTANT           the class and the files it touches, one a line

Each block's text to find (whole lines) must occur exactly once in its file, starting at
the beginning of a line, as the file stands after the mutant's earlier blocks. A block
with alternatives ('--- or find') needs exactly one of them to occur, once. Nothing is
written unless every block of every mutant applies (--dry-run writes nothing at all).
Exit status: 0 applied (or would apply), 2 bad usage, a malformed mutant, or a text to
find that is missing or not unique: one line naming the mutant file, the block and what
is wrong.
"""
import os
import sys

CLASSES = ("real", "equivalent")
MARKERS = ("--- find", "--- replace", "--- or find", "--- end")


class MutantError(Exception):
    pass


def parse(path):
    """The mutant's class and its blocks: (number, line, file, [(find, replace), ...])."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise MutantError(f"{path}: cannot read: {e.strerror}")
    if lines and lines[-1] == "":
        lines.pop()
    klass, target, blocks = None, None, []
    i = 0
    while i < len(lines):
        line, no = lines[i], i + 1
        i += 1
        if line.startswith("#"):
            if line.startswith("# class:"):
                klass = line[len("# class:"):].strip()
                if klass not in CLASSES:
                    raise MutantError(
                        f"{path}:{no}: class '{klass}': expected one of {', '.join(CLASSES)}")
            continue
        if not line.strip():
            continue
        if line.startswith("file:"):
            target = line[len("file:"):].strip()
            if not target or os.path.isabs(target) or ".." in target.split("/"):
                raise MutantError(f"{path}:{no}: file '{target}': expected a path inside the tree")
            continue
        if line != "--- find":
            raise MutantError(
                f"{path}:{no}: expected a '#' comment, a 'file: PATH' line or '--- find'")
        if target is None:
            raise MutantError(f"{path}:{no}: '--- find' before any 'file:' line")
        number, start = len(blocks) + 1, no
        alts, find, repl, cur = [], [], [], "find"
        while True:
            if i >= len(lines):
                raise MutantError(f"{path}:{start}: block {number}: no '--- end' line")
            line = lines[i]
            i += 1
            if line == "--- replace" and cur == "find":
                cur = "replace"
            elif line in ("--- or find", "--- end") and cur == "replace":
                if not find:
                    raise MutantError(f"{path}:{start}: block {number}: nothing to find")
                f = "\n".join(find) + "\n"
                r = "\n".join(repl) + "\n" if repl else ""
                if f == r:
                    raise MutantError(
                        f"{path}:{start}: block {number}: the replacement is the text itself")
                alts.append((f, r))
                if line == "--- end":
                    break
                find, repl, cur = [], [], "find"
            elif line in MARKERS:
                raise MutantError(f"{path}:{i}: block {number}: unexpected '{line}'")
            elif cur == "find":
                find.append(line)
            else:
                repl.append(line)
        blocks.append((number, start, target, alts))
    if klass is None:
        raise MutantError(f"{path}: no '# class: real' or '# class: equivalent' line")
    if not blocks:
        raise MutantError(f"{path}: no block ('file: PATH', '--- find', '--- replace', '--- end')")
    return klass, blocks


def occurrences(text, find):
    """How many times find occurs in text as whole lines (from the start of a line)."""
    text, find = "\n" + text, "\n" + find
    n, at = 0, text.find(find)
    while at >= 0:
        n += 1
        at = text.find(find, at + 1)
    return n


def replace_once(text, find, repl):
    at = ("\n" + text).find("\n" + find)
    return text[:at] + repl + text[at + len(find):]


def mutate(root, path, blocks, files):
    """Apply the blocks to files (path -> text), reading from root as needed."""
    for number, line, target, alts in blocks:
        full = os.path.join(root, target)
        if target not in files:
            try:
                with open(full, encoding="utf-8") as f:
                    files[target] = f.read()
            except OSError as e:
                raise MutantError(
                    f"{path}: block {number} (line {line}): {target}: {e.strerror}")
        counts = [occurrences(files[target], f) for f, _ in alts]
        hits = [k for k, n in enumerate(counts) if n]
        if len(alts) == 1 and counts[0] != 1:
            first = alts[0][0].split("\n")[0].strip()
            raise MutantError(
                f"{path}: block {number} (line {line}): the text to find "
                f"('{first}'...) occurs {counts[0]} times in {target}, expected exactly once")
        if len(alts) > 1 and (len(hits) != 1 or counts[hits[0]] != 1):
            said = ", ".join(f"{k + 1}: {n} times" for k, n in enumerate(counts))
            raise MutantError(
                f"{path}: block {number} (line {line}): of its {len(alts)} texts to find "
                f"({said}) in {target}, exactly one must occur, exactly once")
        f, r = alts[hits[0]]
        files[target] = replace_once(files[target], f, r)


def main(argv):
    root, dry, info, check, mutants = ".", False, False, False, []
    for a in argv:
        if a.startswith("--root="):
            root = a[len("--root="):]
        elif a == "--dry-run":
            dry = True
        elif a == "--info":
            info = True
        elif a == "--check":
            check = True
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            print(f"apply.py: unknown option '{a}': expected --root=DIR, --dry-run, --check "
                  "or --info", file=sys.stderr)
            return 2
        else:
            mutants.append(a)
    if not mutants:
        print("apply.py: no mutant given: apply.py [--root=DIR] [--dry-run] MUTANT...",
              file=sys.stderr)
        return 2
    if check:
        rc = 0
        for m in mutants:
            try:
                mutate(root, m, parse(m)[1], {})
            except MutantError as e:
                print(f"apply.py: {e}", file=sys.stderr)
                rc = 2
        return rc
    try:
        if info:
            for m in mutants:
                klass, blocks = parse(m)
                print(f"class {klass}")
                for t in dict.fromkeys(b[2] for b in blocks):
                    print(f"file {t}")
            return 0
        files = {}
        for m in mutants:
            mutate(root, m, parse(m)[1], files)
    except MutantError as e:
        print(f"apply.py: {e}", file=sys.stderr)
        return 2
    if not dry:
        for target, text in files.items():
            full = os.path.join(root, target)
            tmp = full + ".mutant-tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, full)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
