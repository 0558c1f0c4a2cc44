# SPDX-License-Identifier: LGPL-2.1-or-later
"""One pool per process (issue 13, must-show 3): the package and every
sample extension see the same manager, pool and generation."""

from __future__ import annotations

import os

import rcupool
from conftest import set_count_alone
from samples import run_cmd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sample_parallel_sees_generation_and_size_set_from_python(sample_parallel):
    rcupool.set_num_threads(3)
    addr, gen, threads = sample_parallel.pool()
    assert addr != 0
    assert (gen, threads) == (rcupool.stats().generation, 3)
    rcupool.set_num_threads(2)
    addr2, gen2, threads2 = sample_parallel.pool()
    assert addr2 != addr
    assert (gen2, threads2) == (gen + 1, 2)


def test_sample_parallel_run_tasks_see_the_pool_size_set_from_python(sample_parallel):
    for n in (1, 2, 4, 3):
        rcupool.set_num_threads(n)
        assert sample_parallel.run(n) == n


def test_sample_parallel_run_releases_gil_so_python_threads_run(sample_parallel):
    import threading
    rcupool.set_num_threads(2)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.005)

    t = threading.Thread(target=ticker)
    t.start()
    before = len(ticks)
    sample_parallel.run()  # at least 150 ms (the kernel's quiet time)
    during = len(ticks) - before
    stop.set()
    t.join()
    assert during >= 5


def test_method_pinned_before_reset_keeps_its_pool_and_size(sample_parallel):
    set_count_alone(2)
    sample_parallel.load(0)
    try:
        rcupool.set_num_threads(4)
        assert sample_parallel.method_threads(0) == 2
        assert sample_parallel.run_method(0, 2) == 2
        assert sample_parallel.run(4) == 4
        assert rcupool.stats().pins == 1
    finally:
        sample_parallel.unload(0)
    rcupool.barrier()
    assert rcupool.stats().pools_idle == 1  # unpinned: its width is warm
    assert rcupool.trim() == 1
    assert rcupool.stats().pools_alive == 1


def test_check_one_definer_package_and_samples_have_exactly_one(sample_dir):
    pkg = os.path.dirname(rcupool.__file__)
    out = run_cmd(
        [os.path.join(ROOT, "tools", "check_one_definer"), pkg, sample_dir],
        capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("definer:") == 1
    assert "librcupool.so.0" in out.stdout


def test_both_samples_see_same_pool_address_and_generation(
        sample_parallel, sample_xnnpack):
    rcupool.set_num_threads(3)
    par = sample_parallel.pool()
    xnn = sample_xnnpack.pool()
    assert par == xnn
    assert par[1:] == (rcupool.stats().generation, 3)
    method = sample_xnnpack.Method(batch=4, inputs=16, hidden=32, outputs=16)
    try:
        # The method pinned that very pool.
        assert method.pool() == par
        rcupool.set_num_threads(5)
        par5, xnn5 = sample_parallel.pool(), sample_xnnpack.pool()
        assert par5 == xnn5
        assert par5[1:] == (par[1] + 1, 5)
        assert sample_parallel.run(5) == 5
        assert method.pool() == par  # still its own pool
        assert method.run() < 1e-4
    finally:
        method.drop()


def test_one_library_mapped_once_with_both_samples_loaded(
        sample_parallel, sample_xnnpack):
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "librcupool" in line}
    lib_dir = os.path.realpath(rcupool.get_library_dir())
    assert paths == {os.path.join(lib_dir, "librcupool.so.0"),
                     os.path.join(lib_dir, "librcupool_xnnpack.so.0")}
