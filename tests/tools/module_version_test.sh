#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# module_version_test.sh MODULE.bazel rcupool.h
#
# The version of the Bazel module (module(version = ...) in MODULE.bazel)
# is the library's, RCUPOOL_VERSION_MAJOR.MINOR.PATCH of rcupool.h.
[ $# -eq 2 ] || { echo "usage: module_version_test.sh MODULE.bazel rcupool.h" >&2; exit 2; }
module=$(sed -n 's/^ *version = "\([^"]*\)",.*/\1/p' "$1" | head -n 1)
part() { sed -n "s/^#define RCUPOOL_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$2"; }
header="$(part MAJOR "$2").$(part MINOR "$2").$(part PATCH "$2")"
echo "MODULE.bazel: $module; rcupool.h: $header"
[ -n "$module" ] || { echo "FAIL: no version = \"...\" line in $1"; exit 1; }
[ "$module" = "$header" ] || { echo "FAIL: the module's version is not the header's"; exit 1; }
