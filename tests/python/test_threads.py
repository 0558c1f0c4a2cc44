# SPDX-License-Identifier: LGPL-2.1-or-later
"""rcupool.threads(n): the per-caller width (issue 13, must-show 4)."""

from __future__ import annotations

import json
import logging
import threading

import pytest

import rcupool
import storm
from conftest import run_python, set_count_alone


def test_threads_block_runs_extension_on_its_width_and_leaves_count(sample_parallel):
    set_count_alone(2)
    gen = rcupool.stats().generation
    with rcupool.threads(3) as t:
        assert t.pool_threads == 3
        assert sample_parallel.run(3) == 3
        assert rcupool.get_num_threads() == 2
    assert sample_parallel.run(2) == 2
    s = rcupool.stats()
    assert (s.threads, s.generation) == (2, gen)
    rcupool.barrier()
    s = rcupool.stats()
    assert (s.pools_alive, s.pools_idle) == (2, 1)  # 3 stays warm
    assert rcupool.trim() == 1
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


# A SIGINT every 50 us against threads() blocks (issue 24): an interrupt
# that lands between the pin and the scope entry, or between the scope exit
# and the unpin, leaked a pin and left the library's scope stack one deeper;
# the 17th leak aborted the process ("scope_enter: nested deeper than 16").
BLOCK_STORM = """
import rcupool
sender = start_storm(SECONDS)
caught = blocks = i = 0
while storming(sender, 100, 3):
    i += 1
    try:
        armed = True
        with rcupool.threads(1 + i % 3):
            blocks += 1
        armed = False
    except KeyboardInterrupt:
        caught += 1
sent = end_storm(sender)
rcupool.barrier()
pins = rcupool.stats().pins
# The library's scope stack is empty again: 16 nested blocks open, the
# 17th is refused with RuntimeError.
open_ = [rcupool.threads(1) for _ in range(16)]
for b in open_:
    b.__enter__()
try:
    with rcupool.threads(1):
        refused = False
except RuntimeError:
    refused = True
for b in reversed(open_):
    b.__exit__(None, None, None)
print(json.dumps(dict(sent=sent, raised=raised, caught=caught, blocks=blocks,
                      pins=pins, refused=refused,
                      pins_after=rcupool.stats().pins)))
"""


def test_threads_blocks_under_sigint_every_50us_never_leak_a_pin_or_a_scope(sample_dir):
    out = run_python(storm.script(BLOCK_STORM.replace("SECONDS", "60")),
                     sample_dir, timeout=120)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert "Exception ignored" not in out.stderr, out.stderr[-2000:]
    got = json.loads(out.stdout.splitlines()[-1])
    print(got)
    assert got["raised"] >= 100, got
    assert got["caught"] == got["raised"], got
    assert got["blocks"] > 0, got
    assert (got["pins"], got["refused"], got["pins_after"]) == (0, True, 0), got


# importlib.reload(rcupool) inside open blocks (issue 24): the depth was
# kept in the module, so a reload forgot the open blocks and the 17th
# block aborted the process.
RELOAD = """
import importlib, json
import rcupool
open_ = [rcupool.threads(1) for _ in range(16)]
for b in open_:
    b.__enter__()
importlib.reload(rcupool)
try:
    rcupool.threads(1).__enter__()
    refused = False
except RuntimeError:
    refused = True
for b in reversed(open_):
    b.__exit__(None, None, None)
with rcupool.threads(2) as t:
    width = t.pool_threads
print(json.dumps(dict(refused=refused, width=width, pins=rcupool.stats().pins)))
"""


def test_threads_after_reload_inside_16_open_blocks_refuses_the_17th(sample_dir):
    out = run_python(RELOAD, sample_dir, timeout=60)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    got = json.loads(out.stdout.splitlines()[-1])
    assert got == dict(refused=True, width=2, pins=0)


def test_threads_left_on_another_thread_raises_and_keeps_the_pin():
    block = rcupool.threads(2)
    block.__enter__()
    errors = []

    def leave():
        try:
            block.__exit__(None, None, None)
        except RuntimeError as e:
            errors.append(e)

    t = threading.Thread(target=leave)
    t.start()
    t.join()
    assert len(errors) == 1 and "another thread" in str(errors[0])
    assert rcupool.stats().pins == 1
    assert block.pool_threads == 2
    block.__exit__(None, None, None)
    assert rcupool.stats().pins == 0
    assert block.pool_threads == 0


