#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""usage: label_index.py [--tests] DESIGN_MD LIB_FILE...

Checks the index of invariant labels in docs/design.md ("## Invariant
labels") against the files of lib/ that keep them:

  * every label at the top of a LIB_FILE (a line " *   NAME-N. ...",
    before its first #include) has exactly one row, naming that file;
  * every row names a label some LIB_FILE keeps (no row for nothing);
  * the labels of one prefix in one file are numbered 1, 2, ... without
    a gap, and a prefix belongs to one file (a label that moves with its
    code takes the new file's prefix);
  * every row says what checks it (its last column is not empty).

With --tests (run from the checkout), also: every `path` a row cites
exists, and every Suite.Name it cites is a TEST of the cited .cc file
(".Name" continues the previous suite).

Exit status: 0 when all holds, 1 naming each fault, 2 on a bad argument.
"""

import os
import re
import sys


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    tests = "--tests" in argv
    args = [a for a in argv if a != "--tests"]
    bad = [a for a in args if a.startswith("-")]
    if bad or len(args) < 2:
        print("label_index.py: " + (f"unknown option {bad[0]}" if bad else
              "DESIGN_MD and LIB_FILE... needed") +
              " (see tools/label_index.py --help)", file=sys.stderr)
        return 2
    design, lib_files = args[0], args[1:]
    faults = []

    kept = {}  # label -> lib path ("lib/x.c")
    for f in lib_files:
        rel = f[f.rindex("lib/"):] if "lib/" in f else f
        head = open(f, encoding="utf-8").read().split("\n#include", 1)[0]
        for label in re.findall(r"^ \*   ([A-Z][A-Z_]*-[0-9]+)\.", head, re.M):
            if label in kept:
                faults.append(f"{label} kept twice: {kept[label]}, {rel}")
            kept[label] = rel

    by_prefix = {}
    for label, f in kept.items():
        prefix, n = label.rsplit("-", 1)
        by_prefix.setdefault(prefix, {}).setdefault(f, []).append(int(n))
    for prefix, files in sorted(by_prefix.items()):
        if len(files) > 1:
            faults.append(f"prefix {prefix} in {len(files)} files: "
                          f"{', '.join(sorted(files))}")
        for f, ns in files.items():
            if sorted(ns) != list(range(1, len(ns) + 1)):
                faults.append(f"{f}: {prefix} numbered {sorted(ns)}, not 1..{len(ns)}")

    text = open(design, encoding="utf-8").read()
    m = re.search(r"^## Invariant labels\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        faults.append(f"{design}: no section \"## Invariant labels\"")
        rows = []
    else:
        rows = re.findall(r"^\| ([A-Z][A-Z_]*-[0-9]+) \| `([^`]+)` \| (.*?) \|$",
                          m.group(1), re.M)
    seen = {}
    for label, f, checked in rows:
        if label in seen:
            faults.append(f"index: {label} has two rows")
        seen[label] = f
        if label not in kept:
            faults.append(f"index: {label} is kept by no file of lib/")
        elif kept[label] != f:
            faults.append(f"index: {label} is in {kept[label]}, the row says {f}")
        if not checked.strip():
            faults.append(f"index: {label} says nothing checks it")
        if tests:
            faults += check_cited(label, checked)
    for label in sorted(set(kept) - set(seen)):
        faults.append(f"index: no row for {label} ({kept[label]})")

    for fault in faults:
        print(fault)
    print(f"label_index.py: {len(kept)} labels, {len(rows)} rows, "
          f"{len(faults)} faults")
    return 1 if faults else 0


def check_cited(label, checked):
    faults = []
    path, suite = None, None
    for tok in re.finditer(r"`([^`]+)`|\b([A-Z][A-Za-z0-9]*)\.([A-Z][A-Za-z0-9]*|\*)"
                           r"|(?<![\w.])\.([A-Z][A-Za-z0-9]*)\b", checked):
        if tok.group(1):
            if "/" in tok.group(1):
                path = tok.group(1)
                if not os.path.exists(path):
                    faults.append(f"index: {label} cites {path}, which does not exist")
            continue
        if tok.group(2):
            suite, name = tok.group(2), tok.group(3)
        else:
            name = tok.group(4)
        if suite is None or path is None or not path.endswith(".cc") or \
                not os.path.exists(path):
            continue
        src = open(path, encoding="utf-8").read()
        want = r"TEST(_F)?\(\s*%s,\s*%s\s*\)" % (suite, r"\w+" if name == "*" else name)
        if not re.search(want, src):
            faults.append(f"index: {label} cites {suite}.{name}, not a test of {path}")
    return faults


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
