"""rcupool.threads(n): the per-caller width (issue 13, must-show 4)."""

from __future__ import annotations

import threading

import pytest

import rcupool


def test_threads_block_runs_extension_on_its_width_and_leaves_count(sample_parallel):
    rcupool.set_num_threads(2)
    gen = rcupool.stats().generation
    with rcupool.threads(3) as t:
        assert t.pool_threads == 3
        assert sample_parallel.run(3) == 3
        assert rcupool.get_num_threads() == 2
    assert sample_parallel.run(2) == 2
    s = rcupool.stats()
    assert (s.threads, s.generation) == (2, gen)
    rcupool.barrier()
    assert rcupool.stats().pools_alive == 1


def test_threads_nested_innermost_wins_and_outer_restored(sample_parallel):
    rcupool.set_num_threads(2)
    with rcupool.threads(4):
        assert sample_parallel.run(4) == 4
        with rcupool.threads(1):
            assert sample_parallel.run(1) == 1
        assert sample_parallel.run(4) == 4
    assert sample_parallel.run(2) == 2
    assert rcupool.stats().pins == 0


def test_threads_block_left_by_exception_unpins_and_leaves_scope(sample_parallel):
    rcupool.set_num_threads(2)
    with pytest.raises(KeyError):
        with rcupool.threads(3):
            raise KeyError("boom")
    assert rcupool.stats().pins == 0
    assert sample_parallel.run(2) == 2


def test_threads_from_two_python_threads_each_call_runs_on_its_width(sample_parallel):
    rcupool.set_num_threads(2)
    gen = rcupool.stats().generation
    seen = {1: [], 3: []}
    errors = []
    start = threading.Barrier(2)

    def caller(width):
        try:
            start.wait()
            with rcupool.threads(width):
                for _ in range(4):
                    seen[width].append(sample_parallel.run(width))
        except BaseException as e:  # reported below
            errors.append(e)

    ts = [threading.Thread(target=caller, args=(w,)) for w in (1, 3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    assert seen == {1: [1] * 4, 3: [3] * 4}
    s = rcupool.stats()
    assert (s.threads, s.generation) == (2, gen)  # the global count untouched
    assert s.pins == 0


BAD = [(0, ValueError), (-1, ValueError), (10**6, ValueError), (2.5, ValueError),
       ("4", TypeError), (None, TypeError), (True, ValueError)]


@pytest.mark.parametrize("value,exc", BAD, ids=[repr(v) for v, _ in BAD])
def test_threads_bad_input_raises_and_pins_nothing(value, exc):
    before = rcupool.stats()
    with pytest.raises(exc):
        rcupool.threads(value)
    after = rcupool.stats()
    assert (after.pins, after.pools_alive) == (before.pins, before.pools_alive)


def test_threads_nested_deeper_than_16_raises_instead_of_aborting():
    blocks = [rcupool.threads(1) for _ in range(16)]
    for b in blocks:
        b.__enter__()
    try:
        with pytest.raises(RuntimeError):
            with rcupool.threads(1):
                pass
        assert rcupool.stats().pins == 16
    finally:
        for b in reversed(blocks):
            b.__exit__(None, None, None)
    assert rcupool.stats().pins == 0
