#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every public function of the public headers states its contract.

Each public function's comment holds four lines, each starting with its tag
(after the comment's leading "*" or "//"):

  Returns:   what it returns ("nothing" for void);
  Threads:   which threads may call it;
  Blocks:    whether it may sleep, and on what;
  Lifetime:  how long what it returns or takes stays valid ("no pointers
             kept" when nothing does).

A function's comment is the nearest comment that starts a line above its
declaration within the same paragraph (no blank line between them), so
declarations listed together under one comment share it (as
rcupool_read_lock() and rcupool_read_unlock() do). A function declared
several times (a forward declaration, #if branches, overloads) needs the
four lines at one of them.

Public: in C, every function declared RCUPOOL_API or defined static inline;
in C++, the functions of a namespace other than `detail` and the public
members of its classes, except constructors, destructors and assignment
operators (their contract is the class's).

Usage: api_comments_test.py HEADER...   (exit 1 naming each function that
lacks a line; with no argument, the headers of this checkout).
"""

import os
import re
import sys

TAGS = ("Returns:", "Threads:", "Blocks:", "Lifetime:")

DEFAULT_HEADERS = (
    "include/rcupool",
    "lib/compat/executorch/include/executorch/extension/threadpool",
)

KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "void", "int",
    "char", "bool", "static_assert", "decltype", "alignof", "noexcept",
    "__attribute__", "defined", "typedef", "using", "friend",
}


def split_lines(text):
    """Yields (code, starts, comment, open_after, slashes) for each line.

    code is the line with comments and the contents of string literals
    blanked; starts is True when a comment starts the line (only blanks
    before it) or a block comment runs on from the line above; comment is
    the text of the line's comments; open_after is True when a block
    comment is still open at the end of the line; slashes is True when the
    line is nothing but a // comment.
    """
    in_block = False
    for line in text.split("\n"):
        code = []
        comment = []
        starts = in_block
        slashes = False
        i = 0
        n = len(line)
        while i < n:
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    comment.append(line[i:])
                    i = n
                else:
                    comment.append(line[i:end])
                    i = end + 2
                    in_block = False
                continue
            c = line[i]
            if line.startswith("/*", i):
                if not "".join(code).strip():
                    starts = True
                in_block = True
                i += 2
            elif line.startswith("//", i):
                if not "".join(code).strip():
                    starts = True
                    slashes = True
                comment.append(line[i + 2:])
                i = n
            elif c in "\"'":
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                code.append(c + " " * (min(j, n) - i - 1) + c)
                i = j + 1
            else:
                code.append(c)
                i += 1
        yield "".join(code), starts, "\n".join(comment), in_block, slashes


class Comment:
    def __init__(self, line):
        self.line = line
        self.text = []

    def missing(self):
        body = []
        for raw in "\n".join(self.text).split("\n"):
            body.append(re.sub(r"^\s*\*?\s*", "", raw))
        return [t for t in TAGS if not any(b.startswith(t) for b in body)]


def strip_preprocessor(lines):
    """Blanks preprocessor lines (and their continuations) in code."""
    out = []
    cont = False
    for code in lines:
        if cont or code.lstrip().startswith("#"):
            cont = code.rstrip().endswith("\\")
            out.append("")
        else:
            cont = False
            out.append(code)
    return out


def function_name(stmt, cls):
    """The name a declaration statement declares, or None if no function."""
    s = re.sub(r"\s+", " ", stmt).strip()
    s = re.sub(r"^template ?<[^{;]*?> ?(?=[A-Za-z_])", "", s)
    s = re.sub(r"__attribute__ ?\(\(.*?\)\)", "", s)
    s = re.sub(r"\[\[\w+\]\]", "", s).strip()
    if not s or s.startswith(("typedef", "using", "friend", "static_assert",
                              "namespace", "extern", "class ", "struct ",
                              "enum", "union", "public", "private",
                              "protected", "template")):
        return None
    m = re.search(r"(~?\boperator\b\s*(?:\(\)|[^\s(]+|\w+)|~?\b\w+)\s*\(", s)
    if not m:
        return None
    name = re.sub(r"operator\s*", "operator ", m.group(1)).replace(
        "operator (", "operator(").strip()
    before = s[:m.start()]
    if "=" in before or name in KEYWORDS or name.isupper():
        return None
    if name.endswith("_"):
        return None
    bare = name.lstrip("~")
    if cls and (bare == cls or name.startswith("~")):
        return None  # constructor or destructor
    if name.startswith("operator") and name[len("operator"):].strip() == "=":
        return None
    return name


def check_file(path, text):
    raw = list(split_lines(text))
    code_lines = strip_preprocessor([r[0] for r in raw])

    # The governing comment of each line: nearest line-starting comment
    # above it within its paragraph.
    governing = []
    current = None
    building = None
    for idx, (code, starts, ctext, open_after, slashes) in enumerate(raw):
        if building is None and not code.strip() and not starts:
            if not ctext:
                current = None  # a blank line ends the paragraph
        if building is None and starts:
            building = Comment(idx + 1)
        if building is not None:
            building.text.append(ctext)
            nxt = raw[idx + 1] if idx + 1 < len(raw) else None
            goes_on = open_after or (
                slashes and nxt is not None and nxt[4])
            if not goes_on:
                current = building
                building = None
        governing.append(current)

    found = {}  # qualified name -> list of (line, missing tags)
    scopes = [("top", None, True)]  # (kind, name, public)
    stmt = ""
    stmt_line = None
    for idx, code in enumerate(code_lines):
        i = 0
        while i < len(code):
            c = code[i]
            kind, name, public = scopes[-1]
            if kind in ("body", "type"):
                if c == "{":
                    scopes.append(("body", None, False))
                elif c == "}":
                    scopes.pop()
                i += 1
                continue
            if not stmt.strip() and not c.isspace():
                stmt_line = idx
            if c in ";{}":
                decl = stmt.strip()
                if c == "}":
                    scopes.pop()
                    stmt = ""
                    i += 1
                    continue
                fn = function_name(decl, name if kind == "class" else None)
                if c == "{":
                    m_ns = re.match(r"(?:inline )?namespace\s*(\w*)", decl)
                    m_cls = re.search(r"\b(class|struct)\b(?:\s+\w+_API)?\s+(\w+)"
                                      r"[^(]*$", decl)
                    if decl.startswith("extern"):
                        scopes.append(("extern", None, public))
                    elif m_ns:
                        scopes.append(("namespace", m_ns.group(1),
                                       public and m_ns.group(1) != "detail"))
                    elif m_cls and not fn:
                        scopes.append(("class", m_cls.group(2),
                                       m_cls.group(1) == "struct"))
                    else:
                        scopes.append(("body" if fn or "(" in decl else "type",
                                       None, False))
                if fn and public and stmt_line is not None:
                    qual = fn if kind != "class" else "%s::%s" % (name, fn)
                    g = governing[stmt_line]
                    missing = list(TAGS) if g is None else g.missing()
                    found.setdefault(qual, []).append((stmt_line + 1, missing))
                stmt = ""
                stmt_line = None
                i += 1
                continue
            if c == ":" and kind == "class":
                m = re.match(r"\s*(public|private|protected)\s*$", stmt)
                if m and not code.startswith(":", i + 1):
                    scopes[-1] = (kind, name, m.group(1) == "public")
                    stmt = ""
                    stmt_line = None
                    i += 1
                    continue
            stmt += c
            i += 1
        stmt += " "

    problems = []
    for qual, decls in found.items():
        if any(not missing for _, missing in decls):
            continue
        line, missing = min(decls, key=lambda d: len(d[1]))
        problems.append("%s:%d: %s: no %s line" %
                        (path, line, qual, ", ".join(missing)))
    return len(found), problems


def main(argv):
    paths = argv[1:]
    if not paths:
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        for d in DEFAULT_HEADERS:
            full = os.path.join(root, d)
            paths += [os.path.join(full, f) for f in sorted(os.listdir(full))
                      if f.endswith((".h", ".hpp"))]
    total = 0
    problems = []
    for path in paths:
        with open(path) as f:
            text = f.read()
        n, p = check_file(path, text)
        total += n
        problems += p
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print("%d of %d public functions lack a contract line" %
              (len(problems), total))
        return 1
    print("PASS: %d public functions in %d headers, each with %s" %
          (total, len(paths), " ".join(TAGS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
