"""Workspace setup for rcupool and for workspaces that depend on it.

Bazel 4.2.3 fetches rules_cc, rules_java and remote_coverage_tools from the
network for every cc rule, JDK toolchain and test. On an offline machine that
fails, so this file declares small local stand-ins under the same names. Each
is wrapped in maybe(): a workspace that already declares the real repository
keeps it.

Usage in a consuming WORKSPACE:

    local_repository(name = "rcupool", path = "...")
    load("@rcupool//tools:workspace.bzl", "rcupool_dependencies")
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

_FORWARD_CC = """
def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_proto_library(**kwargs):
    native.cc_proto_library(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)

def objc_library(**kwargs):
    native.objc_library(**kwargs)
"""

_FORWARD_JAVA = """
def java_binary(**kwargs):
    native.java_binary(**kwargs)

def java_library(**kwargs):
    native.java_library(**kwargs)

def java_import(**kwargs):
    native.java_import(**kwargs)

def java_test(**kwargs):
    native.java_test(**kwargs)

def java_toolchain(**kwargs):
    native.java_toolchain(**kwargs)

def java_runtime(**kwargs):
    native.java_runtime(**kwargs)

def java_plugin(**kwargs):
    native.java_plugin(**kwargs)
"""

_NO_COVERAGE = """#!/bin/sh
echo "bazel coverage is not supported in this offline workspace" >&2
exit 1
"""

def rcupool_dependencies():
    """Declares the local stand-ins for Bazel's downloaded repositories."""
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
