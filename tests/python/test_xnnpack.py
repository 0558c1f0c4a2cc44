# SPDX-License-Identifier: LGPL-2.1-or-later
"""The seed's crash and the review's churn, from Python, through the XNNPACK
sample extension (issue 13, must-show 1 and 2)."""

from __future__ import annotations

import os

import rcupool
from conftest import UNDER_TSAN, run_python

MAX_ERROR = 1e-4  # as tests/xnnpack/method.h


def test_method_loaded_then_resets_to_16_4_and_20_alternating_outputs_match_reference(
        sample_xnnpack):
    rcupool.set_num_threads(2)
    method = sample_xnnpack.Method()  # 256-512-256, batch 64
    try:
        assert method.pool()[2] == 2
        assert method.run() < MAX_ERROR
        # 16, 4, then 20 alternating 8 and 3 (as tests/xnnpack/invoke_test:
        # fresh 16-thread pools spin on 2 cores for seconds each).
        counts = [16, 4] + [8 if i % 2 == 0 else 3 for i in range(20)]
        for i, n in enumerate(counts):
            rcupool.set_num_threads(n)
            assert rcupool.get_num_threads() == n
            assert method.pool()[2] == 2  # the method keeps its pool
            err = method.run()
            assert err < MAX_ERROR, f"run after reset {i + 1} to {n}: {err}"
        rcupool.trim()  # every width but the method's and the current one
        s = rcupool.stats()
        assert (s.pins, s.pools_alive, s.pools_kept) == (1, 2, 1)
    finally:
        method.drop()
    assert rcupool.trim() == 1
    assert rcupool.stats().pools_alive == 1


CHURN = """
import os, sys
import rcupool, rcupool_sample_xnnpack as ext

def os_threads():
    return len(os.listdir("/proc/self/task"))

# A reset to 2 and then to 1 retires a pool whatever this machine's
# default count is (a default of 1 would make set_num_threads(1) a no-op).
rcupool.set_num_threads(2)
rcupool.set_num_threads(1)
rcupool.trim()  # the pools before, warm since the resets
# This process's threads besides pools: the main thread and, since the
# first pool was retired, the library's reclaim thread (its constant);
# ThreadSanitizer adds one of its own.
baseline = os_threads()
for n in range(1, 17):
    rcupool.set_num_threads(n)
    m = ext.Method(batch=16, inputs=64, hidden=128, outputs=64, seed=21)
    assert m.pool()[2] == n
    err = m.run()
    assert err < 1e-4, (n, err)
    m.drop()
rcupool.trim()  # the warm widths 1..15
s = rcupool.stats()
print(s.pools_alive, s.pools_kept, s.threads_alive, s.pins, baseline, os_threads())
"""


def test_churn_set_load_run_drop_1_to_16_leaves_one_pool_and_its_workers(sample_dir):
    out = run_python(CHURN, sample_dir, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    alive, kept, threads_alive, pins, baseline, os_threads = map(int, out.stdout.split())
    assert (alive, kept, threads_alive, pins) == (1, 0, 16, 0)
    assert baseline == (3 if UNDER_TSAN else 2)
    # The baseline + the current pool's 15 workers; a keep-every-pool
    # policy would add 0 + 1 + ... + 14 more.
    assert os_threads == baseline + 15, (baseline, os_threads)
