#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The instrumented installs (tools/install.sh --sanitize address|thread),
# each used by an application built under its sanitizer
# (tests/cmake/sanitize/app.c, through pkg-config, with -Werror):
#   sanitize_test.sh address|thread [PLAIN_PREFIX]
# CC (default clang: its shared objects carry no sanitizer runtime, the
# case -z defs broke) builds both the install and the application. With
# thread and PLAIN_PREFIX (an uninstrumented install), the same program on
# that install must draw a ThreadSanitizer report on its own kernel: the
# reason the instrumented install exists. Runs outside Bazel (tests/cmake/ci.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
sanitizer=${1:?address or thread}
plain=${2:-}
export CC=${CC:-clang}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-sanitize.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

tools/install.sh --prefix "$tmp/prefix" --build "$tmp/build" --libdir lib \
  --sanitize "$sanitizer" > "$tmp/install.log" 2>&1 ||
  { tail -30 "$tmp/install.log"; fail "install --sanitize $sanitizer with $CC"; }
readelf -d "$tmp/prefix/lib/librcupool.so.0" > /dev/null || fail "no librcupool.so.0"

case "$sanitizer" in
  address) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
           export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
           export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
           run=() ;;
  thread) flags="-fsanitize=thread"
          export TSAN_OPTIONS="halt_on_error=1:suppressions=$PWD/tests/tsan.supp"
          run=(setarch -R) ;;
  *) fail "address or thread, not $sanitizer" ;;
esac

build_app() {  # build_app PREFIX OUT
  local pc="$1/lib/pkgconfig"
  # shellcheck disable=SC2046
  $CC -std=c11 -Wall -Wextra -Werror -g -O1 $flags -o "$2" tests/cmake/sanitize/app.c \
    $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs rcupool) -Wl,-rpath,"$1/lib"
}
build_app "$tmp/prefix" "$tmp/app" || fail "$CC $flags app.c"
out=$("${run[@]}" "$tmp/app" 2>&1) || { echo "$out"; fail "app under $sanitizer exited with an error"; }
grep -q "^sanitize ok$" <<<"$out" || fail "unexpected output: $out"
echo "$sanitizer ($CC): the application runs clean on the instrumented install"

if [ "$sanitizer" = thread ] && [ -n "$plain" ]; then
  build_app "$plain" "$tmp/app-plain" || fail "$CC $flags app.c on the plain install"
  if out=$("${run[@]}" "$tmp/app-plain" 2>&1); then
    fail "no report on the uninstrumented install: the check cannot tell"
  fi
  grep -q "ThreadSanitizer: data race" <<<"$out" || { echo "$out"; fail "another failure"; }
  echo "thread ($CC): on the plain install it reports a race in its own kernel"
fi
echo PASS
