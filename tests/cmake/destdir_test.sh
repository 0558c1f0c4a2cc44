#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A packager's install: tools/install.sh --prefix /usr under DESTDIR, with
# GNUInstallDirs' library folder (lib/<multiarch> on Debian) and
# --build-type Release. The message names the staging folder and the
# prefix; the files name /usr; pkgconf drops /usr/include and the library
# folder as system directories, so rcupool's flags are the libraries alone
# (-lrcupool -lpthreadpool).
# Then --libdir: a relative and an absolute one. Runs outside Bazel
# (tests/cmake/ci.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-destdir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

stage="$tmp/stage"
out=$(DESTDIR="$stage" tools/install.sh --prefix /usr --build "$tmp/build" \
  --build-type Release 2>&1) || { echo "$out" | tail -20; fail "install"; }
last=$(tail -1 <<<"$out")
[ "$last" = "staged rcupool under $stage/usr (DESTDIR); its files name /usr" ] ||
  fail "message: $last"
grep -q 'CMAKE_BUILD_TYPE:STRING=Release' "$tmp/build/CMakeCache.txt" || fail "build type"
pc=$(find "$stage" -name rcupool.pc)
[ -n "$pc" ] || fail "no rcupool.pc under $stage"
libdir=$(sed -n 's/^libdir=${prefix}\///p' "$pc")
want=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$tmp/build/CMakeCache.txt")
[ "$libdir" = "$want" ] || fail "libdir $libdir, GNUInstallDirs $want"
[ -f "$stage/usr/$libdir/librcupool.so.0" ] || fail "no $stage/usr/$libdir/librcupool.so.0"
[ -f "$stage/usr/share/doc/rcupool/LICENSE" ] || fail "no LICENSE"
grep -q '^prefix=/usr$' "$pc" || fail "prefix: $(grep '^prefix=' "$pc")"
flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs rcupool)
echo "pkg-config --cflags --libs rcupool: $flags"
case "$libdir" in
  lib|lib/*-linux-gnu*|lib64)
    [ "$flags" = "-lrcupool -lpthreadpool " ] || [ "$flags" = "-lrcupool -lpthreadpool" ] ||
      fail "system directories not dropped: '$flags'" ;;
esac
eflags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags rcupool-executorch)
grep -q -- "-I/usr/include/rcupool/compat/executorch" <<<"$eflags" ||
  fail "rcupool-executorch Cflags: $eflags"

# --libdir, relative to the prefix and absolute (the build is reused: the
# library folder must follow each time).
tools/install.sh --prefix "$tmp/p1" --build "$tmp/build" --libdir lib64 >/dev/null 2>&1 || fail "--libdir lib64"
[ -f "$tmp/p1/lib64/librcupool.so.0" ] || fail "--libdir lib64: no library"
grep -q '^libdir=${prefix}/lib64$' "$tmp/p1/lib64/pkgconfig/rcupool.pc" || fail "--libdir lib64: pc"
tools/install.sh --prefix "$tmp/p2" --build "$tmp/build" --libdir "$tmp/libs" >/dev/null 2>&1 || fail "--libdir absolute"
[ -f "$tmp/libs/librcupool.so.0" ] || fail "--libdir absolute: no library"
grep -q "^libdir=$tmp/libs\$" "$tmp/libs/pkgconfig/rcupool.pc" || fail "--libdir absolute: pc"
tools/install.sh --prefix "$tmp/p3" --build "$tmp/build" --build-type Fast >/dev/null 2>&1 &&
  fail "--build-type Fast accepted"
echo PASS
