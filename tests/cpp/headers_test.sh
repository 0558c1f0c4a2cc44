#!/bin/bash
# Every public header compiles as C++ with g++ and clang++, in C++17 and
# C++20, under -Wall -Wextra -Werror -pedantic; rcupool.hpp also with
# -fno-exceptions -fno-rtti, with the rcupool_pin_sized() branch turned on
# (as the C header will once that function exists), and with its unit test
# as the user of every template. The C++ pin idiom of the README
# (`rcupool_pin_t pin{};`) is compiled too.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/rcupool-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

headers=(include/rcupool/*.h include/rcupool/*.hpp)
[ "${#headers[@]}" -ge 4 ] || fail "found only ${headers[*]}"
flags=(-Wall -Wextra -Werror -pedantic -Iinclude -I.)

cat > "$tmp/pin_idiom.cc" <<'CC'
#include <rcupool/rcupool.h>
int main() {
  rcupool_pin_t pin{};   /* the README's C++ idiom */
  return rcupool_pin_threads(&pin) == 0 ? 0 : 1;
}
CC
cat > "$tmp/pin_sized.cc" <<'CC'
/* What rcupool.h will declare once rcupool_pin_sized() exists. */
#define RCUPOOL_HAVE_PIN_SIZED 1
#include <rcupool/rcupool.h>
extern "C" int rcupool_pin_sized(rcupool_t *m, size_t threads,
                                 rcupool_pin_t *pin);
#include <rcupool/rcupool.hpp>
int use(rcupool::Manager m, rcupool::Pin &p) {
  return rcupool::Pin::sized(m, 2, p);
}
CC

n=0
for cxx in g++ clang++; do
  command -v "$cxx" >/dev/null || fail "$cxx not found"
  for std in c++17 c++20; do
    for h in "${headers[@]}"; do
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
    for ex in "" -fno-exceptions; do
      "$cxx" -std=$std "${flags[@]}" $ex -fsyntax-only tests/cpp/rcupool_hpp_test.cc ||
        fail "$cxx -std=$std $ex: tests/cpp/rcupool_hpp_test.cc"
    done
    n=$((n + 5))
    echo "ok: $cxx -std=$std"
  done
done
echo "PASS: $n compilations"
