# SPDX-License-Identifier: LGPL-2.1-or-later
"""rcupool: the one CPU thread pool of a process, resizable at any time.

The pool is the process-wide manager of librcupool (``rcupool_default()``),
shared with every extension module that links the ``librcupool.so.0``
shipped in this package (see :func:`get_include` and
:func:`get_library_dir`). Changing its size is safe at any time, also while
models loaded by extensions hold the previous pool: they keep it until they
let go, and it is freed then.

The library's log goes to the ``"rcupool"`` logger of :mod:`logging`. The
library queues its records and never calls Python: every call of this
package (``threads`` blocks included) ends by emitting the queued records on
the calling thread, so what another thread or the library's reclaim thread
logged appears at the next call. An exception raised meanwhile (Ctrl-C)
reaches the caller.

Every function may be called from any thread. Calls into the library
release the GIL while they run.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import inspect
import numbers
import operator
import os
from typing import Any, Callable, TypeVar

from . import _log, _native, _scope, _threadpoolctl

__all__ = [
    "MAX_THREADS",
    "Stats",
    "WARM_MS_DEFAULT",
    "WARM_MS_MAX",
    "WARM_POOLS_DEFAULT",
    "barrier",
    "get_include",
    "get_effective_num_threads",
    "get_idle",
    "get_library_dir",
    "get_num_threads",
    "reset_num_threads",
    "set_idle",
    "set_num_threads",
    "set_warm",
    "stats",
    "threads",
    "trim",
]

#: The version of the loaded librcupool.so.0, ``"MAJOR.MINOR.PATCH"``
#: (``rcupool_version()``), which is also the wheel's version.
__version__: str = _native.lib.rcupool_version().decode("ascii")

#: The largest thread count :func:`set_num_threads` accepts
#: (``RCUPOOL_MAX_THREADS``).
MAX_THREADS: int = _native.MAX_THREADS

#: How long, in milliseconds, an unused pool width stays warm unless
#: :func:`set_warm` says otherwise (``RCUPOOL_WARM_MS_DEFAULT``).
WARM_MS_DEFAULT: int = _native.WARM_MS_DEFAULT

#: How many unused pool widths stay warm at most unless :func:`set_warm`
#: says otherwise (``RCUPOOL_WARM_POOLS_DEFAULT``).
WARM_POOLS_DEFAULT: int = _native.WARM_POOLS_DEFAULT

#: The longest linger :func:`set_warm` accepts, in milliseconds (one hour,
#: ``RCUPOOL_WARM_MS_MAX``).
WARM_MS_MAX: int = _native.WARM_MS_MAX


@dataclasses.dataclass(frozen=True)
class Stats:
    """A snapshot of the process-wide manager (``rcupool_stats_t``).

    Attributes:
        generation: pools published so far (the first pool is 1).
        threads: the current pool's thread count.
        pools_alive: the current pool plus every other pool not yet freed
            (retired by a reset, started for a :func:`threads` block, warm).
        pools_kept: retired pools past their grace period, still pinned.
        pins: pins held on all pools.
        resets: resets that changed the current pool.
        reuses: of those, resets that made a kept or retiring pool current.
        pools_created: pools created so far.
        pools_freed: pools freed so far.
        frees_pending: grace-period callbacks and frees not yet run.
        threads_alive: the sum of the thread counts of the pools alive.
        pools_never_current: pools alive that were started for a
            :func:`threads` block (a sized pin) and never made current.
        log_dropped: log records the library lost to a full queue, process
            wide (each loss is announced by a warning on the logger).
        pools_idle: warm pools: alive, not current, held by nothing but the
            manager, kept for the next block or reset of their width (see
            :func:`set_warm`; :func:`trim` frees them).
        threads_idle: the sum of the thread counts of the warm pools.
        start_failures: pool starts refused for want of threads (a limit
            such as ``ulimit -u``); the process-wide pool then came up with
            1 thread, on which work runs on the calling thread.
        follows: resets made by following the CPU limits (the affinity
            mask, the cgroup quota, the CPUs online; docs/placement.md).
        bind_failures: workers of the pools alive whose placement could
            not be applied.
    """

    generation: int
    threads: int
    pools_alive: int
    pools_kept: int
    pins: int
    resets: int
    reuses: int
    pools_created: int
    pools_freed: int
    frees_pending: int
    threads_alive: int
    pools_never_current: int
    log_dropped: int
    pools_idle: int
    threads_idle: int
    start_failures: int
    follows: int
    bind_failures: int


def _raise_errno(err: int, what: str) -> None:
    """Raises OSError for a negative errno returned by the library."""
    code = -err
    raise OSError(code, f"{what}: {os.strerror(code)}")


def _manager() -> int:
    m = _native.lib.rcupool_default()
    if not m:
        # The first creation failed (logged by the library); a later call
        # tries again.
        raise OSError(11, "rcupool: cannot create the process-wide pool")
    return m


def _integer(n: Any, what: str) -> int:
    """An int (or an object with ``__index__``, bool excluded) as an int.

    Raises ValueError for a bool or a non-integral number, TypeError for
    anything that is not a number; ``what`` names the argument.
    """
    if isinstance(n, bool):
        raise ValueError(f"{what} must be an integer, not {n!r}")
    if isinstance(n, numbers.Integral) or hasattr(type(n), "__index__"):
        return operator.index(n)
    if isinstance(n, numbers.Number):
        raise ValueError(f"{what} must be an integer, not {n!r}")
    raise TypeError(f"{what} must be an int, not {type(n).__name__}")


def _thread_count(n: Any, zero_hint: str = "") -> int:
    """Validates a thread count: an int (or an object with ``__index__``,
    bool excluded) in 1..MAX_THREADS. zero_hint is added to the message for
    0.

    Raises ValueError for a bool, a non-integral number or a count out of
    range, TypeError for anything that is not a number.
    """
    value = _integer(n, "thread count")
    if value < 1 or value > MAX_THREADS:
        raise ValueError(
            f"thread count must be in 1..{MAX_THREADS}, not {value}"
            + (zero_hint if value == 0 else ""))
    return value


def set_num_threads(n: int) -> None:
    """Makes an ``n``-thread pool the process's current pool.

    Safe at any time, also after models were loaded on the previous pool:
    they keep running on it until they let it go. A pool of that size still
    alive is reused. Blocks while a new pool's threads start.

    Raises:
        ValueError: ``n`` is below 1 (0 included: the default count is
            :func:`reset_num_threads`), above :data:`MAX_THREADS`, a bool or
            a non-integral number (``2.5``).
        TypeError: ``n`` is not a number (``"4"``, ``None``).
        OSError: the library failed (``errno`` says why, e.g. ``EAGAIN``
            when threads could not be started). The current pool is then
            unchanged.
    """
    count = _thread_count(
        n, "; rcupool.reset_num_threads() goes back to the default count")
    _log.sync_level()
    try:
        err = _native.lib.rcupool_reset(_manager(), count)
    finally:
        _log.drain()
    if err != 0:
        _raise_errno(err, f"rcupool_reset({count})")


def reset_num_threads() -> int:
    """Makes a pool of the default count current again, and returns that
    count (as :func:`get_num_threads` right after: another thread's reset
    may already have changed it).

    The default count is the one the pool started with at import, read
    again now, as ``rcupool_reset(m, 0)`` reads it: ``RCUPOOL_NUM_THREADS``
    when it was set (read once per process), else the performance cores in
    the calling thread's CPU affinity mask capped by the process's cgroup
    CPU quota (docs/default-size.md). Otherwise as
    :func:`set_num_threads`: safe at any time, a live pool of that size is
    reused, blocks while a new pool's threads start.

    Raises:
        OSError: the library failed (``errno`` says why); the current pool
            is then unchanged.
    """
    _log.sync_level()
    try:
        m = _manager()
        err = _native.lib.rcupool_reset(m, 0)
        count = int(_native.lib.rcupool_threads(m))
    finally:
        _log.drain()
    if err != 0:
        _raise_errno(err, "rcupool_reset(0)")
    return count


def get_num_threads() -> int:
    """The current pool's thread count (may change as soon as it returns).

    Process-wide: inside ``with rcupool.threads(n):`` it is still the
    current pool's count; :func:`get_effective_num_threads` is this
    thread's width.
    """
    try:
        return int(_native.lib.rcupool_threads(_manager()))
    finally:
        _log.drain()


def get_effective_num_threads() -> int:
    """The width parallel work started on this thread runs with now.

    Inside ``with rcupool.threads(n):`` (or a function decorated with it)
    on this thread, the innermost block's ``n``; otherwise the process-wide
    count, :func:`get_num_threads`. As ``torch.get_num_threads()`` or
    ExecuTorch's ``get_thread_count()``, this is what an extension call made
    here would use. Blocks of other threads do not count, and neither do
    scopes that C code entered itself (``rcupool_scope_enter()``; the
    library has no getter for them). Does not block.
    """
    n = _scope.innermost_threads()
    return n if n else get_num_threads()


def stats() -> Stats:
    """A snapshot of the process-wide manager's counters (see :class:`Stats`)."""
    raw = _native.StatsStruct()
    try:
        err = _native.lib.rcupool_get_stats(_manager(), ctypes.byref(raw))
    finally:
        _log.drain()
    if err != 0:
        _raise_errno(err, "rcupool_get_stats")
    return Stats(**{name: int(getattr(raw, name))
                    for name, _ in _native.StatsStruct._fields_})


