#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# find_package(rcupool) and its xnnpack component, against the CMake install
# (tests/cmake_consumer/components), on this machine and on a view of it
# without XNNPACK:
#   - with XNNPACK: no component and COMPONENTS xnnpack both give
#     rcupool::xnnpack, and a program linking it builds and runs; an unknown
#     component fails, naming it;
#   - without XNNPACK: find_package(rcupool) and OPTIONAL_COMPONENTS xnnpack
#     succeed without rcupool::xnnpack (rcupool_xnnpack_FOUND false) and a
#     core-only program builds and runs; COMPONENTS xnnpack leaves
#     rcupool_FOUND and rcupool_xnnpack_FOUND false, and with REQUIRED
#     fails with the message that says what is missing.
#
# "Without XNNPACK" is a sysroot for CMake's find commands: links to every
# entry of /usr/include and /usr/lib/<multiarch> except XNNPACK's
# (xnnpack.h, libXNNPACK*), with the install linked in as /rcupool, given
# to the consumer as CMAKE_FIND_ROOT_PATH with the root path mode ONLY for
# headers, libraries and packages. Every find_path, find_library and
# find_package of that configure, rcupool's config and its dependency
# search included, then looks in that tree and nowhere else: they see the
# machine as it is, less XNNPACK, which is what a machine without
# libxnnpack-dev looks like to them. The config decides from those finds
# alone, so this tests the decision itself, not a hint that bypasses it;
# each run first checks that XNNPACK is invisible there (and visible in
# the runs on the machine itself). The compiler still sees
# /usr/include/xnnpack.h, but nothing built without the component
# includes it.
# Usable outside Bazel: components_test.sh PREFIX (CI, .ci/run).
set -euo pipefail
install_prefix=${1:-}
source tests/cmake/unpack.sh
src=tests/cmake_consumer/components

arch=$(cc -print-multiarch)
sysroot="$tmp/sysroot"
mirror() {  # mirror DIR: a link to each entry of DIR, XNNPACK's left out
  mkdir -p "$sysroot$1"
  local entry
  for entry in "$1"/*; do
    shopt -s nocasematch
    [[ ${entry##*/} == *xnnpack* ]] && { shopt -u nocasematch; continue; }
    shopt -u nocasematch
    ln -s "$entry" "$sysroot$entry"
  done
}
mirror /usr/include
mirror "/usr/lib/$arch"
ln -s "$prefix" "$sysroot/rcupool"
without_xnnpack=(-DCMAKE_FIND_ROOT_PATH="$sysroot" -DCMAKE_PREFIX_PATH=/rcupool
  -DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY
  -DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY)
with_xnnpack=(-DCMAKE_PREFIX_PATH="$prefix")

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
n=0
# consume NAME WANT RCUPOOL_FIND FIND_ARGS...: configures (and, when
# WANT=builds, builds) the project; WANT=fails wants the configure to fail.
# Leaves the configure output in $tmp/NAME.log.
consume() {
  local name=$1 want=$2 how=$3; shift 3
  local out="$tmp/$name" rc=0
  cmake -S "$src" -B "$out" "${generator[@]}" -DRCUPOOL_FIND="$how" "$@" \
    > "$out.log" 2>&1 || rc=$?
  if [ "$want" = fails ]; then
    [ $rc -ne 0 ] || { cat "$out.log" >&2; fail "$name: configure succeeded"; }
  else
    [ $rc -eq 0 ] || { cat "$out.log" >&2; fail "$name: configure failed"; }
    cmake --build "$out" > "$out.build.log" 2>&1 ||
      { cat "$out.build.log" >&2; fail "$name: build failed"; }
  fi
  n=$((n + 1))
}
expect() {  # expect NAME TEXT: the configure of NAME printed TEXT
  grep -qF -- "$2" "$tmp/$1.log" ||
    { cat "$tmp/$1.log" >&2; fail "$1: no '$2' in its configure output"; }
}
runs() {  # runs NAME PROGRAM EXPECTED_START
  local r
  r=$("$tmp/$1/$2") || fail "$1: $2 exited with $?"
  grep -q "^$3" <<<"$r" || fail "$1: $2 printed '$r'"
  echo "$1: $r"
}

# On this machine, XNNPACK installed.
consume with-core builds core "${with_xnnpack[@]}"
expect with-core "xnnpack visible: yes"
expect with-core "rcupool found: yes, xnnpack component: yes, rcupool::xnnpack: yes"
runs with-core core "core ok"
runs with-core xnn "xnn ok"
consume with-required builds required "${with_xnnpack[@]}"
expect with-required "rcupool found: yes, xnnpack component: yes, rcupool::xnnpack: yes"
runs with-required xnn "xnn ok"
consume with-unknown fails unknown "${with_xnnpack[@]}"
expect with-unknown "unknown component no_such_component"

# The same install, XNNPACK not installed.
consume without-core builds core "${without_xnnpack[@]}"
expect without-core "xnnpack visible: no"
expect without-core "rcupool found: yes, xnnpack component: no, rcupool::xnnpack: no"
runs without-core core "core ok"
consume without-optional builds optional "${without_xnnpack[@]}"
expect without-optional "xnnpack visible: no"
expect without-optional "rcupool found: yes, xnnpack component: no, rcupool::xnnpack: no"
runs without-optional core "core ok"
consume without-quiet builds quiet "${without_xnnpack[@]}"
expect without-quiet "xnnpack visible: no"
expect without-quiet "rcupool found: no, xnnpack component: no, rcupool::xnnpack: no"
consume without-required fails required "${without_xnnpack[@]}"
expect without-required "xnnpack visible: no"
expect without-required "the xnnpack component (rcupool::xnnpack) needs XNNPACK"
echo "PASS: $n configurations"
