# SPDX-License-Identifier: LGPL-2.1-or-later
"""Builds the sample extension modules the way an extension author would.

Each sample is compiled with the system C compiler against the *imported*
rcupool package: headers from rcupool.get_include(), DT_NEEDED
librcupool.so.0 from rcupool.get_library_dir(), and a RUNPATH relative to
$ORIGIN that leads from the extension's folder to that library folder.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
from types import ModuleType

import rcupool

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_cmd(cmd: list[str], cwd: str | None = None, preload: bool = False,
            env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """subprocess.run through posix_spawn (CLONE_VFORK, then exec), never
    fork(): the fork handlers of the loaded librcupool then do not run in
    the child. ThreadSanitizer ends any child of a multi-threaded fork()
    that starts a thread, and the library's child handler starts the new
    pool's. subprocess uses posix_spawn only with close_fds=False, an
    executable path with a folder, and no cwd (`env --chdir` does that).
    A sanitizer runtime preloaded by run_pytest.sh is passed on only with
    preload=True (to Python interpreters that load the library)."""
    env = dict(os.environ if env is None else env)
    if not preload:
        env.pop("LD_PRELOAD", None)
    cmd = list(cmd)
    if cwd is not None:
        cmd = ["/usr/bin/env", "--chdir=" + cwd] + cmd
    if os.sep not in cmd[0]:
        cmd[0] = shutil.which(cmd[0]) or cmd[0]
    return subprocess.run(cmd, close_fds=False, env=env, **kw)


def runpath_to_library(ext_dir: str) -> str:
    """$ORIGIN-relative RUNPATH from ext_dir to the package's library."""
    rel = os.path.relpath(rcupool.get_library_dir(), os.path.realpath(ext_dir))
    return "$ORIGIN/" + rel


def build(name: str, sources: list[str], out_dir: str,
          cflags: list[str] = (), libs: list[str] = ()) -> str:
    """Compiles sources into out_dir/<name><EXT_SUFFIX>; returns its path."""
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, name + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = [
        os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O2", "-std=gnu11",
        "-Wall", "-Werror",
        "-I", sysconfig.get_paths()["include"],
        "-I", rcupool.get_include(),
        *cflags,
        *[os.path.join(ROOT, s) for s in sources],
        "-o", out,
        "-L", rcupool.get_library_dir(), "-l:librcupool.so.0",
        "-Wl,-rpath," + runpath_to_library(out_dir),
        "-Wl,--enable-new-dtags",
        *libs,
        "-pthread",
    ]
    run_cmd(cmd, check=True)
    return out


def load(name: str, out_dir: str) -> ModuleType:
    """Imports a built sample from out_dir."""
    if out_dir not in sys.path:
        sys.path.insert(0, out_dir)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def build_all(out_dir: str) -> dict[str, str]:
    """Builds every sample; returns {module name: path}."""
    return {
        "rcupool_sample_parallel":
            build("rcupool_sample_parallel", ["tests/python/sample_parallel.c"],
                  out_dir),
        # The tests' sample model is compiled in; the backend is the
        # package's librcupool_xnnpack.so.0, libXNNPACK the system's.
        "rcupool_sample_xnnpack":
            build("rcupool_sample_xnnpack",
                  ["tests/python/sample_xnnpack.c", "tools/model/mlp.c"],
                  out_dir, cflags=["-I", ROOT],
                  libs=["-l:librcupool_xnnpack.so.0", "-lXNNPACK", "-lm"]),
    }
