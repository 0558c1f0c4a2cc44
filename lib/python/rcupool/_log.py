# SPDX-License-Identifier: LGPL-2.1-or-later
"""The library's log on the ``"rcupool"`` logger of :mod:`logging` (private).

The package pulls the records; the library never calls Python. At import,
``rcupool_log_hold()`` puts the library's log in pull mode: each record
(from any thread: callers, pool threads, liburcu's reclaim thread) waits
in the library's bounded queue. :func:`drain` takes every queued record
(``rcupool_log_take()``) and emits it on the ``"rcupool"`` logger, on the
calling thread, with these levels:

    RCUPOOL_LOG_DEBUG -> logging.DEBUG     RCUPOOL_LOG_WARN  -> logging.WARNING
    RCUPOOL_LOG_INFO  -> logging.INFO      RCUPOOL_LOG_ERROR -> logging.ERROR

Every public call of the package ends with a drain (``__init__.py``; for
``threads`` blocks, ``_scope.c``), so a record made on another thread
reaches the logger at the next call of the package on any thread. The
library's level follows the logger's effective level, read again at every
:func:`sync_level` and :func:`drain`: records below it are not queued at
all. A record the library finds no room for is counted
(``Stats.log_dropped``) and announced by a warning at the next drain.

Why no hook (what PYLOG 1..3 were). The package used to install a ctypes
callback as the library's log hook. A hook that runs Python on the
library's threads needs the GIL there, and that made three hazards,
each handled by a handler of its own: interpreter exit (an ``atexit``
handler removed the hook), ``os.fork()`` (the hook was removed around
every fork, because the library's fork handler waited for a reclaim thread
that waited for the GIL), and forks made by C code (the hook dropped
records in a child). Two hazards had no fix: a fork made in C with the
GIL held and without Python's fork handlers (``subprocess`` with
``user=``, ``group=`` or ``extra_groups=``) hung on the same wait, and a
``KeyboardInterrupt`` raised inside the callback was printed as
"Exception ignored on calling ctypes callback function" and lost to the
caller. Pulling has none of these, and needs no handler at exit or for
the library's fork handling: the library never waits for Python,
nothing runs on its threads, and a drain is ordinary Python code on the
caller's thread, so an exception raised in it (an interrupt, a handler's
error that logging lets through) reaches the caller of the package.

One fork handler remains, for a hazard of CPython rather than of the
library. A thread inside a write to ``sys.stderr`` holds the stream's
buffer lock, and ``os.fork()`` does not reset that lock in the child: a
child that writes to the stream waits for ever for a thread that does not
exist there (cpython#72568). While the library called the hook, the
package's fork handler happened to keep the hook's writes out of every
fork; with records emitted by the threads that call the package, a thread
resetting the pool while another forks left children hanging in their
first log line (tests/python/test_log.py, the fork test, hung in Bazel's
sandbox). So a drain emits while holding ``_emitting``, and ``os.fork()``
takes it first (``os.register_at_fork``): no fork happens while a record
of this package is being written. It is an RLock, so a handler that forks
(on the draining thread) takes it again; drains on several threads take
turns. Forks made in C without Python's fork handlers are not held up:
their children run no Python (``subprocess`` execs at once). A logging
handler of the ``"rcupool"`` logger must therefore not wait for a thread
that is calling the package.

The import's own records are not lost to a logger configured later. The
process-wide manager is created at ``import rcupool``, usually before the
application calls ``logging.basicConfig()``; its info records (the
default size and why, the operator's environment) would then find the
logger at WARNING and be dropped. So :func:`setup` lets the library queue
records from INFO up until the import's :func:`drain_import`, which keeps
the ones the logger does not take yet (at most ``_EARLY_MAX``); every later
drain first emits those its logger now takes, each once.

An interrupt during a drain ends it: a record taken but not yet emitted
then is lost, the rest stay queued for the next drain. Another library
copy or an extension that calls ``rcupool_set_log()`` ends pull mode for
the process (the library then delivers to that hook).
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading

from . import _native, _scope

logger = logging.getLogger("rcupool")

_LEVELS = {
    0: logging.DEBUG,
    1: logging.INFO,
    2: logging.WARNING,
    3: logging.ERROR,
}

#: At most this many records a drain: other threads may keep logging while
#: it runs, and a drain must end. (The library's queue holds 256.)
_DRAIN_MAX = 512

_c_level = -1  # the level last given to rcupool_set_log_level

#: The import's records that the logger did not take yet, (level, message),
#: oldest first; emitted by the first drain whose logger takes them.
_early: list[tuple[int, str]] = []
_EARLY_MAX = 32

#: Held while a drain emits; os.fork() takes it first (see above). The
#: handlers are the lock's own C methods: no Python frame, so no interrupt
#: can land between a handler's start and its acquire or release.
_emitting = threading.RLock()
os.register_at_fork(before=_emitting.acquire,
                    after_in_parent=_emitting.release,
                    after_in_child=_emitting.release)


def _c_level_for(level: int) -> int:
    """The library level whose records the logger at ``level`` emits."""
    if level <= logging.DEBUG:
        return 0
    if level <= logging.INFO:
        return 1
    if level <= logging.WARNING:
        return 2
    return 3


def sync_level() -> None:
    """Gives the library the logger's effective level, if it changed.

    Two threads racing here may leave an older level for a moment; the
    next call sets it right.
    """
    global _c_level
    want = _c_level_for(logger.getEffectiveLevel())
    if want != _c_level:
        _native.lib.rcupool_set_log_level(want)
        _c_level = want


def drain() -> None:
    """Emits the queued records on the ``"rcupool"`` logger, oldest first,
    on the calling thread. Any thread; never blocks for long (unless a
    logging handler does)."""
    sync_level()
    _drain(keep_early=False)


def _emit_early() -> None:
    """Emits the import's kept records that the logger takes now."""
    global _early
    if not _early or not any(logger.isEnabledFor(lv) for lv, _ in _early):
        return
    ready = [(lv, msg) for lv, msg in _early if logger.isEnabledFor(lv)]
    _early = [(lv, msg) for lv, msg in _early if not logger.isEnabledFor(lv)]
    for level, message in ready:
        logger.log(level, "%s", message)


