#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every name the prose gives exists in the tree.

    refs_test.py [--root DIR] [--list]

Reads README.md, docs/*.md, benchmarks/README.md and RESULTS.md,
tests/README.md, tests/model/README.md, the public headers
(include/rcupool/* and the ExecuTorch stand-in's) and the opening comment
of every other file of lib/ (the lines before its first line of code),
and fails, with file:line and what is missing, when one of them
names:
  - a repository path that does not exist: a markdown link's target
    (relative to the document), a word starting with a top-level folder
    (lib/, tests/, docs/...) or an `#include <rcupool/...>`; `*`, `?` and
    `{a,b}` must match at least one file;
  - a file by its bare name in backticks (`warm_test.cc`) that no file of
    the tree is called;
  - a test program (`misuse_test`, a word ending in _test) that is neither
    a file (misuse_test.cc, .sh, .py) nor a Bazel target;
  - a GoogleTest test, Suite.Name or Suite.Prefix* (Suite a CamelCase
    word), that no TEST/TEST_F/TEST_P of tests/ defines;
  - a Bazel label (//pkg:name, //pkg, @rcupool//pkg:name, //pkg:all,
    //pkg/...) whose package has no BUILD file or no such target or file;
  - an invariant label (WARM-3) that no opening comment of lib/ defines
    (a line "LABEL." or "LABEL:" in a file's opening);
  - a header count ("the 11 public headers", "four public headers") other
    than the number of files in include/rcupool/;
  - a measured figure (a ratio such as 1.5x, a time with decimals such as
    0.1 ms) in README.md, docs/, tests/README.md or a public header:
    figures live in benchmarks/RESULTS.md (and benchmarks/README.md's
    summary, which report.py writes and //benchmarks:report_check_test
    checks); prose names the row instead.
    Whole times (a 150 ms period, a 100 ms section) are settings, not
    measurements, and pass.
Run by Bazel (//tests/docs:refs_test), it finds the source tree through
the runfiles link to this file; from a checkout, run it as
tests/docs/refs_test.py. --list prints every name it checked.
"""
import argparse
import fnmatch
import os
import re
import sys

DOCS = ["README.md", "docs/*.md", "benchmarks/README.md",
        "benchmarks/RESULTS.md", "tests/README.md", "tests/model/README.md"]
HEADERS = ["include/rcupool/*",
           "lib/compat/executorch/include/executorch/extension/threadpool/*"]
LIB = "lib"
SKIP_DIRS = {".git"}
NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve "
    "thirteen fourteen fifteen sixteen".split())}
# Headers of other projects and of the system, named by their bare names.
FOREIGN = {"pthreadpool.h", "cpuinfo.h", "xnnpack.h", "urcu.h", "urcu-bp.h",
           "urcu-memb.h", "pthread.h", "benchmark.h", "Python.h", "dlfcn.h",
           "sched.h", "unistd.h", "stdatomic.h", "threadpool.h",
           "threadpool_guard.h", "gtest.h", "signal.h",
           "pan.c", "android.toolchain.cmake"}  # pan.c: spin's output, written where the model runs
# Words of the form LETTERS-DIGITS that are not invariant labels.
NOT_LABELS = re.compile(r"^(UTF|ISO|RFC|CVE|SHA|MD|X|LGPL|GPL)-\d+$")
TOP = None  # the top-level folders, set in main()

PATH_WORD = re.compile(r"(?<![\w/.@-])((?:\.\./|\./)?(?:%s)/[\w.*?{},/+-]*"
                       r"[\w*}/])")
BACKTICK = re.compile(r"`([^`\n]+)`")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
INCLUDE = re.compile(r"<(rcupool/[\w./-]+)>")
BARE_FILE = re.compile(r"^[\w.+-]+\.(c|h|cc|hpp|py|pyi|sh|md|pml|bzl|map|"
                       r"patch|supp|json|gp|png|dat|in|txt|cmake)$")
TEST_WORD = re.compile(r"(?<![\w/.:-])([a-z][a-z0-9_]*_test)(?![\w.-])")
GTEST = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9]*)\.([A-Z][A-Za-z0-9]*\*?|\*)"
                   r"(?![\w(])")
LABEL_USE = re.compile(r"(?<![\w-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*-\d+)"
                       r"(?![\w-])")
BAZEL = re.compile(r"(?<![\w/])(?:@rcupool)?(//(?:[\w./-]*[\w.])?)"
                   r"(?::([\w.+/{},-]+))?(?![\w/])")
HEADER_COUNT = re.compile(r"\b(\d+|%s) public headers\b" % "|".join(NUMBERS),
                          re.I)
FIGURE = re.compile(r"(?<![\w.+-])(\d+(?:\.\d+)?x|\d+\.\d+\s?(?:ns|us|ms))"
                    r"(?![\w])")
FIGURE_DOCS = re.compile(r"^(README\.md|docs/[^/]+\.md|tests/README\.md|"
                         r"include/.*|lib/compat/executorch/include/.*)$")
TEST_DEF = re.compile(r"^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST)\(\s*(\w+)\s*,"
                      r"\s*(\w+)\s*\)", re.M)
# "LABEL." or "LABEL:" at the start of a comment line defines it; so does a
# list "A-3, A-4." (labels kept to say where their invariants went).
LABEL_DEF = re.compile(r"^\s*(?:/?\*+|//|#)?\s*((?:[A-Z][A-Z0-9_]*-\d+)"
                       r"(?:,\s*[A-Z][A-Z0-9_]*-\d+)*)[.:]")
BUILD_NAME = re.compile(r"\bname\s*=\s*\"([^\"]+)\"")


def find_root(args_root):
    """--root, else the tree this file is in (under Bazel, runfiles link
    to the source files, so the link's target is in the tree)."""
    if args_root:
        return os.path.abspath(args_root)
    root = os.path.normpath(os.path.join(
        os.path.dirname(os.path.realpath(__file__)), "..", ".."))
    if not os.path.exists(os.path.join(root, "README.md")):
        sys.exit("refs_test: cannot find the source tree (give --root)")
    return root


class Tree:
    def __init__(self, root):
        self.root = root
        self.files, self.dirs = set(), set()
        for d, subdirs, names in os.walk(root):
            rel = os.path.relpath(d, root)
            subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS and
                          not (rel == "." and s.startswith("bazel-"))]
            rel = "" if rel == "." else rel
            if rel:
                self.dirs.add(rel)
            for n in names:
                self.files.add(os.path.join(rel, n) if rel else n)
        self.basenames = {os.path.basename(f) for f in self.files}
        self.packages = {os.path.dirname(f) for f in self.files
                         if os.path.basename(f) in ("BUILD", "BUILD.bazel")}
        self.targets = {}
        for p in self.packages:
            build = os.path.join(p, "BUILD") if os.path.join(
                p, "BUILD") in self.files else os.path.join(p, "BUILD.bazel")
            # Names a macro or a loop makes are string literals of the
            # package's BUILD or .bzl files (a constant, a list of names).
            text = self.read(build) + "".join(
                self.read(f) for f in self.files
                if os.path.dirname(f) == p and f.endswith(".bzl"))
            self.targets[p] = set(BUILD_NAME.findall(text)) | set(
                re.findall(r"\"([\w.+%-]+)\"", text))
        self.tests = set()
        for f in self.files:
            if f.startswith("tests/") and f.endswith((".cc", ".cpp")):
                self.tests.update(TEST_DEF.findall(self.read(f)))
        self.suites = {s for s, _ in self.tests}
        # Macros that define tests (rcupool_cc_test in tests/defs.bzl).
        self.macros = set()
        for f in self.files:
            if f.endswith(".bzl"):
                self.macros.update(re.findall(r"^def (\w+)\(", self.read(f),
                                              re.M))
        self.labels = {}
        for f in sorted(self.files):
            if f.startswith(LIB + "/") and f.endswith((".c", ".h", ".cc")):
                for _, line in opening(self.read(f)):
                    m = LABEL_DEF.match(line)
                    for label in re.findall(r"[A-Z][A-Z0-9_]*-\d+",
                                            m.group(1) if m else ""):
                        self.labels.setdefault(label, f)
        # The model's properties (MODEL-1, FORKMODEL-2) are labelled in the
        # opening comment of its Promela files.
        for f in sorted(self.files):
            if f.startswith("tests/model/") and f.endswith(".pml"):
                for _, line in opening(self.read(f)):
                    m = re.match(r"^\s*\*?\s*([A-Z]+-\d+)\s", line)
                    if m:
                        self.labels.setdefault(m.group(1), f)

    def read(self, rel):
        with open(os.path.join(self.root, rel), encoding="utf-8",
                  errors="replace") as f:
            return f.read()

    def matches(self, pattern):
        """Files or folders a path (with *, ?, {a,b}) names."""
        pattern = os.path.normpath(pattern)
        m = re.match(r"^(.*)\{([^{}]*)\}(.*)$", pattern)
        if m:
            return [x for alt in m.group(2).split(",")
                    for x in self.matches(m.group(1) + alt + m.group(3))]
        if any(c in pattern for c in "*?["):
            return [f for f in self.files | self.dirs
                    if fnmatch.fnmatchcase(f, pattern)]
        return [pattern] if pattern in self.files or pattern in self.dirs \
            else []


def opening(text):
    """(line number, line) of a file's opening: the lines before its first
    line of code (comments and blank lines only)."""
    out, in_block = [], False
    for i, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if in_block:
            out.append((i, line))
            if "*/" in s:
                in_block = False
            continue
        if s == "" or s.startswith("//") or s.startswith("#!") or \
                (s.startswith("#") and not s.startswith("#include") and
                 not s.startswith("#if") and not s.startswith("#def") and
                 not s.startswith("#pragma") and
                 not s.startswith("#ifndef")):
            out.append((i, line))
            continue
        if s.startswith("/*"):
            out.append((i, line))
            in_block = "*/" not in s
            continue
        if s.startswith('"""') or s.startswith("'''"):  # a module docstring
            q = s[:3]
            out.append((i, line))
            in_block_py = s.count(q) < 2
            if in_block_py:
                rest = text.split("\n")[i:]
                for j, l2 in enumerate(rest, i + 1):
                    out.append((j, l2))
                    if q in l2:
                        break
            break
        break
    return out


