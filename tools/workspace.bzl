# SPDX-License-Identifier: LGPL-2.1-or-later
"""Workspace setup for rcupool and for workspaces that depend on it.

For WORKSPACE mode (Bazel 4.2.3 and later; under bzlmod, MODULE.bazel and
tools/extensions.bzl declare the same repositories). Three macros:

  rcupool_dependencies()
      rcupool's real dependencies. By default they are all system libraries
      (liburcu, pthreadpool, cpuinfo, XNNPACK from Debian's -dev packages),
      reached through the label flags of //lib/deps, which default to the
      repository @rcupool_system it declares (rcupool_system below finds
      them on the system). It also declares @rcupool_deps_newest: the newest Debian pthreadpool and
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

  rcupool_dev_dependencies()
      rcupool's own WORKSPACE only: GoogleTest for its tests.

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
load("@rules_cc//cc:defs.bzl", "cc_library")

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

rcupool_deps_newest = repository_rule(
    implementation = _deps_newest_impl,
    environ = ["RCUPOOL_DEPS_NEWEST", "XDG_CACHE_HOME", "HOME"],
    local = True,
    doc = "The prefix of tools/deps_newest.sh as cc_library targets.",
)

# The system libraries rcupool_system finds: (package of the repository,
# header, libraries to link, the Debian package that has them).
_SYSTEM = [
    ("urcu", "urcu-bp.h", ["urcu-bp", "urcu-memb", "urcu-common"], "liburcu-dev"),
    ("pthreadpool", "pthreadpool.h", ["pthreadpool"], "libpthreadpool-dev"),
    ("cpuinfo", "cpuinfo.h", ["cpuinfo"], "libcpuinfo-dev"),
    ("xnnpack", "xnnpack.h", ["XNNPACK"], "libxnnpack-dev"),
    # rcupool's own benchmarks only.
    ("benchmark", "benchmark/benchmark.h", ["benchmark", "benchmark_main"], "libbenchmark-dev"),
]

def _linked(name, linkopts):
    """A cc_library that only links: "\ncc_library(...)\n"."""
    return "\ncc_library(\n    name = \"%s\",\n    linkopts = [%s],\n)\n" % (
        name,
        ", ".join(["\"%s\"" % o for o in linkopts]),
    )

# Each system package's targets, after its BUILD file's package() line.
_SYSTEM_BUILD = {
    "urcu": "\n# liburcu's flavours (lib/deps:urcu picks one)." +
            _linked("bp", ["-lurcu-bp", "-lurcu-common", "-pthread"]) +
            _linked("memb", ["-lurcu-memb", "-lurcu-common", "-pthread"]),
    "pthreadpool": _linked("pthreadpool", ["-lpthreadpool", "-pthread"]),
    "cpuinfo": _linked("cpuinfo", ["-lcpuinfo"]),
    "benchmark": _linked("benchmark", ["-lbenchmark", "-pthread"]) +
                 _linked("benchmark_main", ["-lbenchmark_main", "-lbenchmark", "-pthread"]),
    "xnnpack": _linked("xnnpack", ["-lXNNPACK", "-lpthreadpool", "-lcpuinfo", "-lm", "-pthread"]),
}

def _system_libraries_impl(ctx):
    include_dirs = ctx.attr.include_dirs
    lib_dirs = ctx.attr.lib_dirs
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", "")
    for pkg, header, libs, debian in _SYSTEM:
        found = [d for d in include_dirs if ctx.path(d + "/" + header).exists]
        missing = [
            lib
            for lib in libs
            if not [
                d
                for d in lib_dirs
                if ctx.path("%s/lib%s.so" % (d, lib)).exists or
                   ctx.path("%s/lib%s.a" % (d, lib)).exists
            ]
        ]
        head = "# Made by rcupool's tools/workspace.bzl (rcupool_system).\n"
        if found and not missing:
            ctx.file(pkg + "/BUILD.bazel", head + (
                "# %s in %s.\n" % (header, found[0]) +
                "load(\"@rules_cc//cc:defs.bzl\", \"cc_library\")\n\n" +
                "package(default_visibility = [\"//visibility:public\"])\n" +
                _SYSTEM_BUILD[pkg]
            ))
        else:
            # Only a build that needs this library stops, with this message.
            what = header if not found else ", ".join(["lib%s.so" % lib for lib in missing])
            ctx.file(pkg + "/BUILD.bazel", head + "fail(%r)\n" % (
                "rcupool: %s not found in %s: install %s (Debian, Ubuntu) or point " % (
                    what,
                    ", ".join(include_dirs if not found else lib_dirs),
                    debian,
                ) + "--@rcupool//lib/deps:%s at your own build" % pkg
            ))
    _python_embed(ctx)

def _python_embed(ctx):
    """The package python: CPython to embed (python3-dev), found through
    the system's interpreter; a package that fails when it is missing."""
    head = "# Made by rcupool's tools/workspace.bzl (rcupool_system).\n"
    python = ctx.attr.python
    r = ctx.execute([python, "-c", "import sysconfig; print(sysconfig.get_path('include')); " +
                                   "print(sysconfig.get_config_var('LDVERSION'))"])
    lines = r.stdout.strip().split("\n") if r.return_code == 0 else []
    if len(lines) == 2 and ctx.path(lines[0] + "/Python.h").exists:
        ctx.symlink(lines[0], "python/include")
        ctx.file("python/BUILD.bazel", head + (
            "# CPython %s from %s (its headers in %s).\n" % (lines[1], python, lines[0]) +
            "load(\"@rules_cc//cc:defs.bzl\", \"cc_library\")\n\n" +
            "cc_library(\n" +
            "    name = \"embed\",\n" +
            "    hdrs = glob([\"include/**/*.h\"]),\n" +
            "    includes = [\"include\"],\n" +
            "    linkopts = [\"-lpython%s\"],\n" % lines[1] +
            "    visibility = [\"//visibility:public\"],\n" +
            ")\n"
        ))
    else:
        ctx.file("python/BUILD.bazel", head + "fail(%r)\n" % (
            "rcupool: no Python.h for %s: install python3-dev (Debian, Ubuntu)" % python
        ))

