# SPDX-License-Identifier: LGPL-2.1-or-later
"""rcupool.threads(n) blocks in asyncio tasks that share one event-loop
thread (issue 34): a block's scope belongs to the thread, not to the task,
so two tasks that interleave blocks across an ``await`` leave them out of
order. The late exit raises RuntimeError; no pin may leak."""

from __future__ import annotations

import asyncio

import rcupool
from rcupool import _scope


async def _first(entered: asyncio.Event, other_entered: asyncio.Event,
                 left: asyncio.Event) -> None:
    try:
        with rcupool.threads(2):
            entered.set()
            await other_entered.wait()  # the other task enters its block
    finally:
        left.set()


async def _second(first_entered: asyncio.Event, entered: asyncio.Event,
                  first_left: asyncio.Event) -> int:
    await first_entered.wait()
    with rcupool.threads(3) as block:
        entered.set()
        await first_left.wait()  # the first task leaves its block meanwhile
        return block.pool_threads


async def _interleave() -> list:
    a_in, b_in, a_left = asyncio.Event(), asyncio.Event(), asyncio.Event()
    # A deadline, generous for a loaded machine: a task whose entry fails
    # would leave the other waiting for ever.
    return await asyncio.wait_for(
        asyncio.gather(_first(a_in, b_in, a_left), _second(a_in, b_in, a_left),
                       return_exceptions=True), 60)


def test_asyncio_tasks_interleaving_blocks_raise_and_leave_no_pin():
    rcupool.set_num_threads(1)
    first, second = asyncio.run(_interleave())
    assert isinstance(first, RuntimeError)
    assert "out of order" in str(first)
    assert second == 3  # the later block ran and left normally
    s = rcupool.stats()
    assert s.pins == 0
    assert _scope.depth() == 0
    # The thread's scope stack is empty: a new block works, and nothing
    # outside a block runs on a stale width.
    with rcupool.threads(2) as block:
        assert block.pool_threads == 2
        assert rcupool.get_effective_num_threads() == 2
    assert rcupool.get_effective_num_threads() == 1
    assert rcupool.stats().pins == 0


def test_asyncio_repeated_interleaving_never_accumulates_pins():
    rcupool.set_num_threads(1)
    for _ in range(20):  # more than the 16 blocks a thread may nest
        first, second = asyncio.run(_interleave())
        assert isinstance(first, RuntimeError)
        assert second == 3
    assert rcupool.stats().pins == 0
    assert _scope.depth() == 0

