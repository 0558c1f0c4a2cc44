#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The .pc files under each way of installing one CMake build, each used
# from outside: tests/cmake/pkgconfig/pool.c (pthreadpool_parallelize_1d
# on a pin's pool) and xnn.c (an XNNPACK subgraph through the backend)
# built with cc and nothing but pkg-config's flags, and run.
#   install    configured without a prefix, `cmake --install B --prefix P`
#              (the command CMakeLists.txt documents): the files name P,
#              never the configure-time default /usr/local;
#   configure  -DCMAKE_INSTALL_PREFIX=P, `cmake --install B`;
#   destdir    -DCMAKE_INSTALL_PREFIX=/usr, DESTDIR=STAGE: the files name
#              the final paths (prefix=/usr, GNUInstallDirs' multiarch
#              libdir), and a consumer built against the stage through
#              PKG_CONFIG_SYSROOT_DIR;
#   moved      the `configure` tree and the `install` tree moved elsewhere
#              (mv): their .pc files find the new place by themselves
#              (${pcfiledir}), and no flag names the old one.
# Runs outside Bazel (tests/cmake/ci.sh): prefix_test.sh [FLAVOR].
set -euo pipefail
cd "$(dirname "$0")/../.."
flavor=${1:-bp}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-prefix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=tests/cmake/pkgconfig
build="$tmp/build"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# configure [cmake args...]: (re)configure the one build tree.
configure() {
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DRCUPOOL_URCU_FLAVOR="$flavor" "$@" > "$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log" >&2; fail "configure $*"; }
}

# consumer NAME PCDIR WANT_INCLUDEDIR WANT_LIBDIR: pkg-config, with only
# PCDIR on its path, resolves the headers' and libraries' folders to the
# wanted ones, and the two programs build from its flags alone and run.
consumer() {
  local name=$1 pcdir=$2 want_inc=$3 want_lib=$4 inc lib flags xflags out prog
  export PKG_CONFIG_LIBDIR=$pcdir
  unset PKG_CONFIG_PATH
  inc=$(pkg-config --variable=includedir rcupool)
  lib=$(pkg-config --variable=libdir rcupool)
  echo "$name: includedir $inc, libdir $lib"
  [ -d "$inc" ] && [ "$(cd "$inc" && pwd -P)" = "$(cd "$want_inc" && pwd -P)" ] ||
    fail "$name: includedir $inc, not $want_inc"
  [ -d "$lib" ] && [ "$(cd "$lib" && pwd -P)" = "$(cd "$want_lib" && pwd -P)" ] ||
    fail "$name: libdir $lib, not $want_lib"
  flags=$(pkg-config --cflags --libs rcupool)
  xflags=$(pkg-config --cflags --libs rcupool-xnnpack)
  echo "$name: rcupool: $flags"
  for f in $flags $xflags; do
    case "$f" in
      -I/usr/local*|-L/usr/local*) fail "$name: a flag names /usr/local: $f" ;;
    esac
  done
  out="$tmp/$name"
  mkdir -p "$out"
  cc -std=c11 -Wall -Wextra -Werror -o "$out/pool" $src/pool.c $flags \
    -Wl,-rpath,"$lib" || fail "$name: cc pool.c"
  cc -std=c11 -Wall -Wextra -Werror -o "$out/xnn" $src/xnn.c $xflags -lm \
    -Wl,-rpath,"$lib" || fail "$name: cc xnn.c"
  for prog in pool xnn; do
    # The library it loads is this install's.
    LD_DEBUG=libs "$out/$prog" > "$out/$prog.out" 2> "$out/$prog.ld" ||
      { cat "$out/$prog.out"; fail "$name: $prog exited with $?"; }
    grep -q "calling init: $lib/librcupool.so.0" "$out/$prog.ld" ||
      fail "$name: $prog did not load $lib/librcupool.so.0"
    echo "$name: $(cat "$out/$prog.out")"
  done
}

configure
cmake --build "$build" --parallel 2 > "$tmp/build.log" 2>&1 ||
  { tail -n 30 "$tmp/build.log" >&2; fail "build"; }

# install: no prefix at configure time, one at install time.
p="$tmp/install-prefix"
cmake --install "$build" --prefix "$p" > "$tmp/install.log" 2>&1 || fail "install --prefix"
grep -rn '/usr/local' "$p/lib/pkgconfig" && fail "install --prefix: a .pc names /usr/local"
consumer install "$p/lib/pkgconfig" "$p/include" "$p/lib"

