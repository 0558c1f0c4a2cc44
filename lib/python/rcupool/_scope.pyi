# SPDX-License-Identifier: LGPL-2.1-or-later
# Types of the C extension rcupool._scope (lib/python/rcupool/_scope.c).
from types import TracebackType
from typing import Callable, Optional, TypeVar

_S = TypeVar("_S", bound="Scope")

MAX_DEPTH: int

class Scope:
    n: int
    def __enter__(self: _S) -> _S: ...
    def __exit__(self, exc_type: Optional[type[BaseException]],
                 exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None: ...
    @property
    def pool_threads(self) -> int: ...

def set_drain(fn: Optional[Callable[[], object]]) -> None: ...
def depth() -> int: ...
def innermost_threads() -> int: ...
