#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every public header compiles as C++ with g++ and clang++, in C++11, C++14,
# C++17 and C++20, under -Wall -Wextra -Werror -pedantic and the strict
# flags below: rcupool's
# (include/rcupool) and the ExecuTorch stand-in's
# (lib/compat/executorch/include). C++11 is the oldest a consumer may use:
# Bazel 4.2.3's default toolchain compiles C++ with -std=c++0x, and a
# consumer that only adds the dependency must build. Below it, each C++
# header stops with an #error that names C++11. rcupool.hpp also with
# -fno-exceptions -fno-rtti, with the rcupool_pin_sized() branch turned on
# (as the C header will once that function exists), and with its unit test
# as the user of every template. The C++ pin idiom of the README and docs/cpp.md
# (`rcupool_pin_t pin{};`) is compiled too, and so is ExecuTorch's run()
# with every kind of callable it takes, and its guards.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/rcupool-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

et=lib/compat/executorch/include
cxx_headers=(include/rcupool/*.hpp $et/executorch/extension/threadpool/*.h)
headers=(include/rcupool/*.h "${cxx_headers[@]}")
[ "${#headers[@]}" -ge 6 ] || fail "found only ${headers[*]}"
# Consumers that build with stricter warnings than -Wall -Wextra: -Wshadow
# (g++: a function that hides a struct's constructor, as rcupool_pin() hid
# the tag `struct rcupool_pin`), -Wzero-as-null-pointer-constant and
# -Wold-style-cast (NULL and C casts in an inline function), each an error.
strict=(-Wshadow -Wzero-as-null-pointer-constant -Wold-style-cast)
flags=(-Wall -Wextra -Werror -pedantic "${strict[@]}" -Iinclude -I$et -I.)

cat > "$tmp/pin_idiom.cc" <<'CC'
#include <rcupool/rcupool.h>
int main() {
  rcupool_pin_t pin{};   /* the README's C++ idiom */
  return rcupool_pin_threads(&pin) == 0 ? 0 : 1;
}
CC
# Every kind of callable ExecuTorch's run() takes, and every guard.
cat > "$tmp/et_use.cc" <<'CC'
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <functional>

namespace tp = ::executorch::extension::threadpool;
static void task(size_t) {}
void use(tp::ThreadPool *pool) {
  const auto lambda = [](size_t) {};
  std::function<void(size_t)> function = task;
  pool->run(task, 1);  // a function named directly
  pool->run(&task, 1);
  pool->run(lambda, 1);
  pool->run([](size_t) {}, 1);
  pool->run(function, 1);
  tp::NoThreadPoolGuard none;
  tp::UseNThreadsThreadPoolGuard one(1);
  tp::PinnedPthreadpool pinned = tp::get_pinned_pthreadpool();
  tp::UsePinnedThreadPoolGuard guard(pinned);
  torch::executorch::threadpool::get_threadpool()->run(task, 1);
}
CC
cat > "$tmp/pin_sized.cc" <<'CC'
#include <rcupool/rcupool.hpp>
int use(rcupool::Manager m, rcupool::Pin &p) {
  return rcupool::Pin::sized(m, 2, p);
}
CC

n=0
for cxx in g++ clang++; do
  command -v "$cxx" >/dev/null || fail "$cxx not found"
  for std in c++98 c++03; do
    for h in "${cxx_headers[@]}"; do
      h=${h#$et/}
      echo "#include <${h#include/}>" > "$tmp/one.cc"
      if "$cxx" -std=$std "${flags[@]}" -fsyntax-only "$tmp/one.cc" > "$tmp/err" 2>&1; then
        fail "$cxx -std=$std: $h compiles"
      fi
      grep -q "error.*${h##*/} needs C++11 or later" "$tmp/err" ||
        { cat "$tmp/err" >&2; fail "$cxx -std=$std: $h does not say it needs C++11"; }
      n=$((n + 1))
    done
  done
  echo "ok: $cxx -std=c++98, c++03: #error naming C++11"
  for std in c++11 c++14 c++17 c++20; do
    for h in "${headers[@]}"; do
      h=${h#$et/}
      echo "#include <${h#include/}>" > "$tmp/one.cc"
      "$cxx" -std=$std "${flags[@]}" -fsyntax-only "$tmp/one.cc" ||
        fail "$cxx -std=$std: $h"
      n=$((n + 1))
    done
    "$cxx" -std=$std "${flags[@]}" -fno-exceptions -fno-rtti -fsyntax-only \
      -x c++ include/rcupool/rcupool.hpp || fail "$cxx -std=$std -fno-exceptions: rcupool.hpp"
    "$cxx" -std=$std "${flags[@]}" -fsyntax-only "$tmp/pin_sized.cc" ||
      fail "$cxx -std=$std: Pin::sized"
    "$cxx" -std=$std "${flags[@]}" -fsyntax-only "$tmp/pin_idiom.cc" ||
      fail "$cxx -std=$std: rcupool_pin_t pin{}"
    "$cxx" -std=$std "${flags[@]}" -fsyntax-only "$tmp/et_use.cc" ||
      fail "$cxx -std=$std: ExecuTorch's run() and guards"
    n=$((n + 4))
    # The GoogleTest test of rcupool.hpp, at the standards the system's
    # GoogleTest builds at (1.17 needs C++17: then only rcupool's headers
    # are compiled at C++11 and C++14, above).
    if echo '#include <gtest/gtest.h>' | "$cxx" -std=$std -x c++ -fsyntax-only - 2>/dev/null; then
      for ex in "" -fno-exceptions; do
        "$cxx" -std=$std "${flags[@]}" $ex -fsyntax-only tests/cpp/rcupool_hpp_test.cc ||
          fail "$cxx -std=$std $ex: tests/cpp/rcupool_hpp_test.cc"
      done
      n=$((n + 2))
    else
      echo "note: $cxx -std=$std: the system's GoogleTest does not build at this standard; rcupool_hpp_test.cc not compiled at it"
    fi
    echo "ok: $cxx -std=$std"
  done
done
echo "PASS: $n compilations"
