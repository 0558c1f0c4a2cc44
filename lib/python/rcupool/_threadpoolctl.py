# SPDX-License-Identifier: LGPL-2.1-or-later
"""rcupool's controller for threadpoolctl (private).

When threadpoolctl is installed, ``import rcupool`` registers a controller
for it, so that ``threadpoolctl.threadpool_info()`` lists every loaded
``librcupool.so.0`` (user_api and internal_api ``"rcupool"``, prefix
``"librcupool.so"``, its version, its process-wide manager's thread count
and the library's path) and ``threadpool_limits(n)`` (no ``user_api``, or
``user_api="rcupool"``) sets that count, and restores it on exit, through
``rcupool_reset()``. Without threadpoolctl nothing is imported or
registered.

Two registration paths, for the two interfaces threadpoolctl 3 has had:
  - threadpoolctl 3.2 and later: ``threadpoolctl.register(cls)`` with a
    ``LibController`` subclass whose class attributes name the APIs and the
    library's file name prefix.
  - threadpoolctl 3.0 and 3.1 (Debian 12 ships 3.1.0) have no registration
    call: their controllers are the entries of the module's table of
    supported libraries, found by class name in the module. The controller
    is added there, with its API names and prefix to the module's lists
    that check ``user_api`` and ``limits`` arguments. Those are private
    names of threadpoolctl: a version that has neither ``register`` nor
    that table is left alone (nothing registered, no error).

The prefix is ``librcupool.so`` so that ``librcupool_xnnpack.so.0`` (the
backend, which has no pool of its own) is not listed as a second entry.
What the limit changes is the process-wide count (``set_num_threads``),
never a ``with rcupool.threads(n):`` block's width; restoring it sets the
previous count explicitly (``reset_num_threads()`` goes back to the
default count that follows the machine).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
from typing import Any, Optional

#: The controller class registered with threadpoolctl, or None.
registered: Optional[type] = None

_USER_API = "rcupool"
_INTERNAL_API = "rcupool"
_PREFIX = "librcupool.so"
_CLASS_NAME = "RcupoolController"

# ctypes handles of the libraries found, by path: threadpoolctl's own
# attributes differ between versions, and an attribute of ours would show
# in info() under 3.2 and later.
_handles: dict[str, ctypes.CDLL] = {}


def _handle(filepath: str) -> ctypes.CDLL:
    lib = _handles.get(filepath)
    if lib is None:
        lib = ctypes.CDLL(filepath, mode=os.RTLD_NOLOAD)
        lib.rcupool_version.restype = ctypes.c_char_p
        lib.rcupool_default.restype = ctypes.c_void_p
        lib.rcupool_threads.restype = ctypes.c_size_t
        lib.rcupool_threads.argtypes = [ctypes.c_void_p]
        lib.rcupool_reset.restype = ctypes.c_int
        lib.rcupool_reset.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        _handles[filepath] = lib
    return lib


def _is_package_library(filepath: str) -> bool:
    from . import _native
    return os.path.realpath(filepath) == os.path.realpath(_native.LIB_PATH)


def _make_class(base: type) -> type:
    class RcupoolController(base):  # type: ignore[misc, valid-type]
        """threadpoolctl's view of one loaded librcupool.so.0: its
        process-wide manager's thread count."""

        user_api = _USER_API
        internal_api = _INTERNAL_API
        filename_prefixes = (_PREFIX,)
        check_symbols = ("rcupool_version", "rcupool_reset")

        def get_num_threads(self) -> Optional[int]:
            if _is_package_library(self.filepath):
                from . import get_num_threads
                return get_num_threads()
            lib = _handle(self.filepath)
            m = lib.rcupool_default()
            return int(lib.rcupool_threads(m)) if m else None

        def set_num_threads(self, num_threads: Any) -> None:
            if num_threads is None:
                return
            if _is_package_library(self.filepath):
                from . import set_num_threads
                set_num_threads(num_threads)  # checks it, raises on error
                return
            lib = _handle(self.filepath)
            m = lib.rcupool_default()
            err = lib.rcupool_reset(m, int(num_threads)) if m else -11
            if err != 0:
                raise OSError(-err, f"rcupool_reset({num_threads}) in "
                              f"{self.filepath}: {os.strerror(-err)}")

        def get_version(self) -> Optional[str]:
            v = _handle(self.filepath).rcupool_version()
            return v.decode("ascii") if v else None

    RcupoolController.__name__ = RcupoolController.__qualname__ = _CLASS_NAME
    return RcupoolController


def register_with(tp: Any) -> Optional[type]:
    """Registers a new controller class with the threadpoolctl module
    ``tp``; returns it, or None when ``tp`` offers neither interface."""
    if hasattr(tp, "register"):  # threadpoolctl >= 3.2
        cls = _make_class(tp.LibController)
        tp.register(cls)
        return cls
    table = getattr(tp, "_SUPPORTED_LIBRARIES", None)
    if not isinstance(table, dict) or not hasattr(tp, "LibController"):
        return None
    cls = _make_class(tp.LibController)  # 3.0, 3.1: found by class name
    setattr(tp, _CLASS_NAME, cls)
    table[_CLASS_NAME] = {
        "user_api": _USER_API,
        "internal_api": _INTERNAL_API,
        "filename_prefixes": (_PREFIX,),
    }
    for name, value in (("_ALL_USER_APIS", _USER_API),
                        ("_ALL_INTERNAL_APIS", _INTERNAL_API),
                        ("_ALL_PREFIXES", _PREFIX)):
        values = getattr(tp, name, None)
        if isinstance(values, list) and value not in values:
            values.append(value)
    return cls


def register() -> None:
    """Registers the controller once per process, if threadpoolctl is
    installed (imports it then; never raises)."""
    global registered
    if registered is not None:
        return
    try:
        if importlib.util.find_spec("threadpoolctl") is None:
            return
        import threadpoolctl
    except ImportError:
        return
    existing = getattr(threadpoolctl, _CLASS_NAME, None)
    if existing is not None:  # another copy of this package registered it
        registered = existing
        return
    registered = register_with(threadpoolctl)
    if registered is not None and hasattr(threadpoolctl, "register"):
        setattr(threadpoolctl, _CLASS_NAME, registered)
