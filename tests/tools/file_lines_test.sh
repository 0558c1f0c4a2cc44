#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# file_lines_test.sh FILE...
#
# Small files, one concept each: no file of lib/ or include/ has more than
# 400 lines. Fails naming each longer file and its count. Then the same
# check on a file of 401 lines, which it must reject, so that it is seen
# to fail.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: file_lines_test.sh FILE..." >&2; exit 2; }
max=400
base=${TEST_TMPDIR:-$(mktemp -d)}

# The files of the arguments longer than $max lines, one "FILE: N lines" each.
too_long() {
  local f n
  for f in "$@"; do
    n=$(wc -l <"$f")
    [ "$n" -le "$max" ] || echo "$f: $n lines"
  done
}

failures=0
long=$(too_long "$@")
if [ -n "$long" ]; then
  echo "FAIL: over $max lines (split the file by concept):" >&2
  echo "$long" >&2
  failures=$((failures + 1))
fi
[ -n "$long" ] || echo "$# files, none over $max lines"

# The check rejects a file one line too long.
seq 1 $((max + 1)) >"$base/long.c"
[ "$(too_long "$base/long.c")" = "$base/long.c: $((max + 1)) lines" ] || {
  echo "FAIL: a file of $((max + 1)) lines is not rejected" >&2
  failures=$((failures + 1))
}

[ "$failures" -eq 0 ] && echo "PASS"
[ "$failures" -eq 0 ]
