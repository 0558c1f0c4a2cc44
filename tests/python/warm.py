"""Frees the process-wide manager's warm pools now, for the tests that
check which pools are alive (warm widths keep a pool that lost its last pin,
and rcupool.barrier() leaves it alive).

The package has no trim() of its own yet: this calls rcupool_trim() of the
loaded librcupool.so.0 through the package's private ctypes binding.
"""

from __future__ import annotations

import ctypes

import rcupool
from rcupool import _native


def trim() -> int:
    """rcupool_trim() on the default manager: the number of pools freed
    (0 or more) or a negative errno. Then rcupool.barrier(), which emits the
    library's log records (the frees' included) on this thread."""
    fn = _native.lib.rcupool_trim
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p]
    n = fn(_native.lib.rcupool_default())
    rcupool.barrier()
    return n
