"""fork and multiprocessing (issue 13, must-show 5): children set the count
and run both sample extensions; the parent is unaffected."""

from __future__ import annotations

import multiprocessing
import os

import pytest

import rcupool
from conftest import skip_fork_under_tsan

pytestmark = skip_fork_under_tsan

MAX_ERROR = 1e-4


def child_work(n):
    """Runs in a child: set n threads, run both extensions."""
    import rcupool_sample_parallel as par
    import rcupool_sample_xnnpack as xnn
    rcupool.set_num_threads(n)
    seen = par.run(n)
    m = xnn.Method(batch=8, inputs=32, hidden=64, outputs=32)
    try:
        return (rcupool.get_num_threads(), seen, m.pool()[2], m.run())
    finally:
        m.drop()


def test_os_fork_child_sets_count_and_runs_both_extensions_parent_unaffected(
        sample_parallel, sample_xnnpack):
    rcupool.set_num_threads(2)
    parent_gen = rcupool.stats().generation
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            got = child_work(3)
            os.write(w, repr(got).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = os.read(r, 4096)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    count, seen, method_threads, error = eval(data.decode())
    assert (count, seen, method_threads) == (3, 3, 3)
    assert error < MAX_ERROR
    # The parent: same count, same generation, still works.
    assert rcupool.get_num_threads() == 2
    assert rcupool.stats().generation == parent_gen
    assert sample_parallel.run(2) == 2
    m = sample_xnnpack.Method(batch=8, inputs=32, hidden=64, outputs=32)
    assert m.run() < MAX_ERROR
    m.drop()


def test_multiprocessing_fork_pool_children_set_counts_and_run_both_extensions(
        sample_parallel, sample_xnnpack):
    rcupool.set_num_threads(2)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        results = pool.map(child_work, [1, 3, 4, 2], chunksize=1)
    for n, (count, seen, method_threads, error) in zip([1, 3, 4, 2], results):
        assert (count, seen, method_threads) == (n, n, n)
        assert error < MAX_ERROR
    assert rcupool.get_num_threads() == 2
    assert sample_parallel.run(2) == 2
