# SPDX-License-Identifier: LGPL-2.1-or-later
"""The one way rcupool links a shared object of its own."""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_import")

def shared_object(
        name,
        version_script,
        deps,
        nodelete,
        import_name = None,
        import_visibility = None,
        linkopts = []):
    """A cc_binary `name` (the SONAME) linked as a shared object.

    It exports what `version_script` lists, resolves every symbol through
    its own dependencies (-z defs) and, with `nodelete`, is never unmapped
    once loaded (for objects whose code threads may still run after a
    dlclose). `import_name`, when given, names a cc_import of it, what
    objects that link it depend on (DT_NEEDED on the SONAME).
    """
    cc_binary(
        name = name,
        additional_linker_inputs = [version_script],
        linkopts = [
            "-Wl,-soname," + name,
            "-Wl,--version-script=$(location %s)" % version_script,
            "-Wl,-z,defs",
        ] + (["-Wl,-z,nodelete"] if nodelete else []) + linkopts,
        linkshared = True,
        deps = deps,
    )
    if import_name == None:
        return
    cc_import(
        name = import_name,
        shared_library = ":" + name,
        visibility = import_visibility,
    )