def test_threads_left_out_of_order_raises_and_is_released_with_the_later_block(
        sample_parallel):
    # Issue 34: the out-of-order exit used to keep its pin until its owner
    # left it again in order, which an asyncio task never does (a leak).
    # Now it is left for its owner and released with the later block.
    rcupool.set_num_threads(2)
    outer, inner = rcupool.threads(3), rcupool.threads(1)
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="out of order"):
        outer.__exit__(None, None, None)
    assert outer.pool_threads == 0  # left, as far as its owner is concerned
    assert rcupool.stats().pins == 2  # still under the inner block's scope
    assert sample_parallel.run(1) == 1  # the inner block still wins
    inner.__exit__(None, None, None)
    assert rcupool.stats().pins == 0  # both released, innermost first
    assert sample_parallel.run(2) == 2  # the current pool again
    with pytest.raises(RuntimeError, match="another thread"):
        outer.__exit__(None, None, None)  # it is no longer open
    assert rcupool.stats().pins == 0


def test_threads_block_whose_object_is_gone_unexited_is_released_by_next_entry():
    # SCOPE-6: what an interrupt landing after __enter__ returns and before
    # the block's handler leaves on CPython 3.14 (gh-148874): an open block
    # whose object nothing references, so nobody can leave it. Before, it
    # kept its pin and scope for ever, and the 17th aborted the process.
    from rcupool import _scope
    rcupool.threads(2).__enter__()  # the object is dropped at once
    assert _scope.depth() == 1 and rcupool.stats().pins == 1
    with rcupool.threads(1) as block:
        assert block.pool_threads == 1
        assert _scope.depth() == 1  # the lost block is gone
    assert _scope.depth() == 0
    assert rcupool.stats().pins == 0


def test_threads_exit_under_a_lost_inner_block_is_in_order_and_releases_both(
        sample_parallel):
    # SCOPE-6: the inner block of a `with` pair lost as above; the outer
    # block's own exit is then in order, not "out of order".
    from rcupool import _scope
    rcupool.set_num_threads(2)
    outer = rcupool.threads(3)
    outer.__enter__()
    rcupool.threads(1).__enter__()
    assert rcupool.stats().pins == 2
    outer.__exit__(None, None, None)
    assert _scope.depth() == 0
    assert rcupool.stats().pins == 0
    assert sample_parallel.run(2) == 2  # the current pool again


def test_threads_block_held_only_by_a_variable_stays_open_until_left():
    # SCOPE-6 releases only blocks nobody references: one kept in a
    # variable (entered by hand) stays open across other blocks.
    from rcupool import _scope
    kept = rcupool.threads(2)
    kept.__enter__()
    with rcupool.threads(1):
        assert _scope.depth() == 2
    assert kept.pool_threads == 2
    kept.__exit__(None, None, None)
    assert _scope.depth() == 0 and rcupool.stats().pins == 0


def test_call_locked_returns_fns_value_and_releases_the_lock_when_fn_raises():
    # The log drain's lock is taken and given back in one C call (_log.py):
    # `with lock:` left it held when an interrupt landed right after
    # __enter__ on CPython 3.14.
    from rcupool import _scope
    lock = threading.RLock()

    def interrupted():
        raise KeyboardInterrupt

    assert _scope.call_locked(lock, lambda: 7) == 7
    with pytest.raises(KeyboardInterrupt):
        _scope.call_locked(lock, interrupted)
    assert lock.acquire(blocking=False)  # free: taken at once
    lock.release()


def test_threads_decorated_function_that_raises_leaves_no_block_open():
    from rcupool import _scope

    @rcupool.threads(2)
    def width():
        return rcupool.get_effective_num_threads()

    @rcupool.threads(3)
    def interrupted():
        raise KeyboardInterrupt

    assert width() == 2
    with pytest.raises(KeyboardInterrupt):
        interrupted()
    assert _scope.depth() == 0 and rcupool.stats().pins == 0