def barrier() -> None:
    """Waits until every pool that can be freed now has been freed.

    Pools still held by a loaded model stay alive, and so do warm pools
    (widths kept for their next use, :func:`set_warm`): :func:`trim` frees
    those. Blocks for at least one grace period (a retired pool is freed
    about 0.1 ms after it may be).

    Raises:
        OSError: ``EDEADLK`` when called from inside a parallel task.
    """
    _log.sync_level()
    try:
        err = _native.lib.rcupool_barrier(_manager())
    finally:
        _log.drain()
    if err != 0:
        _raise_errno(err, "rcupool_barrier")


def trim() -> int:
    """Frees the warm pools now, and returns how many it freed.

    For a process that knows it goes quiet (``rcupool_trim()``): it waits
    for the resets already made, frees every pool that is not the current
    one and that nothing holds (no :func:`threads` block, no loaded model),
    and returns once their threads are joined (``/proc/self/task`` no
    longer lists them). The current pool and every pool in use stay. Blocks
    for a few grace periods and the joins; the GIL is released meanwhile.

    Raises:
        OSError: ``EDEADLK`` when called from inside a parallel task,
            ``EAGAIN`` when the library's reclaim thread cannot be started
            (nothing is freed then; a later call tries again).
    """
    _log.sync_level()
    try:
        n = _native.lib.rcupool_trim(_manager())
    finally:
        _log.drain()
    if n < 0:
        _raise_errno(n, "rcupool_trim")
    return int(n)


