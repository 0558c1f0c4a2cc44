#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# lock_calls_test.sh LIB_FILE...
#
# lib/lock.h's sentence: every pthread mutex and condition-variable call of
# lib/ goes through its checked wrappers. Fails naming each call of a
# pthread_mutex_* or pthread_cond_* function in a file of lib/ other than
# lock.h and lock.c, except manager.c's pthread_mutex_init (its failure is
# rcupool_create's -ENOMEM). Then checks that it would see one: a copy of
# lib/log.c with a raw pthread_cond_broadcast must be reported.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: lock_calls_test.sh LIB_FILE..." >&2; exit 2; }

# raw_calls FILE...: "file:line: text" of each raw call.
raw_calls() {
  local f
  for f in "$@"; do
    case "$(basename "$f")" in lock.h | lock.c) continue ;; esac
    grep -nE '\bpthread_(mutex|cond)_[a-z]+[[:space:]]*\(' "$f" |
      { if [ "$(basename "$f")" = manager.c ]; then
          grep -vE 'if \(pthread_mutex_init\(&m->(writer|lock), NULL\) != 0\)'
        else cat; fi; } |
      sed "s|^|$(basename "$f"):|"
  done
}

failures=0
found=$(raw_calls "$@")
if [ -n "$found" ]; then
  echo "FAIL: raw pthread mutex/cond calls in lib/ (use lock.h's wrappers):"
  echo "$found"
  failures=$((failures + 1))
fi

# The check sees a raw call.
tmp=${TEST_TMPDIR:-$(mktemp -d)}
for f in "$@"; do
  if [ "$(basename "$f")" = log.c ]; then
    sed 's|rcupl_cond_broadcast(&lq.calls_done);|pthread_cond_broadcast(\&lq.calls_done);|' "$f" > "$tmp/log.c"
    grep -q "pthread_cond_broadcast(&lq.calls_done)" "$tmp/log.c" ||
      { echo "FAIL: could not make the raw call in a copy of log.c"; failures=$((failures + 1)); }
    raw_calls "$tmp/log.c" | grep -q "^log.c:[0-9]*:.*pthread_cond_broadcast" ||
      { echo "FAIL: a raw pthread_cond_broadcast in log.c was not reported"; failures=$((failures + 1)); }
  fi
done

[ "$failures" -eq 0 ] && echo "PASS: $# files, no raw pthread mutex/cond call outside lock.h, lock.c"
[ "$failures" -eq 0 ]
