#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Warnings are errors: the CMake build of the whole tree (lib/, the
# backends, the ExecuTorch stand-in, tools/rcupool_info) with gcc and with
# clang, under the flags a Debian package is built with (dpkg-buildflags:
# CFLAGS, CXXFLAGS, CPPFLAGS, LDFLAGS, with their hardening) plus -Wall
# -Wextra -Werror, for both liburcu flavours; and, when tools/setup.sh
# --deps newest has built them, against the newest dependencies, where the
# executor's files (lib/exec_*.c, built only on a pthreadpool with the
# executor API) are compiled too. Any warning fails the build,
# as it fails a distribution's build that adds -Werror. .ci/run runs it
# ("warnings"). Prints each build's result and, for a failed one, the
# compiler's messages.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-warnings.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

command -v dpkg-buildflags > /dev/null ||
  { echo "FAIL: dpkg-buildflags not found (dpkg-dev; tools/setup.sh installs it)"; exit 1; }
strict="-Wall -Wextra -Werror"
cppflags=$(dpkg-buildflags --get CPPFLAGS)
cflags="$(dpkg-buildflags --get CFLAGS) $cppflags $strict"
cxxflags="$(dpkg-buildflags --get CXXFLAGS) $cppflags $strict"
ldflags=$(dpkg-buildflags --get LDFLAGS)
echo "CFLAGS: $cflags"
echo "CXXFLAGS: $cxxflags"
echo "LDFLAGS: $ldflags"

generator=""
command -v ninja > /dev/null && generator="-GNinja"
newest=""
sh tools/deps_newest.sh --check > /dev/null 2>&1 &&
  newest=$(sh tools/deps_newest.sh --print | tail -n 1)
status=0
for compilers in gcc:g++ clang:clang++; do
  cc=${compilers%:*} cxx=${compilers#*:}
  for flavor in bp memb ${newest:+newest}; do
    name="$cc-$flavor"
    deps=()
    if [ "$flavor" = newest ]; then
      flavor=bp
      deps=(-DRCUPOOL_DEPS_PREFIX="$newest")
    fi
    # CMAKE_BUILD_TYPE None: the flags above alone, as debhelper builds.
    # shellcheck disable=SC2086
    if CC=$cc CXX=$cxx CFLAGS="$cflags" CXXFLAGS="$cxxflags" LDFLAGS="$ldflags" \
      cmake -S . -B "$tmp/$name" $generator -DCMAKE_BUILD_TYPE=None \
      -DRCUPOOL_URCU_FLAVOR="$flavor" "${deps[@]}" > "$tmp/$name.log" 2>&1 &&
      cmake --build "$tmp/$name" --parallel 2 >> "$tmp/$name.log" 2>&1; then
      objects=$(find "$tmp/$name" -name '*.o' | wc -l)
      echo "warnings: $name: built with no warning ($objects objects)"
    else
      grep -E -A4 'error|warning' "$tmp/$name.log" | head -n 40
      echo "warnings: $name: FAILED"
      status=1
    fi
    rm -rf "$tmp/$name"
  done
done
exit $status