class InterruptOnRecord(logging.Handler):
    """Raises KeyboardInterrupt from the first record it sees, as a Ctrl-C
    landing in the log drain would."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.fired = 0

    def emit(self, record):
        if not self.fired:
            self.fired += 1
            raise KeyboardInterrupt


def test_threads_interrupt_in_the_drain_after_entry_leaves_nothing_open():
    from rcupool import _scope
    logger = logging.getLogger("rcupool")
    old_level = logger.level
    logger.setLevel(logging.DEBUG)
    rcupool.trim()  # nothing queued; no pool of 5 threads, warm or not
    handler = InterruptOnRecord()
    logger.addHandler(handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with rcupool.threads(5):  # starts a pool: records at debug
                pytest.fail("the block ran")
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert handler.fired == 1
    assert _scope.depth() == 0
    assert rcupool.stats().pins == 0


def _worker_tids() -> set[int]:
    import os
    out = set()
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                if f.read().startswith("rcupool-w"):
                    out.add(int(tid))
        except OSError:
            pass
    return out


def _cpus_allowed(tid: int) -> str:
    with open(f"/proc/self/task/{tid}/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    return ""


def test_threads_placement_binds_workers_and_is_its_own_pool(sample_parallel):
    import os
    if os.sched_getaffinity(0) != {0, 1}:
        pytest.skip("needs an affinity mask of CPUs 0 and 1")
    set_count_alone(2)
    before = _worker_tids()
    with rcupool.threads(2, placement="1") as t:
        assert t.pool_threads == 2
        assert sample_parallel.run(2) == 2
        new = _worker_tids() - before
        assert [_cpus_allowed(tid) for tid in new] == ["1"]
    created = rcupool.stats().pools_created
    with rcupool.threads(2, placement="1"):  # warm: the same pool
        assert sample_parallel.run(2) == 2
    with rcupool.threads(2):  # the current pool, not the placed one
        assert sample_parallel.run(2) == 2
    assert rcupool.stats().pools_created == created
    assert rcupool.stats().pins == 0
    assert rcupool.trim() == 1


@pytest.mark.parametrize("bad, exc", [("fastest", ValueError), ("", ValueError),
                                      (3, TypeError)])
def test_threads_bad_placement_raises_at_construction(bad, exc):
    with pytest.raises(exc):
        rcupool.threads(2, placement=bad)
    assert rcupool.stats().pins == 0


def test_threads_placement_outside_the_mask_raises_oserror_and_pins_nothing():
    import errno
    with pytest.raises(OSError) as e:
        with rcupool.threads(2, placement="1000-1023"):
            pass
    assert e.value.errno == errno.EINVAL
    assert rcupool.stats().pins == 0


def test_get_effective_num_threads_is_the_innermost_block_on_this_thread():
    rcupool.set_num_threads(2)
    assert rcupool.get_effective_num_threads() == 2
    with rcupool.threads(3):
        assert rcupool.get_effective_num_threads() == 3
        assert rcupool.get_num_threads() == 2  # the process-wide count
        with rcupool.threads(1):
            assert rcupool.get_effective_num_threads() == 1
        assert rcupool.get_effective_num_threads() == 3
        seen = []
        t = threading.Thread(
            target=lambda: seen.append(rcupool.get_effective_num_threads()))
        t.start()
        t.join()
        assert seen == [2]  # another thread: no block there
    assert rcupool.get_effective_num_threads() == 2


def test_threads_as_decorator_runs_each_call_in_a_block(sample_parallel):
    rcupool.set_num_threads(2)

    @rcupool.threads(3)
    def work(x):
        """Doc kept."""
        return x, sample_parallel.run(3), rcupool.get_effective_num_threads()

    assert work.__name__ == "work" and work.__doc__ == "Doc kept."
    assert work(7) == (7, 3, 3)
    assert rcupool.stats().pins == 0
    assert work(8) == (8, 3, 3)  # again: one object entered at every call

    @rcupool.threads(1)
    def recurse(k):
        return 0 if k == 0 else 1 + recurse(k - 1)

    assert recurse(3) == 3  # nested entries of one object
    with pytest.raises(ZeroDivisionError):
        rcupool.threads(3)(lambda: 1 / 0)()
    assert rcupool.stats().pins == 0
    assert rcupool.get_effective_num_threads() == 2


def test_threads_decorator_rejects_coroutine_functions():
    async def coro():
        return 1

    with pytest.raises(TypeError, match="asyncio"):
        rcupool.threads(2)(coro)
    with pytest.raises(TypeError):
        rcupool.threads(2)(42)
