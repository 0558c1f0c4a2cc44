#!/bin/sh
# Installs rcupool for builds that do not use Bazel (CMake, Make, ...):
#
#   PREFIX/include/rcupool/rcupool.h, inline.h    (inline.h: next to rcupool.h)
#   PREFIX/lib/librcupool.so.MAJOR.MINOR.PATCH      the library
#   PREFIX/lib/librcupool.so.MAJOR -> ...so.MAJOR.MINOR.PATCH   (its SONAME)
#   PREFIX/lib/librcupool.so -> librcupool.so.MAJOR             (for -lrcupool)
#   PREFIX/lib/pkgconfig/rcupool.pc
#
# Usage, from the workspace:
#   bazel run //tools:install -- --prefix /usr/local [--libdir LIBDIR]
# or with the files named explicitly:
#   tools/install.sh --prefix DIR --library path/to/librcupool.so.0 \
#                    --header path/to/rcupool.h
#
# A relative --prefix is taken from the directory bazel run was started in.
# Then: cc app.c $(pkg-config --cflags --libs rcupool)
# (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig when PREFIX is not a system one).
set -eu

prefix=""
libdir=""
library="lib/shared/librcupool.so.0"
header="include/rcupool/rcupool.h"

usage() {
  sed -n '2,20p' "$0" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=${2:?}; shift 2 ;;
    --libdir) libdir=${2:?}; shift 2 ;;
    --library) library=${2:?}; shift 2 ;;
    --header) header=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "install.sh: unknown argument: $1" >&2; usage ;;
  esac
done
[ -n "$prefix" ] || usage

# Under `bazel run` the working directory is the runfiles tree; the user's
# own directory is BUILD_WORKING_DIRECTORY.
case "$prefix" in
  /*) ;;
  *) prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix" ;;
esac
[ -n "$libdir" ] || libdir="$prefix/lib"
case "$libdir" in
  /*) ;;
  *) libdir="$prefix/$libdir" ;;
esac

for f in "$library" "$header"; do
  [ -f "$f" ] || { echo "install.sh: missing $f (build //lib/shared first)" >&2; exit 1; }
done

version_part() {
  sed -n "s/^#define RCUPOOL_VERSION_$1 \([0-9][0-9]*\).*/\1/p" "$header"
}
major=$(version_part MAJOR)
minor=$(version_part MINOR)
patch=$(version_part PATCH)
[ -n "$major" ] && [ -n "$minor" ] && [ -n "$patch" ] ||
  { echo "install.sh: no RCUPOOL_VERSION_* in $header" >&2; exit 1; }
soname="librcupool.so.$major"
real="librcupool.so.$major.$minor.$patch"

# The library must carry the SONAME the header's major promises, and the
# pkg-config file lists the liburcu flavour it was linked with.
needed=""
if command -v readelf >/dev/null 2>&1; then
  dyn=$(readelf -d "$library")
  echo "$dyn" | grep -q "Library soname: \[$soname\]" ||
    { echo "install.sh: $library has no SONAME $soname" >&2; exit 1; }
  needed=$(echo "$dyn" | sed -n 's/.*Shared library: \[lib\([^].]*\)\.so[^]]*\].*/-l\1/p' |
           grep -E '^-l(urcu|pthreadpool|cpuinfo)' | tr '\n' ' ')
fi
[ -n "$needed" ] || needed="-lurcu-bp -lurcu-common -lpthreadpool -lcpuinfo "
# A memb library: users' <rcupool/inline.h> must know it, so that it falls
# back to the library calls instead of inlining urcu-bp (and failing to
# link against a library that is not bp).
cflags_flavour=""
case " $needed" in *" -lurcu-memb "*) cflags_flavour=" -DRCUPOOL_URCU_MEMB" ;; esac

mkdir -p "$prefix/include/rcupool" "$libdir/pkgconfig"
install -m 0644 "$header" "$prefix/include/rcupool/rcupool.h"
inline_header="$(dirname "$header")/inline.h"
if [ -f "$inline_header" ]; then
  install -m 0644 "$inline_header" "$prefix/include/rcupool/inline.h"
fi
install -m 0755 "$library" "$libdir/$real"
ln -sfn "$real" "$libdir/$soname"
ln -sfn "$soname" "$libdir/librcupool.so"

pc_libdir=$libdir
[ "$libdir" = "$prefix/lib" ] && pc_libdir='${prefix}/lib'
cat > "$libdir/pkgconfig/rcupool.pc" <<PC
prefix=$prefix
libdir=$pc_libdir
includedir=\${prefix}/include

Name: rcupool
Description: The one CPU thread pool of a process (pthreadpool), resizable at any time
Version: $major.$minor.$patch
Libs: -L\${libdir} -lrcupool
Libs.private: ${needed}-pthread
Cflags: -I\${includedir}${cflags_flavour}
PC

echo "installed rcupool $major.$minor.$patch under $prefix"
