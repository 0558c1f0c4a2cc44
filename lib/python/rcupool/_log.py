"""The bridge from rcupool's log hook to the ``logging`` module (private).

The library logs from whatever thread changes its state: the caller of a
reset, pool threads, and liburcu's reclaim thread (a thread Python did not
create). The hook installed here is a ctypes callback; ctypes takes the GIL
(``PyGILState_Ensure``) around every call, so every record ends up on the
``"rcupool"`` logger with these levels:

    RCUPOOL_LOG_DEBUG -> logging.DEBUG     RCUPOOL_LOG_WARN  -> logging.WARNING
    RCUPOOL_LOG_INFO  -> logging.INFO      RCUPOOL_LOG_ERROR -> logging.ERROR

A hook that needs the GIL can deadlock in two places, and both are handled:

PYLOG-1. Interpreter shutdown. A library thread that asks for the GIL once
       finalisation has begun is never given it (CPython ends such a
       thread), and after finalisation the callback's code is gone. An
       ``atexit`` handler (run before finalisation, while the interpreter is
       whole) removes the hook with ``rcupool_set_log(NULL)``, which returns
       only once every running call of the hook has returned. ctypes
       releases the GIL during that call, so a hook call waiting for the GIL
       gets it and finishes. No call of the hook starts afterwards.
PYLOG-2. fork. ``os.fork()`` holds the GIL across ``fork()``, and the
       library's prepare handler waits for the reclaim thread to pause: if
       that thread is inside the hook waiting for the GIL, neither moves. So
       the hook is removed in an ``os.register_at_fork(before=...)``
       handler (the same wait as PYLOG-1, GIL released) and installed again
       after the fork, in the parent and in the child. What the library
       logs during ``fork()`` itself goes to its default sink (warnings and
       errors to stderr).
PYLOG-3. A fork made by C code that bypasses Python's fork handlers leaves
       the hook installed in a child whose other threads are gone (their
       ``logging`` locks may be held for ever): the hook drops every record
       in a process other than the one that installed it.

Install and removal are serialised by ``_lock`` (never held while a record
is emitted, so the hook cannot wait for it).
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading

from . import _native

logger = logging.getLogger("rcupool")

_LEVELS = {
    0: logging.DEBUG,
    1: logging.INFO,
    2: logging.WARNING,
    3: logging.ERROR,
}

_lock = threading.Lock()
_installed = False
_pid = os.getpid()
_finalizing = False
_forks_running = 0  # os.fork() calls between their before and after handlers


def _emit(ctx, level, message) -> None:  # the ctypes callback's body
    try:
        if _finalizing or os.getpid() != _pid or sys.is_finalizing():
            return  # PYLOG-1, PYLOG-3
        py_level = _LEVELS.get(level, logging.ERROR)
        if logger.isEnabledFor(py_level):
            text = message.decode("utf-8", "replace") if message else ""
            logger.log(py_level, "%s", text)
    except BaseException:  # never raise into C
        pass


# Kept alive for the life of the process: the library holds its address.
_callback = _native.LOG_FN(_emit)


def install() -> None:
    """Routes the library's log to the ``"rcupool"`` logger."""
    global _installed, _pid
    with _lock:
        if _finalizing or _forks_running:
            return
        _pid = os.getpid()
        _native.lib.rcupool_set_log(_callback, None)
        _installed = True


def uninstall() -> None:
    """Restores the library's default sink; returns once no hook call runs."""
    global _installed
    with _lock:
        if _installed:
            _native.lib.rcupool_set_log(_native.LOG_FN(), None)
            _installed = False


def _at_exit() -> None:
    global _finalizing
    uninstall()
    _finalizing = True


def _before_fork() -> None:
    # PYLOG-2. Counted, so that a fork finishing on another thread does not
    # reinstall the hook while this one is about to fork.
    global _forks_running
    with _lock:
        _forks_running += 1
    uninstall()


def _after_fork_parent() -> None:
    global _forks_running
    with _lock:
        _forks_running -= 1
    install()


def _after_fork_child() -> None:
    global _lock, _installed, _forks_running
    _lock = threading.Lock()  # whatever other threads held is gone
    _installed = False
    _forks_running = 0
    install()


def setup() -> None:
    """Installs the hook and the exit and fork handlers (once, at import)."""
    install()
    # logging registered its own atexit handler when it was imported, before
    # this one; atexit runs handlers last-in first-out, so the hook is gone
    # before logging shuts its handlers down.
    atexit.register(_at_exit)
    os.register_at_fork(
        before=_before_fork,
        after_in_parent=_after_fork_parent,
        after_in_child=_after_fork_child,
    )
