#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Exhaustive check of the pool lifetime model with spin.
#
#   check.sh MODEL.pml pass [-DFLAG ...]
#   check.sh MODEL.pml fail [-DFLAG ...]
#
# Generates the verifier (spin -a), compiles it with gcc (safety properties:
# assertions and invalid end states; no bitstate hashing, so the search is
# exhaustive), and runs it.
#   pass: exit 0 only if the full state space was searched with 0 errors.
#   fail: exit 0 only if spin reports a violation; the counterexample is
#         replayed (spin -t) and its last steps printed.
# Needs spin and gcc on PATH (Debian packages spin, gcc).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 MODEL.pml pass|fail [-DFLAG ...]" >&2
  exit 2
fi
model=$(readlink -f "$1")
expect=$2
shift 2
flags=("$@")

work=$(mktemp -d "${TEST_TMPDIR:-${TMPDIR:-/tmp}}/spin.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$model" model.pml

echo "spin -a ${flags[*]:-} $(basename "$model")"
spin "${flags[@]}" -a model.pml > spin.log 2>&1 || { cat spin.log; exit 1; }
# -DSAFETY: no cycle detection (not needed for assertions and end states).
# -DCOLLAPSE: stored states compressed (about a quarter of the memory).
gcc -O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM=4096 -o pan pan.c
set +e
./pan -m200000 -w24 > pan.log 2>&1
pan_rc=$?
set -e
grep -vE '^(Depth=|\s*$)' pan.log | sed -n '1,40p'

errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log | tail -1)
if [ -z "$errors" ]; then
  echo "FAIL: pan did not finish (exit $pan_rc)"
  exit 1
fi

case "$expect" in
  pass)
    if [ "$errors" -ne 0 ]; then
      echo "FAIL: spin found $errors error(s); counterexample:"
      spin "${flags[@]}" -t -p -g model.pml | tail -60
      exit 1
    fi
    # Exhaustive means: the search was not cut by depth or memory limits.
    if grep -qE 'max search depth too small|out of memory|Search not completed' pan.log; then
      echo "FAIL: the search was not exhaustive"
      exit 1
    fi
    grep -q 'Full statespace search' pan.log || {
      echo "FAIL: not a full state space search"; exit 1; }
    echo "PASS: full state space searched, 0 errors"
    ;;
  fail)
    if [ "$errors" -eq 0 ]; then
      echo "FAIL: spin found no violation in a variant that must violate a property"
      exit 1
    fi
    # One line per step of the counterexample (its first statement), lines
    # of model.pml; the last steps lead to the violation. Then where each
    # process stands at the end ("stopped at"): for an invalid end state
    # (a deadlock), the statements nothing can get past.
    echo "counterexample (last steps, one line each):"
    spin "${flags[@]}" -t -p model.pml 2>&1 |
      awk '/assertion violated/ { print; next }
           /^ *[0-9]+:[ \t]+proc/ && !/\[/ { print "stopped at: " $0; next }
           /^ *[0-9]+:[ \t]+proc/ { if ($1 != last) { print; last = $1 } }' |
      cut -c1-160 | tail -30
    echo "PASS: spin reports the expected violation (${flags[*]:-})"
    ;;
  *)
    echo "usage: $0 MODEL.pml pass|fail [-DFLAG ...]" >&2
    exit 2
    ;;
esac
