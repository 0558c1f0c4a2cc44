#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes (or refreshes) a Debian sid chroot with Bazel 7 for rcupool's bzlmod
# build (tools/setup.sh --bazel 7 runs it; tools/bazel7 runs Bazel in it).
# Debian 12 has only Bazel 4.2.3; sid's bazel-bootstrap (7.7.1) needs sid's
# C library and JDK, so it runs in a chroot that debootstrap makes from the
# archive the machine's apt sources name. In it: Bazel 7, sid's liburcu,
# pthreadpool (with the executor API), cpuinfo and XNNPACK, GoogleTest,
# Google Benchmark and the host tools rcupool's tests run; Debian's Bazel
# modules (bazel-* packages, overridden by Debian's /etc/bazel/bazelrc), and
# the modules Bazel's bazel_tools asks for that Debian does not package,
# all as --override_module lines of the chroot's /etc/bazel.bazelrc, and
# googletest over sid's prebuilt libraries, in a local registry that file
# names: a bzlmod workspace then resolves fully offline.
# Prints a line per long step, and nothing when the chroot is ready.
# Needs root (exit 2 without).
#
# Usage:
#   tools/bazel7_chroot.sh [--check] [--print]
#
#   --check  only say whether the chroot is ready; exit 1 if not
#   --print  print the chroot's root folder as the last line
#
# Where: $RCUPOOL_BAZEL7 when set, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/rcupool/bazel7; the chroot is its folder
# root/ (about 2 GB), the file .rcupool-bazel7 says what it was made with.
# When the package list or the modules below change it is refreshed in
# place (apt-get install, modules written again); remove the folder to make
# it anew from today's sid.
set -eu

SCRIPT=bazel7_chroot.sh
. "$(dirname "$0")/sid.sh" || exit 2 # and args.sh
usage() { usage_from_header; }

parse_check_print "$@"
chroot_need_root
chroot_dir

# sid's packages: Bazel 7 and its Debian modules, rcupool's dependencies,
# the test frameworks and the host tools of rcupool's tests (compilers,
# spin, CMake, Python with pytest and wheel building, valgrind, binutils).
PACKAGES="bazel-bootstrap g++ clang liburcu-dev libpthreadpool-dev
libcpuinfo-dev libxnnpack-dev libgtest-dev libgmock-dev libbenchmark-dev
zlib1g-dev pkg-config cmake ninja-build binutils file python3 python3-dev
python3-pip python3-pytest python3-setuptools python3-threadpoolctl
python3-venv python3-wheel spin valgrind util-linux procps"
# Bumped when the modules or the bazelrc written below change.
MODULES=5
# The versions of the registry's googletest module a bazel_dep may name.
GOOGLETEST_VERSIONS="1.10.0 1.11.0 1.12.1 1.13.0 1.14.0 1.14.0.bcr.1 1.15.0 1.15.2 1.16.0 1.17.0"
want="$(echo $PACKAGES) modules $MODULES"

stamp_ready "$bazel7_stamp" "$want" "$bazel7_root" \
  "missing or out of date: the Bazel 7 chroot $bazel7_root (tools/setup.sh --bazel 7 makes it)"
steps "bazel 7" 4
mkdir -p "$bazel7_dir"
log="$bazel7_dir/setup.log"
: > "$log"
# run COMMAND...: its output goes to the log; on failure its end is shown.
run() {
  if ! "$@" >> "$log" 2>&1; then
    tail -n 30 "$log" >&2
    fail "failed: $* (log: $log)"
  fi
}

if [ ! -x "$bazel7_root/usr/bin/apt-get" ] || [ ! -f "$bazel7_dir/.debootstrap" ]; then
  command -v debootstrap >/dev/null 2>&1 ||
    fail "debootstrap is missing (tools/setup.sh --bazel 7 installs it)"
  archive=$(sid_archive)
  [ -n "$archive" ] || fail "no Debian archive named in /etc/apt/sources.list{,.d}"
  say "debootstrap sid from $archive into $bazel7_root (about 1 min)"
  rm -rf "$bazel7_root" "$bazel7_dir/.debootstrap" "$bazel7_stamp"
  mkdir -p "$bazel7_root"
  run debootstrap --variant=minbase sid "$bazel7_root" "$archive"
  touch "$bazel7_dir/.debootstrap"
else
  say "sid chroot $bazel7_root is there"
fi

# This machine's clock may be ahead of the archive's Release files.
echo 'Acquire::Check-Valid-Until "false";' > "$bazel7_root/etc/apt/apt.conf.d/99rcupool"
cp /etc/resolv.conf "$bazel7_root/etc/resolv.conf"

say "sid packages: Bazel 7 and rcupool's dependencies (about 2 min the first time)"
export DEBIAN_FRONTEND=noninteractive
run chroot_run "$bazel7_root" apt-get update
run chroot_run "$bazel7_root" apt-get install -y --no-install-recommends $PACKAGES
run chroot_run "$bazel7_root" apt-get clean

