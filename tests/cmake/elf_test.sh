#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The ELF checks of tests/shared/elf_test, run on the CMake-built libraries
# (SONAME, exports exactly the public functions, NODELETE, the backend's
# needs and its one-definer check), and the installed RUNPATHs: none on the
# core (its dependencies are system libraries), $ORIGIN on the backend (it
# finds librcupool.so.0 beside itself).
set -euo pipefail
source tests/cmake/unpack.sh

lib="$prefix/lib"
RCUPOOL_ELF_LIBRARY="$lib/librcupool.so.0" \
RCUPOOL_ELF_XNNPACK_LIBRARY="$lib/librcupool_xnnpack.so.0" \
RCUPOOL_ELF_EXECUTORCH_LIBRARY="$lib/librcupool_executorch.so.0" \
  tests/shared/elf_test --gtest_filter='*SharedLibraryElf.*' ||
  fail "tests/shared/elf_test on the CMake libraries"

readelf -d "$lib/librcupool.so.0" | grep RUNPATH >/dev/null && fail "librcupool.so.0 has a RUNPATH"
readelf -d "$lib/librcupool_xnnpack.so.0" |
  grep -q 'Library runpath: \[\$ORIGIN\]' || fail "backend RUNPATH is not \$ORIGIN"
tools/check_one_definer "$lib" || fail "check_one_definer $lib"
tools/check_one_definer --symbol rcupool_xnn_runtime_create "$lib" ||
  fail "check_one_definer --symbol rcupool_xnn_runtime_create $lib"
echo "PASS"
