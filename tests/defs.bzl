# SPDX-License-Identifier: LGPL-2.1-or-later
"""Test rule shared by rcupool's tests."""

load("@rules_cc//cc:defs.bzl", "cc_test")

def rcupool_cc_test(name, srcs, deps = [], data = [], **kwargs):
    """A GoogleTest test linked against rcupool and the test support code.

    Every test carries the TSAN suppression file (used by --config=tsan),
    which names a race inside liburcu itself, one deadlock report of
    rcupl_pool_create and the threads of a free that exit() cut short (see
    the file's comments).
    """
    cc_test(
        name = name,
        srcs = srcs,
        deps = deps + [
            "//:rcupool",
            "//tests/support",
            "//lib/deps:gtest_main",
        ],
        data = data + ["//tests:tsan.supp"],
        **kwargs
    )