def set_warm(*, ms: int = WARM_MS_DEFAULT,
             pools: int = WARM_POOLS_DEFAULT) -> None:
    """Sets how long and how many unused pool widths stay warm
    (``rcupool_set_warm()``).

    A pool that is not the current one and that nothing holds any more (a
    :func:`threads` block ended, a model unloaded, a reset moved on) stays
    alive, warm, for ``ms`` milliseconds after its last use, so that the
    next ``with rcupool.threads(n):`` or :func:`set_num_threads` at its
    width is a lookup instead of a thread start. At most ``pools`` are kept;
    beyond it the longest unused go first. ``pools=0`` keeps none: such a
    pool goes at the next expiry pass (within ``ms``, or at a
    :func:`barrier`). Both values are set by every call, an argument left
    out taking its default, so ``set_warm()`` restores the defaults
    (:data:`WARM_MS_DEFAULT`, :data:`WARM_POOLS_DEFAULT`). Pools warm now
    meet the new values at the next expiry pass; :func:`trim` frees them
    at once. Does not block.

    Raises:
        ValueError: ``ms`` is not in 1..WARM_MS_MAX (an hour), ``pools`` not
            in 0..2**32-2, or either is a bool or a non-integral number.
            Nothing is then changed.
        TypeError: either is not a number.
    """
    warm_ms = _integer(ms, "warm ms")
    if warm_ms < 1 or warm_ms > WARM_MS_MAX:
        raise ValueError(f"warm ms must be in 1..{WARM_MS_MAX}, not {warm_ms}")
    warm_pools = _integer(pools, "warm pools")
    if warm_pools < 0 or warm_pools >= _native.WARM_NONE:
        raise ValueError(f"warm pools must be in 0..{_native.WARM_NONE - 1}, "
                         f"not {warm_pools}")
    try:
        err = _native.lib.rcupool_set_warm(
            _manager(), warm_ms, warm_pools or _native.WARM_NONE)
    finally:
        _log.drain()
    if err != 0:
        _raise_errno(err, f"rcupool_set_warm({warm_ms}, {warm_pools})")


