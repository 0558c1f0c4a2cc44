#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the "## Files" section of tests/README.md from the tree.

    tests/docs/tests_readme.py           rewrite the section in place
    tests/docs/tests_readme.py --check   change nothing; fail, with a diff,
                                         when the section is not what the
                                         tree gives (//tests/docs:tests_readme_test)

Every file under tests/ is listed (BUILD files, __pycache__ and the files
of a folder that holds only data, such as fuzz/corpus/ or zoo/machines/,
which its folder's line covers, are not), folder by folder, as the section already orders
them; a file that is gone loses its line. Each line keeps the description
the section gives it; a new file or folder gets the first sentence of its
own opening comment (of its BUILD file for a folder), which can then be
rewritten by hand in the README: the next run keeps it. A new file with no
opening comment and no description is an error that names it. Run it after
adding, moving or removing a test file; it is idempotent.
"""
import difflib
import os
import re
import sys
import textwrap

README = "tests/README.md"
HEADING = "## Files"
# MODULE.bazel.lock: what Bazel 7+ writes into a nested module workspace
# (tests/bzlmod_consumer) when it runs; git ignores it (.gitignore).
SKIP_NAMES = {"BUILD", "BUILD.bazel", "MODULE.bazel.lock"}
SKIP_DIRS = {"__pycache__"}
COLUMN = 28  # where descriptions start (NESTED inside a folder)
NESTED = 30
WIDTH = 92


def root_dir():
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.normpath(os.path.join(here, "..", ".."))


class Entry:
    def __init__(self, names, desc, folder):
        self.names, self.desc, self.folder = names, desc, folder

    def paths(self):
        return [os.path.join(self.folder, n).rstrip("/") for n in self.names]

    def is_dir(self):
        return len(self.names) == 1 and self.names[0].endswith("/")


def parse(lines):
    """The section's entries, in order. An entry line is indented 4 + 2 per
    folder level, names (", "-separated) then two spaces and the
    description; deeper lines continue the description."""
    entries, stack = [], []  # stack: (indent, folder path)
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent >= COLUMN - 4 and entries:  # a continuation
            entries[-1].desc += " " + line.strip()
            continue
        m = re.match(r"^(\S+(?:, \S+)*)(?: {2,}(.*))?$", line.strip())
        if not m:
            sys.exit("%s: cannot read the line %r" % (README, line))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        folder = stack[-1][1] if stack else ""
        e = Entry(m.group(1).split(", "), (m.group(2) or "").strip(), folder)
        entries.append(e)
        if e.is_dir():
            stack.append((indent, os.path.join(folder, e.names[0]).rstrip("/")))
    return entries


def first_sentence(text):
    """Up to the first full stop; a long one up to its first colon or
    semicolon outside parentheses. Its first word in lower case when it
    is a plain word ("The log" -> "the log", "ExecuTorch" stays)."""
    text = " ".join(text.split())
    m = re.match(r"^(.*?)\.(\s|$)", text)
    s = m.group(1) if m else text.rstrip(".")
    if len(s) > 90:
        depth = 0
        for i, c in enumerate(s):
            depth += (c == "(") - (c == ")")
            if c in ":;" and depth == 0 and i > 10:
                s = s[:i]
                break
    word = s.split(" ")[0]
    if word.isalpha() and word[0].isupper() and (
            len(word) == 1 or word[1:].islower()):
        s = s[0].lower() + s[1:]
    return s


def opening_comment(path):
    """The first paragraph of a file's opening comment, without SPDX."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")[:40]
    except (UnicodeDecodeError, OSError):
        return ""
    out = []
    doc = None
    for line in lines:
        s = line.strip()
        if "SPDX-License-Identifier" in s or s.startswith("#!"):
            continue
        if doc is None and s.startswith(('"""', "'''")):
            doc = s[:3]
            s = s[3:]
            if doc in s:
                return s.split(doc)[0]
            out.append(s)
            continue
        if doc:
            if doc in s:
                out.append(s.split(doc)[0])
                break
            if not s and out:
                break
            out.append(s)
            continue
        if s.startswith(("//", "#", "/*", "*")) and not s.startswith(
                ("#include", "#if", "#define", "#pragma")):
            s = re.sub(r"^(//+|#+|/\*+|\*+/?)\s?", "", s).rstrip("*/ ")
            if not s:
                if out and out[0].split(" ")[0] == os.path.basename(path):
                    out = []  # a usage line ("run.sh ARGS"): the next one
                    continue
                if out:
                    break
                continue
            out.append(s)
            continue
        if not s and not out:
            continue
        break
    return " ".join(out)


def tree_files(root):
    files = set()
    base = os.path.join(root, "tests")
    for d, subdirs, names in os.walk(base):
        subdirs[:] = [s for s in subdirs if s not in SKIP_DIRS]
        rel = os.path.relpath(d, base)
        rel = "" if rel == "." else rel
        for n in names:
            if n in SKIP_NAMES or n.endswith(".pyc") or (
                    not rel and n == "README.md"):
                continue
            # A nested workspace's convenience links (tests/downstream's
            # bazel-bin, ...), dangling where its output base is not seen.
            if n.startswith("bazel-") and os.path.islink(os.path.join(d, n)):
                continue
            files.add(os.path.join(rel, n) if rel else n)
    return files


DATA_SUFFIXES = (".machine",)  # zoo/machines/: one real machine a file


def is_data(name):
    """A data file: no dot in its name (fuzz/corpus/), or a data suffix."""
    return "." not in name or name.endswith(DATA_SUFFIXES)


def data_only(folder, files):
    """A folder of data files only (fuzz/corpus/, zoo/machines/)."""
    inside = [f for f in files if os.path.dirname(f) == folder]
    return inside and all(is_data(os.path.basename(f)) for f in inside)


def generate(root, old):
    files = tree_files(root)
    dirs = {os.path.dirname(f) for f in files} - {""}
    for d in list(dirs):
        while "/" in d:
            d = os.path.dirname(d)
            dirs.add(d)
    covered = {d for d in dirs if data_only(d, files)}
    listed = {f for f in files if os.path.dirname(f) not in covered}
    entries = []
    for e in parse(old):
        if e.is_dir():
            if e.paths()[0] in dirs:
                entries.append(e)
            continue
        keep = [n for n, p in zip(e.names, e.paths()) if p in listed]
        if keep:
            entries.append(Entry(keep, e.desc, e.folder))
    known = {p for e in entries for p in e.paths()}
    for k in list(known):  # "compat/executorch/" stands for compat/ too
        while "/" in k:
            k = os.path.dirname(k)
            known.add(k)
    problems = []

    def describe(path, is_dir):
        full = os.path.join(root, "tests", path)
        src = next((os.path.join(full, n) for n in (
            "BUILD", "README.md", "CMakeLists.txt")
            if os.path.exists(os.path.join(full, n))), "") if is_dir \
            else full
        d = first_sentence(opening_comment(src)) if src else ""
        if not d:
            problems.append("tests/%s: no description: give it an opening "
                            "comment, or write one after its name in %s"
                            % (path + ("/" if is_dir else ""), README))
        return d

    def insert_at(folder, is_dir):
        """Index for a new entry of `folder`: a file after the folder's
        last file line (or right after the folder's own line), a folder
        at the end of the folder's block."""
        start = next((i + 1 for i, e in enumerate(entries)
                      if e.is_dir() and e.paths()[0] == folder), 0)
        end = start
        while end < len(entries) and (
                folder == "" or entries[end].folder == folder or
                entries[end].folder.startswith(folder + "/")):
            end += 1
        if is_dir:
            return end
        return max((i + 1 for i in range(start, end)
                    if entries[i].folder == folder and
                    not entries[i].is_dir()), default=start)

    for d in sorted(dirs, key=lambda x: (x.count("/"), x)):
        if d not in known:
            parent = os.path.dirname(d)
            entries.insert(insert_at(parent, True),
                           Entry([os.path.basename(d) + "/"],
                                 describe(d, True), parent))
            known.add(d)
    for f in sorted(listed - known):
        folder = os.path.dirname(f)
        entries.insert(insert_at(folder, False),
                       Entry([os.path.basename(f)], describe(f, False),
                             folder))
    return render(entries), problems


def render(entries):
    out = []
    folders = {e.paths()[0] for e in entries if e.is_dir()}
    for e in entries:
        # One level per folder line above it ("compat/executorch/" is one).
        depth = sum(1 for f in folders
                    if e.folder == f or e.folder.startswith(f + "/"))
        column = NESTED if depth else COLUMN
        head = " " * (4 + 2 * depth) + ", ".join(e.names)
        pad = max(column - len(head), 2)
        # Never break at a hyphen: a path such as docs/default-size.md
        # must stay one word for the reference check.
        words = textwrap.wrap(e.desc, width=max(WIDTH - len(head) - pad, 20),
                              break_on_hyphens=False) or [""]
        out.append((head + " " * pad + words[0]).rstrip())
        for line in textwrap.wrap(" ".join(words[1:]), width=WIDTH - column,
                                  break_on_hyphens=False):
            out.append(" " * column + line)
    return out


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        sys.exit(__doc__)
    root = root_dir()
    path = os.path.join(root, README)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    try:
        h = lines.index(HEADING)
    except ValueError:
        sys.exit("%s: no line %r" % (README, HEADING))
    # The section: after its heading, one paragraph of prose, then the
    # indented listing up to the next heading or the end.
    i = h + 1
    while i < len(lines) and not lines[i].startswith("    "):
        i += 1
    j = i
    while j < len(lines) and not lines[j].startswith("#"):
        j += 1
    while j > i and not lines[j - 1].strip():
        j -= 1
    new, problems = generate(root, lines[i:j])
    result = "\n".join(lines[:i] + new + lines[j:])
    for p in problems:
        print(p)
    if check:
        if result == text and not problems:
            print("%s: its Files section lists the tree" % README)
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            text.splitlines(True), result.splitlines(True),
            README + " (committed)", README + " (from the tree)", n=1))
        print("%s: the Files section is not the tree's: run "
              "tests/docs/tests_readme.py (then edit new descriptions if "
              "you like; it keeps them)" % README)
        return 1
    if problems:
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(result)
    print("%s: Files section written (%d lines)" % (README, len(new)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
