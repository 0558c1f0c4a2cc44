#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The C and C++ sources of lib/ and include/ in the style of .clang-format.
#
#   tools/format.sh           reformat them in place
#   tools/format.sh --check   change nothing; list each file clang-format
#                             would change, with its count of changed lines;
#                             exit 1 if any (CI runs this)
#
# CLANG_FORMAT names the program (default: clang-format, Debian's
# clang-format package, version 14).
set -uo pipefail

usage() {
  check_usage <<'TEXT'
Formats the C and C++ sources of lib/ and include/ with clang-format and
the workspace's .clang-format.
  --check     change nothing: list the files that are not formatted and
              how many lines each would change; exit 1 if any is
TEXT
}

SCRIPT=format.sh
. "$(dirname "$0")/args.sh" || exit 2
parse_check "$@"

cd "$(dirname "$0")/.." || exit 1
clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
  echo "format.sh: $clang_format not found (tools/setup.sh installs it)" >&2
  exit 1
fi
[ -f .clang-format ] || { echo "format.sh: no .clang-format" >&2; exit 1; }

mapfile -t files < <(find lib include -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.hpp' \) |
  LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || { echo "format.sh: no sources found" >&2; exit 1; }

if [ -z "$check" ]; then
  exec "$clang_format" -i --style=file "${files[@]}"
fi

bad=0
lines=0
for f in "${files[@]}"; do
  out=$("$clang_format" --style=file "$f") || {
    echo "format.sh: $clang_format failed on $f" >&2
    exit 1
  }
  n=$(diff <(printf '%s\n' "$out") "$f" | grep -c '^>')
  if [ "$n" -gt 0 ]; then
    echo "$f: $n lines would change"
    bad=$((bad + 1))
    lines=$((lines + n))
  fi
done
if [ "$bad" -gt 0 ]; then
  echo "format.sh: $bad of ${#files[@]} files not formatted ($lines lines);" \
    "run tools/format.sh"
  exit 1
fi
echo "format.sh: ${#files[@]} files formatted"
