# SPDX-License-Identifier: LGPL-2.1-or-later
"""Workspace setup for rcupool and for workspaces that depend on it.

Two macros:

  rcupool_dependencies()
      rcupool's real dependencies. Today they are all system libraries
      (liburcu, pthreadpool, cpuinfo, XNNPACK from Debian's -dev packages),
      reached through the label flags of //lib/deps, so there is no
      repository to declare; a consumer calls it anyway so that a later
      release can add one without breaking its WORKSPACE.

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

def rcupool_dependencies():
    """Declares rcupool's real dependencies (none beyond system libraries)."""
    pass

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
