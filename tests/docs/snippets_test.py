#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every code block of the docs that a user would copy is compiled or run.

    snippets_test.py [--elsewhere LANG,... | --only LANG,...] [--section TITLE]
                     DOC.md ... -- SOURCE ...

Each fenced block (a line "```LANG" to a line "```") of each DOC must:
  - for LANG c, cpp, python, cmake: appear in one SOURCE as a run of whole
    consecutive lines, the same byte for byte once the run's common
    indentation is removed (so a block may show the body of a function);
    the SOURCEs are files that CI builds or runs (examples/);
  - for LANG text: nothing (output, a session: not for copying);
  - for a LANG given to --elsewhere: nothing here (another run checks it:
    starlark and bazelrc blocks are checked by tests/downstream against its
    own WORKSPACE, BUILD and .bazelrc, with --only starlark,bazelrc, and
    those of the bzlmod section by tests/bzlmod_consumer against its
    MODULE.bazel, BUILD and .bazelrc).
With --section TITLE, only the blocks under a heading whose text starts
with TITLE (its subsections included) are checked.
A block without a language, or with another one, fails. Indented (not
fenced) blocks are shell commands and their output: not checked.
"""
import sys

CHECKED = {"c", "cpp", "python", "cmake", "starlark", "bazelrc"}
NOT_FOR_COPYING = {"text"}


def blocks(path):
    """Yields (line number, language, lines, headings) for each fenced
    block; headings: the texts of the headings it is under, outermost
    first."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    headings = []  # (level, text)
    while i < len(lines):
        if lines[i].startswith("#"):
            level = len(lines[i]) - len(lines[i].lstrip("#"))
            headings = [h for h in headings if h[0] < level]
            headings.append((level, lines[i][level:].strip()))
        if lines[i].startswith("```"):
            lang, start, body = lines[i][3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and lines[i] != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}:{start}: block never closed")
            yield start, lang, body, [h[1] for h in headings]
        i += 1


def dedent(lines):
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    cut = min(indents, default=0)
    return [l[cut:] for l in lines]


def found_in(body, sources):
    n = len(body)
    for name, lines in sources.items():
        for i in range(len(lines) - n + 1):
            if dedent(lines[i:i + n]) == body:
                return name
    return None


def main(argv):
    elsewhere = set()
    if argv[:1] == ["--elsewhere"]:
        elsewhere = set(argv[1].split(","))
        argv = argv[2:]
    elif argv[:1] == ["--only"]:
        elsewhere = CHECKED - set(argv[1].split(","))
        argv = argv[2:]
    section = None
    if argv[:1] == ["--section"]:
        section = argv[1]
        argv = argv[2:]
    if "--" not in argv:
        raise SystemExit(__doc__)
    split = argv.index("--")
    docs, source_paths = argv[:split], argv[split + 1:]
    sources = {}
    for p in source_paths:
        with open(p, encoding="utf-8") as f:
            sources[p] = f.read().split("\n")
    bad, checked = [], 0
    for doc in docs:
        for line, lang, body, headings in blocks(doc):
            where = f"{doc}:{line} ({lang or 'no language'})"
            if lang in NOT_FOR_COPYING or lang in elsewhere:
                continue
            if section is not None and not any(h.startswith(section) for h in headings):
                continue
            if lang not in CHECKED:
                bad.append(f"{where}: say the language ({', '.join(sorted(CHECKED | NOT_FOR_COPYING))})")
                continue
            if not any(l.strip() for l in body):
                bad.append(f"{where}: empty block")
                continue
            name = found_in(body, sources)
            checked += 1
            if name is None:
                bad.append(f"{where}: not in any built example; first line: {body[0]!r}")
            else:
                print(f"{where}: {name}")
    for b in bad:
        print("FAIL:", b)
    if checked == 0 and not bad:
        print("FAIL: no block checked")
        return 1
    print(f"{checked} blocks checked, {len(bad)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