# configure: the prefix given when configuring.
c="$tmp/configure-prefix"
configure -DCMAKE_INSTALL_PREFIX="$c"
cmake --install "$build" > "$tmp/install.log" 2>&1 || fail "install (configure prefix)"
consumer configure "$c/lib/pkgconfig" "$c/include" "$c/lib"

# destdir: a packager's staging, with the final paths in the files.
stage="$tmp/stage"
configure -DCMAKE_INSTALL_PREFIX=/usr -UCMAKE_INSTALL_LIBDIR
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
multiarch=$(sed -n 's/^CMAKE_LIBRARY_ARCHITECTURE:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ -n "$multiarch" ] && [ -f /etc/debian_version ]; then
  [ "$libdir" = "lib/$multiarch" ] || fail "destdir: GNUInstallDirs chose $libdir"
fi
# Built again, as a packager builds after configuring: another libdir is
# another install RUNPATH, and the build-tree RUNPATH ($ORIGIN, padded to
# the install one's length at link time) must leave room for it.
cmake --build "$build" --parallel 2 > "$tmp/build.log" 2>&1 ||
  { tail -n 30 "$tmp/build.log" >&2; fail "build (destdir)"; }
DESTDIR="$stage" cmake --install "$build" > "$tmp/install.log" 2>&1 || fail "DESTDIR install"
for pc in "$stage/usr/$libdir"/pkgconfig/*.pc; do
  grep -qx 'prefix=/usr' "$pc" || fail "destdir: $pc: $(grep '^prefix=' "$pc")"
  grep -qx "libdir=\${prefix}/$libdir" "$pc" || fail "destdir: $pc: $(grep '^libdir=' "$pc")"
  grep -qx 'includedir=${prefix}/include' "$pc" || fail "destdir: $pc: $(grep '^includedir=' "$pc")"
done
[ "$(PKG_CONFIG_LIBDIR="$stage/usr/$libdir/pkgconfig" pkg-config --variable=libdir rcupool)" = \
  "/usr/$libdir" ] || fail "destdir: pkg-config's libdir is not /usr/$libdir"
# Against the stage: pkgconf puts the sysroot before each -I and -L (the
# system folders are not dropped here, so the flags name the stage).
export PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_SYSTEM_INCLUDE_PATH=/nonexistent \
  PKG_CONFIG_SYSTEM_LIBRARY_PATH=/nonexistent
consumer_sysroot() {
  local flags xflags
  export PKG_CONFIG_LIBDIR="$stage/usr/$libdir/pkgconfig"
  flags=$(pkg-config --cflags --libs rcupool)
  xflags=$(pkg-config --cflags --libs rcupool-xnnpack)
  echo "destdir: rcupool: $flags"
  grep -qF -- "-I$stage/usr/include" <<<"$flags" || fail "destdir: $flags"
  cc -std=c11 -Wall -Wextra -Werror -o "$tmp/pool-stage" $src/pool.c $flags \
    -Wl,-rpath,"$stage/usr/$libdir" || fail "destdir: cc pool.c"
  cc -std=c11 -Wall -Wextra -Werror -o "$tmp/xnn-stage" $src/xnn.c $xflags -lm \
    -Wl,-rpath,"$stage/usr/$libdir" || fail "destdir: cc xnn.c"
  "$tmp/pool-stage" && "$tmp/xnn-stage" || fail "destdir: a program exited with $?"
}
consumer_sysroot
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_SYSTEM_INCLUDE_PATH PKG_CONFIG_SYSTEM_LIBRARY_PATH

# moved: both trees, somewhere else.
mkdir -p "$tmp/elsewhere"
mv "$c" "$tmp/elsewhere/a"
mv "$p" "$tmp/elsewhere/b"
for m in a b; do
  d="$tmp/elsewhere/$m"
  for f in $(PKG_CONFIG_LIBDIR="$d/lib/pkgconfig" pkg-config --cflags --libs \
             rcupool rcupool-xnnpack rcupool-executorch); do
    case "$f" in
      *"$c"*|*"$p"*) fail "moved: a flag names the old place: $f" ;;
    esac
  done
  consumer "moved-$m" "$d/lib/pkgconfig" "$d/include" "$d/lib"
done
echo PASS
