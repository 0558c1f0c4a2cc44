# SPDX-License-Identifier: LGPL-2.1-or-later
"""rcupool in threadpoolctl (Debian's python3-threadpoolctl): listed by
threadpool_info() and reached by threadpool_limits() (issue 34)."""

from __future__ import annotations

import os
import sys
import types

import pytest

import rcupool
from rcupool import _native, _threadpoolctl

threadpoolctl = pytest.importorskip("threadpoolctl")


def _rcupool_entries(info):
    return [e for e in info if e.get("internal_api") == "rcupool"]


def test_threadpool_info_lists_rcupool_with_version_count_and_path():
    rcupool.set_num_threads(3)
    entries = _rcupool_entries(threadpoolctl.threadpool_info())
    assert len(entries) == 1  # librcupool_xnnpack.so.0 is not a second one
    e = entries[0]
    assert e["user_api"] == "rcupool"
    assert e["prefix"] == "librcupool.so"
    assert e["version"] == rcupool.__version__
    assert e["num_threads"] == 3
    assert os.path.realpath(e["filepath"]) == os.path.realpath(_native.LIB_PATH)


def test_threadpool_limits_sets_the_count_and_restores_it():
    rcupool.set_num_threads(3)
    with threadpoolctl.threadpool_limits(1):
        assert rcupool.get_num_threads() == 1
        e = _rcupool_entries(threadpoolctl.threadpool_info())[0]
        assert e["num_threads"] == 1
    assert rcupool.get_num_threads() == 3
    with threadpoolctl.threadpool_limits(limits=2, user_api="rcupool"):
        assert rcupool.get_num_threads() == 2
    assert rcupool.get_num_threads() == 3
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        assert rcupool.get_num_threads() == 3  # not a BLAS
    assert rcupool.stats().pins == 0


def test_threadpool_limits_as_decorator_and_controller_select():
    rcupool.set_num_threads(2)

    @threadpoolctl.threadpool_limits.wrap(limits=1)  # 3.1: wrap() decorates
    def f():
        return rcupool.get_num_threads()

    assert f() == 1
    assert rcupool.get_num_threads() == 2
    ctl = threadpoolctl.ThreadpoolController().select(internal_api="rcupool")
    assert len(ctl.lib_controllers) == 1
    with ctl.limit(limits=3):
        assert rcupool.get_num_threads() == 3
    assert rcupool.get_num_threads() == 2


def test_registration_is_once_per_process(monkeypatch):
    before = len(_rcupool_entries(threadpoolctl.threadpool_info()))
    _threadpoolctl.register()  # again: a reload of the package does this
    assert len(_rcupool_entries(threadpoolctl.threadpool_info())) == before == 1


def test_register_api_of_threadpoolctl_3_2_is_used_when_present():
    """threadpoolctl 3.2 and later have threadpoolctl.register(): the
    controller class goes there, with the class attributes it reads."""
    got = []
    fake = types.SimpleNamespace(LibController=object,
                                 register=lambda cls: got.append(cls))
    cls = _threadpoolctl.register_with(fake)
    assert got == [cls]
    assert (cls.user_api, cls.internal_api) == ("rcupool", "rcupool")
    assert cls.filename_prefixes == ("librcupool.so",)


def test_not_registered_without_threadpoolctl(sample_dir):
    from conftest import run_python
    # A path entry that hides every installed threadpoolctl.
    r = run_python("""
        import sys
        class Hide:
            def find_spec(self, name, path=None, target=None):
                if name == "threadpoolctl":
                    raise ImportError("hidden")
        sys.meta_path.insert(0, Hide())
        import rcupool
        from rcupool import _threadpoolctl
        assert _threadpoolctl.registered is None, _threadpoolctl.registered
        assert "threadpoolctl" not in sys.modules
        print("ok")
    """, sample_dir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
