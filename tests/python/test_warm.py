# SPDX-License-Identifier: LGPL-2.1-or-later
"""Warm widths from Python (issue 25, must-show 3): rcupool.trim(),
rcupool.set_warm(), the idle stats, and a ``threads`` block at a width
nobody holds costing a lookup after its first use."""

from __future__ import annotations

import ctypes
import errno
import os
import re
import statistics
import time

import pytest

import rcupool
from rcupool import _native

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def warm_defaults():
    """Every test here starts and ends with the default warm widths and no
    warm pool."""
    rcupool.set_warm()
    rcupool.trim()
    yield
    rcupool.set_warm()
    rcupool.trim()


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def header_define(name: str) -> int:
    with open(os.path.join(ROOT, "include", "rcupool", "warm.h")) as f:
        return int(re.search(rf"#define {name} (\w+)", f.read()).group(1)
                   .rstrip("u"), 0)


def test_warm_constants_are_the_headers():
    assert rcupool.WARM_MS_DEFAULT == header_define("RCUPOOL_WARM_MS_DEFAULT")
    assert rcupool.WARM_POOLS_DEFAULT == header_define("RCUPOOL_WARM_POOLS_DEFAULT")
    assert rcupool.WARM_MS_MAX == header_define("RCUPOOL_WARM_MS_MAX")


def test_threads_block_leaves_its_width_warm_and_trim_frees_it(sample_parallel):
    rcupool.set_num_threads(1)  # a 1-thread pool has no worker thread
    rcupool.trim()  # the pool that was current until now
    before = os_threads()
    with rcupool.threads(4):
        assert sample_parallel.run(4) == 4
    rcupool.barrier()  # a barrier leaves a warm width alone
    s = rcupool.stats()
    assert (s.pools_alive, s.pools_idle, s.threads_idle) == (2, 1, 4)
    assert os_threads() == before + 3
    assert rcupool.trim() == 1
    s = rcupool.stats()
    assert (s.pools_alive, s.pools_idle, s.threads_idle) == (1, 0, 0)
    assert s.threads_alive == 1
    # trim() returns once the workers are joined: they are gone already.
    assert os_threads() == before
    assert rcupool.trim() == 0


def test_trim_keeps_the_width_a_threads_block_holds(sample_parallel):
    rcupool.set_num_threads(2)
    rcupool.trim()
    with rcupool.threads(3):
        assert rcupool.trim() == 0
        assert rcupool.stats().pools_alive == 2
        assert sample_parallel.run(3) == 3
    assert rcupool.trim() == 1
    assert rcupool.stats().pools_alive == 1


def test_trim_frees_the_pool_a_reset_retired(sample_parallel):
    rcupool.set_num_threads(3)
    rcupool.trim()
    rcupool.set_num_threads(2)
    assert rcupool.trim() == 1
    s = rcupool.stats()
    assert (s.pools_alive, s.threads_alive, s.threads) == (1, 2, 2)
    assert sample_parallel.run(2) == 2


def test_trim_raises_oserror_with_the_libraries_errno(monkeypatch):
    real = _native.lib

    class FakeLib:
        """The library, but rcupool_trim fails as inside a parallel task."""

        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def rcupool_trim(m):
            return -errno.EDEADLK

    monkeypatch.setattr(_native, "lib", FakeLib())
    with pytest.raises(OSError) as info:
        rcupool.trim()
    assert info.value.errno == errno.EDEADLK


def test_trim_and_set_warm_are_called_without_the_gil():
    # ctypes.CDLL releases the GIL around each call (PyDLL would hold it):
    # trim() blocks for grace periods and joins without stopping Python.
    assert type(_native.lib) is ctypes.CDLL
    assert _native.lib.rcupool_trim.restype is ctypes.c_int
    assert _native.lib.rcupool_set_warm.argtypes == [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32]


