# SPDX-License-Identifier: LGPL-2.1-or-later
"""The wheel (issue 13, must-show 8): tools/wheel.sh builds it offline, it
installs into a fresh venv with pip --no-index, tests 1 and 3 and the
threads() tests pass against the installed package, exactly one shared
object of the installed tree defines rcupool_default, its SONAME is
librcupool.so.0, and the package's extension module (rcupool._scope) and
the extensions built against the installed package find it through an
$ORIGIN RUNPATH."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import zipfile

import rcupool
from samples import run_cmd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"  # Debian's CPython, with pip and venv
# That interpreter's wheel tag (cp311-cp311-linux_x86_64 on Debian 12) and
# extension module suffix (.cpython-311-x86_64-linux-gnu.so).
TAG, EXT_SUFFIX = subprocess.run(
    [PYTHON, "-c", "import sys, sysconfig\n"
     "v = '%d%d' % sys.version_info[:2]\n"
     "p = sysconfig.get_platform().replace('-', '_').replace('.', '_')\n"
     "print('cp%s-cp%s-%s' % (v, v, p), sysconfig.get_config_var('EXT_SUFFIX'))"],
    capture_output=True, text=True, check=True).stdout.split()


def run(cmd, **kw):
    out = run_cmd(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{cmd}: {out.stdout[-3000:]}{out.stderr[-3000:]}"
    return out.stdout


def readelf_dynamic(path):
    return run(["readelf", "-d", path])


def test_wheel_installs_in_fresh_venv_and_runs_tests_1_and_3_with_one_definer(tmp_path):
    lib_dir = rcupool.get_library_dir()
    dist = tmp_path / "dist"
    # The build and install steps do not load the library: no sanitizer
    # runtime for them (run_pytest.sh preloads one under asan/tsan).
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_PRELOAD")}
    env["TMPDIR"] = str(tmp_path)
    run([os.path.join(ROOT, "tools", "wheel.sh"),
         "--library", os.path.join(lib_dir, "librcupool.so.0"),
         "--xnnpack-library", os.path.join(lib_dir, "librcupool_xnnpack.so.0"),
         str(dist)], env=env)
    wheels = glob.glob(str(dist / "rcupool-*.whl"))
    assert len(wheels) == 1
    assert re.fullmatch(r"rcupool-\d+\.\d+\.\d+-%s\.whl" % re.escape(TAG),
                        os.path.basename(wheels[0]))
    names = zipfile.ZipFile(wheels[0]).namelist()
    for want in ("rcupool/__init__.py", "rcupool/py.typed",
                 "rcupool/_scope.pyi",
                 "rcupool/_scope" + EXT_SUFFIX,
                 "rcupool/lib/librcupool.so.0",
                 "rcupool/lib/librcupool_xnnpack.so.0",
                 "rcupool/include/rcupool/rcupool.h",
                 "rcupool/include/rcupool/rcupool.hpp",
                 "rcupool/include/rcupool/inline.h",
                 "rcupool/include/rcupool/xnnpack.h"):
        assert want in names
    assert "rcupool/_scope.c" not in names

    venv = tmp_path / "V"
    run([PYTHON, "-m", "venv", str(venv)], env=env)
    run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-index",
         "--disable-pip-version-check", wheels[0]], env=env)
    site = glob.glob(str(venv / "lib" / "python3.*" / "site-packages"))[0]
    installed_lib = os.path.join(site, "rcupool", "lib", "librcupool.so.0")
    assert os.path.isfile(installed_lib)

    # The extension module of rcupool.threads needs the package's library
    # through RUNPATH $ORIGIN/lib; the version is the library's and the
    # wheel's.
    scope = os.path.join(site, "rcupool", "_scope" + EXT_SUFFIX)
    dyn = readelf_dynamic(scope)
    assert "Shared library: [librcupool.so.0]" in dyn
    assert "Library runpath: [$ORIGIN/lib]" in dyn
    # Importing loads the library: under asan/tsan its runtime comes first,
    # as run_pytest.sh arranges for the outer run (preload=True).
    load_env = dict(env)
    if "LD_PRELOAD" in os.environ:
        load_env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]
    versions = run([str(venv / "bin" / "python"), "-c",
                    "import importlib.metadata as m, rcupool;"
                    "print(rcupool.__version__, m.version('rcupool'))"],
                   cwd=str(tmp_path), env=load_env, preload=True).split()
    assert versions[0] == versions[1] == rcupool.__version__

    # Tests 1 and 3 from the installed package: a plain venv has no pytest,
    # so Debian's is appended to sys.path (after the venv's site-packages,
    # which therefore provides rcupool). The run starts outside the tree.
    basetemp = tmp_path / "inner"
    tests = [os.path.join(HERE, "test_xnnpack.py") +
             "::test_method_loaded_then_resets_to_16_4_and_20_alternating_outputs_match_reference",
             os.path.join(HERE, "test_shared_pool.py"),
             os.path.join(HERE, "test_threads.py")]
    inner_env = dict(env)
    if "LD_PRELOAD" in os.environ:
        inner_env["LD_PRELOAD"] = os.environ["LD_PRELOAD"]  # as run_pytest.sh
    inner_env["RCUPOOL_TEST_EXPECT_PACKAGE_UNDER"] = str(venv)
    code = ("import sys; sys.path.append('/usr/lib/python3/dist-packages');"
            "import pytest; sys.exit(pytest.main(sys.argv[1:]))")
    out = run_cmd(
        [str(venv / "bin" / "python"), "-c", code, "-q", "-p", "no:cacheprovider",
         "--basetemp", str(basetemp), "--rootdir", HERE, *tests],
        cwd=str(tmp_path), env=inner_env, preload=True, capture_output=True, text=True,
        timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert re.search(r"\b(\d+) passed\b", out.stdout)
    assert "failed" not in out.stdout and "error" not in out.stdout.lower()

    # Exactly one definer of rcupool_default in the installed tree and the
    # extensions built against it.
    exts = glob.glob(str(basetemp / "samples0" / "*.so"))
    assert len(exts) == 2
    exts.append(scope)
    check = run_cmd(
        [os.path.join(ROOT, "tools", "check_one_definer"), str(venv),
         *exts], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[0] == f"definer: {installed_lib}"
    assert "Library soname: [librcupool.so.0]" in readelf_dynamic(installed_lib)

    # Each extension needs librcupool.so.0 through a RUNPATH relative to
    # $ORIGIN that leads to the installed package's library folder.
    for ext in exts:
        dyn = readelf_dynamic(ext)
        assert "Shared library: [librcupool.so.0]" in dyn
        runpath = re.search(r"Library runpath: \[([^\]]*)\]", dyn).group(1)
        assert runpath.startswith("$ORIGIN/")
        resolved = os.path.realpath(
            runpath.replace("$ORIGIN", os.path.dirname(os.path.realpath(ext))))
        assert resolved == os.path.realpath(os.path.dirname(installed_lib))
        ldd = run(["ldd", ext], env=env)
        line = next(l for l in ldd.splitlines() if "librcupool.so.0 =>" in l)
        assert os.path.realpath(line.split("=>")[1].split()[0]) == \
            os.path.realpath(installed_lib)
