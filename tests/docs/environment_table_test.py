#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""docs/environment.md's table has a row for every environment variable
the library reads.

    environment_table_test.py [--root DIR]

The variables are the values of the RCUPOOL_ENV_* macros of the public
headers (include/rcupool/*.h). A row is a table line whose first cell is
the variable's name in backticks. Fails, naming each variable without a
row, and each row that names no such variable.
"""
import argparse
import glob
import os
import re
import sys


def find_root(args_root):
    """--root, else the tree this file is in (under Bazel, through the
    runfiles link of this file)."""
    if args_root:
        return os.path.abspath(args_root)
    root = os.path.normpath(os.path.join(
        os.path.dirname(os.path.realpath(__file__)), "..", ".."))
    if not os.path.exists(os.path.join(root, "README.md")):
        sys.exit("environment_table_test: cannot find the source tree "
                 "(give --root)")
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", help="the source tree (default: this one)")
    root = find_root(parser.parse_args().root)
    read = set()
    for path in glob.glob(os.path.join(root, "include", "rcupool", "*.h")):
        with open(path, encoding="utf-8") as f:
            read.update(re.findall(
                r'^#define RCUPOOL_ENV_\w+ "(RCUPOOL_\w+)"', f.read(), re.M))
    with open(os.path.join(root, "docs", "environment.md"),
              encoding="utf-8") as f:
        rows = set(re.findall(r"^\| `(RCUPOOL_\w+)` \|", f.read(), re.M))
    faults = ["docs/environment.md: no row for %s" % v
              for v in sorted(read - rows)]
    faults += ["docs/environment.md: a row for %s, which no RCUPOOL_ENV_* "
               "macro names" % v for v in sorted(rows - read)]
    for line in faults:
        print(line)
    print("environment_table_test: %d variables, %d rows, %d faults"
          % (len(read), len(rows), len(faults)))
    return 1 if faults or not read else 0


if __name__ == "__main__":
    sys.exit(main())
