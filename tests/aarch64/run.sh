#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CI (.ci/run): rcupool for aarch64, under qemu-aarch64. From this checkout:
#   1. tools/setup.sh --arch aarch64 (cross compilers, qemu-user, the arm64
#      sysroot), tools/install.sh --arch aarch64 into a temporary prefix,
#      and `file` must call every installed library ARM aarch64;
#   2. tests/aarch64/guard.c built with aarch64-linux-gnu-gcc through
#      pkg-config against that prefix (docs/building.md's command) runs:
#      a pool, a pin, a reset, pthreadpool on the pin's pool, a warm width
#      guard; and tests/cmake/pkgconfig/xnn.c through rcupool-xnnpack;
#   3. tests/aarch64/CMakeLists.txt cross-builds the tests (the Bazel tests'
#      own sources) against the install and the sysroot's GoogleTest, and
#      each runs under `qemu-aarch64 -L SYSROOT` with a time limit. The
#      tests that do not run here are listed below with the reason.
# One line per check and, last, "N passed, N failed". Options through the
# environment: AARCH64_TORTURE_SECONDS (torture test, default 20),
# AARCH64_BUILD (a build folder to keep and reuse; default a temporary one),
# AARCH64_ONLY=pkgconfig (stop after 1 and 2). With a kept build,
# tests/aarch64/stress.sh AARCH64_BUILD/tests OUT runs the ExecuTorch
# stand-in again and again under qemu and tallies the exit statuses.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-aarch64.XXXXXX")
build=${AARCH64_BUILD:-$tmp/build}
trap 'rm -rf "$tmp"' EXIT

