# SPDX-License-Identifier: LGPL-2.1-or-later
# What the scripts that reach Debian sid share: the archive (for
# tools/deps_newest.sh's sources and tools/bazel7_chroot.sh's chroot) and
# the sid chroot of Bazel 7 (tools/bazel7_chroot.sh makes it, tools/bazel7
# runs Bazel in it). Not a command: a script sources it after naming
# itself in SCRIPT, and it sources tools/args.sh for that script. POSIX sh.
#
#   sid_archive         prints the Debian archive the machine's apt sources
#                       name (deb822 or one-line form; not the security
#                       one), nothing when they name none
#   chroot_dir          sets bazel7_dir (the cache folder of the chroot:
#                       $RCUPOOL_BAZEL7 when set, else
#                       ${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/bazel7),
#                       bazel7_root (the chroot's root folder, its root/)
#                       and bazel7_stamp (the file that says it is ready)
#   chroot_need_root    exit 2 with a message unless run as root
#   chroot_mount ROOT   mounts proc, sysfs and /dev (with /dev/pts and
#                       /dev/shm) under ROOT.
#                       Call it inside a mount namespace of its own
#                       (`unshare -m --propagation private`): the mounts
#                       are then seen by nothing else, and go with it
#   chroot_umount ROOT  unmounts them again, in reverse order
#   chroot_run ROOT COMMAND...
#                       runs COMMAND in the chroot ROOT with those mounts,
#                       in a mount namespace of its own; its exit status

# A script (SCRIPT set) gets args.sh too; the shells of chroot_run and
# tools/bazel7, which source this file by its path, need only the chroot
# functions.
if [ -n "${SCRIPT-}" ]; then
  . "$(dirname "$0")/args.sh" || exit 2
fi

# This file, for the shell of chroot_run's namespace.
CHROOT_SH="$(dirname "$0")/sid.sh"

sid_archive() {
  archive=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    archive=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' "$f" | grep -v security | head -n 1)
    [ -z "$archive" ] || break
  done
  if [ -z "$archive" ]; then
    archive=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' | grep -v security | head -n 1)
  fi
  echo "$archive"
}

chroot_dir() {
  bazel7_dir=${RCUPOOL_BAZEL7:-${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/bazel7}
  bazel7_root="$bazel7_dir/root"
  bazel7_stamp="$bazel7_dir/.rcupool-bazel7"
}

chroot_need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "$SCRIPT: needs root (it makes and enters a chroot and mounts /proc," \
      "/sys and /dev in it): run it as root, e.g. with sudo" >&2
    exit 2
  fi
}

chroot_mount() {
  mount -t proc proc "$1/proc" &&
    mount -t sysfs sysfs "$1/sys" &&
    mount --rbind /dev "$1/dev"
}

chroot_umount() {
  for m in dev sys proc; do
    umount -R "$1/$m" 2>/dev/null || umount -R -l "$1/$m" 2>/dev/null || true
  done
}

chroot_run() {
  unshare -m --propagation private sh -c '
    . "$1"
    root=$2
    shift 2
    chroot_mount "$root" || exit 1
    chroot "$root" "$@"
    rc=$?
    chroot_umount "$root"
    exit $rc
  ' sh "$CHROOT_SH" "$@"
}
