# SPDX-License-Identifier: LGPL-2.1-or-later
"""``import rcupool`` where no thread can start: an unprivileged user with
``ulimit -u 1`` (issue 34, defect 1). The package imports, warns, and its
pool runs work on the calling thread; the refused start is in the stats."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

import rcupool
from conftest import UNDER_TSAN

CHILD = textwrap.dedent("""
    import resource
    resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
    import threading
    try:
        threading.Thread(target=lambda: None).start()
        raise SystemExit("a thread started under RLIMIT_NPROC 1")
    except RuntimeError:
        pass  # "can't start new thread": the limit holds
    import rcupool
    print("threads", rcupool.get_num_threads())
    s = rcupool.stats()
    print("stats", s.threads, s.pools_alive, s.start_failures)
    with rcupool.threads(1):
        pass
    print("done")
""")


@pytest.mark.skipif(UNDER_TSAN,
                    reason="ThreadSanitizer needs threads of its own")
def test_import_as_nobody_under_ulimit_u_1_imports_warns_and_runs_on_caller():
    if os.geteuid() != 0:
        pytest.skip("needs root to run a child as nobody with ulimit -u 1")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user named nobody")
    # nobody cannot read the build's folders: a copy of the package it can.
    top = tempfile.mkdtemp(prefix="rcupool-nproc-", dir="/tmp")
    try:
        os.chmod(top, 0o755)
        shutil.copytree(os.path.dirname(rcupool.__file__),
                        os.path.join(top, "rcupool"))
        for d, _, files in os.walk(top):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o755)
        # The first pool must want a worker whatever this machine's
        # default count is: 2 threads, which cannot start.
        env = dict(os.environ, PYTHONPATH=top, RCUPOOL_NUM_THREADS="2")
        r = subprocess.run([sys.executable, "-c", CHILD], cwd=top, env=env,
                           user=nobody.pw_uid, group=nobody.pw_gid,
                           extra_groups=[], capture_output=True, text=True,
                           timeout=60)
    except PermissionError as e:
        pytest.skip(f"cannot become nobody here (a user namespace?): {e}")
    finally:
        shutil.rmtree(top, ignore_errors=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "threads 1\n" in r.stdout, out
    assert "stats 1 1 1\n" in r.stdout, out
    assert "done\n" in r.stdout, out
    # The warning reached Python's logging (its last-resort handler).
    assert "has 1 thread" in r.stderr, out
