# SPDX-License-Identifier: LGPL-2.1-or-later
"""Test rule of the ExecuTorch stand-in's tests."""

load("@rules_cc//cc:defs.bzl", "cc_test")

def et_cc_test(name, srcs, deps = [], data = [], **kwargs):
    """A GoogleTest test of the stand-in, linked against librcupool.so.0.

    It must not link //:rcupool or //tests/support:support (the static
    library): the process would hold two copies of rcupool. It carries the
    TSAN suppression file used by --config=tsan.
    """
    cc_test(
        name = name,
        srcs = srcs + ["run_sum.h", "util.h"],
        deps = deps + [
            "//lib/compat/executorch:threadpool",
            "//lib/deps:gtest_main",
            "//tests/support:threads",
        ],
        data = data + ["//tests:tsan.supp"],
        **kwargs
    )