say "modules for an offline bzlmod workspace, /etc/bazel.bazelrc"
mods=/usr/local/share/rcupool/bazel-modules
M="$bazel7_root$mods"
rm -rf "$M"
mkdir -p "$M"
# module NAME [cc]: the folder of module NAME with its MODULE.bazel (a
# bazel_dep on rules_cc with cc) and an empty BUILD.bazel.
module() {
  mkdir -p "$M/$1"
  echo "module(name = \"$1\")" > "$M/$1/MODULE.bazel"
  [ "${2-}" != cc ] ||
    printf '\nbazel_dep(name = "rules_cc", version = "0.0.11")\n' >> "$M/$1/MODULE.bazel"
  : > "$M/$1/BUILD.bazel"
}
# Empty modules under the names Bazel's bazel_tools asks for that no
# Debian package provides (it never builds them here).
module apple_support
module protobuf
module buildozer
# bazel_tools uses the extension buildozer_binary (repository
# buildozer_binary), as upstream's module has it; here an empty one.
cat > "$M/buildozer/buildozer_binary.bzl" <<'EOF'
def _empty_impl(rctx):
    rctx.file("BUILD.bazel", "")

_empty = repository_rule(implementation = _empty_impl)

def _buildozer_binary_impl(mctx):
    _empty(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _buildozer_binary_impl)
EOF
# BUILD.bazel's head: rules_cc's load, a comment, public targets.
cc_head() {
  printf 'load("@rules_cc//cc:defs.bzl", "cc_library")\n\n# %s\n' "$1"
  printf 'package(default_visibility = ["//visibility:public"])\n'
}
# linked NAME "LINKOPTS" [DEP]: a cc_library that only links.
linked() {
  printf '\ncc_library(\n    name = "%s",\n    linkopts = [' "$1"
  sep=""
  for o in $2; do
    printf '%s"%s"' "$sep" "$o"
    sep=", "
  done
  printf '],\n'
  [ -z "${3-}" ] || printf '    deps = [":%s"],\n' "$3"
  printf ')\n'
}
# alias_to NAME ACTUAL
alias_to() {
  printf '\nalias(\n    name = "%s",\n    actual = ":%s",\n)\n' "$1" "$2"
}
module zlib cc
{
  cc_head "sid's zlib1g-dev."
  linked zlib "-lz"
  alias_to z zlib
} > "$M/zlib/BUILD.bazel"
# GoogleTest under its registry name and targets, over sid's prebuilt
# libraries (headers in /usr/include).
module googletest cc
{
  cc_head "sid's libgtest-dev and libgmock-dev. As upstream's, gtest includes gmock."
  linked gtest "-lgmock -lgtest -pthread"
  linked gtest_main "-lgtest_main" gtest
  alias_to gmock gtest
  linked gmock_main "-lgmock_main" gtest
} > "$M/googletest/BUILD.bazel"
# A registry of its own that serves that module under the registry's
# versions of GoogleTest: an --override_module of a module that is not in a
# workspace's graph is an error, while a registry is read only for the
# modules a workspace asks for. A version it lacks fails naming it.
reg=/usr/local/share/rcupool/bazel-registry
R="$bazel7_root$reg"
rm -rf "$R"
mkdir -p "$R/modules/googletest"
echo "{\"module_base_path\": \"$mods\"}" > "$R/bazel_registry.json"
versions=""
for v in $GOOGLETEST_VERSIONS; do
  mkdir -p "$R/modules/googletest/$v"
  printf 'module(name = "googletest", version = "%s")\n\nbazel_dep(name = "rules_cc", version = "0.0.11")\n' \
    "$v" > "$R/modules/googletest/$v/MODULE.bazel"
  echo '{"type": "local_path", "path": "googletest"}' > "$R/modules/googletest/$v/source.json"
  versions="$versions${versions:+, }\"$v\""
done
echo "{\"versions\": [$versions], \"yanked_versions\": {}, \"maintainers\": []}" \
  > "$R/modules/googletest/metadata.json"
{
  echo "# Written by rcupool's tools/bazel7_chroot.sh: the modules Debian does not"
  echo "# package, so that a bzlmod workspace resolves without a registry."
  for name in apple_support protobuf buildozer zlib; do
    echo "common --override_module=$name=$mods/$name"
  done
  echo "# GoogleTest (any of $(echo $GOOGLETEST_VERSIONS)); nothing else is served."
  echo "common --registry=file://$reg"
  echo "# Python tests run from the source tree: no __pycache__ written there."
  echo "test --test_env=PYTHONDONTWRITEBYTECODE=1"
  echo "# Bzlmod only, as Bazel 8 and later: no WORKSPACE, no WORKSPACE suffix"
  echo "# (whose repositories Bazel 7 would try to download)."
  echo "common --noenable_workspace"
  echo "# The workspace is shared with the host's Bazel: leave its bazel-*"
  echo "# symlinks alone."
  echo "build --experimental_convenience_symlinks=ignore"
} > "$bazel7_root/etc/bazel.bazelrc"

say "check: bazel --version in the chroot"
version=$(chroot_run "$bazel7_root" env HOME=/root bazel --version 2>>"$log") ||
  fail "bazel --version failed in the chroot (log: $log)"
case "$version" in
  "bazel 7."*) ;;
  *) fail "the chroot's Bazel is '$version', not 7.x" ;;
esac
{
  echo "$want"
  echo "$version; $(date -u +%Y-%m-%d)"
} > "$bazel7_stamp"
[ -z "$print" ] || echo "$bazel7_root"
