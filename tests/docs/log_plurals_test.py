#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every count in the library's messages has its unit and the right plural.

    log_plurals_test.py [--root DIR]

Reads every string literal of lib/ (C and C++, lib/xnnpack and
lib/compat included; adjacent literals joined, as the compiler joins
them): the format strings of rcupl_log() and rcupool_log() and the lines
built with snprintf(). A count is a printf conversion of an integer
(%zu, %u, %d, %ld, %lu, %llu, with flags and width). When one of the two
words right after it (blanks between) is a countable noun (thread, pool, pin, CPU, worker,
record, width, core, runtime, item, task, either number), the noun must
be chosen by the count: "%zu %s" (the noun passed as an argument, e.g.
rcupl_plural(n, "thread", "threads")) or "%zu thread%s". A noun written
out after a count reads "1 threads" or "2 thread" for some count, and
fails here with its file and line.
"""
import argparse
import os
import re
import sys

SOURCES = ("lib",)
EXTENSIONS = (".c", ".h", ".cc")
NOUNS = {
    "thread", "pool", "pin", "CPU", "worker", "record", "width", "core",
    "runtime", "item", "task", "method", "manager", "byte",
}
NOUN_FORMS = NOUNS | {n + "s" for n in NOUNS}
COUNT = re.compile(r"%[-+ #0]*\d*(?:hh|h|ll|l|z|j|t)?[diu]")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# Between two literals that the compiler joins: blanks, comments, and the
# PRIu64-style macros of <inttypes.h>.
JOIN = re.compile(r'(?:\s|/\*.*?\*/|//[^\n]*|\bPRI[diu]\w*\b)*', re.S)


def strings(text):
    """Yields (line, joined literal) for each run of adjacent literals."""
    i = 0
    while True:
        m = LITERAL.search(text, i)
        if m is None:
            return
        # A character constant such as '"' is not a string.
        if m.start() > 0 and text[m.start() - 1] == "'":
            i = m.start() + 1
            continue
        line = text.count("\n", 0, m.start()) + 1
        parts = [m.group(1)]
        end = m.end()
        while True:
            j = JOIN.match(text, end)
            pri = re.findall(r"\bPRI([diu])\w*", text[end:j.end()])
            n = LITERAL.match(text, j.end())
            if n is None:
                break
            if pri:
                parts[-1] += "%" + pri[-1]
            parts.append(n.group(1))
            end = n.end()
        i = end
        yield line, "".join(parts)


def problems(fmt):
    """The counts of fmt followed by a noun not chosen by the count."""
    found = []
    for m in COUNT.finditer(fmt):
        rest = fmt[m.end():]
        if re.match(r"\s*%s", rest):
            continue  # "%zu %s": the noun is an argument
        # The one or two words right after it ("%zu warm pools"); a
        # count followed by punctuation ("(%d); pool") has none.
        m2 = re.match(r"(?:[ \t]+[A-Za-z%']+){1,2}", rest)
        words = m2.group(0).split() if m2 else []
        for w in words:
            if w.endswith("%s") and w[:-2] in NOUNS:
                break  # "%zu thread%s"
            if w in NOUN_FORMS:
                found.append(f"'{m.group(0)} ... {w}'")
                break
            if "%" in w:
                break
    return found


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    args = ap.parse_args(argv)
    bad, seen = [], 0
    for top in SOURCES:
        for d, _, files in sorted(os.walk(os.path.join(args.root, top))):
            for f in sorted(files):
                if not f.endswith(EXTENSIONS):
                    continue
                path = os.path.join(d, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                rel = os.path.relpath(path, args.root)
                for line, fmt in strings(text):
                    if COUNT.search(fmt):
                        seen += 1
                    for p in problems(fmt):
                        bad.append(f"{rel}:{line}: {p} in \"{fmt}\"")
    for b in bad:
        print("FAIL:", b)
    if seen == 0:
        print("FAIL: no string with a count found under", args.root)
        return 1
    print(f"{seen} strings with a count read, {len(bad)} with a noun the count does not choose")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