rcupool_system = repository_rule(
    implementation = _system_libraries_impl,
    attrs = {
        "include_dirs": attr.string_list(default = [
            "/usr/include",
            "/usr/include/x86_64-linux-gnu",
            "/usr/include/aarch64-linux-gnu",
            "/usr/local/include",
        ]),
        "lib_dirs": attr.string_list(default = [
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu",
            "/usr/lib64",
            "/usr/lib",
            "/usr/local/lib",
        ]),
        "python": attr.string(default = "/usr/bin/python3"),
    },
    local = True,
    doc = """rcupool's system libraries (liburcu, pthreadpool, cpuinfo,
XNNPACK) as cc_library targets, one package each: @rcupool_system//urcu:bp
and :memb, //pthreadpool, //cpuinfo, //xnnpack; for rcupool's own
benchmarks //benchmark (Google Benchmark) and //python:embed, the system's
CPython to embed. A library whose header or
.so is not found gets a package that fails, naming the Debian package, only
when a build needs it.""",
)

def _dev_libraries_impl(ctx):
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)
    ctx.file("BUILD.bazel", "# Made by rcupool's tools/workspace.bzl.\n" +
                            "package(default_visibility = [\"//visibility:public\"])\n\n" +
                            "".join([
                                "cc_library(\n    name = %r,\n    linkopts = %r,\n)\n\n" % (t, l)
                                for t, l in ctx.attr.targets.items()
                            ]))

_dev_libraries = repository_rule(
    implementation = _dev_libraries_impl,
    attrs = {"targets": attr.string_list_dict(mandatory = True)},
    doc = "cc_library targets (name -> link options) over system libraries.",
)

def rcupool_dependencies():
    """Declares @rcupool_system (the system libraries) and
    @rcupool_deps_newest (read only by a build that names it)."""
    maybe(rcupool_system, name = "rcupool_system")
    maybe(rcupool_deps_newest, name = "rcupool_deps_newest")

def rcupool_dev_dependencies():
    """rcupool's own tests in WORKSPACE mode: @googletest, with its module's
    target names, over Debian's libgtest-dev (under bzlmod it is
    MODULE.bazel's dev dependency)."""
    maybe(
        _dev_libraries,
        name = "googletest",
        targets = {
            "gtest": ["-lgtest", "-pthread"],
            "gtest_main": ["-lgtest_main", "-lgtest", "-pthread"],
        },
    )

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
