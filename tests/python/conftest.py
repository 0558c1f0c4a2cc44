# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the rcupool Python tests."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import rcupool

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# The wheel test runs some of these tests in a venv with the installed
# wheel; there the package must come from that venv, not from the tree.
_expected = os.environ.get("RCUPOOL_TEST_EXPECT_PACKAGE_UNDER")
if _expected and not os.path.realpath(rcupool.__file__).startswith(
        os.path.realpath(_expected) + os.sep):
    raise ImportError(f"rcupool imported from {rcupool.__file__}, "
                      f"not from under {_expected}")

import samples  # noqa: E402


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory) -> str:
    """A folder with every sample extension built against rcupool."""
    out = str(tmp_path_factory.mktemp("samples"))
    samples.build_all(out)
    return out


@pytest.fixture(scope="session")
def sample_parallel(sample_dir):
    """The sample extension that runs a kernel through rcupool_parallelize_1d."""
    return samples.load("rcupool_sample_parallel", sample_dir)


@pytest.fixture(scope="session")
def sample_xnnpack(sample_dir):
    """The sample extension that runs an XNNPACK method through rcupool's
    shared backend."""
    return samples.load("rcupool_sample_xnnpack", sample_dir)


def set_count_alone(n: int) -> None:
    """Sets the process-wide count to n and frees every other pool (the
    pool of the count before, warm now, among them), so that a test counts
    pools from one, whatever this machine's default count is."""
    rcupool.set_num_threads(n)
    rcupool.trim()


@pytest.fixture(autouse=True)
def restore_thread_count():
    """Every test starts and ends with the same pool size and no pool left
    but the current one (none freeable, none warm)."""
    before = rcupool.get_num_threads()
    yield
    rcupool.set_num_threads(before)
    rcupool.trim()


def run_python(code: str, sample_dir: str, timeout: float = 60.0,
               env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter (the same one, with the same
    rcupool) that can import the samples; never hangs past timeout."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [sample_dir, HERE, os.path.dirname(os.path.dirname(rcupool.__file__))]
        + ([full_env["PYTHONPATH"]] if full_env.get("PYTHONPATH") else []))
    if env:
        full_env.update(env)
    return samples.run_cmd([sys.executable, "-c", textwrap.dedent(code)],
                           env=full_env, preload=True, capture_output=True,
                           text=True, timeout=timeout)


#: Set by run_pytest.sh when the library is built with ThreadSanitizer,
#: which cannot follow a fork() child that starts threads (tests/fork skips
#: its tests the same way).
UNDER_TSAN = os.environ.get("RCUPOOL_TEST_SANITIZER") == "tsan"
skip_fork_under_tsan = pytest.mark.skipif(
    UNDER_TSAN, reason="ThreadSanitizer does not support threads in a fork child")
UNDER_ASAN = os.environ.get("RCUPOOL_TEST_SANITIZER") == "asan"
# gcc 12's ASan allocator has no fork handler: a child forked while other
# threads allocate can hang inside malloc (tests/shared:fork_host_test
# pauses its threads around fork for the same reason).
skip_fork_while_allocating_under_asan = pytest.mark.skipif(
    UNDER_ASAN, reason="ASan's allocator is not fork-safe while threads allocate")
