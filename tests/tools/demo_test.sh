#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job of the README (`bazel run //tools:demo`), short: it must end
# with its verdict PASS (every output checked, the threads and pools back to
# the current pool's at the end) and exit 0.
set -uo pipefail
demo="$1"
out=$("$demo" --seconds 2 2>&1)
rc=$?
echo "$out" | tail -8
if [ "$rc" -ne 0 ]; then
  echo "demo_test: the demo exited with $rc"
  exit 1
fi
if [ "$(echo "$out" | tail -1)" != "PASS" ]; then
  echo "demo_test: the demo's last line is not PASS"
  exit 1
fi
echo "demo_test: PASS"