def test_set_warm_pools_0_keeps_no_warm_width_and_defaults_keep_it_again():
    rcupool.set_num_threads(2)
    rcupool.set_warm(pools=0)
    with rcupool.threads(3):
        pass
    rcupool.barrier()  # without warm widths a barrier frees it
    s = rcupool.stats()
    assert (s.pools_alive, s.pools_idle) == (1, 0)
    rcupool.set_warm()
    with rcupool.threads(3):
        pass
    rcupool.barrier()
    assert rcupool.stats().pools_idle == 1


def test_set_warm_pools_1_keeps_the_width_used_last():
    rcupool.set_num_threads(1)
    rcupool.set_warm(ms=rcupool.WARM_MS_MAX, pools=1)
    with rcupool.threads(2):
        pass
    rcupool.barrier()  # an expiry pass sees the 2-thread width unused first
    with rcupool.threads(3):
        pass
    rcupool.barrier()
    s = rcupool.stats()
    assert (s.pools_idle, s.threads_idle) == (1, 3)


def test_set_warm_short_linger_lets_the_width_go_on_its_own():
    rcupool.set_num_threads(2)
    rcupool.set_warm(ms=20)
    with rcupool.threads(3):
        pass
    deadline = time.monotonic() + 10
    while rcupool.stats().pools_alive > 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    s = rcupool.stats()
    assert (s.pools_alive, s.pools_idle) == (1, 0)


BAD_WARM = [
    (dict(ms=0), ValueError),
    (dict(ms=-1), ValueError),
    (dict(ms=3600001), ValueError),
    (dict(ms=2.5), ValueError),
    (dict(ms=True), ValueError),
    (dict(ms="10"), TypeError),
    (dict(pools=-1), ValueError),
    (dict(pools=2**32 - 1), ValueError),
    (dict(pools=None), TypeError),
]


@pytest.mark.parametrize("kwargs,exc", BAD_WARM, ids=[repr(k) for k, _ in BAD_WARM])
def test_set_warm_bad_input_raises_and_changes_nothing(kwargs, exc):
    rcupool.set_num_threads(2)
    rcupool.set_warm(pools=0)
    with pytest.raises(exc):
        rcupool.set_warm(**kwargs)
    with rcupool.threads(3):
        pass
    rcupool.barrier()
    assert rcupool.stats().pools_idle == 0  # still none kept


def test_set_warm_takes_keywords_only():
    with pytest.raises(TypeError):
        rcupool.set_warm(1000, 8)  # type: ignore[misc]


def test_threads_at_an_unheld_width_costs_a_lookup_after_the_first_block(sample_parallel):
    rcupool.set_num_threads(2)
    rcupool.trim()
    created = rcupool.stats().pools_created
    t0 = time.perf_counter()
    with rcupool.threads(3):  # the first block starts the 3-thread pool
        first = time.perf_counter() - t0
        assert sample_parallel.run(3) == 3
    assert rcupool.stats().pools_created == created + 1
    unheld, current = [], []
    for _ in range(50):
        t0 = time.perf_counter()
        with rcupool.threads(3):
            pass
        t1 = time.perf_counter()
        with rcupool.threads(2):
            pass
        t2 = time.perf_counter()
        unheld.append(t1 - t0)
        current.append(t2 - t1)
    s = rcupool.stats()
    # The claim itself: no pool was started after the first block.
    assert s.pools_created == created + 1
    assert (s.pins, s.pools_alive, s.pools_idle, s.threads_idle) == (0, 2, 1, 3)
    med_unheld = statistics.median(unheld)
    med_current = statistics.median(current)
    print(f"\nwith rcupool.threads(n): entry of the first block at width 3 "
          f"{first * 1e6:.1f} us; median of 50 blocks: width 3 (unheld, "
          f"warm) {med_unheld * 1e6:.1f} us, width 2 (current) "
          f"{med_current * 1e6:.1f} us, ratio {med_unheld / med_current:.2f}; "
          f"max {max(unheld) * 1e6:.1f} us and {max(current) * 1e6:.1f} us")
    # Loose bounds (a loaded machine, sanitizers): a start costs 10-24 ms.
    assert med_unheld < 1e-3
    assert med_unheld < 20 * med_current
