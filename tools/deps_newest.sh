#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the newest Debian versions of rcupool's dependencies beside Debian
# 12's (tools/setup.sh --deps newest runs it): the source packages of
# Debian's development suite (sid) for pthreadpool, FXdiv (pthreadpool's
# build needs its header), cpuinfo and liburcu, fetched with `apt-get
# source --download-only` through an apt configuration of its own (the
# machine's sources, lists and cache are never touched), built with their
# own CMake or configure into one prefix. Prints a line per step, and
# nothing when the prefix is already built.
#
# Usage:
#   tools/deps_newest.sh [--check] [--print]
#
#   --check  only say whether the prefix is built; exit 1 if not
#   --print  print the prefix as the last line
#
# What the prefix holds, and why (docs/building.md, "The newest Debian
# dependencies"):
#   lib/libpthreadpool.so.0  pthreadpool with the SONAME of Debian's own
#                 (upstream's build names it libpthreadpool.so): Debian 12's
#                 XNNPACK needs libpthreadpool.so.0, so a process that loads
#                 this one first loads no second copy
#   lib/libcpuinfo.a  cpuinfo, static, position independent and with hidden
#                 symbols: it goes inside librcupool and nowhere else.
#                 Debian 12's XNNPACK reads struct cpuinfo_x86_isa, which
#                 the newer cpuinfo laid out anew (fields inserted after
#                 avx), so XNNPACK must keep Debian 12's libcpuinfo.so.0
#   lib/liburcu-*.so.8  liburcu, when sid's source can be had (its orig
#                 tarball may be missing from the archive: then the step
#                 says so and the system's liburcu serves)
#   include/      their headers (pthreadpool.h, fxdiv.h, cpuinfo.h, urcu/)
#
# Where: $RCUPOOL_DEPS_NEWEST when set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/deps-newest; the prefix is its
# folder prefix/, the downloads src/, the builds build/ (each step's log
# there), apt's private state apt/. The file prefix/.rcupool-deps lists
# what was built; remove the folder to build again. The archive's address
# is the one the machine's apt sources name.
set -eu

SCRIPT=deps_newest.sh
. "$(dirname "$0")/sid.sh" || exit 2 # and args.sh
usage() { usage_from_header; }

parse_check_print "$@"

# The upstream versions of sid's source packages this set is made of.
PTHREADPOOL=0.0~git20251020.0e6ca13
FXDIV=0.0~git20200417.b408327
CPUINFO=0.0~git20250905.877328f
LIBURCU=0.15.7
WANT="pthreadpool $PTHREADPOOL fxdiv $FXDIV cpuinfo $CPUINFO liburcu $LIBURCU"

