#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The pkg-config command lines of the docs, as the docs write them, against
# the CMake install: read from README.md (its `cc app.c $(pkg-config ...)`)
# and from docs/building.md's "From pkg-config" block (the export line,
# then each cc/c++ line), with <prefix> the install and app.c the program
# for the module the line names:
#   rcupool             tests/cmake/pkgconfig/pool.c: pthreadpool_parallelize_1d
#                       on the current pool and on a pin's pool
#   rcupool-xnnpack     tests/cmake/pkgconfig/xnn.c: builds an XNNPACK
#                       subgraph and runs it through the backend
#   rcupool-executorch  tests/cmake/pkgconfig/executorch.cc
# Each line is run as it is in a folder of its own, from a shell where
# PKG_CONFIG_PATH is unset, and the program it builds runs with the
# library folder on LD_LIBRARY_PATH (docs/building.md, "How a program
# finds the libraries at run time"). The cross-compiling block is built
# and run by tests/aarch64/run.sh. Usable outside Bazel:
# docs_pkgconfig_test.sh PREFIX (tests/cmake/ci.sh).
set -euo pipefail
install_prefix=${1:-}
source tests/cmake/unpack.sh
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
src=tests/cmake/pkgconfig

# The block's lines: the indented lines after "### From pkg-config".
block=$(awk '/^### From pkg-config/ { on = 1; next }
             on && /^    / { print substr($0, 5); seen = 1; next }
             on && seen { exit }' docs/building.md)
readme=$(grep -o '`cc app\.c \$(pkg-config [^`]*)`' README.md | tr -d '`')
[ -n "$block" ] || fail "docs/building.md: no \"From pkg-config\" block"
[ -n "$readme" ] || fail "README.md: no cc app.c \$(pkg-config ...) line"
printf 'docs/building.md:\n%s\nREADME.md:\n%s\n' "$block" "$readme"

n=0
seen=""
run_line() {  # run_line WHERE LINE: in a folder of its own
  local where=$1 line=$2 dir prog want
  case "$line" in
    export\ *) eval "${line//<prefix>/$prefix}"; return ;;
  esac
  case "$line" in
    *"--libs rcupool-xnnpack)"*) prog=xnn.c want="xnn ok" ;;
    *"--libs rcupool-executorch)"*) prog=executorch.cc want="executorch ok" ;;
    *"--libs rcupool)"*) prog=pool.c want="pool ok" ;;
    *) fail "$where: no program for: $line" ;;
  esac
  n=$((n + 1))
  seen="$seen $prog"
  dir="$tmp/line$n"
  mkdir -p "$dir"
  cp "$src/$prog" "$dir/app.${prog##*.}"
  cp "$src/tiny_model.h" "$dir/"
  (cd "$dir" && eval "${line//<prefix>/$prefix}") || fail "$where: $line"
  out=$(LD_LIBRARY_PATH="$prefix/lib" "$dir/a.out") || fail "$where: $prog exited with $?"
  grep -q "^$want" <<<"$out" || fail "$where: $prog said: $out"
  echo "$where: $line -> $out"
}

while IFS= read -r line; do
  [ -n "$line" ] && run_line docs/building.md "$line"
done <<<"$block"
[ "${PKG_CONFIG_PATH:-}" = "$prefix/lib/pkgconfig" ] ||
  fail "docs/building.md: the block does not set PKG_CONFIG_PATH to <prefix>/lib/pkgconfig"
for prog in pool.c xnn.c executorch.cc; do
  grep -qw "$prog" <<<"$seen" || fail "docs/building.md: no command line for $prog's module"
done
while IFS= read -r line; do
  run_line README.md "$line"
done <<<"$readme"
echo "PASS ($n command lines built and run)"
