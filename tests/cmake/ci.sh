#!/bin/bash
# CI (.ci/run): the CMake path without Bazel, from this checkout. For each
# liburcu flavour (bp, memb): tools/install.sh into a temporary prefix, then
# tests/cmake_consumer against the shared and the static library, and the
# pkg-config programs and plugins. Prints one line per check and, last,
# "N passed, N failed".
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

for flavor in bp memb; do
  prefix="$tmp/prefix-$flavor"
  check "install ($flavor)" tools/install.sh --flavor "$flavor" --prefix "$prefix"
  check "consumer shared ($flavor)" tests/cmake/consumer_test.sh shared "$prefix"
  check "consumer static ($flavor)" tests/cmake/consumer_test.sh static "$prefix"
  check "pkg-config programs and plugins ($flavor)" tests/cmake/pkgconfig_test.sh "$prefix"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