def lines_of(tree, rel, whole):
    text = tree.read(rel)
    if rel.startswith(LIB + "/") and not whole:
        return opening(text)
    return list(enumerate(text.split("\n"), 1))


def check_line(tree, rel, n, line, problems, seen):
    where = "%s:%d" % (rel, n)
    doc_dir = os.path.dirname(rel)

    def missing(kind, name, why):
        problems.append("%s: %s `%s` %s" % (where, kind, name, why))

    def want_path(p, base=""):
        q = os.path.normpath(os.path.join(base, p))
        seen.add(("path", q))
        if q.startswith(".."):
            return missing("path", p, "points outside the tree")
        if tree.matches(q) or (base and tree.matches(p)):
            return
        if not tree.matches(q):
            missing("path", p, "does not exist (no file or folder %s)" % q)

    for m in MD_LINK.finditer(line):
        target = m.group(1).split("#")[0]
        if target and not re.match(r"^[a-z]+:", target):
            want_path(target, doc_dir)
    for m in INCLUDE.finditer(line):
        want_path("include/" + m.group(1))
    listing = rel.endswith(".md") and re.match(r"^ {6,}\S", line)
    for m in PATH_WORD.finditer(line):
        p = m.group(1).rstrip(".,:;")
        if listing and not line[:m.start()].strip():
            continue  # a nested entry of an indented tree listing
        base = doc_dir if p.startswith(("./", "../")) else ""
        if "..." in p:  # a Bazel pattern (//tests/...), not a path
            continue
        want_path(p, base)
    for m in BACKTICK.finditer(line):
        word = m.group(1).strip()
        if BARE_FILE.match(word) and "/" not in word:
            seen.add(("file", word))
            if word not in tree.basenames and word not in FOREIGN:
                missing("file", word, "is no file's name in the tree")
    for m in TEST_WORD.finditer(line):
        word = m.group(1)
        seen.add(("test", word))
        if not any(word + ext in tree.basenames
                   for ext in (".cc", ".c", ".sh", ".py")) and not any(
                       word in names for names in tree.targets.values()) \
                and word not in tree.macros:
            missing("test", word, "is neither a test file (%s.cc, .sh, .py) "
                    "nor a Bazel target" % word)
    for m in GTEST.finditer(line):
        suite, name = m.group(1), m.group(2)
        if suite not in tree.suites and not suite.startswith("Rcupool"):
            continue  # not a test's name (a Python or C++ member, a file)
        seen.add(("gtest", suite + "." + name))
        if name.endswith("*"):
            ok = any(s == suite and t.startswith(name[:-1])
                     for s, t in tree.tests)
        else:
            ok = (suite, name) in tree.tests
        if not ok:
            missing("test", suite + "." + name,
                    "is defined by no TEST/TEST_F/TEST_P of tests/")
    for m in BAZEL.finditer(line):
        pkg, name = m.group(1)[2:].rstrip("/"), m.group(2)
        if not pkg and not name:
            continue  # a C++ comment, not a label
        if m.start() > 0 and line[m.start() - 1] == ":":
            continue  # a URL (https://...)
        seen.add(("target", m.group(0)))
        label = "//%s%s" % (pkg, ":" + name if name else "")
        if pkg.endswith("/...") or pkg == "...":
            base = pkg[:-4].rstrip("/")
            if base and base not in tree.dirs:
                missing("target", label, "names no folder of the tree")
            continue
        if pkg not in tree.packages:
            # tests/downstream is a workspace of its own: //:x there.
            missing("target", label, "has no BUILD file in %s/" % (pkg or "."))
            continue
        if not name:
            continue  # //pkg in prose names the package, which exists
        name = name.rstrip(".,") if "{" not in name else name
        names = [name]
        b = re.match(r"^(.*)\{([^{}]*)\}(.*)$", names[0])
        if b:
            names = [b.group(1) + x + b.group(3) for x in b.group(2).split(",")]
        for name in names:
            if name in ("all", "*", "all-targets") or \
                    name in tree.targets[pkg] or any(
                        fnmatch.fnmatchcase(name, t.replace("%s", "*").replace(
                            "%d", "*")) for t in tree.targets[pkg]
                        if "%" in t) or \
                    tree.matches(os.path.join(pkg, name)):
                continue
            missing("target", "//%s:%s" % (pkg, name),
                    "is no target or file of //%s" % pkg)
    for m in LABEL_USE.finditer(line):
        label = m.group(1)
        if NOT_LABELS.match(label):
            continue
        seen.add(("label", label))
        if label not in tree.labels:
            missing("invariant label", label,
                    "is defined in no lib/ file's opening comment")
    if FIGURE_DOCS.match(rel):
        for m in FIGURE.finditer(line):
            seen.add(("figure", m.group(1)))
            missing("figure", m.group(1), "is a measurement outside "
                    "benchmarks/RESULTS.md: name the RESULTS.md row instead")
    for m in HEADER_COUNT.finditer(line):
        word = m.group(1).lower()
        n_said = int(word) if word.isdigit() else NUMBERS[word]
        n_real = len([f for f in tree.files
                      if f.startswith("include/rcupool/")])
        seen.add(("count", m.group(0)))
        if n_said != n_real:
            missing("header count", m.group(0),
                    "is wrong: include/rcupool/ holds %d" % n_real)


