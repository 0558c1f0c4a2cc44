"""Builds the rcupool wheel from a staged tree (tools/wheel.sh stages it).

The staged tree holds rcupool/*.py, rcupool/py.typed,
rcupool/lib/librcupool.so.0, the XNNPACK backend
rcupool/lib/librcupool_xnnpack.so.0 (DT_NEEDED librcupool.so.0; loaded only
by extensions that run XNNPACK) and rcupool/include/rcupool/{rcupool,xnnpack}.h. The package
has no extension module of its own (it loads the library with ctypes), but
the wheel carries a native library built for this platform and CPython, so
the distribution says it has extension modules: the wheel is then tagged
cp311-cp311-linux_x86_64 instead of py3-none-any.
"""

import os
import re

from setuptools import setup
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BinaryDistribution(Distribution):
    """A distribution whose wheel is platform- and interpreter-specific."""

    def has_ext_modules(self):
        return True


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
    python_requires="==3.11.*",
    packages=["rcupool"],
    package_data={
        "rcupool": [
            "py.typed",
            "lib/librcupool.so.0",
            "lib/librcupool_xnnpack.so.0",
            "include/rcupool/*.h",
        ],
    },
    zip_safe=False,
    distclass=BinaryDistribution,
)
