#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# help_test.sh ENTRY_POINT...
#
# For each entry point of tools/ (a script or a program):
#   --help, -h        exit status 0, a "usage:" text naming the tool on
#                     stdout, nothing on stderr;
#   an unknown option, exit status 2, a message on stderr, nothing on
#   a stray word      stdout;
# and, after every one of these runs: no build, install or package tool was
# called, no temporary file was left, and benchmarks/results/ (with
# RESULTS.md and churn.png beside it) is byte for byte what it was.
#
# Scripts run from a copy of them in a scratch tree (scratch/tools/, with
# the tools/args.sh they source) whose benchmarks/ holds files of known
# content, so a script that goes wrong cannot reach this checkout.
# Stand-ins first on PATH (bazel, cmake, ninja, apt-get, sudo, dpkg-query,
# gnuplot, python3, pip) log each call and succeed, so a script that
# ignores its arguments goes on and gets caught at what it does next.
# Programs (no "#!") run where Bazel put them.
set -uo pipefail

# Under --config=tsan, TSAN_OPTIONS names its suppressions file relative to
# the test's working directory, which the tools below do not run in: give
# the path from here (the file is this test's data).
if [[ "${TSAN_OPTIONS:-}" == *suppressions=tests/tsan.supp* ]]; then
  TSAN_OPTIONS=${TSAN_OPTIONS//suppressions=tests\/tsan.supp/suppressions=$PWD\/tests\/tsan.supp}
  export TSAN_OPTIONS
fi

[ $# -gt 0 ] || { echo "usage: help_test.sh ENTRY_POINT..." >&2; exit 2; }

base=${TEST_TMPDIR:-$(mktemp -d)}
scratch="$base/scratch"
stubs="$base/stubs"
calls="$base/calls.log"
tmp="$base/tmp"
mkdir -p "$scratch/tools" "$scratch/benchmarks/results" "$stubs" "$tmp"
cp -L tools/args.sh "$scratch/tools/"
cp -L tools/sid.sh "$scratch/tools/"  # bazel7_chroot.sh and deps_newest.sh source it
cp -L tools/c_source.py "$scratch/tools/"  # atomics.py and include_graph.py import it
: > "$calls"

for tool in bazel cmake ninja apt-get apt sudo dpkg-query gnuplot python3 pip pip3; do
  printf '#!/bin/sh\necho "%s $*" >> "%s"\nexit 0\n' "$tool" "$calls" > "$stubs/$tool"
  chmod +x "$stubs/$tool"
done

# Known content in place of the committed results.
for f in read_bench.json churn_bench.json churn_timeline.dat; do
  echo "results of $f" > "$scratch/benchmarks/results/$f"
done
echo "# results" > "$scratch/benchmarks/RESULTS.md"
echo "picture" > "$scratch/benchmarks/churn.png"
cp -a "$scratch/benchmarks" "$base/benchmarks.orig"

tree_sum() {
  (cd "$scratch/benchmarks" && find . -print | LC_ALL=C sort &&
     find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
before=$(tree_sum)

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# check NAME EXPECTED_STATUS PROGRAM ARGS...
check() {
  local name=$1 want=$2 prog=$3
  shift 3
  local out="$base/out" err="$base/err" rc
  # A tool that ignores its arguments must not run for long: 60 s.
  env -u BUILD_WORKSPACE_DIRECTORY -u BUILD_WORKING_DIRECTORY \
      PATH="$stubs:$PATH" TMPDIR="$tmp" PYTHON="$stubs/python3" \
      timeout 60 "$prog" "$@" > "$out" 2> "$err" < /dev/null
  rc=$?
  local what="$name $*"
  [ "$rc" -eq "$want" ] || fail "$what: exit status $rc, want $want"
  if [ "$want" -eq 0 ]; then
    grep -qi "usage:" "$out" || fail "$what: no \"usage:\" on stdout"
    grep -q "$name" "$out" || fail "$what: the usage does not name $name"
    [ -s "$err" ] && fail "$what: wrote on stderr: $(head -c 300 "$err")"
  else
    [ -s "$err" ] || fail "$what: no message on stderr"
    [ -s "$out" ] && fail "$what: wrote on stdout: $(head -c 300 "$out")"
  fi
  if [ -s "$calls" ]; then
    fail "$what: ran $(tr '\n' ';' < "$calls")"
    : > "$calls"
  fi
  if [ -n "$(ls -A "$tmp")" ]; then
    fail "$what: left in TMPDIR: $(ls -A "$tmp" | tr '\n' ' ')"
    rm -rf "${tmp:?}"/* "$tmp"/.[!.]* 2>/dev/null
  fi
  if [ "$(tree_sum)" != "$before" ]; then
    fail "$what: changed benchmarks/"
    rm -rf "$scratch/benchmarks" && cp -a "$base/benchmarks.orig" "$scratch/benchmarks"
  fi
}

checked=0
for path in "$@"; do
  name=$(basename "$path")
  name=${name%.sh}
  if [ "$(head -c 2 "$path")" = "#!" ]; then
    prog="$scratch/tools/$(basename "$path")"
    cp -L "$path" "$prog" && chmod 755 "$prog"
  else
    prog="$PWD/$path"
  fi
  for help in --help -h; do
    check "$name" 0 "$prog" "$help"
  done
  check "$name" 2 "$prog" --no-such-option
  # A word where the tool takes none, or an option after a word.
  case "$name" in
    wheel|check_one_definer) check "$name" 2 "$prog" "$tmp/none" --no-such-option ;;
    *) check "$name" 2 "$prog" stray-word ;;
  esac
  checked=$((checked + 1))
done

if [ "$failures" -ne 0 ]; then
  echo "$failures failures over $checked entry points" >&2
  exit 1
fi
echo "PASS: $checked entry points"
