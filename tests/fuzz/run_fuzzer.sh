#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the API fuzzer for a bounded time from the seed corpus; new inputs go
# to a scratch directory, never into the repository's corpus.
#   run_fuzzer.sh <fuzzer binary> [extra libFuzzer flags...]
# Environment: FUZZ_SECONDS (default 60).
set -euo pipefail
fuzzer="$1"; shift
seconds="${FUZZ_SECONDS:-60}"
scratch="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
mkdir -p "$scratch"
log="${TEST_TMPDIR:-/tmp}/fuzz.log"
# detect_leaks: the fuzzer's own per-input leak check (ASan).
set +e
"$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
  -print_final_stats=1 "$@" "$scratch" tests/fuzz/corpus 2>&1 | tee "$log" |
  grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)' || true
rc=${PIPESTATUS[0]}
set -e
runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
echo "fuzz: ${seconds} s, ${runs} inputs tried, exit status ${rc}"
exit "$rc"
