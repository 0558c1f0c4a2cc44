"""The package's API: counts, stats, barrier, paths, and bad input (issue 13,
must-show 6)."""

from __future__ import annotations

import dataclasses
import errno
import os
import re

import pytest

import rcupool
from rcupool import _native

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(ROOT, "include", "rcupool", "rcupool.h")


def header_text() -> str:
    with open(HEADER) as f:
        return f.read()


def test_set_num_threads_then_get_num_threads_returns_it():
    rcupool.set_num_threads(3)
    assert rcupool.get_num_threads() == 3
    rcupool.set_num_threads(1)
    assert rcupool.get_num_threads() == 1


def test_set_num_threads_new_size_adds_one_generation_and_counts_reset():
    rcupool.set_num_threads(2)
    before = rcupool.stats()
    rcupool.set_num_threads(5)
    after = rcupool.stats()
    assert after.generation == before.generation + 1
    assert after.resets == before.resets + 1
    assert after.threads == 5


def test_stats_is_frozen_dataclass_with_every_field_of_c_struct():
    body = re.search(r"typedef struct rcupool_stats \{(.*?)\} rcupool_stats_t;",
                     header_text(), re.S).group(1)
    c_fields = re.findall(r"^\s*\w+\s+(\w+);", body, re.M)
    s = rcupool.stats()
    assert dataclasses.is_dataclass(s)
    assert [f.name for f in dataclasses.fields(s)] == c_fields
    assert [n for n, _ in _native.StatsStruct._fields_] == c_fields
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.threads = 7  # type: ignore[misc]
    assert all(isinstance(getattr(s, n), int) for n in c_fields)


def test_barrier_after_reset_leaves_only_the_current_pool():
    rcupool.set_num_threads(2)
    rcupool.set_num_threads(3)
    rcupool.barrier()
    s = rcupool.stats()
    assert s.pools_alive == 1
    assert s.threads_alive == 3
    assert s.frees_pending == 0


def test_max_threads_matches_header():
    m = re.search(r"#define RCUPOOL_MAX_THREADS (\d+)", header_text())
    assert rcupool.MAX_THREADS == int(m.group(1))


def test_get_include_holds_the_header_of_this_checkout():
    path = os.path.join(rcupool.get_include(), "rcupool", "rcupool.h")
    with open(path) as f:
        assert f.read() == header_text()


def test_get_library_dir_holds_librcupool_so_0_that_is_loaded():
    path = os.path.join(rcupool.get_library_dir(), "librcupool.so.0")
    assert os.path.isfile(path)
    with open("/proc/self/maps") as f:
        maps = f.read()
    assert os.path.realpath(path) in maps


def test_package_is_typed():
    assert os.path.isfile(os.path.join(os.path.dirname(rcupool.__file__), "py.typed"))


def test_every_public_function_has_docstring_and_type_hints():
    for name in rcupool.__all__:
        obj = getattr(rcupool, name)
        if callable(obj) and not isinstance(obj, type):
            assert obj.__doc__, name
            assert "return" in obj.__annotations__, name


BAD = [
    (0, ValueError),
    (-1, ValueError),
    (10**6, ValueError),
    (rcupool.MAX_THREADS + 1, ValueError),
    (2.5, ValueError),
    (4.0, ValueError),
    (True, ValueError),
    (False, ValueError),
    ("4", TypeError),
    (None, TypeError),
    ([4], TypeError),
]


@pytest.mark.parametrize("value,exc", BAD, ids=[repr(v) for v, _ in BAD])
def test_set_num_threads_bad_input_raises_and_changes_nothing(value, exc):
    rcupool.set_num_threads(3)
    before = rcupool.stats()
    with pytest.raises(exc):
        rcupool.set_num_threads(value)
    assert rcupool.get_num_threads() == 3
    after = rcupool.stats()
    assert (after.generation, after.resets) == (before.generation, before.resets)


def test_set_num_threads_accepts_objects_with_index():
    class Count:
        def __index__(self):
            return 2

    rcupool.set_num_threads(Count())
    assert rcupool.get_num_threads() == 2


def test_library_error_becomes_oserror_with_errno():
    with pytest.raises(OSError) as info:
        rcupool._raise_errno(-errno.EAGAIN, "rcupool_reset(4)")
    assert info.value.errno == errno.EAGAIN


def test_ctypes_structs_have_the_c_sizes(tmp_path):
    import ctypes

    from samples import run_cmd
    src = tmp_path / "sizes.c"
    src.write_text(
        "#include <stdio.h>\n#include <rcupool/rcupool.h>\n"
        "int main(void) { printf(\"%zu %zu\\n\", sizeof(rcupool_pin_t),"
        " sizeof(rcupool_stats_t)); return 0; }\n")
    exe = tmp_path / "sizes"
    run_cmd(["cc", "-I", rcupool.get_include(), str(src), "-o", str(exe)],
            check=True)
    out = run_cmd([str(exe)], check=True, capture_output=True, text=True)
    pin_size, stats_size = map(int, out.stdout.split())
    assert ctypes.sizeof(_native.PinStruct) == pin_size
    assert ctypes.sizeof(_native.StatsStruct) == stats_size
