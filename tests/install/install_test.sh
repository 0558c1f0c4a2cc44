#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The install of tools/install.sh (the CMake install, made once per
# configuration by //tests/cmake:cmake_install): its layout, then a plain C
# program built and run the way a Make project would:
#   cc hello.c $(pkg-config --cflags --libs rcupool)
set -euo pipefail
source tests/cmake/unpack.sh

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
readelf -d "$lib/$real" | grep 'Library soname: \[librcupool.so.0\]' >/dev/null || fail "soname"
[ -f "$lib/pkgconfig/rcupool.pc" ] || fail "no rcupool.pc"
[ -f "$lib/librcupool.a" ] || fail "no librcupool.a"
[ -f "$prefix/include/rcupool/rcupool.hpp" ] || fail "no rcupool.hpp"
[ -f "$prefix/include/rcupool/xnnpack.h" ] || fail "no xnnpack.h"
[ -L "$lib/librcupool_xnnpack.so.0" ] || fail "no librcupool_xnnpack.so.0"
[ -f "$lib/pkgconfig/rcupool-xnnpack.pc" ] || fail "no rcupool-xnnpack.pc"
# The tool that prints what a pool would get, runnable without a library
# path (its RUNPATH leads to lib/), and the header it needs.
[ -f "$prefix/include/rcupool/placement.h" ] || fail "no placement.h"
[ -x "$prefix/bin/rcupool_info" ] || fail "no bin/rcupool_info"
info=$("$prefix/bin/rcupool_info") || fail "rcupool_info exited with $?"
grep -q '^default size [0-9]' <<<"$info" || fail "rcupool_info: $info"
# The license beside the documentation; the ExecuTorch stand-in's headers
# under rcupool's own folder, never at ExecuTorch's include/executorch/
# (where a real ExecuTorch in the same prefix has its own).
[ -f "$prefix/share/doc/rcupool/LICENSE" ] || fail "no share/doc/rcupool/LICENSE"
[ -f "$prefix/share/rcupool/valgrind/rcupool.supp" ] ||
  fail "no share/rcupool/valgrind/rcupool.supp"
et_h=include/rcupool/compat/executorch/executorch/extension/threadpool
[ -f "$prefix/$et_h/threadpool.h" ] && [ -f "$prefix/$et_h/threadpool_guard.h" ] ||
  fail "no stand-in headers under $et_h"
[ -e "$prefix/include/executorch" ] && fail "the stand-in installs include/executorch/"
# prefix= is the .pc file's own folder up to the prefix (this install was
# made in another folder and unpacked here: pkg-config below finds it), the
# form of every install that is not a system prefix or staged
# (tests/cmake/prefix_test.sh checks those, and the moves).
for pc in "$lib"/pkgconfig/*.pc; do
  grep -qx 'prefix=${pcfiledir}/../..' "$pc" || fail "$pc: $(grep '^prefix=' "$pc")"
done
for f in rcupoolConfig.cmake rcupoolConfigVersion.cmake rcupoolTargets.cmake \
         rcupoolDependencies.cmake; do
  [ -f "$lib/cmake/rcupool/$f" ] || fail "no lib/cmake/rcupool/$f"
done

export PKG_CONFIG_PATH="$lib/pkgconfig"
pkg-config --exists rcupool || fail "pkg-config does not find rcupool"
flags=$(pkg-config --cflags --libs rcupool)
echo "pkg-config --cflags --libs rcupool: $flags"
[ "$(pkg-config --modversion rcupool)" = "${real#librcupool.so.}" ] || fail "modversion"

cc -std=c11 -Wall -Werror -o "$tmp/hello" tests/install/hello.c $flags
readelf -d "$tmp/hello" | grep 'Shared library: \[librcupool.so.0\]' >/dev/null ||
  fail "hello does not need librcupool.so.0"

out=$(LD_LIBRARY_PATH="$lib" "$tmp/hello") || fail "hello exited with $?"
echo "$out"
grep -q '^rcupool ok' <<<"$out" || fail "unexpected output"
echo "PASS"
