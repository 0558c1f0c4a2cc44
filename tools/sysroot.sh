#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the arm64 sysroot of the aarch64 cross build and its tests under
# qemu-aarch64 (tools/setup.sh --arch aarch64 runs it): Debian 12's arm64
# packages of rcupool's dependencies, their run-time libraries and a C
# library, each fetched with `apt-get download` and unpacked with
# `dpkg -x` into one folder. No package of the host is installed or
# removed: libpthreadpool-dev:arm64 and libcpuinfo-dev:arm64 cannot be
# installed beside their amd64 versions. Its own glibc makes it a complete
# root for `qemu-aarch64 -L SYSROOT`. Prints nothing when it is there.
#
# Usage:
#   tools/sysroot.sh [--check] [--print]
#
#   --check  only say whether it is there and current; exit 1 if not
#   --print  print the sysroot's path as the last line
#
# Where: $RCUPOOL_SYSROOT_AARCH64 when set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/sysroot-aarch64 (outside the
# source tree, shared by every checkout of one user). Its file
# .rcupool-packages lists what was unpacked; when the list below changes
# the folder is made again. Remove the folder to take newer packages.
set -eu

SCRIPT=sysroot.sh
. "$(dirname "$0")/args.sh" || exit 2
usage() { usage_from_header; }

parse_check_print "$@"

# The C and C++ run time (a glibc of its own: the cross toolchain's and
# Debian's multiarch glibc must not be mixed), liburcu, pthreadpool,
# cpuinfo, XNNPACK and GoogleTest.
PACKAGES="libc6 libgcc-s1 libstdc++6 liburcu8 liburcu-dev libpthreadpool0
libpthreadpool-dev libcpuinfo0 libcpuinfo-dev libxnnpack0 libxnnpack-dev
libgtest-dev"
want=$(echo $PACKAGES)

sysroot=${RCUPOOL_SYSROOT_AARCH64:-${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/sysroot-aarch64}
stamp="$sysroot/.rcupool-packages"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  [ -z "$print" ] || echo "$sysroot"
  exit 0
fi
if [ -n "$check" ]; then
  echo "missing or out of date: the arm64 sysroot $sysroot (tools/setup.sh --arch aarch64 makes it)"
  exit 1
fi

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "sysroot: making the arm64 sysroot in $sysroot"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  # Lets apt see arm64 packages; nothing of arm64 is installed by it.
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
parent=$(dirname "$sysroot")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.sysroot-aarch64.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debs" "$tmp/new"
chmod 755 "$tmp" "$tmp/debs"
list=""
for p in $PACKAGES; do list="$list $p:arm64"; done
# shellcheck disable=SC2086
if ! (cd "$tmp/debs" && apt-get download -q $list) > "$tmp/log" 2>&1; then
  if [ -z "$(ls "$tmp/debs")" ]; then
    # The package lists may predate arm64: read them again once.
    $SUDO apt-get update -qq
  fi
  # shellcheck disable=SC2086
  (cd "$tmp/debs" && apt-get download -q $list) > "$tmp/log" 2>&1 ||
    { cat "$tmp/log" >&2; echo "sysroot: apt-get download failed" >&2; exit 1; }
fi
for deb in "$tmp"/debs/*.deb; do
  dpkg -x "$deb" "$tmp/new"
done
ls "$tmp/debs" > "$tmp/new/.rcupool-debs"
echo "$want" > "$tmp/new/.rcupool-packages"
rm -rf "$sysroot"
mv "$tmp/new" "$sysroot"
echo "sysroot: done ($(du -sh "$sysroot" | cut -f1))"
[ -z "$print" ] || echo "$sysroot"
