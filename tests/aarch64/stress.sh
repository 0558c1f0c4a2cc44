#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The ExecuTorch stand-in under qemu-aarch64, run again and again with
# placement on (RCUPOOL_PLACEMENT=performance): each round runs
# examples/executorch/backend.cc's program three times, then
# tests/compat/executorch's churn_test and backend_test, each in a process
# of its own with a time limit. Every exit status is tallied (one line per
# run in OUT/tally.txt: round, program, status); the output of a run that
# did not exit 0 is kept in OUT, the others' compressed.
#
#   tests/aarch64/stress.sh TESTS_BUILD OUT [MINUTES]
#
# TESTS_BUILD is tests/aarch64/run.sh's tests folder (AARCH64_BUILD/tests
# of a run that kept its build); MINUTES (default 40) bounds the whole run.
# Prints "N runs, N exited 0" and exits 1 when any run did not.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: stress.sh TESTS_BUILD OUT [MINUTES]" >&2; exit 2; }
build=$1 out=$2 minutes=${3:-40}
cd "$(dirname "$0")/../.."
sysroot=$(tools/setup.sh --arch aarch64 --print-sysroot | tail -n 1) || exit 1
mkdir -p "$out"
# G_SLICE: qemu's fork hang, tests/aarch64/run.sh.
export QEMU_LD_PREFIX=$sysroot RCUPOOL_PLACEMENT=performance G_SLICE=always-malloc
programs=(example_executorch_backend example_executorch_backend
          example_executorch_backend et_churn_test et_backend_test)
for p in "${programs[@]}"; do
  [ -x "$build/$p" ] || { echo "not built: $build/$p" >&2; exit 1; }
done
end=$((SECONDS + minutes * 60))
round=0 runs=0 clean=0
while :; do  # at least one round
  round=$((round + 1))
  for i in "${!programs[@]}"; do
    p=${programs[$i]}
    log="$out/$p.$round.$i.log"
    (cd "$build" && timeout -k 10 300 qemu-aarch64 "./$p") > "$log" 2>&1
    rc=$?
    echo "$round $p $rc" >> "$out/tally.txt"
    runs=$((runs + 1))
    if [ $rc -eq 0 ]; then
      clean=$((clean + 1)); gzip -q "$log"
    else
      echo "round $round: $p exited $rc (output: $log)"
    fi
  done
  [ $SECONDS -lt $end ] || break
done
echo "$runs runs, $clean exited 0"
[ "$clean" -eq "$runs" ]
