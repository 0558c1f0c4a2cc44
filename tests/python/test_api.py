# SPDX-License-Identifier: LGPL-2.1-or-later
"""The package's API: counts, stats, barrier, paths, and bad input (issue 13,
must-show 6)."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re

import pytest

import rcupool
from rcupool import _native

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(ROOT, "include", "rcupool", "rcupool.h")


def header_text() -> str:
    """rcupool.h and the headers of the same folder it includes (the API
    by concept: manager.h, stats.h, ...), one after the other."""
    with open(HEADER) as f:
        text = f.read()
    for name in re.findall(r"^#include <rcupool/(\w+\.h)>", text, re.M):
        with open(os.path.join(os.path.dirname(HEADER), name)) as f:
            text += f.read()
    return text


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


def test_barrier_after_reset_leaves_the_current_pool_and_the_warm_width():
    rcupool.set_num_threads(2)
    rcupool.trim()
    rcupool.set_num_threads(3)
    rcupool.barrier()
    s = rcupool.stats()
    assert (s.pools_alive, s.pools_idle) == (2, 1)
    assert s.threads_alive == 5
    assert s.frees_pending == 0
    assert rcupool.trim() == 1
    s = rcupool.stats()
    assert (s.pools_alive, s.threads_alive, s.pools_idle) == (1, 3, 0)


def test_max_threads_matches_header():
    m = re.search(r"#define RCUPOOL_MAX_THREADS (\d+)", header_text())
    assert rcupool.MAX_THREADS == int(m.group(1))


def test_get_include_holds_the_header_of_this_checkout():
    path = os.path.join(rcupool.get_include(), "rcupool", "rcupool.h")
    with open(path) as got, open(HEADER) as want:
        assert got.read() == want.read()


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
        "int main(void) { printf(\"%zu %zu %zu %d\\n\", sizeof(rcupool_pin_t),"
        " sizeof(rcupool_stats_t), sizeof(rcupool_log_record_t),"
        " RCUPOOL_LOG_MESSAGE_MAX); return 0; }\n")
    exe = tmp_path / "sizes"
    run_cmd(["cc", "-I", rcupool.get_include(), str(src), "-o", str(exe)],
            check=True)
    out = run_cmd([str(exe)], check=True, capture_output=True, text=True)
    pin_size, stats_size, record_size, message_max = map(int, out.stdout.split())
    assert ctypes.sizeof(_native.PinStruct) == pin_size
    assert ctypes.sizeof(_native.StatsStruct) == stats_size
    assert ctypes.sizeof(_native.LogRecordStruct) == record_size
    assert _native.LOG_MESSAGE_MAX == message_max


def test_get_include_holds_every_public_header_of_this_checkout():
    # rcupool.hpp (C++ extensions) and inline.h (the inlined read side)
    # besides rcupool.h and xnnpack.h (issue 24).
    names = sorted(os.listdir(os.path.join(ROOT, "include", "rcupool")))
    assert {"rcupool.h", "rcupool.hpp", "inline.h", "xnnpack.h"} <= set(names)
    for name in names:
        with open(os.path.join(ROOT, "include", "rcupool", name)) as want, \
                open(os.path.join(rcupool.get_include(), "rcupool", name)) as got:
            assert got.read() == want.read(), name


CPP_EXTENSION = r"""
#include <rcupool/rcupool.hpp>

#include <atomic>
#include <cstdio>

int main() {
  rcupool::Manager m = rcupool::Manager::process();
  if (!m) return 1;
  std::atomic<std::size_t> sum{0};
  int err = rcupool::parallelize_1d(m, [&](std::size_t i) { sum += i; }, 100);
  rcupool::Pin pin;
  int perr = rcupool::Pin::current(m, pin);
  std::printf("%d %d %zu %zu\n", err, perr, sum.load(), pin.threads());
  return 0;
}
"""


def test_cpp_file_including_rcupool_hpp_builds_against_get_include(tmp_path):
    from samples import run_cmd, runpath_to_library
    src = tmp_path / "ext.cc"
    src.write_text(CPP_EXTENSION)
    exe = tmp_path / "ext"
    run_cmd(["c++", "-std=c++17", "-Wall", "-Werror", "-fno-exceptions",
             "-fno-rtti", "-I", rcupool.get_include(), str(src), "-o", str(exe),
             "-L", rcupool.get_library_dir(), "-l:librcupool.so.0",
             "-Wl,-rpath," + runpath_to_library(str(tmp_path)),
             "-Wl,--enable-new-dtags", "-lpthreadpool", "-pthread"], check=True)
    out = run_cmd([str(exe)], preload=True, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    err, perr, total, threads = map(int, out.stdout.split())
    assert (err, perr, total) == (0, 0, sum(range(100)))
    assert threads >= 1


INLINE_READER = r"""
#include <rcupool/inline.h>
#include <stdio.h>

