#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Outside both build systems, against the CMake install: programs built
# with nothing but cc and pkg-config, as docs/building.md "From pkg-config" says.
#   pool.c    the current pool used with pthreadpool   (rcupool)
#   inline.c  the inlined read side                    (rcupool)
#   xnn.c     an XNNPACK method through the backend    (rcupool-xnnpack)
#   host.c    dlopen()s two plugins (plugin.c) of the backend: one manager,
#             one pool; tools/check_one_definer finds one definer.
#   executorch.cc  ExecuTorch's thread-pool API         (rcupool-executorch)
#             with c++ and clang++, in C++11 and C++17
# Usable outside Bazel: pkgconfig_test.sh PREFIX (CI, .ci/run).
set -euo pipefail
install_prefix=${1:-}
source tests/cmake/unpack.sh
src=tests/cmake/pkgconfig
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --exists rcupool rcupool-xnnpack || fail "pkg-config finds no rcupool"
pkg-config --exists rcupool-executorch || fail "pkg-config finds no rcupool-executorch"
flags=$(pkg-config --cflags --libs rcupool)
xflags=$(pkg-config --cflags --libs rcupool-xnnpack)
eflags=$(pkg-config --cflags --libs rcupool-executorch)
libdir=$(pkg-config --variable=libdir rcupool)
flavor=$(sed -n 's/^set(RCUPOOL_URCU_FLAVOR "\(.*\)")$/\1/p' "$prefix/lib/cmake/rcupool/rcupoolConfig.cmake")

# Libs: what the public headers hand out links with the flags alone.
# pin.h gives the caller a pthreadpool_t to run pthreadpool_parallelize_*
# on (Debian's pthreadpool has no .pc of its own), xnnpack.h takes an
# xnn_subgraph_t built with xnn_* calls: -lpthreadpool and -lXNNPACK are
# in Libs. What only the libraries use (cpuinfo, liburcu) stays in
# Libs.private, for --static; the flavour's define only where inline.h
# needs it (memb).
words() { tr ' ' '\n' | grep -v '^$' | grep -v '^-L' | tr '\n' ' '; }
[ "$(pkg-config --libs rcupool | words)" = "-lrcupool -lpthreadpool " ] ||
  fail "rcupool Libs: $(pkg-config --libs rcupool)"
[ "$(pkg-config --libs rcupool-xnnpack | words)" = "-lrcupool_xnnpack -lXNNPACK -lrcupool -lpthreadpool " ] ||
  fail "rcupool-xnnpack Libs: $(pkg-config --libs rcupool-xnnpack)"
static=$(pkg-config --static --libs rcupool)
for l in -lrcupool -lpthreadpool -lcpuinfo "-lurcu-$flavor" -lurcu-common; do
  grep -qw -- "$l" <<<"$static" || fail "pkg-config --static lacks $l: $static"
done
case "$flavor:$(pkg-config --cflags rcupool)" in
  bp:*-D*) fail "rcupool Cflags carry a define: $(pkg-config --cflags rcupool)" ;;
  memb:*-DRCUPOOL_URCU_MEMB*) ;;
  memb:*) fail "memb: inline.h needs -DRCUPOOL_URCU_MEMB" ;;
esac

# pkgconf's system directories: with the prefix taken as one (as /usr is,
# which the .pc files spell as it is; destdir_test.sh installs there), the
# flags are the libraries alone, and a -Werror program builds with them.
sys_flags=$(PKG_CONFIG_SYSTEM_INCLUDE_PATH="$prefix/include" \
  PKG_CONFIG_SYSTEM_LIBRARY_PATH="$prefix/lib" \
  pkg-config --define-variable=prefix="$prefix" --cflags --libs rcupool)
# (pkgconf 2 puts a space before -l where there is no Cflags: compare the
# words.)
sys_flags=$(echo $sys_flags)
case "$flavor:$sys_flags" in
  bp:"-lrcupool -lpthreadpool"*|memb:"-DRCUPOOL_URCU_MEMB -lrcupool -lpthreadpool"*) ;;
  *) fail "system prefix: pkg-config --cflags --libs rcupool says '$sys_flags'" ;;
esac
CPATH="$prefix/include" LIBRARY_PATH="$libdir" cc -std=c11 -Wall -Wextra \
  -Wundef -Werror -pedantic -o "$tmp/pool-sys" tests/cmake/pkgconfig/pool.c \
  $sys_flags -Wl,-rpath,"$libdir" || fail "-Werror build with system-dir flags"
"$tmp/pool-sys" >/dev/null || fail "pool-sys exited with $?"
readelf -d "$tmp/pool-sys" | grep -E 'NEEDED.*(cpuinfo|urcu)' && fail "pool-sys overlinks"
echo "rcupool: $flags"
echo "rcupool-xnnpack: $xflags"
echo "rcupool-executorch: $eflags"
rpath="-Wl,-rpath,$libdir"   # docs/building.md: how a program finds the library
cflags="-std=c11 -Wall -Wextra -Werror"

for compiler in cc clang; do
  command -v $compiler >/dev/null || continue
  out="$tmp/$compiler"
  mkdir -p "$out"
  # docs/building.md's command line, plus the RUNPATH. pool.c runs
  # pthreadpool on the pools rcupool hands out and xnn.c builds an XNNPACK
  # subgraph, with rcupool's flags alone; inline.c inlines liburcu-bp's
  # read side, which it links itself (docs/building.md).
  $compiler $cflags -o "$out/pool" $src/pool.c $flags $rpath || fail "$compiler pool.c"
  $compiler $cflags -o "$out/inline" $src/inline.c $flags $(pkg-config --libs liburcu-bp) \
    $rpath || fail "$compiler inline.c"
  $compiler $cflags -o "$out/xnn" $src/xnn.c $xflags -lm $rpath || fail "$compiler xnn.c"
  for p in pool inline xnn; do
    r=$("$out/$p") || fail "$compiler: $p exited with $?"
    echo "$compiler: $r"
  done
  readelf -d "$out/pool" | grep 'Shared library: \[librcupool.so.0\]' >/dev/null || fail "pool: no librcupool.so.0"
done

# The ExecuTorch stand-in, in the oldest C++ its headers accept and in
# ExecuTorch's own.
for cxx in c++ clang++; do
  command -v $cxx >/dev/null || continue
  for std in c++11 c++17; do
    exe="$tmp/executorch-$cxx-$std"
    $cxx -std=$std -Wall -Wextra -Werror -pedantic -o "$exe" $src/executorch.cc \
      $eflags $rpath || fail "$cxx -std=$std executorch.cc"
    readelf -d "$exe" | grep 'Shared library: \[librcupool_executorch.so.0\]' >/dev/null ||
      fail "executorch.cc: no librcupool_executorch.so.0"
    r=$("$exe") || fail "$cxx -std=$std: executorch exited with $?"
    echo "$cxx -std=$std: $r"
  done
done

# Two plugins of the backend in one host that links no rcupool.
for name in a b; do
  cc $cflags -shared -fPIC -DPLUGIN_NAME="\"$name\"" -o "$tmp/libplugin_$name.so" \
    $src/plugin.c $xflags -lm $rpath || fail "plugin $name"
done
cc $cflags -o "$tmp/host" $src/host.c -ldl || fail "host"
readelf -d "$tmp/host" | grep librcupool >/dev/null && fail "the host links rcupool"
r=$("$tmp/host" "$tmp/libplugin_a.so" "$tmp/libplugin_b.so") || fail "host exited with $?"
echo "$r"
tools/check_one_definer "$tmp" "$prefix/lib" || fail "more than one definer"
echo "PASS"
