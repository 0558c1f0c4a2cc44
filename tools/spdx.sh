#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The license line every source file of rcupool starts with.
#
#   tools/spdx.sh            add it where it is missing
#   tools/spdx.sh --check    change nothing; list the files without it and
#                            exit 1 if any (CI runs this)
#
# The line is "SPDX-License-Identifier: LGPL-2.1-or-later" (LICENSE holds
# the LGPL 2.1; rcupool is under it or any later version) in the file's own
# comment syntax, as its first line, or its second after a "#!" line:
#   /* ... */  .c .h .pml .map
#   // ...     .cc .cpp .hpp
#   # ...      .py .pyi .sh .bzl .cmake .in .gp .supp .patch BUILD WORKSPACE
#              CMakeLists.txt .bazelrc .clang-format, and scripts with "#!"
# Other files (Markdown, data, the fuzz corpus, LICENSE, ignore lists) are
# not sources and are left alone. Files are those git tracks, or every file
# under the workspace outside git.
set -uo pipefail

ID="SPDX-License-Identifier: LGPL-2.1-or-later"

usage() {
  check_usage <<'TEXT'
Puts the SPDX-License-Identifier line first in every source file of the
workspace that lacks it.
  --check     change nothing: list the files without the line; exit 1 if
              any is
TEXT
}

SCRIPT=spdx.sh
. "$(dirname "$0")/args.sh" || exit 2
parse_check "$@"

cd "$(dirname "$0")/.." || exit 1

# 0 when the file starts with "#!" (read without a shell string, so a
# binary file's NUL bytes are no bother).
is_script() {
  [ "$(head -c 2 "$1" | od -An -c | tr -d ' ')" = "#!" ]
}

# The license line for a file, in its comment syntax; nothing when the file
# is not a source.
line_for() {
  local f="$1" base="${1##*/}"
  case "$base" in
    *.c|*.h|*.pml|*.map) echo "/* $ID */" ;;
    *.cc|*.cpp|*.hpp) echo "// $ID" ;;
    *.py|*.pyi|*.sh|*.bzl|*.cmake|*.in|*.gp|*.supp|*.patch) echo "# $ID" ;;
    BUILD|WORKSPACE|CMakeLists.txt|.bazelrc|.clang-format) echo "# $ID" ;;
    *.*) ;;
    *) is_script "$f" && echo "# $ID" ;;
  esac
}

# 0 when the file's first line (second after "#!") is the license line.
has_line() {
  local f="$1" want="$2" first
  if is_script "$f"; then
    first=$(sed -n 2p "$f")
  else
    first=$(head -n 1 "$f")
  fi
  [ "$first" = "$want" ]
}

add_line() {
  local f="$1" want="$2" tmp
  tmp=$(mktemp "$f.spdx.XXXXXX") || return 1
  if is_script "$f"; then
    { head -n 1 "$f"; echo "$want"; tail -n +2 "$f"; } > "$tmp"
  else
    { echo "$want"; cat "$f"; } > "$tmp"
  fi
  chmod --reference="$f" "$tmp" && mv "$tmp" "$f"
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files | LC_ALL=C sort)
else
  mapfile -t files < <(find . \( -name .git -o -name 'bazel-*' \) -prune -o \
    -type f -print | sed 's|^\./||' | LC_ALL=C sort)
fi

missing=0
sources=0
for f in "${files[@]}"; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  want=$(line_for "$f")
  [ -n "$want" ] || continue
  sources=$((sources + 1))
  has_line "$f" "$want" && continue
  if [ -n "$check" ]; then
    echo "$f: no license line (want \"$want\" first)"
    missing=$((missing + 1))
  else
    add_line "$f" "$want" || { echo "spdx.sh: cannot write $f" >&2; exit 1; }
    echo "spdx.sh: added to $f"
  fi
done
if [ "$missing" -gt 0 ]; then
  echo "spdx.sh: $missing of $sources source files lack the license line;" \
    "run tools/spdx.sh"
  exit 1
fi
echo "spdx.sh: $sources source files carry the license line"
