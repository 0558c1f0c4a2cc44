#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs each example program given (examples/BUILD) and fails unless every
# one exits 0 within 60 s. Their output is printed.
set -uo pipefail
status=0
for exe in "$@"; do
  echo "=== $exe"
  timeout 60 "$exe"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: $exe exited with $rc"
    status=1
  fi
done
exit $status
