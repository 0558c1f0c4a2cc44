#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the Python wheel rcupool-<version>-<tag>.whl offline, with
# Debian's python3, setuptools, wheel and pip, for that interpreter: the tag
# is cp311-cp311-linux_x86_64 with Debian 12's CPython 3.11 on x86-64.
#
# usage:
#   tools/wheel.sh OUTDIR     build librcupool.so.0 and the XNNPACK backend
#                             librcupool_xnnpack.so.0 with bazel, then the
#                             wheel into OUTDIR
#   tools/wheel.sh --library PATH --xnnpack-library PATH OUTDIR
#                             use libraries already built
#   tools/wheel.sh --library PATH --xnnpack-library PATH --stage DIR
#                             only lay the package out in DIR, extension
#                             module built (DIR/rcupool is importable)
#
# Install: /usr/bin/python3 -m venv V && V/bin/pip install --no-index OUTDIR/rcupool-*.whl
# PYTHON names the interpreter (default /usr/bin/python3: Debian 12's 3.11,
# sid's 3.14).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
library=""
xnnpack_library=""
stage_only=""
SCRIPT=wheel.sh
. "$(dirname "$0")/args.sh" || exit 2
usage() { usage_from_header; }

args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --library|--xnnpack-library)
      [ $# -ge 2 ] || bad_usage "$1 needs a path"
      if [ "$1" = --library ]; then library=$2; else xnnpack_library=$2; fi
      shift 2 ;;
    --stage) stage_only=1; shift ;;
    --) shift; args+=("$@"); break ;;
    -*) bad_usage "unknown option $1" ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 1 ] || bad_usage "expected one OUTDIR (or DIR with --stage), got ${#args[@]}"
out=${args[0]}

if [ -z "$library" ] || [ -z "$xnnpack_library" ]; then
  (cd "$root" && bazel build //lib/shared:librcupool.so.0 //lib/shared:librcupool_xnnpack.so.0)
  bin="$(cd "$root" && bazel info bazel-bin)/lib/shared"
  library=${library:-$bin/librcupool.so.0}
  xnnpack_library=${xnnpack_library:-$bin/librcupool_xnnpack.so.0}
fi
for f in "$library" "$xnnpack_library"; do
  [ -f "$f" ] || { echo "wheel.sh: no library at $f" >&2; exit 1; }
done

# Lays out the package (sources, headers, library) under $1.
stage() {
  local dir=$1
  mkdir -p "$dir/rcupool/lib" "$dir/rcupool/include/rcupool"
  cp "$root"/lib/python/rcupool/*.py "$root"/lib/python/rcupool/*.pyi \
    "$root"/lib/python/rcupool/*.c "$root/lib/python/rcupool/py.typed" \
    "$dir/rcupool/"
  cp "$root/lib/python/setup.py" "$dir/"
  cp "$root"/include/rcupool/*.h "$root"/include/rcupool/*.hpp \
    "$dir/rcupool/include/rcupool/"
  cp -L "$library" "$dir/rcupool/lib/librcupool.so.0"
  cp -L "$xnnpack_library" "$dir/rcupool/lib/librcupool_xnnpack.so.0"
  chmod 0755 "$dir"/rcupool/lib/*.so.0
  chmod -R u+w "$dir"
}

if [ -n "$stage_only" ]; then
  stage "$out"
  # The extension module next to the sources, as the wheel installs it.
  (cd "$out" && "$python" setup.py --quiet build_ext --inplace \
    --build-temp "$out/build" >/dev/null)
  rm -rf "$out/build"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage "$tmp/src"
mkdir -p "$out"
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --no-index \
  --disable-pip-version-check -w "$tmp/dist" "$tmp/src"
# The interpreter's own tag: cpXY-cpXY-<platform>.
tag=$("$python" -c 'import sys, sysconfig
v = "%d%d" % sys.version_info[:2]
print("cp%s-cp%s-%s" % (v, v, sysconfig.get_platform().replace("-", "_").replace(".", "_")))')
wheels=("$tmp"/dist/rcupool-*-"$tag".whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] ||
  { echo "wheel.sh: expected one $tag wheel, got: $(ls "$tmp/dist")" >&2; exit 1; }
cp "${wheels[0]}" "$out/"
echo "$out/$(basename "${wheels[0]}")"
