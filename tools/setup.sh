#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what rcupool needs from Debian 12's packages. Idempotent: when
# everything is present it prints nothing and exits 0.
#
#   tools/setup.sh          install what is missing (uses sudo when not root)
#   tools/setup.sh --check  only list what is missing; exit 1 if anything is
#   tools/setup.sh --arch aarch64 [--check] [--print-sysroot]
#                           also the aarch64 cross toolchain, qemu-user and
#                           the arm64 sysroot (tools/sysroot.sh;
#                           docs/building.md, "Cross-compiling for aarch64");
#                           --print-sysroot prints its path as the last line
#   tools/setup.sh --deps newest [--check] [--print-prefix]
#                           also the newest Debian versions of pthreadpool,
#                           cpuinfo and liburcu, built from sid's sources
#                           into the user's cache folder
#                           (tools/deps_newest.sh; docs/building.md, "The
#                           newest Debian dependencies"); --print-prefix
#                           prints their prefix as the last line
#   tools/setup.sh --bazel 7 [--check] [--print-root]
#                           also a Debian sid chroot with Bazel 7.7.1 and
#                           sid's packages for rcupool's bzlmod build
#                           (tools/bazel7_chroot.sh; needs root; run Bazel
#                           there with tools/bazel7; docs/building.md,
#                           "Bazel 7 and later (bzlmod)"); --print-root
#                           prints the chroot's root folder as the last line
set -eu

usage() {
  check_usage <<'EOF'
Installs the Debian 12 packages rcupool needs that are missing, with
apt-get (through sudo when not root). Prints nothing and exits 0 when all
are installed.
  --check     only list what is missing; exit 1 if anything is
  --arch aarch64   also the cross toolchain, qemu-user and the arm64
              sysroot (tools/sysroot.sh)
  --print-sysroot  with --arch: print the sysroot's path as the last line
  --deps newest    also the newest Debian pthreadpool, cpuinfo and liburcu,
              built from sid's sources (tools/deps_newest.sh)
  --print-prefix   with --deps: print their prefix as the last line
  --bazel 7   also the Debian sid chroot with Bazel 7 (tools/bazel7_chroot.sh,
              as root; tools/bazel7 runs Bazel in it)
  --print-root     with --bazel: print the chroot's root folder as the last line
EOF
}

SCRIPT=setup.sh
. "$(dirname "$0")/args.sh" || exit 2
arch=""
print_sysroot=""
deps=""
print_prefix=""
bazel=""
print_root=""
case " $* " in
  *" --arch "*|*" --deps "*|*" --bazel "*)
    # The cross and newest-dependencies forms: their own arguments; the
    # native packages as below.
    check=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --check) check=1; shift ;;
        --print-sysroot) print_sysroot=1; shift ;;
        --print-prefix) print_prefix=1; shift ;;
        --print-root) print_root=1; shift ;;
        --arch|--deps|--bazel)
          [ $# -ge 2 ] || bad_usage "$1 needs a value"
          case "$1" in
            --arch) arch=$2 ;;
            --deps) deps=$2 ;;
            *) bazel=$2 ;;
          esac
          shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) bad_usage "unknown argument: $1" ;;
      esac
    done
    [ -z "$arch" ] || [ "$arch" = aarch64 ] || bad_usage "--arch takes aarch64, not $arch"
    [ -z "$deps" ] || [ "$deps" = newest ] || bad_usage "--deps takes newest, not $deps"
    [ -z "$bazel" ] || [ "$bazel" = 7 ] || bad_usage "--bazel takes 7, not $bazel"
    [ -z "$arch" ] || [ -z "$deps" ] || bad_usage "--arch and --deps go in separate calls"
    [ -z "$bazel" ] || [ -z "$arch$deps" ] || bad_usage "--bazel goes in a call of its own"
    [ -z "$print_root" ] || [ -n "$bazel" ] || bad_usage "--print-root goes with --bazel"
    [ -z "$print_sysroot" ] || [ -n "$arch" ] || bad_usage "--print-sysroot goes with --arch"
    [ -z "$print_prefix" ] || [ -n "$deps" ] || bad_usage "--print-prefix goes with --deps" ;;
  *) parse_check "$@" ;;
esac

PACKAGES="
bazel-bootstrap
g++
clang
clang-format
libclang-rt-14-dev
dpkg-dev
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

if [ -n "$bazel" ]; then
  # The chroot is made as root only: say so before anything is installed.
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: --bazel 7 needs root (it makes and enters a chroot and" \
      "mounts /proc, /sys and /dev in it): run it as root, e.g. with sudo" >&2
    exit 2
  fi
  for p in debootstrap debian-archive-keyring; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
fi

if [ -n "$arch" ]; then
  for p in gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user file; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
fi

# Run after the native packages are there: the arm64 sysroot, the
# newest dependencies, or the Bazel 7 chroot.
next() {
  if [ -n "$bazel" ]; then
    exec sh "$(dirname "$0")/bazel7_chroot.sh" ${check:+--check} ${print_root:+--print}
  fi
  if [ -n "$deps" ]; then
    exec sh "$(dirname "$0")/deps_newest.sh" ${check:+--check} ${print_prefix:+--print}
  fi
  [ -z "$arch" ] && exit 0
  exec sh "$(dirname "$0")/sysroot.sh" ${check:+--check} ${print_sysroot:+--print}
}
[ -n "$missing" ] || next

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
next