int main(void) {
  rcupool_t *m = rcupool_default();
  rcupool_read_lock_inline();
  pthreadpool_t tp = rcupool_current_inline(m);
  size_t n = pthreadpool_get_threads_count(tp);
  rcupool_read_unlock_inline();
  printf("%zu %zu\n", n, rcupool_threads(m));
  return 0;
}
"""


def test_c_file_including_inline_h_builds_against_get_include_and_links_urcu_bp(tmp_path):
    from samples import run_cmd, runpath_to_library
    src = tmp_path / "reader.c"
    src.write_text(INLINE_READER)
    exe = tmp_path / "reader"
    run_cmd(["cc", "-std=gnu11", "-Wall", "-Werror", "-I", rcupool.get_include(),
             str(src), "-o", str(exe),
             "-L", rcupool.get_library_dir(), "-l:librcupool.so.0",
             "-Wl,-rpath," + runpath_to_library(str(tmp_path)),
             "-Wl,--enable-new-dtags", "-lurcu-bp", "-lurcu-common",
             "-lpthreadpool", "-pthread"], check=True)
    out = run_cmd([str(exe)], preload=True, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    inline_threads, threads = map(int, out.stdout.split())
    assert inline_threads == threads >= 1


def c_reset_to_default() -> int:
    """rcupool_reset(m, 0) through ctypes: the C way back to the default
    count; returns the count it set."""
    m = _native.lib.rcupool_default()
    assert _native.lib.rcupool_reset(m, 0) == 0
    return int(_native.lib.rcupool_threads(m))


def test_reset_num_threads_sets_the_count_rcupool_reset_0_sets():
    want = c_reset_to_default()
    other = 1 if want != 1 else 2
    rcupool.set_num_threads(other)
    assert rcupool.reset_num_threads() == want
    assert rcupool.get_num_threads() == want
    assert rcupool.stats().threads == want


RESET_WITH_ENV = """
import json, rcupool
from rcupool import _native
rcupool.set_num_threads(1)
got = rcupool.reset_num_threads()
now = rcupool.get_num_threads()
rcupool.set_num_threads(1)
m = _native.lib.rcupool_default()
err = _native.lib.rcupool_reset(m, 0)
print(json.dumps([got, now, err, _native.lib.rcupool_threads(m)]))
"""


def test_reset_num_threads_reads_rcupool_num_threads_as_rcupool_reset_0_does(sample_dir):
    from conftest import run_python
    out = run_python(RESET_WITH_ENV, sample_dir, env={"RCUPOOL_NUM_THREADS": "3"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [3, 3, 0, 3]


def test_set_num_threads_0_stays_a_value_error_pointing_at_reset_num_threads():
    with pytest.raises(ValueError, match="reset_num_threads"):
        rcupool.set_num_threads(0)


def header_version() -> str:
    text = header_text()
    return ".".join(re.search(rf"#define RCUPOOL_VERSION_{p} (\d+)", text).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))


def test_version_is_the_loaded_librarys_and_the_headers():
    import ctypes
    assert rcupool.__version__ == header_version()
    lib = ctypes.CDLL(os.path.join(rcupool.get_library_dir(), "librcupool.so.0"))
    lib.rcupool_version.restype = ctypes.c_char_p
    assert lib.rcupool_version().decode() == rcupool.__version__
    major, minor, patch = map(int, rcupool.__version__.split("."))
    assert lib.rcupool_version_number() == major * 10000 + minor * 100 + patch


def header_idle_values() -> dict:
    text = header_text()
    return {name.lower(): int(re.search(rf"RCUPOOL_IDLE_{name} = (\d+)", text).group(1))
            for name in ("SPIN", "YIELD")}


def test_idle_policies_match_the_headers_enum():
    assert _native.IDLE_POLICIES == header_idle_values()


def test_get_idle_is_yield_by_default_and_set_idle_changes_it():
    assert rcupool.get_idle() == "yield"
    try:
        rcupool.set_idle("spin")
        assert rcupool.get_idle() == "spin"
    finally:
        rcupool.set_idle("yield")
    assert rcupool.get_idle() == "yield"


@pytest.mark.parametrize("bad, exc", [("sleep", ValueError), ("", ValueError),
                                      ("SPIN", ValueError), (1, TypeError),
                                      (None, TypeError)])
def test_set_idle_rejects_anything_but_spin_or_yield_and_keeps_the_policy(bad, exc):
    before = rcupool.get_idle()
    with pytest.raises(exc):
        rcupool.set_idle(bad)
    assert rcupool.get_idle() == before