check() {  # check NAME COMMAND...
  local name=$1; shift
  local start=$SECONDS
  if "$@" > "$tmp/out" 2>&1; then
    passed=$((passed + 1)); echo "aarch64: $name PASSED ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); tail -n 60 "$tmp/out"
    echo "aarch64: $name FAILED ($((SECONDS - start)) s)"
  fi
}
finish() {
  # A test killed at its time limit can leave a hung process of its own (a
  # fork of the test, started by its absolute path): none outlives this.
  local left
  left=$(pgrep -f -- "$build/tests/" | wc -l)
  if [ "$left" -gt 0 ]; then
    echo "aarch64: killing $left process(es) the tests left behind"
    pkill -KILL -f -- "$build/tests/"
  fi
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

if ! sysroot=$(tools/setup.sh --arch aarch64 --print-sysroot | tail -n 1) ||
   [ ! -d "$sysroot" ]; then
  echo "aarch64: tools/setup.sh --arch aarch64 FAILED"
  failed=$((failed + 1)); finish
fi
prefix="$build/prefix"

# 1. The install, and what `file` says of it.
check "install --arch aarch64" tools/install.sh --arch aarch64 \
  --prefix "$prefix" --build "$build/lib"
elf_is_aarch64() {
  local lib n=0
  for lib in "$prefix"/lib/librcupool*.so.0; do
    file -L "$lib"
    file -L "$lib" | grep -q 'ELF 64-bit LSB shared object, ARM aarch64' || return 1
    n=$((n + 1))
  done
  [ "$n" -eq 3 ]  # the core, the XNNPACK backend, the ExecuTorch stand-in
}
check "installed libraries are ARM aarch64 ELF" elf_is_aarch64

# 2. A C program through pkg-config, as docs/building.md writes it, in a
# shell that ran the native section's `export PKG_CONFIG_PATH=...` before
# (here a folder whose rcupool.pc names the same headers and a library no
# link can find: the command must not read it).
guard() (
  set -e
  S=$sysroot P=$prefix
  cp tests/aarch64/guard.c "$tmp/guard.c"
  mkdir -p "$tmp/native-pc"
  printf '%s\n' 'Name: rcupool' 'Description: a native install' 'Version: 0' \
    'Libs: -lrcupool_of_the_native_pc_file' "Cflags: -I$P/include" \
    > "$tmp/native-pc/rcupool.pc"
  export PKG_CONFIG_PATH=$tmp/native-pc
  cd "$tmp"
  # docs/building.md: begin
  unset PKG_CONFIG_PATH  # the native section's, if this shell exported it
  export PKG_CONFIG_LIBDIR=$P/lib/pkgconfig
  aarch64-linux-gnu-gcc -o guard guard.c $(pkg-config --cflags --libs rcupool) \
    -I"$S/usr/include" -I"$S/usr/include/aarch64-linux-gnu" \
    -L"$S/usr/lib/aarch64-linux-gnu" -Wl,-rpath-link,"$S/usr/lib/aarch64-linux-gnu" \
    -Wl,-rpath,"$P/lib"
  qemu-aarch64 -L "$S" ./guard
  # docs/building.md: end
  file guard | grep 'ARM aarch64'
)
check "pkg-config C program under qemu (pool, pin, reset, pthreadpool on the pin's pool, warm width guard)" guard
# The same command with rcupool-xnnpack: tests/cmake/pkgconfig/xnn.c builds
# an XNNPACK subgraph and runs it through the backend.
xnn() (
  set -e
  S=$sysroot P=$prefix
  cp tests/cmake/pkgconfig/xnn.c tests/cmake/pkgconfig/tiny_model.h "$tmp/"
  cd "$tmp"
  unset PKG_CONFIG_PATH
  export PKG_CONFIG_LIBDIR=$P/lib/pkgconfig
  aarch64-linux-gnu-gcc -o xnn xnn.c $(pkg-config --cflags --libs rcupool-xnnpack) \
    -I"$S/usr/include" -I"$S/usr/include/aarch64-linux-gnu" \
    -L"$S/usr/lib/aarch64-linux-gnu" -Wl,-rpath-link,"$S/usr/lib/aarch64-linux-gnu" \
    -Wl,-rpath,"$P/lib" -lm
  qemu-aarch64 -L "$S" ./xnn
  file xnn | grep 'ARM aarch64'
)
check "pkg-config XNNPACK program under qemu (rcupool-xnnpack)" xnn
# docs/building.md gives those lines as they are.
doc_has_command() {
  local line missing=0
  while IFS= read -r line; do
    line=$(echo "$line" | sed 's/^ *//')
    grep -qxF -- "$line" <(sed 's/^ *//' docs/building.md) ||
      { echo "not in docs/building.md: $line"; missing=1; }
  done < <(sed -n '/# docs\/building.md: begin/,/# docs\/building.md: end/p' \
             tests/aarch64/run.sh | sed '1d;$d')
  [ "$missing" -eq 0 ]
}
check "docs/building.md gives the pkg-config command" doc_has_command
[ "${AARCH64_ONLY:-}" = pkgconfig ] && finish

# 3. The tests.
build_tests() {
  cmake -S tests/aarch64 -B "$build/tests" -GNinja \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
    -DRCUPOOL_SYSROOT="$sysroot" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build "$build/tests" --parallel 2
}
check "tests build (aarch64-linux-gnu-g++, sysroot's GoogleTest)" build_tests

export QEMU_LD_PREFIX=$sysroot
# qemu-aarch64 7.2 allocates its translation-block tree nodes with GLib's
# slice allocator (GLib 2.74), whose locks no fork handler takes: a guest
# fork while another thread holds one (translating new code, for one)
# leaves the child's copy held, and the child hangs in its next
# translation (g_slice_alloc under tcg_tb_insert; tests/fork:parallel_test's
# forking tasks, 3 runs in about 600 with the machine busy). G_SLICE=always-malloc
# makes those allocations glibc malloc's, whose locks fork() does take.
export G_SLICE=always-malloc
# Tests that re-run themselves in a fresh process (RCUPOOL_RUN_IN_CHILD)
# start the copy through qemu (tests/support/in_child.cc).
RCUPOOL_TEST_EMULATOR=$(command -v qemu-aarch64)
export RCUPOOL_TEST_EMULATOR
run_test() {  # run_test SECONDS BINARY [VAR=VALUE...]
  local limit=$1 exe=$2 rc; shift 2
  [ -x "$build/tests/$exe" ] || { echo "not built: $exe"; return 1; }
  (cd "$build/tests" && env "$@" timeout -k 10 "$limit" qemu-aarch64 "./$exe") \
    > "$tmp/test_out" 2>&1
  rc=$?
  cat "$tmp/test_out"
  # A filter that leaves nothing is no pass.
  if grep -q '^\[==========\] Running 0 tests' "$tmp/test_out"; then
    echo "ran no test"
    return 1
  fi
  return $rc
}
torture_seconds=${AARCH64_TORTURE_SECONDS:-20}
# The fork cases whose child starts a thread (a pool, the reclaim thread)
# while the parent has several: every case of tests/fork:fork_test (not
# run here at all), some of the others.
FORK_CHILD_STARTS_THREADS=(
  RcupoolWarm.ForkChildFreesInheritedWarmPoolAndStartsItsOwnForThatWidth
  RcupoolDefault.ForkChildCanResetAndRunParallelWorkAtOnce
  RcupoolDefault.ForkChildResetThenBarrierCompletes
  RcupoolDefault.ForkChildResetToEachCountReportsThatCount
  RcupoolDefault.ForkChildWhosePoolCreationFailsRunsWorkOnCallingThread
  RcupoolDefault.ForkDuringConcurrentResetsPinsAndReadsChildAlwaysWorks
  RcupoolDefault.ForkRacingFirstCallChildNeitherHangsNorCrashes
  RcupoolDefault.PinTakenBeforeForkRunsInlineInChildAndUnpinsCleanly
  RcupoolFork.PrivateManagerFreesPendingAtForkDoNotCrashChild
  RcupoolDefault.ForkChildHandlerCallsNoHookAndChildCanSetLog
  RcupoolLogHook.TakingAppLockHeldByForkingThreadNeverDeadlocksFork
  RcupoolLogHook.ThatEntersSectionWhileOtherThreadForksNeverDeadlocks
  RcupoolLogHook.ThatResetsOnEveryRecordWhileOtherThreadForksNeverDeadlocks
  RcupoolParallelize1d.InsideSectionWithTasksInSectionsWhileOtherThreadForksNeverDeadlocks
)

# The examples (examples/BUILD).
for e in hello cpp_app xnnpack_method executorch_backend backend_gemm; do
  check "examples/$e" run_test 120 "example_$e"
done
# tests/: the core (manager, read side, pins, resets, reclamation and
# rcupool_barrier, warm widths, parallel work, the log), the default size
# when cpuinfo fails; tests/fork; tests/torture (bounded); tests/xnnpack;
# tests/compat/executorch.
# qemu-aarch64 7.2 aborts a fork child that starts a thread when its
# parent had several (tests/aarch64/fork_thread.c shows it without
# rcupool): the cases whose child does run natively only.
fork_child_threads=$(IFS=:; echo "${FORK_CHILD_STARTS_THREADS[*]}")
fork_filter="-$fork_child_threads"
if (cd "$build/tests" && timeout 60 qemu-aarch64 ./fork_thread) > "$tmp/fork_thread" 2>&1; then
  fork_filter=""
  echo "aarch64: note: qemu-aarch64 now starts threads in a fork child:"
  echo "  run every case here (FORK_CHILD_STARTS_THREADS, tests/fork:fork_test)"
fi
for t in manager read pin pin_sized reset reclaim log version cpus_fallback \
    placement follow finalize warm_lifetime; do
  check "tests:${t}_test" run_test 300 "${t}_test"
done
check "tests:warm_test${fork_filter:+ (but the fork case listed below)}" \
  run_test 300 warm_test GTEST_FILTER="$fork_filter"
# Death tests re-execute the binary (GoogleTest's "threadsafe" style):
# qemu-user cannot exec an aarch64 binary (no binfmt_misc).
check "tests:parallel_test (but *DeathTest.*)" run_test 300 parallel_test \
  GTEST_FILTER='-*DeathTest.*'
fork_tests="log_hook_test parallel_test"
[ -n "$fork_filter" ] || fork_tests="fork_test $fork_tests"
for t in $fork_tests; do
  check "tests/fork:$t${fork_filter:+ (but the cases listed below)}" \
    run_test 300 "fork_$t" GTEST_FILTER="$fork_filter"
done
check "tests/torture:torture_test (${torture_seconds} s)" \
  run_test $((torture_seconds + 120)) torture_torture_test \
  RCUPOOL_TORTURE_SECONDS="$torture_seconds"
for t in thread_exit_test sized_churn_test; do
  check "tests/torture:$t" run_test 300 "torture_$t"
done
for t in invoke lifetime pool idle errors sized_modules; do
  check "tests/xnnpack:${t}_test" run_test 300 "xnnpack_${t}_test"
done
for t in api guard backend churn idle; do
  env=()
  case $t in api|guard) env=(RCUPOOL_NUM_THREADS=3) ;; esac  # as their BUILD
  check "tests/compat/executorch:${t}_test" run_test 300 "et_${t}_test" "${env[@]}"
