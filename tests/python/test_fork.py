# SPDX-License-Identifier: LGPL-2.1-or-later
"""fork and multiprocessing (issue 13, must-show 5): children set the count
and run both sample extensions; the parent is unaffected."""

from __future__ import annotations

import multiprocessing
import os
import subprocess

import pytest

import rcupool
from conftest import (run_python, skip_fork_under_tsan,
                      skip_fork_while_allocating_under_asan)

pytestmark = skip_fork_under_tsan

MAX_ERROR = 1e-4


def child_work(n):
    """Runs in a child: set n threads, run both extensions."""
    import rcupool_sample_parallel as par
    import rcupool_sample_xnnpack as xnn
    rcupool.set_num_threads(n)
    seen = par.run(n)
    m = xnn.Method(batch=8, inputs=32, hidden=64, outputs=32)
    try:
        return (rcupool.get_num_threads(), seen, m.pool()[2], m.run())
    finally:
        m.drop()


def test_os_fork_child_sets_count_and_runs_both_extensions_parent_unaffected(
        sample_parallel, sample_xnnpack):
    rcupool.set_num_threads(2)
    parent_gen = rcupool.stats().generation
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            got = child_work(3)
            os.write(w, repr(got).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = os.read(r, 4096)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    count, seen, method_threads, error = eval(data.decode())
    assert (count, seen, method_threads) == (3, 3, 3)
    assert error < MAX_ERROR
    # The parent: same count, same generation, still works.
    assert rcupool.get_num_threads() == 2
    assert rcupool.stats().generation == parent_gen
    assert sample_parallel.run(2) == 2
    m = sample_xnnpack.Method(batch=8, inputs=32, hidden=64, outputs=32)
    assert m.run() < MAX_ERROR
    m.drop()


def test_multiprocessing_fork_pool_children_set_counts_and_run_both_extensions(
        sample_parallel, sample_xnnpack):
    rcupool.set_num_threads(2)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        results = pool.map(child_work, [1, 3, 4, 2], chunksize=1)
    for n, (count, seen, method_threads, error) in zip([1, 3, 4, 2], results):
        assert (count, seen, method_threads) == (n, n, n)
        assert error < MAX_ERROR
    assert rcupool.get_num_threads() == 2
    assert sample_parallel.run(2) == 2


def run_or_fail_on_hang(code: str, sample_dir: str, timeout: float):
    try:
        return run_python(code, sample_dir, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"hung for {timeout} s; stdout: {e.stdout!r}")


# subprocess with user=, group= or extra_groups= forks in C (no vfork), with
# the GIL held and without Python's at-fork handlers (issue 23). While
# another thread kept the library logging, the parent hung: the reclaim
# thread waited for the GIL inside the log hook, and the library's fork
# prepare handler waited for the reclaim thread.
SUBPROCESS_AS = """
import logging, os, subprocess, sys, threading
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
import rcupool, rcupool_sample_parallel as ext

stop = False
def churn(slot):
    i = 0
    while not stop:
        i += 1
        ext.load(slot)
        rcupool.set_num_threads(1 + i % 3)
        ext.unload(slot)
threads = [threading.Thread(target=churn, args=(s,)) for s in range(2)]
for t in threads: t.start()
try:
    for k in range(20):
        out = subprocess.run(["/bin/sh", "-c", "exit 0"], KWARGS)
        assert out.returncode == 0, out
finally:
    stop = True
    for t in threads: t.join()
print("runs ok", flush=True)
"""

AS_KWARGS = {
    "user": "user=os.getuid()",
    "group": "group=os.getgid()",
    "extra_groups": "extra_groups=os.getgroups()",
}


PROBE_AS = """
import os, subprocess
subprocess.run(["/bin/sh", "-c", "exit 0"], KWARGS, check=True)
"""


@pytest.mark.parametrize("kwarg", sorted(AS_KWARGS))
def test_subprocess_run_with_user_group_extra_groups_while_pool_churns_never_hangs(
        sample_dir, kwarg):
    # A sandbox's user namespace may refuse setgroups() (Bazel's does).
    probe = run_python(PROBE_AS.replace("KWARGS", AS_KWARGS[kwarg]), sample_dir)
    if "PermissionError" in probe.stderr:
        pytest.skip(f"{kwarg}= is not permitted here")
    out = run_or_fail_on_hang(SUBPROCESS_AS.replace("KWARGS", AS_KWARGS[kwarg]),
                              sample_dir, timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "runs ok" in out.stdout


# multiprocessing with the fork start method while other threads keep
# resetting the pool (issue 23).
MP_FORK_CHURN = """
import logging, multiprocessing, sys, threading
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
import rcupool, rcupool_sample_parallel as ext

def work(n):
    rcupool.set_num_threads(n)
    return ext.run(n)

stop = False
def churn():
    i = 0
    while not stop:
        i += 1
        rcupool.set_num_threads(1 + i % 3)
t = threading.Thread(target=churn)
t.start()
try:
    ctx = multiprocessing.get_context("fork")
    for _ in range(3):
        with ctx.Pool(2) as pool:
            assert pool.map(work, [1, 2, 3, 4], chunksize=1) == [1, 2, 3, 4]
        ps = [ctx.Process(target=work, args=(n,)) for n in (2, 3)]
        for p in ps: p.start()
        for p in ps: p.join()
        assert [p.exitcode for p in ps] == [0, 0], [p.exitcode for p in ps]
finally:
    stop = True
    t.join()
print("children ok", flush=True)
"""


@skip_fork_while_allocating_under_asan
def test_multiprocessing_fork_while_pool_churns_children_exit_0_parent_never_hangs(sample_dir):
    out = run_or_fail_on_hang(MP_FORK_CHURN, sample_dir, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "children ok" in out.stdout
