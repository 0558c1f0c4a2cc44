# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C sources Bazel compiles into a cc_library, as a file (for the drift
test that compares them with the CMake build's list)."""

SrcsInfo = provider(fields = ["files"])

def _srcs_aspect_impl(target, ctx):
    files = [
        f
        for src in getattr(ctx.rule.attr, "srcs", [])
        for f in src.files.to_list()
        if f.extension == "c"
    ]
    return [SrcsInfo(files = files)]

_srcs_aspect = aspect(implementation = _srcs_aspect_impl)

def _c_srcs_list_impl(ctx):
    paths = sorted([
        f.short_path
        for dep in ctx.attr.libraries
        for f in dep[SrcsInfo].files
    ])
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(out, "".join([p + "\n" for p in paths]))
    return [DefaultInfo(
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out]),
    )]

c_srcs_list = rule(
    implementation = _c_srcs_list_impl,
    doc = "Writes NAME.txt: the .c files in the srcs of `libraries`, sorted.",
    attrs = {
        "libraries": attr.label_list(aspects = [_srcs_aspect]),
    },
)