root=${RCUPOOL_DEPS_NEWEST:-${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/deps-newest}
prefix="$root/prefix"
stamp="$prefix/.rcupool-deps"

stamp_ready "$stamp" "$WANT" "$prefix" \
  "missing or out of date: the newest dependencies in $prefix (tools/setup.sh --deps newest builds them)"
steps "deps newest" 6
# run LOG COMMAND...: the command's output goes to build/LOG; on failure
# its end is shown.
run() {
  log="$root/build/$1"; shift
  if ! "$@" >> "$log" 2>&1; then
    tail -n 30 "$log" >&2
    fail "failed: $* (log: $log)"
  fi
}

archive=$(sid_archive)
[ -n "$archive" ] || fail "no Debian archive named in /etc/apt/sources.list{,.d}"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || fail "$keyring is missing (Debian's debian-archive-keyring package)"

rm -rf "$root/build" "$prefix"
mkdir -p "$root/apt/lists/partial" "$root/apt/cache/archives/partial" \
  "$root/apt/parts" "$root/src" "$root/build" "$prefix"
echo "deb-src [signed-by=$keyring] $archive sid main" > "$root/apt/sources.list"
APT="-o Dir::Etc::sourcelist=$root/apt/sources.list -o Dir::Etc::sourceparts=$root/apt/parts
-o Dir::State::Lists=$root/apt/lists -o Dir::Cache=$root/apt/cache -o APT::Sandbox::User=root"

say "sid's source lists, apt configuration of its own in $root/apt"
# shellcheck disable=SC2086
run apt.log apt-get $APT update

# fetch PACKAGE VERSION: sid's orig tarball of that upstream version into
# src/ and unpacked there; the source package's Debian part is not needed
# (and can be missing from the archive: apt-get then fails after the
# orig tarball has arrived). Sets $dir to the unpacked folder, empty when
# the orig tarball did not arrive.
fetch() {
  pkg=$1 version=$2
  dir=""
  orig=$(ls "$root/src/${pkg}_$version.orig.tar."* 2>/dev/null | grep -v '\.asc$' | head -n 1 || true)
  if [ -z "$orig" ]; then
    # shellcheck disable=SC2086
    (cd "$root/src" && apt-get $APT source --download-only "$pkg/sid") \
      >> "$root/build/apt.log" 2>&1 || true
    orig=$(ls "$root/src/${pkg}_$version.orig.tar."* 2>/dev/null | grep -v '\.asc$' | head -n 1 || true)
  fi
  [ -n "$orig" ] || return 0
  rm -rf "$root/src/$pkg"
  mkdir "$root/src/$pkg"
  tar -xf "$orig" -C "$root/src/$pkg" --strip-components=1
  dir="$root/src/$pkg"
}

say "sources: pthreadpool $PTHREADPOOL, fxdiv $FXDIV, cpuinfo $CPUINFO, liburcu $LIBURCU"
fetch pthreadpool "$PTHREADPOOL"; pthreadpool_src=$dir
fetch fxdiv "$FXDIV"; fxdiv_src=$dir
fetch cpuinfo "$CPUINFO"; cpuinfo_src=$dir
fetch liburcu "$LIBURCU"; liburcu_src=$dir
for v in pthreadpool fxdiv cpuinfo; do
  eval "s=\$${v}_src"
  [ -n "$s" ] || fail "sid's $v source did not arrive (see $root/build/apt.log; sid may have moved to a newer version than this script names)"
done

generator=""
command -v ninja >/dev/null 2>&1 && generator="-GNinja"
cmake_build() {  # cmake_build NAME SOURCE ARGS...
  name=$1 src=$2; shift 2
  # shellcheck disable=SC2086
  run "$name.log" cmake -S "$src" -B "$root/build/$name" $generator \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib "$@"
  run "$name.log" cmake --build "$root/build/$name" --parallel 2
  run "$name.log" cmake --install "$root/build/$name"
}

say "pthreadpool $PTHREADPOOL: shared, SONAME libpthreadpool.so.0"
# Upstream's CMakeLists gives the library no SOVERSION; this file, read
# right after its project() line, gives it one once the target exists.
cat > "$root/build/pthreadpool-soname.cmake" <<'EOF'
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}"
  CALL set_target_properties pthreadpool PROPERTIES SOVERSION 0)
EOF
cmake_build pthreadpool "$pthreadpool_src" -DFXDIV_SOURCE_DIR="$fxdiv_src" \
  -DPTHREADPOOL_LIBRARY_TYPE=shared -DPTHREADPOOL_BUILD_TESTS=OFF \
  -DPTHREADPOOL_BUILD_BENCHMARKS=OFF \
  -DCMAKE_PROJECT_pthreadpool_INCLUDE="$root/build/pthreadpool-soname.cmake"
soname=$(readelf -d "$prefix/lib/libpthreadpool.so.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libpthreadpool.so.0 ] || fail "pthreadpool's SONAME is '$soname', not libpthreadpool.so.0"

say "cpuinfo $CPUINFO: static, position independent, hidden symbols"
cmake_build cpuinfo "$cpuinfo_src" -DCPUINFO_LIBRARY_TYPE=static \
  -DCPUINFO_BUILD_TOOLS=OFF -DCPUINFO_BUILD_UNIT_TESTS=OFF \
  -DCPUINFO_BUILD_MOCK_TESTS=OFF -DCPUINFO_BUILD_BENCHMARKS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_C_VISIBILITY_PRESET=hidden

if [ -n "$liburcu_src" ]; then
  say "liburcu $LIBURCU: shared"
  mkdir -p "$root/build/liburcu"
  run liburcu.log sh -c "cd '$root/build/liburcu' && '$liburcu_src/configure' \
    --prefix='$prefix' --libdir='$prefix/lib' --disable-static && make -j2 && make install"
  urcu="liburcu $LIBURCU"
else
  say "liburcu $LIBURCU: sid's orig tarball did not arrive (see $root/build/apt.log); the system's liburcu serves"
  urcu="liburcu system"
fi

# Only what is installed: the build folders can go.
rm -rf "$root/build/pthreadpool" "$root/build/cpuinfo" "$root/build/liburcu"
{
  echo "$WANT"
  echo "pthreadpool $PTHREADPOOL (SONAME libpthreadpool.so.0), fxdiv $FXDIV, cpuinfo $CPUINFO (static), $urcu"
} > "$stamp"
say "built in $prefix"
[ -z "$print" ] || echo "$prefix"
