# SPDX-License-Identifier: LGPL-2.1-or-later
"""The ctypes binding of librcupool.so.0 (private).

The library is the one shipped next to this file, in ``lib/``; it is loaded
by path once per process. Extensions that link ``librcupool.so.0`` (DT_NEEDED,
found through their RUNPATH) resolve to this same loaded object: the dynamic
loader matches an already loaded library by its SONAME, so a process holds
one copy of rcupool, one manager and one pool.

Every foreign function is called through ``ctypes.CDLL``, which releases the
GIL for the duration of the call: a reset may block while threads start,
and other Python threads keep running meanwhile. The library never calls
back into Python (``_log.py`` pulls its log records).
"""

from __future__ import annotations

import ctypes
import os

LIB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
LIB_PATH = os.path.join(LIB_DIR, "librcupool.so.0")

#: RCUPOOL_MAX_THREADS of <rcupool/rcupool.h> (a test checks they agree).
MAX_THREADS = 256

lib = ctypes.CDLL(LIB_PATH)


class StatsStruct(ctypes.Structure):
    """rcupool_stats_t, field for field (a test compares with the header)."""

    _fields_ = [
        ("generation", ctypes.c_uint64),
        ("threads", ctypes.c_size_t),
        ("pools_alive", ctypes.c_size_t),
        ("pools_kept", ctypes.c_size_t),
        ("pins", ctypes.c_size_t),
        ("resets", ctypes.c_uint64),
        ("reuses", ctypes.c_uint64),
        ("pools_created", ctypes.c_uint64),
        ("pools_freed", ctypes.c_uint64),
        ("frees_pending", ctypes.c_size_t),
        ("threads_alive", ctypes.c_size_t),
        ("pools_never_current", ctypes.c_size_t),
        ("log_dropped", ctypes.c_uint64),
        ("pools_idle", ctypes.c_size_t),
        ("threads_idle", ctypes.c_size_t),
        ("start_failures", ctypes.c_uint64),
        ("follows", ctypes.c_uint64),
        ("bind_failures", ctypes.c_size_t),
    ]


class PlacementStruct(ctypes.Structure):
    """rcupool_placement_t (rcupool/placement.h)."""

    _fields_ = [
        ("policy", ctypes.c_int),
        ("strict", ctypes.c_bool),
        ("cpus", ctypes.c_uint64 * 16),
    ]


class PinStruct(ctypes.Structure):
    """rcupool_pin_t: caller-owned storage whose fields are private to the
    library, so Python holds it as opaque words (a test compares its size
    with the C struct's)."""

    _fields_ = [("_private", ctypes.c_uint64 * 5)]


#: RCUPOOL_SCOPE_MAX_DEPTH: deeper nesting aborts the process.
SCOPE_MAX_DEPTH = 16


#: RCUPOOL_LOG_MESSAGE_MAX: a record's message buffer, NUL included.
LOG_MESSAGE_MAX = 256


class LogRecordStruct(ctypes.Structure):
    """rcupool_log_record_t (a test compares its size with the C struct's)."""

    _fields_ = [
        ("level", ctypes.c_int),  # rcupool_log_level_t
        ("message", ctypes.c_char * LOG_MESSAGE_MAX),
    ]


def _proto(name: str, restype, *argtypes) -> None:
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_proto("rcupool_version", ctypes.c_char_p)
_proto("rcupool_version_number", ctypes.c_int)
_proto("rcupool_default", ctypes.c_void_p)
_proto("rcupool_reset", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)
_proto("rcupool_threads", ctypes.c_size_t, ctypes.c_void_p)
_proto("rcupool_generation", ctypes.c_uint64, ctypes.c_void_p)
_proto("rcupool_barrier", ctypes.c_int, ctypes.c_void_p)
_proto("rcupool_get_stats", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(StatsStruct))
_proto("rcupool_log_hold", None)
_proto("rcupool_log_take", ctypes.c_int, ctypes.POINTER(LogRecordStruct))
_proto("rcupool_set_log_level", None, ctypes.c_int)
_proto("rcupool_pin_sized", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
       ctypes.POINTER(PinStruct))
_proto("rcupool_unpin", None, ctypes.POINTER(PinStruct))
_proto("rcupool_pin_threads", ctypes.c_size_t, ctypes.POINTER(PinStruct))
_proto("rcupool_scope_enter", None, ctypes.POINTER(PinStruct))
_proto("rcupool_scope_exit", None)
# rcupool_idle_t is an enum: RCUPOOL_IDLE_SPIN 1, RCUPOOL_IDLE_YIELD 2.
_proto("rcupool_set_idle", ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
_proto("rcupool_idle", ctypes.c_int, ctypes.c_void_p)
IDLE_POLICIES = {"spin": 1, "yield": 2}
_proto("rcupool_set_warm", ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32,
       ctypes.c_uint32)
_proto("rcupool_trim", ctypes.c_int, ctypes.c_void_p)

#: RCUPOOL_WARM_MS_DEFAULT, RCUPOOL_WARM_POOLS_DEFAULT, RCUPOOL_WARM_NONE and
#: RCUPOOL_WARM_MS_MAX of <rcupool/warm.h> (a test checks they agree).
WARM_MS_DEFAULT = 1000
WARM_POOLS_DEFAULT = 8
WARM_NONE = 2**32 - 1
WARM_MS_MAX = 3600000
