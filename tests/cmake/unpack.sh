# Sourced by the tests of tests/cmake: unpacks the CMake install
# (cmake_install.tar, from tools/install.sh) into $prefix, under a
# temporary directory $tmp that is removed at exit.
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/rcupool-cmake.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
mkdir -p "$prefix"
tar -C "$prefix" -xf tests/cmake/cmake_install.tar || fail "cannot unpack the install"
