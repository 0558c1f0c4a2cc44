#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs pytest (Debian's /usr/bin/python3) on the given test files against the
# rcupool package laid out from this build's libraries. Run by Bazel from
# the runfiles root: tests/python/BUILD.
set -euo pipefail

lib=lib/shared/librcupool.so.0
site="$TEST_TMPDIR/site"
tools/wheel.sh --library "$lib" \
  --xnnpack-library lib/shared/librcupool_xnnpack.so.0 --stage "$site"
export PYTHONPATH="$site"

# A library built with --config=asan or tsan needs its sanitizer runtime
# loaded first in the interpreter, which is not built with it. CPython
# itself does not free everything at exit: leak detection stays off here.
needed=$(readelf -d "$lib")
if grep -q 'libasan' <<<"$needed"; then
  export RCUPOOL_TEST_SANITIZER=asan
  export LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
elif grep -q 'libtsan' <<<"$needed"; then
  export RCUPOOL_TEST_SANITIZER=tsan
  export LD_PRELOAD="$(gcc -print-file-name=libtsan.so)"
  # Children may start in other folders: the suppression file by its path.
  export TSAN_OPTIONS="${TSAN_OPTIONS:-}"
  TSAN_OPTIONS="${TSAN_OPTIONS//suppressions=tests\/tsan.supp/suppressions=$PWD\/tests\/tsan.supp}"
fi

exec /usr/bin/python3 -m pytest -p no:cacheprovider -q \
  --basetemp "$TEST_TMPDIR/pytest" "$@"
