#!/bin/bash
# Builds the Python wheel rcupool-<version>-cp311-cp311-linux_x86_64.whl
# offline, with Debian's python3, setuptools, wheel and pip.
#
#   tools/wheel.sh OUTDIR                  build librcupool.so.0 with bazel,
#                                          then the wheel into OUTDIR
#   tools/wheel.sh --library PATH OUTDIR   use an already built library
#   tools/wheel.sh --library PATH --stage DIR
#                                          only lay the package out in DIR
#                                          (DIR/rcupool is importable)
#
# Install: python3 -m venv V && V/bin/pip install --no-index OUTDIR/rcupool-*.whl
# PYTHON names the interpreter (default /usr/bin/python3, Debian's 3.11).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-/usr/bin/python3}
library=""
stage_only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --library) library=$2; shift 2 ;;
    --stage) stage_only=1; shift ;;
    -*) echo "wheel.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
out=$1

if [ -z "$library" ]; then
  (cd "$root" && bazel build //lib/shared:librcupool.so.0)
  library="$(cd "$root" && bazel info bazel-bin)/lib/shared/librcupool.so.0"
fi
[ -f "$library" ] || { echo "wheel.sh: no library at $library" >&2; exit 1; }

# Lays out the package (sources, headers, library) under $1.
stage() {
  local dir=$1
  mkdir -p "$dir/rcupool/lib" "$dir/rcupool/include/rcupool"
  cp "$root"/lib/python/rcupool/*.py "$root/lib/python/rcupool/py.typed" "$dir/rcupool/"
  cp "$root/lib/python/setup.py" "$dir/"
  cp "$root/include/rcupool/rcupool.h" "$dir/rcupool/include/rcupool/"
  cp -L "$library" "$dir/rcupool/lib/librcupool.so.0"
  chmod 0755 "$dir/rcupool/lib/librcupool.so.0"
  chmod -R u+w "$dir"
}

if [ -n "$stage_only" ]; then
  stage "$out"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
stage "$tmp/src"
mkdir -p "$out"
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --no-index \
  --disable-pip-version-check -w "$tmp/dist" "$tmp/src"
wheels=("$tmp"/dist/rcupool-*-cp311-cp311-linux_x86_64.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] ||
  { echo "wheel.sh: expected one cp311-cp311-linux_x86_64 wheel, got: $(ls "$tmp/dist")" >&2; exit 1; }
cp "${wheels[0]}" "$out/"
echo "$out/$(basename "${wheels[0]}")"
