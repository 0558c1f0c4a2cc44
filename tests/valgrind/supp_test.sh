#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The valgrind suppression file shipped for applications
# (tools/valgrind/rcupool.supp) and rcupool_finalize(), with memcheck's
# leak check as an application's CI would run it (possible leaks are
# errors): tests/valgrind/at_exit, an application on librcupool.so.0 that
# leaves workers, a warm pool and the reclaim thread alive at exit,
#   1. with no suppression: errors (what the file is for; if this ever
#      passes, the check below proves nothing);
#   2. with rcupool.supp: no error;
#   3. calling rcupool_finalize() before it returns, with no suppression:
#      no error, no leak.
set -euo pipefail
app=tests/valgrind/at_exit
supp=tools/valgrind/rcupool.supp
fail() { echo "FAIL: $*" >&2; exit 1; }
memcheck() {  # memcheck LOG [valgrind options] -- ARGS
  local log=$1; shift
  valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
    --show-leak-kinds=definite,indirect,possible --error-exitcode=99 \
    --fair-sched=yes "$@" > "$log" 2>&1
}
# valgrind cannot run a program built with a sanitizer (--config=asan/tsan).
needed=$(readelf -d "$app" 2>/dev/null || true)
if grep -qE 'lib(a|t)san' <<<"$needed"; then
  echo "skipped: built with a sanitizer, which valgrind cannot run"
  exit 0
fi
tmp=$(mktemp -d "${TEST_TMPDIR:-/tmp}/supp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

rc=0; memcheck "$tmp/bare" "$app" || rc=$?
[ "$rc" -eq 99 ] || { cat "$tmp/bare"; fail "no suppression: exit $rc, not 99 (memcheck errors)"; }
grep -q "are possibly lost in loss record" "$tmp/bare" || { cat "$tmp/bare"; fail "no possible leak reported"; }
echo "without suppressions: $(grep 'ERROR SUMMARY' "$tmp/bare")"

memcheck "$tmp/supp" --suppressions="$supp" "$app" ||
  { cat "$tmp/supp"; fail "with $supp: memcheck errors"; }
grep -q "^at_exit ok" "$tmp/supp" || fail "app output"
echo "with rcupool.supp: $(grep 'ERROR SUMMARY' "$tmp/supp")"

memcheck "$tmp/fin" "$app" finalize || { cat "$tmp/fin"; fail "finalize: memcheck errors"; }
grep -q "^at_exit ok" "$tmp/fin" || fail "app output (finalize)"
grep -q "are possibly lost in loss record" "$tmp/fin" && { cat "$tmp/fin"; fail "finalize: still a possible leak"; }
echo "with rcupool_finalize(): $(grep 'ERROR SUMMARY' "$tmp/fin")"
echo PASS
