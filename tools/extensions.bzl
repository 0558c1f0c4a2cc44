# SPDX-License-Identifier: LGPL-2.1-or-later
"""rcupool's module extension (bzlmod; MODULE.bazel uses it).

  system_libraries
      Declares @rcupool_system: liburcu, pthreadpool, cpuinfo and XNNPACK
      found on the system (their headers and libraries, from Debian's or
      Ubuntu's -dev packages), one package each, behind the label flags of
      //lib/deps. A library that is not installed fails, naming its
      package, only when a build needs it. Also @rcupool_deps_newest (the
      prefix of tools/setup.sh --deps newest, for --config=newest), read
      only by a build that names it.

The same repository rules serve WORKSPACE mode (tools/workspace.bzl,
rcupool_dependencies()). A consumer uses neither: its bazel_dep on rcupool
brings the extension's repositories with it.
"""

load(":workspace.bzl", "rcupool_deps_newest", "rcupool_system")

def _system_libraries_impl(mctx):
    rcupool_system(name = "rcupool_system")
    rcupool_deps_newest(name = "rcupool_deps_newest")

system_libraries = module_extension(
    implementation = _system_libraries_impl,
    doc = "rcupool's system libraries as @rcupool_system (see the file's doc).",
)
