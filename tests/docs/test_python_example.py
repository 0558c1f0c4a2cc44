# SPDX-License-Identifier: LGPL-2.1-or-later
"""examples/python/threads.py (docs/python.md's block) runs to its end
against the package laid out from this build (run_pytest.sh)."""
import subprocess
import sys


def test_threads_example_runs():
    out = subprocess.run([sys.executable, "examples/python/threads.py"],
                         capture_output=True, text=True, timeout=60)
    print(out.stdout, out.stderr)
    assert out.returncode == 0
    assert "version" in out.stdout
