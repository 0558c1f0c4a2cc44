#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The published figures are what benchmarks/report.py writes from
# benchmarks/results/: RESULTS.md's generated part (with the date, commit
# and machine it gives) and README.md's summary table, and README.md has
# no figure outside that table. On a failure, regenerate:
#   python3 benchmarks/report.py --results benchmarks/results --readme benchmarks/README.md
# (and tools/bench.sh for RESULTS.md).
set -u
cd "${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-}" 2>/dev/null || true
status=0
/usr/bin/python3 benchmarks/report.py --results benchmarks/results \
  --out benchmarks/RESULTS.md --check || status=1
/usr/bin/python3 benchmarks/report.py --results benchmarks/results \
  --readme benchmarks/README.md --check || status=1
exit "$status"
