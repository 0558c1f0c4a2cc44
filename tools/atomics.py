#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The memory-order table of docs/design.md against the code.

    tools/atomics.py [--root DIR] --check   compare; exit 1 on any difference
    tools/atomics.py [--root DIR] --draft   table rows for the sites the table lacks
    tools/atomics.py [--root DIR] --list    every atomic site, with its line

Every atomic operation and fence of lib/ (C and C++, lib/xnnpack and
lib/compat included) and of include/rcupool/inline.h is a site: the
__atomic_* and __sync_* builtins, C11 <stdatomic.h> calls, liburcu's
uatomic_*, cmm_* barriers and rcu_dereference/rcu_assign_pointer family.
A site is named by its file, the function (or macro) it is in, the
operation and its memory orders; line numbers do not count, so the table
survives edits that move code. The table is the rows between the lines
"<!-- atomics: begin -->" and "<!-- atomics: end -->" of docs/design.md:

    | file | function | operation | order | pairs with |

--check reports, per file, each site of the code missing from the table
and each row of the table with no site left in the code (a changed order
is both), and exits 1 if there is any. After a merge that changed lib/,
--draft prints the missing rows with a placeholder (DRAFT_PAIRS) in the
last column, which --check refuses: paste them
into the table, write what each pairs with, and delete the extra rows.
"""
import argparse
import collections
import os
import re
import sys

from c_source import strip_comments_and_strings

SOURCES = ("lib", "include/rcupool/inline.h")
EXTENSIONS = (".c", ".h", ".cc", ".cpp", ".hpp")
TABLE = "docs/design.md"
BEGIN = "<!-- atomics: begin -->"
END = "<!-- atomics: end -->"

CALL = re.compile(
    r"\b(__atomic_\w+|__sync_\w+|"
    r"atomic_(?:load|store|exchange|compare_exchange_\w+|fetch_\w+|"
    r"thread_fence|signal_fence)(?:_explicit)?|"
    r"uatomic_\w+|cmm_\w+|CMM_LOAD_SHARED|CMM_STORE_SHARED|"
    r"rcu_dereference|rcu_assign_pointer|rcu_set_pointer|rcu_xchg_pointer|"
    r"rcu_cmpxchg_pointer)\s*\(")
ORDER = re.compile(r"\b(?:__ATOMIC_|memory_order_)(\w+)")
DEFINE = re.compile(r"^#\s*define\s+(\w+)")
FUNCTION = re.compile(r"^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\(")
ATTRIBUTES = re.compile(r"^(?:__attribute__\(\([^()]*(?:\([^()]*\))?[^()]*\)\)\s*)+")


def operation(name):
    for prefix in ("__atomic_", "__sync_", "atomic_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    if name.endswith("_n"):
        name = name[:-2]
    if name.endswith("_explicit"):
        name = name[: -len("_explicit")]
    return name


def sites_of(path, rel):
    """[(rel, function, operation, order, line)] of one file."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments_and_strings(f.read())
    lines = text.split("\n")
    function = "(file scope)"
    found = []
    for number, line in enumerate(lines, 1):
        m = DEFINE.match(line)
        if m:
            function = m.group(1)
        else:
            # A definition may open with its attributes (noinline, cold).
            m = FUNCTION.match(ATTRIBUTES.sub("", line))
            if m and not line.rstrip().endswith(";"):
                function = m.group(1)
        for call in CALL.finditer(line):
            # The call's text up to its closing parenthesis.
            rest = "\n".join([line[call.end():]] + lines[number:number + 8])
            depth, end = 1, len(rest)
            for k, ch in enumerate(rest):
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    end = k
                    break
            orders = [o.lower() for o in ORDER.findall(rest[:end])]
            name = call.group(1)
            order = ", ".join(orders) if orders else "-"
            if name.startswith(("__sync_", "cmm_", "CMM_", "rcu_", "uatomic_")):
                order = order if orders else "(implied)"
            found.append((rel, function, operation(name), order, number))
    return found


def code_sites(root):
    sites = []
    for source in SOURCES:
        top = os.path.join(root, source)
        if os.path.isfile(top):
            sites += sites_of(top, source)
            continue
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    p = os.path.join(d, name)
                    sites += sites_of(p, os.path.relpath(p, root))
    return sites


def cell(text):
    return text.strip().strip("`").strip()


def table_rows(root):
    """[(file, function, operation, order)] of the table, and errors."""
    with open(os.path.join(root, TABLE), encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        first = lines.index(BEGIN)
        last = lines.index(END)
    except ValueError:
        return [], ["%s: no table between %s and %s" % (TABLE, BEGIN, END)]
    rows, errors = [], []
    for line in lines[first + 1:last]:
        if not line.startswith("|") or re.match(r"^\|[\s\-|:]+\|$", line):
            continue
        cells = [cell(c) for c in line.strip().strip("|").split("|")]
        if cells[0] == "file":
            continue
        if len(cells) != 5 or not cells[4]:
            errors.append("%s: a row needs 5 cells, the last one filled: %s"
                          % (TABLE, line))
            continue
        if cells[4] == DRAFT_PAIRS:
            errors.append("%s: row not written yet: %s" % (TABLE, line))
        rows.append(tuple(cells[:4]))
    return rows, errors


# What --draft writes where the pairing belongs; a row that still says it
# fails the check.
DRAFT_PAIRS = "(what it pairs with: to be written)"


def row(site, pairs=DRAFT_PAIRS):
    rel, function, op, order = site[:4]
    return "| %s | `%s` | %s | %s | %s |" % (rel, function, op, order, pairs)


def main(argv):
    ap = argparse.ArgumentParser(
        prog="tools/atomics.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."), help="the source tree")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--draft", action="store_true")
    mode.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)

    sites = code_sites(args.root)
    if args.list:
        for s in sites:
            print("%s:%d: %s %s %s" % (s[0], s[4], s[1], s[2], s[3]))
        print("%d sites" % len(sites))
        return 0
    rows, errors = table_rows(args.root)
    in_code = collections.Counter(s[:4] for s in sites)
    in_table = collections.Counter(rows)
    missing = in_code - in_table
    extra = in_table - in_code
    if args.draft:
        for s in sites:
            if missing[s[:4]] > 0:
                missing[s[:4]] -= 1
                print(row(s))
        return 0
    by_file = collections.defaultdict(list)
    for s in sites:
        key = s[:4]
        if missing[key] > 0:
            missing[key] -= 1
            by_file[s[0]].append("  missing from the table (line %d): %s"
                                 % (s[4], row(s, "...")))
    for key, n in sorted(extra.items()):
        for _ in range(n):
            by_file[key[0]].append("  in the table, not in the code: %s"
                                   % row(key, "..."))
    for e in errors:
        print(e)
    for f in sorted(by_file):
        print(f + ":")
        print("\n".join(by_file[f]))
    print("%d atomic sites in the code, %d rows in %s" %
          (len(sites), len(rows), TABLE))
    if by_file or errors:
        print("tools/atomics.py --draft prints the missing rows")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
