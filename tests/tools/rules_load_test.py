#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every BUILD file and .bzl file of the tree that calls a C/C++ rule
(cc_library, cc_binary, cc_test, cc_import) loads it from @rules_cc, and
none calls native.cc_*.
Bazel 9 has no native C++ rules: a call that relies on the native one
fails there, while Bazel 4.2.3 and 7 still build it. Then the same check
on a BUILD text with a cc_binary that its load line does not name, which
it must reject, so that it is seen to fail.

    rules_load_test.py [--root DIR]

Run by Bazel (//tests/tools:rules_load_test), it finds the source tree
through its own runfiles link, as refs_test does.
"""
import os
import re
import sys

RULES = ("cc_library", "cc_binary", "cc_test", "cc_import")
CALL = re.compile(r"(?<![\w.])(" + "|".join(RULES) + r")\s*\(")
LOAD = re.compile(r"load\(\s*\"@rules_cc//cc:defs\.bzl\"((?:\s*,\s*\"\w+\")*)"
                  r"\s*,?\s*\)")
SKIP = {".git", "bazel-bin", "bazel-out", "bazel-testlogs"}


def unloaded(text):
    """The C/C++ rules `text` calls without loading them from @rules_cc."""
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    loaded = set()
    for m in LOAD.finditer(code):
        loaded.update(re.findall(r"\"(\w+)\"", m.group(1)))
    # A def of the same name (a macro) is no native call.
    defined = set(re.findall(r"^def (\w+)\(", code, re.M))
    native = {"native." + r for r in re.findall(r"\bnative\.(cc_\w+)\s*\(", code)}
    return sorted(({r for r in CALL.findall(code)} - loaded - defined) | native)


def find_root(argv):
    if len(argv) == 3 and argv[1] == "--root":
        return os.path.abspath(argv[2])
    root = os.path.normpath(os.path.join(
        os.path.dirname(os.path.realpath(__file__)), "..", ".."))
    if not os.path.exists(os.path.join(root, "MODULE.bazel")):
        sys.exit("rules_load_test: cannot find the source tree (give --root)")
    return root


def main(argv):
    root = find_root(argv)
    files = []
    for d, subdirs, names in os.walk(root):
        subdirs[:] = [s for s in subdirs
                      if s not in SKIP and not s.startswith("bazel-")]
        files += [os.path.join(d, n) for n in names
                  if n in ("BUILD", "BUILD.bazel") or n.endswith(".bzl")]
    faults = 0
    for f in sorted(files):
        with open(f, encoding="utf-8") as fh:
            missing = unloaded(fh.read())
        if missing:
            faults += 1
            print("%s: calls %s without load(\"@rules_cc//cc:defs.bzl\", ...)"
                  % (os.path.relpath(f, root), ", ".join(missing)))
    print("rules_load_test: %d BUILD and .bzl files, %d without their load"
          % (len(files), faults))
    broken = ('load("@rules_cc//cc:defs.bzl", "cc_library")\n'
              'cc_library(name = "a")\n[cc_binary(name = n) for n in ["b"]]\n')
    if unloaded(broken) != ["cc_binary"]:
        print("FAIL: a cc_binary its load line does not name is not found")
        faults += 1
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
