# SPDX-License-Identifier: LGPL-2.1-or-later
"""Workspace setup for rcupool and for workspaces that depend on it.

Two macros:

  rcupool_dependencies()
      rcupool's real dependencies. By default they are all system libraries
      (liburcu, pthreadpool, cpuinfo, XNNPACK from Debian's -dev packages),
      reached through the label flags of //lib/deps. It declares one
      repository, @rcupool_deps_newest: the newest Debian pthreadpool and
      cpuinfo that tools/setup.sh --deps newest builds into the user's
      cache folder, which the flags select with --config=newest
      (docs/building.md, "The newest Debian dependencies"). Bazel reads
      that folder only for a build that names it.

  rcupool_offline_rule_stand_ins()
      Opt-in, for offline machines only. Bazel 4.2.3 downloads rules_cc,
      rules_java and remote_coverage_tools for every cc rule, JDK toolchain
      and test; with no network that fails. This declares small local
      stand-ins under those names: the rule macros forward to native.*, and
      `bazel coverage` is reported unsupported. Each is wrapped in maybe(),
      but a consumer with the real rules should simply not call it.

Usage in a consuming WORKSPACE:

    local_repository(name = "rcupool", path = "...")
    load("@rcupool//tools:workspace.bzl", "rcupool_dependencies",
         "rcupool_offline_rule_stand_ins")
    rcupool_offline_rule_stand_ins()  # only without network access
    rcupool_dependencies()
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")

def _files_repository_impl(ctx):
    for path, content in ctx.attr.files.items():
        ctx.file(path, content, executable = path.endswith(".sh"))

_files_repository = repository_rule(
    implementation = _files_repository_impl,
    attrs = {"files": attr.string_dict(mandatory = True)},
    doc = "A repository made only of the given files (path -> content).",
)

def _forwarders(rules):
    """A .bzl text defining each rule macro as a call of the native rule."""
    return "".join([
        "def {0}(**kwargs):\n    native.{0}(**kwargs)\n\n".format(r)
        for r in rules
    ])

_FORWARD_CC = _forwarders([
    "cc_binary",
    "cc_library",
    "cc_test",
    "cc_import",
    "cc_proto_library",
    "cc_toolchain",
    "cc_toolchain_suite",
    "objc_library",
])

_FORWARD_JAVA = _forwarders([
    "java_binary",
    "java_library",
    "java_import",
    "java_test",
    "java_toolchain",
    "java_runtime",
    "java_plugin",
])

_NO_COVERAGE = """#!/bin/sh
echo "bazel coverage is not supported in this offline workspace" >&2
exit 1
"""

_DEPS_NEWEST_BUILD = """# Made by rcupool's tools/workspace.bzl from {prefix}
package(default_visibility = ["//visibility:public"])

# pthreadpool with the SONAME libpthreadpool.so.0; the RUNPATH makes a
# program load it, and Debian 12's XNNPACK then finds it loaded.
cc_library(
    name = "pthreadpool",
    hdrs = ["include/pthreadpool.h", "include/fxdiv.h"],
    includes = ["include"],
    linkopts = [
        "-L{prefix}/lib",
        "-Wl,-rpath,{prefix}/lib",
        "-lpthreadpool",
        "-pthread",
    ],
)

# cpuinfo, static with hidden symbols: the program's own copy; Debian 12's
# XNNPACK keeps the system's libcpuinfo.so.0.
cc_library(
    name = "cpuinfo",
    hdrs = ["include/cpuinfo.h"],
    includes = ["include"],
    linkopts = ["-L{prefix}/lib", "-lcpuinfo"],
)
"""

def _deps_newest_impl(ctx):
    env = ctx.os.environ
    root = env.get("RCUPOOL_DEPS_NEWEST", "")
    if not root:
        cache = env.get("XDG_CACHE_HOME", "") or env.get("HOME", "") + "/.cache"
        root = cache + "/rcupool/deps-newest"
    prefix = root + "/prefix"
    if not ctx.path(prefix + "/.rcupool-deps").exists:
        fail("no newest dependencies in %s: run tools/setup.sh --deps newest" % prefix)
    ctx.symlink(prefix + "/include", "include")
    ctx.file("WORKSPACE", "workspace(name = \"rcupool_deps_newest\")\n")
    ctx.file("BUILD.bazel", _DEPS_NEWEST_BUILD.format(prefix = prefix))

_deps_newest = repository_rule(
    implementation = _deps_newest_impl,
    environ = ["RCUPOOL_DEPS_NEWEST", "XDG_CACHE_HOME", "HOME"],
    local = True,
    doc = "The prefix of tools/deps_newest.sh as cc_library targets.",
)

def rcupool_dependencies():
    """Declares @rcupool_deps_newest (read only by a build that names it)."""
    maybe(_deps_newest, name = "rcupool_deps_newest")

def rcupool_offline_rule_stand_ins():
    """Declares local stand-ins for the repositories Bazel 4.2.3 downloads."""
    maybe(
        _files_repository,
        name = "rules_cc",
        files = {
            "WORKSPACE": "workspace(name = \"rules_cc\")\n",
            "BUILD": "",
            "cc/BUILD": "",
            "cc/defs.bzl": _FORWARD_CC,
        },
    )
    maybe(
        _files_repository,
        name = "rules_java",
        files = {
            "WORKSPACE": "workspace(name = \"rules_java\")\n",
            "BUILD": "",
            "java/BUILD": "",
            "java/defs.bzl": _FORWARD_JAVA,
        },
    )
    maybe(
        _files_repository,
        name = "remote_coverage_tools",
        files = {
            "WORKSPACE": "workspace(name = \"remote_coverage_tools\")\n",
            "unsupported.sh": _NO_COVERAGE,
            "BUILD": """
package(default_visibility = ["//visibility:public"])
sh_binary(name = "coverage_report_generator", srcs = ["unsupported.sh"])
sh_binary(name = "lcov_merger", srcs = ["unsupported.sh"])
""",
        },
    )