def set_idle(policy: str) -> None:
    """Sets what the pool's workers do after a job (``rcupool_set_idle()``).

    ``"yield"`` (the default): they sleep at once. ``"spin"``: they spin a
    while first, so a parallel call soon after starts sooner, but the CPU
    they spin on (tens of milliseconds after every call) is lost to every
    other thread and process (benchmarks/README.md, "Idle workers"). Applies to the
    calls that start afterwards, XNNPACK runtimes created afterwards
    included.

    Raises:
        ValueError: ``policy`` is not ``"spin"`` or ``"yield"``.
        TypeError: ``policy`` is not a str.
    """
    if not isinstance(policy, str):
        raise TypeError(
            f"idle policy must be a str, not {type(policy).__name__}")
    if policy not in _native.IDLE_POLICIES:
        raise ValueError(
            f"idle policy must be 'spin' or 'yield', not {policy!r}")
    try:
        err = _native.lib.rcupool_set_idle(_manager(),
                                           _native.IDLE_POLICIES[policy])
    finally:
        _log.drain()
    if err != 0:
        _raise_errno(err, f"rcupool_set_idle({policy!r})")


def get_idle() -> str:
    """The workers' idle policy, ``"spin"`` or ``"yield"`` (see
    :func:`set_idle`)."""
    try:
        value = int(_native.lib.rcupool_idle(_manager()))
    finally:
        _log.drain()
    return next(k for k, v in _native.IDLE_POLICIES.items() if v == value)


_F = TypeVar("_F", bound=Callable[..., Any])


