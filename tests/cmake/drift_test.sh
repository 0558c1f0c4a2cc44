#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CMake and Bazel build the same libraries: the .c files CMakeLists.txt
# compiles are the srcs of //lib:rcupool and //lib/xnnpack:backend, and the
# shared libraries of both builds export the same dynamic symbols.
# When this fails after you added a file to lib/: add it to lib/BUILD
# (CMakeLists.txt globs lib/*.c), or to both lists for lib/xnnpack/.
set -euo pipefail
source tests/cmake/unpack.sh

if ! diff -u tests/cmake/bazel_sources.txt tests/cmake/cmake_sources.txt; then
  fail "sources differ ('-' Bazel only, '+' CMake only)"
fi
n=$(wc -l < tests/cmake/bazel_sources.txt)
[ "$n" -ge 10 ] || fail "only $n sources listed"
echo "ok: the same $n sources"

exports() {
  nm -D --defined-only "$1" | awk '$2 ~ /^[A-Z]$/ { sub(/@.*/, "", $3); print $3 }' | sort
}
for lib in librcupool.so.0 librcupool_xnnpack.so.0; do
  bazel_syms=$(exports "lib/shared/$lib")
  cmake_syms=$(exports "$prefix/lib/$lib")
  [ -n "$bazel_syms" ] || fail "$lib (Bazel) exports nothing"
  if ! diff -u <(echo "$bazel_syms") <(echo "$cmake_syms"); then
    fail "$lib: exports differ ('-' Bazel only, '+' CMake only)"
  fi
  echo "ok: $lib: the same $(echo "$bazel_syms" | wc -l) exports"
done
echo "PASS"
