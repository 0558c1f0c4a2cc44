#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/cmake_consumer, configured with find_package(rcupool CONFIG), built
# and run against the CMake install: `consumer_test.sh shared` links
# rcupool::rcupool (librcupool.so.0), `static` rcupool::rcupool_static.
# The shared run also builds and runs examples/cpp (docs/building.md's
# "From CMake" block and docs/cpp.md's example, which tests/docs checks
# are those files as they are).
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

# Two sibling subdirectories that each find_package(rcupool) (a monorepo's
# layout): both configure, build and run.
build tests/cmake_consumer/siblings "$tmp/siblings" -DRCUPOOL_CONSUMER_LINK="$link"
for exe in core/sibling_core backend/sibling_core_too; do
  out=$("$tmp/siblings/$exe") || fail "$exe exited with $?"
  grep -q "^core ok" <<<"$out" || fail "unexpected $exe output: $out"
done
if [ "$link" = shared ]; then
  out=$("$tmp/siblings/backend/sibling_executorch") || fail "sibling_executorch exited with $?"
  grep -q "^executorch consumer ok$" <<<"$out" || fail "unexpected sibling_executorch output"
fi
if [ -e "$tmp/siblings/backend/sibling_xnn" ]; then
  "$tmp/siblings/backend/sibling_xnn" >/dev/null || fail "sibling_xnn exited with $?"
fi
echo "siblings: ok"

if [ "$link" = shared ]; then
  # ExecuTorch's thread-pool API, linked as rcupool::executorch_threadpool.
  et="$tmp/consumer/executorch_consumer"
  readelf -d "$et" | grep 'Shared library: \[librcupool_executorch.so.0\]' >/dev/null ||
    fail "executorch_consumer does not need librcupool_executorch.so.0"
  out=$("$et") || fail "executorch_consumer exited with $?"
  echo "$out"
  grep -q "^executorch consumer ok$" <<<"$out" || fail "unexpected executorch output"

  # examples/cpp: the docs' CMake project and its C++ program, warnings as errors.
  build examples/cpp "$tmp/example" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror -pedantic"
  out=$("$tmp/example/app") || fail "examples/cpp app exited with $?"
  echo "examples/cpp: $out"
fi
echo "PASS"