def main():
    global TOP
    ap = argparse.ArgumentParser()
    ap.add_argument("--root")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    tree = Tree(find_root(args.root))
    TOP = sorted(d for d in tree.dirs if "/" not in d and
                 not d.startswith("."))
    global PATH_WORD
    PATH_WORD = re.compile(PATH_WORD.pattern % "|".join(
        re.escape(t) for t in TOP + [".ci"]))
    checked = []
    for pattern in DOCS + HEADERS:
        checked += sorted(tree.matches(pattern))
    whole = set(checked)
    checked += sorted(f for f in tree.files if f.startswith(LIB + "/") and
                      f.endswith((".c", ".h", ".cc", ".py", ".map")) and
                      f not in whole)
    if not tree.labels:
        sys.exit("refs_test: no invariant label found in lib/: the check "
                 "itself is broken")
    problems, seen = [], set()
    for rel in checked:
        for n, line in lines_of(tree, rel, rel in whole):
            check_line(tree, rel, n, line, problems, seen)
    if args.list:
        for kind, name in sorted(seen):
            print(kind, name)
    kinds = sorted({k for k, _ in seen})
    print("refs_test: %d files, %d names checked (%s)" % (
        len(checked), len(seen), ", ".join(kinds)))
    for p in problems:
        print(p)
    if problems:
        print("refs_test: %d names that do not exist" % len(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
