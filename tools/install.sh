#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs rcupool for builds that do not use Bazel (CMake, Make, plain cc).
# This is the CMake install (CMakeLists.txt) and nothing else: one
# installer, so the installed files cannot disagree with the CMake package.
#
#   PREFIX/include/rcupool/  rcupool.h and the headers it includes, inline.h,
#                            rcupool.hpp, xnnpack.h
#   LIBDIR/librcupool.so.MAJOR.MINOR.PATCH, .so.MAJOR, .so, librcupool.a
#   LIBDIR/librcupool_xnnpack.so.*           (when XNNPACK is installed)
#   LIBDIR/librcupool_executorch.so.*, PREFIX/include/rcupool/compat/executorch/
#                                            ExecuTorch thread-pool stand-in
#                                            (its headers: docs/executorch.md)
#   LIBDIR/pkgconfig/rcupool.pc, rcupool-xnnpack.pc, rcupool-executorch.pc
#   LIBDIR/cmake/rcupool/                    find_package(rcupool CONFIG)
#   PREFIX/share/doc/rcupool/LICENSE
#   PREFIX/share/rcupool/valgrind/rcupool.supp  valgrind suppressions
#   PREFIX/bin/rcupool_info                  what a pool would get here:
#                                            classes, mask, quota, default size
#
# Usage:
#   tools/install.sh --prefix DIR [--flavor bp|memb] [--build DIR] [--source DIR]
#                    [--arch aarch64] [--libdir DIR] [--build-type TYPE]
#                    [--sanitize address|thread] [--deps newest]
#   bazel run //tools:install -- --prefix /usr/local [--flavor memb]
#
# --libdir: LIBDIR, relative to PREFIX or absolute; default GNUInstallDirs'
# (lib, or lib/<multiarch> for the prefix /usr on Debian). --build-type:
# CMake's CMAKE_BUILD_TYPE, default RelWithDebInfo. --sanitize: libraries
# instrumented for an application built with -fsanitize=address (ASan with
# UBSan) or -fsanitize=thread, for that application's tests only
# (docs/building.md, "Sanitizers"); CC and CXX choose the compiler, as for
# any CMake build. DESTDIR, when set, stages the install under
# DESTDIR/PREFIX (for a package) while the files still name PREFIX.
#
# --deps newest: built against the newest Debian pthreadpool, cpuinfo and
# liburcu (tools/deps_newest.sh builds them into the user's cache folder
# when they are not there yet): the installed libraries find them at run
# time through their RUNPATH, and rcupool.pc and find_package(rcupool)
# name that prefix (docs/building.md, "The newest Debian dependencies").
#
# --source defaults to the workspace (the directory above tools/, or the
# workspace `bazel run` was started in); --build to a temporary directory,
# removed afterwards. A relative --prefix is taken from the directory the
# command was started in. --arch aarch64 cross-builds for arm64 Linux
# (cmake/aarch64-linux-gnu.cmake, the sysroot of tools/setup.sh --arch
# aarch64; docs/building.md, "Cross-compiling for aarch64"). Then:
#   cc app.c $(pkg-config --cflags --libs rcupool)
# with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig when PREFIX is not a system one,
# and see docs/building.md, "How a program finds the libraries at run
# time".
set -eu

prefix=""
flavor="bp"
build=""
source=""
arch=""
libdir=""
build_type="RelWithDebInfo"
sanitize=""
deps=""

# args.sh stands beside this file; `bazel run //tools:install` starts it
# through a link in bazel-bin, so look beside the link's target too.
SCRIPT=install.sh
here=$(dirname "$0")
[ -f "$here/args.sh" ] || here=$(dirname "$(readlink -f "$0")")
. "$here/args.sh" || exit 2
usage() { usage_from_header; }