class threads(_scope.Scope):
    """``with rcupool.threads(n):`` runs this thread's parallel work on an
    ``n``-thread pool for the block; ``rcupool.threads(n,
    placement="performance")`` on one whose workers run on the performance
    cores (``"efficiency"``, a CPU list such as ``"0-3"``, each with an
    optional ``":strict"``; ``None``: the process's placement,
    ``RCUPOOL_PLACEMENT``; docs/placement.md). A pool's identity is its
    size and placement: blocks of one size and two placements use two
    pools (``rcupool_pin_placed``).

    On entry a pool of exactly ``n`` threads is pinned (one alive of that
    size is shared, else one is started: ``rcupool_pin_sized``) and this
    thread enters its scope; every extension call made on this thread in
    the block (that dispatches through rcupool) runs on it. The process's
    current pool and :func:`get_num_threads` are unchanged, and other
    threads are not affected. On exit, also on an exception, the scope is
    left and the pool unpinned. Nothing else holding it, it stays warm for
    the next block of its width (:func:`set_warm`: for a second, by
    default), so only the first block at a width nobody holds starts
    threads; the later ones cost about what a block at the current size
    costs. :func:`trim` frees warm pools at once.

    Blocks nest (the innermost wins) up to 16 deep per thread, and one
    ``threads`` object may be entered again, also from other threads. A
    block must be left on the thread that entered it.
    :func:`get_effective_num_threads` reads the width in effect.

    As a decorator, ``@rcupool.threads(n)`` runs every call of the function
    in such a block (one object, entered at each call, recursion and other
    threads included). A coroutine function is refused (``TypeError``): its
    block would span its ``await`` points (see below).

    asyncio: a block belongs to the thread, not to a task. Two tasks on one
    event loop that each hold a block across an ``await`` share the
    thread's scope stack: the work of one then runs on the width of the
    other's block, and the first to leave a block that is not the innermost
    gets ``RuntimeError``. That block's pool is released when the blocks
    entered after it are left (no pin leaks). Keep ``await`` out of a
    block, or run the blocking call in a worker thread
    (``await asyncio.to_thread(fn)`` with ``fn`` decorated by
    ``rcupool.threads(n)``).

    Entry and exit are each one call into C (``rcupool._scope``): an
    interrupt (``KeyboardInterrupt``) never lands half way through either,
    so a block is either open, and left by its ``with`` statement, or not
    open at all. On CPython 3.14 an interrupt can also land after the entry
    and before the block starts (CPython's gh-148874): the ``with``
    statement then never calls ``__exit__``, and the next block entered or
    left on the thread releases that block's pool.

    Raises:
        ValueError: ``n`` is not an integer in 1..MAX_THREADS (as
            :func:`set_num_threads`); raised by the constructor.
        TypeError: ``n`` is not a number, or ``placement`` not a string.
        ValueError: ``placement`` is not a placement; raised by the
            constructor. On entry, an explicit CPU list none of whose CPUs
            is in the thread's affinity mask and online raises OSError
            (``EINVAL``).
        OSError: on entry, the pool could not be started (``EAGAIN``,
            ``ENOMEM``); nothing is then pinned or entered.
        RuntimeError: on entry, blocks nested deeper than 16 on this
            thread; on exit, left on another thread than the one that
            entered (or left twice), or before a block entered later on
            this thread: the block is then left for its owner, and its
            scope and pin are released when the blocks entered after it
            are left.
    """

    # __enter__, __exit__ and pool_threads are those of _scope.Scope.

    def __init__(self, n: int, placement: str | None = None) -> None:
        self.n: int = _thread_count(n)
        if placement is not None:
            if not isinstance(placement, str):
                raise TypeError(
                    f"placement must be a str or None, not {type(placement).__name__}")
            parsed = _native.PlacementStruct()
            if _native.lib.rcupool_placement_parse(
                    placement.encode(), ctypes.byref(parsed)) != 0:
                raise ValueError(
                    f"not a placement: {placement!r} (none, performance, "
                    "efficiency or a CPU list, each with an optional "
                    "':strict')")
        self.placement: str | None = placement

    def __call__(self, fn: _F) -> _F:
        """``@rcupool.threads(n)``: every call of ``fn`` runs in this block.

        Raises:
            TypeError: ``fn`` is not callable, or is a coroutine function
                (asyncio: see the class).
        """
        if not callable(fn):
            raise TypeError(f"rcupool.threads({self.n}) decorates a "
                            f"callable, not {type(fn).__name__}")
        if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            raise TypeError(
                f"rcupool.threads({self.n}) cannot decorate the coroutine "
                f"function {getattr(fn, '__qualname__', fn)!r}: under asyncio "
                "a block would span its awaits; decorate a plain function "
                "and run it with asyncio.to_thread")

        @functools.wraps(fn)
        def in_block(*args: Any, **kwargs: Any) -> Any:
            # `with self:` in one C call (_scope.c): this object outlives
            # the call, so a block an interrupt lost between __enter__ and
            # the body (CPython 3.14) would stay open.
            return _scope.call_in_block(self, fn, args, kwargs)

        return in_block  # type: ignore[return-value]


def get_include() -> str:
    """The folder holding ``rcupool/rcupool.h``, for building extensions.

    The header includes ``<pthreadpool.h>`` (Debian: libpthreadpool-dev).
    """
    return _native.INCLUDE_DIR


def get_library_dir() -> str:
    """The folder holding ``librcupool.so.0``.

    Link an extension with ``-L<dir> -l:librcupool.so.0`` and give it a
    RUNPATH relative to ``$ORIGIN`` that leads here, so that it loads this
    very library and shares its pool.
    """
    return _native.LIB_DIR


_log.setup()
# threads blocks drain the log in C, after entry and exit (_scope.c).
_scope.set_drain(_log.drain)
# The process-wide manager is made now, on the importing thread, rather than
# by whichever thread first calls in: a fork() while another thread is half
# way through creating it would leave the child blocked on the library's
# creation lock (with the library of this checkout; the library's fork
# handlers take that lock on the fork branch). A failure here is not fatal:
# the library logged it, and every call tries again.
_native.lib.rcupool_default()
_log.drain_import()
# threadpoolctl (when installed) lists rcupool and limits it.
_threadpoolctl.register()
