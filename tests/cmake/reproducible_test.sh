#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reproducible builds: two staged installs of this checkout made as
# docs/building.md tells a packager (DESTDIR=STAGE tools/install.sh
# --prefix /usr), each built in a folder of its own (install.sh's default,
# a new temporary folder; the two names differ) and staged in two
# folders, hold the same files, byte for byte (cmp of every installed
# file, the libraries, the archive and rcupool_info included). Prints each
# file that differs and, for a binary, the first strings that differ.
# Runs outside Bazel (tests/cmake/ci.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-reproducible.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for i in 1 2; do
  if ! DESTDIR="$tmp/stage$i" tools/install.sh --prefix /usr > "$tmp/install$i.log" 2>&1; then
    tail -n 20 "$tmp/install$i.log"
    echo "FAIL: install $i"
    exit 1
  fi
  # Where it was built, from CMake's own line.
  sed -n 's/^-- Build files have been written to: /install '"$i"' built in /p' "$tmp/install$i.log"
  (cd "$tmp/stage$i" && find . -type f -o -type l | LC_ALL=C sort) > "$tmp/files$i"
done

status=0
if ! diff "$tmp/files1" "$tmp/files2"; then
  echo "FAIL: the two installs hold different files"
  status=1
fi
n=0
differ=0
while read -r f; do
  n=$((n + 1))
  if [ -L "$tmp/stage1/$f" ]; then
    [ "$(readlink "$tmp/stage1/$f")" = "$(readlink "$tmp/stage2/$f" 2>/dev/null)" ] && continue
  elif cmp -s "$tmp/stage1/$f" "$tmp/stage2/$f"; then
    continue
  fi
  differ=$((differ + 1))
  echo "differs: ${f#./}"
  diff <(strings -a "$tmp/stage1/$f") <(strings -a "$tmp/stage2/$f") | grep '^[<>]' | head -n 4
done < "$tmp/files1"
echo "$n files installed, $differ differ"
[ "$n" -gt 0 ] || { echo "FAIL: nothing installed"; status=1; }
[ "$differ" -eq 0 ] || status=1
exit $status
