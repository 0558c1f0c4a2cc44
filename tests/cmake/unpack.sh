# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the tests of tests/cmake: defines fail() and a temporary
# directory $tmp that is removed at exit, and sets $prefix to the CMake
# install: $install_prefix when the caller set it (an install made outside
# Bazel: tests/cmake/ci.sh, .ci/run), else cmake_install.tar (from
# tools/install.sh) unpacked under $tmp.
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/rcupool-cmake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${install_prefix:-}" ]; then
  prefix=$install_prefix
else
  prefix="$tmp/prefix"
  mkdir -p "$prefix"
  # Made in another folder: its .pc files find this one by themselves
  # (prefix=${pcfiledir}/../..).
  tar -C "$prefix" -xf tests/cmake/cmake_install.tar || fail "cannot unpack the install"
fi
