# SPDX-License-Identifier: LGPL-2.1-or-later
"""Builds the rcupool wheel from a staged tree (tools/wheel.sh stages it).

The staged tree holds rcupool/*.py, rcupool/_scope.{c,pyi}, rcupool/py.typed,
rcupool/lib/librcupool.so.0, the XNNPACK backend
rcupool/lib/librcupool_xnnpack.so.0 (DT_NEEDED librcupool.so.0; loaded only
by extensions that run XNNPACK) and the public headers in
rcupool/include/rcupool/. Most of the package loads the library with
ctypes; the extension module rcupool._scope (the C half of
rcupool.threads) is compiled here against Python.h (Debian: python3-dev)
and the staged header, and linked to the staged librcupool.so.0 with a
RUNPATH of $ORIGIN/lib, which is where the package carries it. The wheel
is tagged for the interpreter that builds it (cp311-cp311-linux_x86_64 with
Debian 12's CPython 3.11; CPython 3.11 and later).

Run from the staged tree: pip wheel (tools/wheel.sh), or
`setup.py build_ext --inplace` (tools/wheel.sh --stage).
"""

import os
import re

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))

SCOPE = Extension(
    "rcupool._scope",
    sources=["rcupool/_scope.c"],
    include_dirs=["rcupool/include"],
    library_dirs=["rcupool/lib"],
    libraries=[":librcupool.so.0"],
    extra_compile_args=["-std=gnu11", "-Wall", "-Wextra"],
    # No shell runs the link: $ORIGIN reaches the linker as written.
    extra_link_args=["-Wl,-rpath,$ORIGIN/lib", "-Wl,--enable-new-dtags"],
)

def version():
    """RCUPOOL_VERSION_{MAJOR,MINOR,PATCH} from the staged header."""
    with open(os.path.join(HERE, "rcupool", "include", "rcupool", "rcupool.h")) as f:
        text = f.read()
    parts = [re.search(r"#define RCUPOOL_VERSION_%s (\d+)" % p, text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


setup(
    name="rcupool",
    version=version(),
    description="The one CPU thread pool of a process, resizable at any time",
    license="LGPL-2.1-or-later",
    python_requires=">=3.11",
    packages=["rcupool"],
    package_data={
        "rcupool": [
            "py.typed",
            "_scope.pyi",
            "lib/librcupool.so.0",
            "lib/librcupool_xnnpack.so.0",
            "include/rcupool/*.h",
            "include/rcupool/*.hpp",
        ],
    },
    ext_modules=[SCOPE],
    zip_safe=False,
)