done

# Not run under qemu-aarch64, and why (each runs in the native stages):
cat <<'EOF'
aarch64: not run here:
  tests:parallel_test's death tests (RcupoolParallelize1dDeathTest.*,
    RcupoolScopeEnterDeathTest.*): GoogleTest re-executes the binary for
    them, which qemu-user cannot do (no binfmt_misc)
  tests/fork:fork_test (every case) and the other cases of
    FORK_CHILD_STARTS_THREADS (tests:warm_test's fork case, 4 of
    tests/fork:log_hook_test, 1 of tests/fork:parallel_test): their fork
    child starts a thread while the parent had several, which
    qemu-aarch64 7.2 aborts (tests/aarch64/fork_thread.c, no rcupool)
  tests/xnnpack:unsafe_control_test, tests/compat/executorch:backend_child_test:
    their child is a separate program found through Bazel's runfiles, and a
    hang or use-after-free is what they expect of it (an emulated hang
    costs their whole timeout); the fixed path they compare with runs above
  tests/compat/executorch:dlopen_test, tests/shared:*: Bazel-built shared
    objects at runfiles paths, and tools/check_one_definer reads host ELF
  tests:cpus_test: runs a probe under taskset and points cgroup files at
    fake trees; the emulated CPU count is the host's (docs/building.md)
  tests/torture:fork_torture_test: its fork children start pools while
    the parent's threads run (the qemu abort above)
  tests/fault, tests/fuzz, tests/python, tests/valgrind, the sanitizer
    configs: no arm64 libFuzzer/ASan/TSan run-time or Python in the sysroot
EOF
finish
