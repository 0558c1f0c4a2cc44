#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/cmake_consumer, configured with find_package(rcupool CONFIG), built
# and run against the CMake install: `consumer_test.sh shared` links
# rcupool::rcupool (librcupool.so.0), `static` rcupool::rcupool_static.
# The shared run also builds and runs the README's "From CMake" and
# "From C++" snippets, copied out of README.md as they are.
# Usable outside Bazel: consumer_test.sh LINK PREFIX (CI, .ci/run).
set -euo pipefail
link=${1:?shared or static}
install_prefix=${2:-}
source tests/cmake/unpack.sh

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
build() {  # build SOURCE_DIR BUILD_DIR [cmake args...]
  local src=$1 out=$2; shift 2
  cmake -S "$src" -B "$out" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" "$@" \
    > "$out.log" 2>&1 && cmake --build "$out" >> "$out.log" 2>&1 ||
    { cat "$out.log" >&2; fail "cmake build of $src"; }
}

build tests/cmake_consumer "$tmp/consumer" -DRCUPOOL_CONSUMER_LINK="$link"
exe="$tmp/consumer/consumer"
if [ "$link" = shared ]; then
  readelf -d "$exe" | grep 'Shared library: \[librcupool.so.0\]' >/dev/null ||
    fail "the shared consumer does not need librcupool.so.0"
else
  readelf -d "$exe" | grep 'librcupool' >/dev/null && fail "the static consumer needs librcupool"
  nm "$exe" | grep ' T rcupool_default$' >/dev/null || fail "the static consumer lacks rcupool_default"
fi
out=$("$exe") || fail "consumer exited with $?"
echo "$out"
grep -q "^consumer ok: $link library" <<<"$out" || fail "unexpected output"

if [ "$link" = shared ]; then
  # ExecuTorch's thread-pool API, linked as rcupool::executorch_threadpool.
  et="$tmp/consumer/executorch_consumer"
  readelf -d "$et" | grep 'Shared library: \[librcupool_executorch.so.0\]' >/dev/null ||
    fail "executorch_consumer does not need librcupool_executorch.so.0"
  out=$("$et") || fail "executorch_consumer exited with $?"
  echo "$out"
  grep -q "^executorch consumer ok$" <<<"$out" || fail "unexpected executorch output"

  # The README's snippets: the first ```LANG block after each heading.
  readme=README.md
  snippet() {  # snippet HEADING LANG
    awk -v h="$1" -v lang="$2" '
      $0 == h { inside = 1; next }
      inside && $0 == "```" lang { copy = 1; next }
      copy && $0 == "```" { exit }
      copy { print }' "$readme"
  }
  mkdir -p "$tmp/readme"
  snippet "### From CMake" cmake > "$tmp/readme/CMakeLists.txt"
  snippet "### From C++" cpp > "$tmp/readme/app.cpp"
  [ -s "$tmp/readme/CMakeLists.txt" ] || fail "no cmake block under '### From CMake' in README.md"
  [ -s "$tmp/readme/app.cpp" ] || fail "no cpp block under '### From C++' in README.md"
  build "$tmp/readme" "$tmp/readme-build" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror -pedantic"
  out=$("$tmp/readme-build/app") || fail "README app exited with $?"
  echo "README snippet: $out"
fi
echo "PASS"
