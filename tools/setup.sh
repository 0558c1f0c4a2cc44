#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what rcupool needs from Debian 12's packages. Idempotent: when
# everything is present it prints nothing and exits 0.
#
#   tools/setup.sh          install what is missing (uses sudo when not root)
#   tools/setup.sh --check  only list what is missing; exit 1 if anything is
set -eu

usage() {
  check_usage <<'EOF'
Installs the Debian 12 packages rcupool needs that are missing, with
apt-get (through sudo when not root). Prints nothing and exits 0 when all
are installed.
  --check     only list what is missing; exit 1 if anything is
EOF
}

SCRIPT=setup.sh
. "$(dirname "$0")/args.sh" || exit 2
parse_check "$@"

PACKAGES="
bazel-bootstrap
g++
clang
clang-format
libclang-rt-14-dev
liburcu-dev
libpthreadpool-dev
libcpuinfo-dev
libxnnpack-dev
libgtest-dev
libbenchmark-dev
pkg-config
cmake
ninja-build
binutils
python3
python3-dev
python3-pip
python3-pytest
python3-setuptools
python3-threadpoolctl
python3-venv
python3-wheel
spin
gnuplot-nox
valgrind
util-linux
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

[ -z "$missing" ] && exit 0

if [ -n "$check" ]; then
  echo "missing Debian packages:$missing"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "setup: done"
