#!/bin/bash
# Installs rcupool into a temporary prefix with tools/install.sh, then builds
# and runs a plain C program the way a Make or CMake project would:
#   cc hello.c $(pkg-config --cflags --libs rcupool)
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/rcupool-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

tools/install.sh --prefix "$prefix"

# The layout: the header, the library under its full version, the soname
# link and the development link, and the pkg-config file.
lib="$prefix/lib"
[ -f "$prefix/include/rcupool/rcupool.h" ] || fail "no header"
[ -f "$prefix/include/rcupool/inline.h" ] || fail "no inline.h"
real=$(cd "$lib" && ls librcupool.so.*.*.*)
[ -f "$lib/$real" ] && [ ! -L "$lib/$real" ] || fail "no library file"
[ -L "$lib/librcupool.so.0" ] || fail "librcupool.so.0 is not a link"
[ "$(readlink "$lib/librcupool.so.0")" = "$real" ] || fail "librcupool.so.0 -> $(readlink "$lib/librcupool.so.0")"
[ -L "$lib/librcupool.so" ] || fail "librcupool.so is not a link"
[ "$(readlink "$lib/librcupool.so")" = "librcupool.so.0" ] || fail "librcupool.so -> $(readlink "$lib/librcupool.so")"
readelf -d "$lib/$real" | grep -q 'Library soname: \[librcupool.so.0\]' || fail "soname"
[ -f "$lib/pkgconfig/rcupool.pc" ] || fail "no rcupool.pc"

export PKG_CONFIG_PATH="$lib/pkgconfig"
pkg-config --exists rcupool || fail "pkg-config does not find rcupool"
flags=$(pkg-config --cflags --libs rcupool)
echo "pkg-config --cflags --libs rcupool: $flags"
[ "$(pkg-config --modversion rcupool)" = "${real#librcupool.so.}" ] || fail "modversion"

# When this configuration built an instrumented library (--config=asan or
# tsan), the program needs the same runtime.
san=""
needed=$(readelf -d "$lib/$real")
if grep -q 'libasan' <<<"$needed"; then san="-fsanitize=address,undefined"; fi
if grep -q 'libtsan' <<<"$needed"; then san="-fsanitize=thread"; fi

cc -std=c11 -Wall -Werror $san -o "$tmp/hello" tests/install/hello.c $flags
readelf -d "$tmp/hello" | grep -q 'Shared library: \[librcupool.so.0\]' ||
  fail "hello does not need librcupool.so.0"

out=$(LD_LIBRARY_PATH="$lib" "$tmp/hello") || fail "hello exited with $?"
echo "$out"
grep -q '^rcupool ok' <<<"$out" || fail "unexpected output"
echo "PASS"