def _drain(keep_early: bool) -> None:
    # The lock is taken and given back in one C call: `with _emitting:`
    # (the lock's C __enter__/__exit__) left it held for ever when an
    # interrupt landed right after __enter__ on CPython 3.14 (gh-148874),
    # and every other thread's drain then waited for it.
    _scope.call_locked(_emitting, lambda: _drain_locked(keep_early))


def _drain_locked(keep_early: bool) -> None:
    record = _native.LogRecordStruct()
    out = ctypes.byref(record)
    take = _native.lib.rcupool_log_take
    _emit_early()
    for _ in range(_DRAIN_MAX):
        if take(out) != 1:
            return
        level = _LEVELS.get(record.level, logging.ERROR)
        message = record.message.decode("utf-8", "replace")
        if logger.isEnabledFor(level):
            logger.log(level, "%s", message)
        elif keep_early and len(_early) < _EARLY_MAX:
            _early.append((level, message))


def drain_import() -> None:
    """The import's drain: as :func:`drain`, but the records the logger
    does not take yet are kept for a later drain (see above). Then the
    library's level follows the logger again."""
    try:
        _drain(keep_early=True)
    finally:
        sync_level()


def setup() -> None:
    """Puts the library's log in pull mode (at import; again on reload)."""
    global _c_level
    # Until drain_import(): records from INFO up (or the logger's level, if
    # lower), for a logger configured after the import.
    want = min(_c_level_for(logger.getEffectiveLevel()), 1)
    _native.lib.rcupool_set_log_level(want)
    _c_level = want
    _native.lib.rcupool_log_hold()
