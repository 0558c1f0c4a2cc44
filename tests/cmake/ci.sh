#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CI (.ci/run): the CMake path without Bazel, from this checkout. For each
# liburcu flavour (bp, memb): tools/install.sh into a temporary prefix, then
# tests/cmake_consumer against the shared and the static library, the
# pkg-config programs and plugins (Libs, pkgconf's system directories,
# -Werror), the docs' pkg-config command lines, find_package(rcupool) with
# and without its xnnpack component (also on a view of the machine without
# XNNPACK), and that the libraries name their sources relative to the
# tree. Prints one line per check and, last, "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-ci-cmake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@" > "$tmp/out" 2>&1; then
    passed=$((passed + 1)); echo "cmake: $name PASSED"
  else
    failed=$((failed + 1)); cat "$tmp/out"; echo "cmake: $name FAILED"
  fi
}

# The libraries carry no absolute path of this checkout: rcupl_die() prints
# "lib/parallel.c:115", as the Bazel build does. Debug sections are left
# out (objcopy --strip-debug): they keep the absolute path so a debugger
# finds the sources.
no_source_path() {  # no_source_path PREFIX
  local lib n found=0
  for lib in "$1"/lib/librcupool*.so.0 "$1"/lib/librcupool.a; do
    objcopy --strip-debug "$lib" "$tmp/stripped" || return 1
    n=$(strings -a "$tmp/stripped" | grep -cF -e "$source_dir/" -e "$source_dir_physical/")
    echo "$(basename "$lib"): $n strings with $source_dir/"
    if [ "$n" -ne 0 ]; then
      strings -a "$tmp/stripped" | grep -F -e "$source_dir/" -e "$source_dir_physical/" | head -n 5
      found=1
    fi
  done
  rm -f "$tmp/stripped"
  [ "$found" -eq 0 ]
}
source_dir=$(pwd)
source_dir_physical=$(pwd -P)

for flavor in bp memb; do
  prefix="$tmp/prefix-$flavor"
  check "install ($flavor)" tools/install.sh --flavor "$flavor" --prefix "$prefix"
  check "no source path in the libraries ($flavor)" no_source_path "$prefix"
  check "consumer shared ($flavor)" tests/cmake/consumer_test.sh shared "$prefix"
  check "consumer static ($flavor)" tests/cmake/consumer_test.sh static "$prefix"
  check "pkg-config programs and plugins ($flavor)" tests/cmake/pkgconfig_test.sh "$prefix"
  check "the docs' pkg-config command lines ($flavor)" \
    tests/cmake/docs_pkgconfig_test.sh "$prefix"
  check "find_package components, with and without XNNPACK ($flavor)" \
    tests/cmake/components_test.sh "$prefix"
done
# A packager's DESTDIR install to /usr, --libdir and --build-type; the .pc
# files under each way of installing; the
# instrumented installs, each used by an application under its sanitizer
# (clang, whose shared objects carry no sanitizer runtime); for thread, the
# same application on the plain install draws the false report they avoid.
check "DESTDIR install, --libdir, --build-type" tests/cmake/destdir_test.sh
# The .pc files of one build installed with an install-time --prefix, a
# configure-time prefix, DESTDIR staging and moved elsewhere, each used by
# cc and pkg-config alone.
check ".pc files under each way of installing" tests/cmake/prefix_test.sh
# Two staged installs built in two folders hold the same bytes
# (reproducible builds).
check "reproducible: two staged installs, every file the same" \
  tests/cmake/reproducible_test.sh
check "instrumented install, address (clang)" tests/cmake/sanitize_test.sh address
check "instrumented install, thread (clang)" \
  tests/cmake/sanitize_test.sh thread "$tmp/prefix-bp"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