while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --prefix|--flavor|--build|--source|--arch|--libdir|--build-type|--sanitize|--deps)
      [ $# -ge 2 ] && [ -n "$2" ] || bad_usage "$1 needs a value"
      case "$1" in
        --prefix) prefix=$2 ;;
        --flavor) flavor=$2 ;;
        --build) build=$2 ;;
        --source) source=$2 ;;
        --arch) arch=$2 ;;
        --libdir) libdir=$2 ;;
        --build-type) build_type=$2 ;;
        --sanitize) sanitize=$2 ;;
        --deps) deps=$2 ;;
      esac
      shift 2 ;;
    *) bad_usage "unknown argument: $1" ;;
  esac
done
[ -n "$prefix" ] || bad_usage "--prefix is required"
case "$flavor" in
  bp|memb) ;;
  *) bad_usage "--flavor takes bp or memb, not $flavor" ;;
esac
cross=""
if [ -n "$arch" ]; then
  [ "$arch" = aarch64 ] || bad_usage "--arch takes aarch64, not $arch"
  sysroot=$(sh "$here/setup.sh" --check --arch "$arch" --print-sysroot | tail -n 1) ||
    { echo "install.sh: $sysroot" >&2; exit 1; }
  cross="-DRCUPOOL_SYSROOT=$sysroot"
fi
deps_prefix=""
if [ -n "$deps" ]; then
  [ "$deps" = newest ] || bad_usage "--deps takes newest, not $deps"
  [ -z "$arch" ] || bad_usage "--deps newest is for the native build, not --arch"
  # Its progress shown; then, at once, where it is.
  sh "$here/deps_newest.sh" && deps_prefix=$(sh "$here/deps_newest.sh" --print | tail -n 1) &&
    [ -f "$deps_prefix/.rcupool-deps" ] ||
    { echo "install.sh: tools/deps_newest.sh failed" >&2; exit 1; }
fi
case "$sanitize" in
  ""|address|thread) ;;
  *) bad_usage "--sanitize takes address or thread, not $sanitize" ;;
esac
case "$build_type" in
  Debug|Release|RelWithDebInfo|MinSizeRel) ;;
  *) bad_usage "--build-type takes Debug, Release, RelWithDebInfo or MinSizeRel, not $build_type" ;;
esac
command -v cmake >/dev/null 2>&1 ||
  { echo "install.sh: cmake not found (tools/setup.sh installs it)" >&2; exit 1; }

here=${BUILD_WORKING_DIRECTORY:-$PWD}
case "$prefix" in /*) ;; *) prefix="$here/$prefix" ;; esac
if [ -z "$source" ]; then
  source=${BUILD_WORKSPACE_DIRECTORY:-$(cd "$(dirname "$0")/.." && pwd)}
fi
[ -f "$source/CMakeLists.txt" ] ||
  { echo "install.sh: no CMakeLists.txt in $source" >&2; exit 1; }

cleanup=""
if [ -z "$build" ]; then
  build=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-build.XXXXXX")
  cleanup=$build
fi
trap '[ -z "$cleanup" ] || rm -rf "$cleanup"' EXIT

generator=""
command -v ninja >/dev/null 2>&1 && generator="-GNinja"
[ -z "$cross" ] ||
  cross="$cross -DCMAKE_TOOLCHAIN_FILE=$source/cmake/$arch-linux-gnu.cmake"
# Without --libdir, GNUInstallDirs chooses (-U clears a value cached by an
# earlier configure of the same --build; so for the dependencies found, so
# that a --build reused with another --deps finds them again).
cmake -S "$source" -B "$build" $generator $cross -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_INSTALL_PREFIX="$prefix" -UCMAKE_INSTALL_LIBDIR \
  -U'RCUPOOL_*_LIBRARY' -U'RCUPOOL_*_INCLUDE_DIR' \
  ${libdir:+-DCMAKE_INSTALL_LIBDIR="$libdir"} \
  -DRCUPOOL_URCU_FLAVOR="$flavor" -DRCUPOOL_SANITIZE="$sanitize" \
  -DRCUPOOL_DEPS_PREFIX="$deps_prefix"
cmake --build "$build" --parallel 2
cmake --install "$build"
if [ -n "${DESTDIR:-}" ]; then
  echo "staged rcupool under $DESTDIR$prefix (DESTDIR); its files name $prefix"
else
  echo "installed rcupool under $prefix"
fi
