#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# CI (.ci/run): rcupool on the newest Debian dependencies, beside Debian
# 12's. From this checkout:
#   1. tools/setup.sh --deps newest (sid's pthreadpool, cpuinfo and, when
#      its source can be had, liburcu, built into the user's cache folder),
#      then tools/install.sh --deps newest into a temporary prefix;
#   2. from outside the tree: the installed libraries' RUNPATH and NEEDED
#      (readelf, ldd); tests/newest/one_pthreadpool.c built through
#      pkg-config with XNNPACK linked first, which must load one
#      pthreadpool, the prefix's; the find_package(rcupool) consumer
#      (tests/cmake/consumer_test.sh shared) against the install;
#   3. tests/aarch64/CMakeLists.txt builds the tests (the Bazel tests' own
#      sources) natively against the install, and the core, placement,
#      fork, XNNPACK and ExecuTorch stand-in tests run, each with a time
#      limit, with tests/newest's threads_count_test, executor_test and
#      views_test (rcupool's pools as views over its own threads),
#      host_patterns_stress_test (a host's patterns at once on the views),
#      and tests/workers/names_test (the names of a set's threads);
#   4. the executor's tests (executor_test, views_test,
#      host_patterns_stress_test) under ThreadSanitizer and under
#      AddressSanitizer with UBSan: each against an install instrumented
#      with its sanitizer (tools/install.sh --sanitize), built with it.
# One line per check and, last, "N passed, N failed". NEWEST_BUILD: a
# build folder to keep and reuse (default a temporary one).
set -uo pipefail
cd "$(dirname "$0")/../.."
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rcupool-newest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

check() {  # check NAME COMMAND...
  local name=$1; shift
  local start=$SECONDS
  if "$@" > "$tmp/out" 2>&1; then
    passed=$((passed + 1)); echo "newest: $name PASSED ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); tail -n 60 "$tmp/out"
    echo "newest: $name FAILED ($((SECONDS - start)) s)"
  fi
}
finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

# Its progress lines shown (nothing when the set is built); then where it is.
if ! tools/setup.sh --deps newest ||
   ! deps=$(tools/setup.sh --deps newest --print-prefix | tail -n 1) ||
   [ ! -f "$deps/.rcupool-deps" ]; then
  echo "newest: tools/setup.sh --deps newest FAILED"
  failed=$((failed + 1)); finish
fi
echo "newest: the set: $(tail -n 1 "$deps/.rcupool-deps")"
build=${NEWEST_BUILD:-$tmp/build}
prefix="$build/prefix"

# 1. The install.
check "install --deps newest" tools/install.sh --deps newest \
  --prefix "$prefix" --build "$build/lib"

# 2. What the installed libraries need and where they find it.
runpath() {
  local lib
  for lib in "$prefix"/lib/librcupool.so.0 "$prefix"/lib/librcupool_xnnpack.so.0 \
      "$prefix"/lib/librcupool_executorch.so.0; do
    readelf -d "$lib" | grep -E 'NEEDED|RUNPATH'
    readelf -d "$lib" | grep 'RUNPATH' | grep -qF "$deps/lib" ||
      { echo "$lib: no RUNPATH to $deps/lib"; return 1; }
    readelf -d "$lib" | grep -q 'NEEDED.*libcpuinfo' &&
      { echo "$lib needs a libcpuinfo (the newer one is inside librcupool)"; return 1; }
  done
  readelf -d "$prefix/lib/librcupool.so.0" | grep -q 'NEEDED.*\[libpthreadpool.so.0\]' ||
    { echo "librcupool.so.0 does not need libpthreadpool.so.0"; return 1; }
  ldd "$prefix/lib/librcupool_xnnpack.so.0" | tee "$tmp/ldd"
  [ "$(grep -c 'libpthreadpool' "$tmp/ldd")" -eq 1 ] &&
    grep -qF "libpthreadpool.so.0 => $deps/lib/libpthreadpool.so.0" "$tmp/ldd"
}
check "RUNPATH to the set, one libpthreadpool.so.0 (readelf, ldd)" runpath

one_pthreadpool() (
  set -e
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
  # XNNPACK first on the line: its libpthreadpool.so.0 must still be the
  # set's, which the program itself needs (rcupool.pc).
  gcc -Wall -Wextra -Werror -I. -o "$tmp/one_pthreadpool" tests/newest/one_pthreadpool.c \
    -lXNNPACK $(pkg-config --cflags --libs rcupool-xnnpack) -lm -Wl,-rpath,"$prefix/lib"
  "$tmp/one_pthreadpool" "$deps"
  LD_DEBUG=libs "$tmp/one_pthreadpool" "$deps" 2>&1 | grep 'calling init:.*pthreadpool'
)
check "pkg-config program: an XNNPACK method on rcupool, one pthreadpool loaded" one_pthreadpool
check "find_package(rcupool) consumer (shared)" \
  tests/cmake/consumer_test.sh shared "$prefix"

# 3. The tests.
TESTS="manager_test read_test pin_test pin_sized_test reset_test reclaim_test
warm_test parallel_test log_test version_test cpus_fallback_test
placement_test follow_test finalize_test warm_lifetime_test
fork_fork_test fork_log_hook_test fork_parallel_test
xnnpack_invoke_test xnnpack_lifetime_test xnnpack_pool_test xnnpack_idle_test
xnnpack_errors_test xnnpack_sized_modules_test
et_api_test et_guard_test et_backend_test et_churn_test et_idle_test
newest_threads_count_test newest_executor_test newest_views_test
newest_host_patterns_stress_test workers_names_test"
generator=()
command -v ninja >/dev/null && generator=(-GNinja)
# shellcheck disable=SC2086  # TARGETS: a list of words
build_tests() {  # build_tests FOLDER PREFIX TARGETS [CMAKE_ARG...]
  local folder=$1 from=$2 targets=$3; shift 3
  cmake -S tests/aarch64 -B "$folder" "${generator[@]}" \
    -DCMAKE_PREFIX_PATH="$from" "$@" &&
    cmake --build "$folder" --parallel 2 --target $targets
}
check "tests build against the install" \
  build_tests "$build/tests" "$prefix" "$TESTS" -DCMAKE_BUILD_TYPE=Release

tests=$build/tests  # run_test's folder
run_under=()        # and what it runs each test under
run_test() {  # run_test SECONDS BINARY [VAR=VALUE...]
  local limit=$1 exe=$2 rc; shift 2
  [ -x "$tests/$exe" ] || { echo "not built: $exe"; return 1; }
  (cd "$tests" && env "$@" timeout -k 10 "$limit" "${run_under[@]}" "./$exe") \
    > "$tmp/test_out" 2>&1
  rc=$?
  cat "$tmp/test_out"
  # A filter that leaves nothing is no pass; nor is threads_count_test or
  # views_test skipping (they skip only on a pthreadpool without the
  # executor API; executor_test skips its Debian 12 case by design).
  if grep -q '^\[==========\] Running 0 tests' "$tmp/test_out" ||
     { case $exe in
         newest_threads_count_test|newest_views_test|newest_host_patterns_stress_test)
           true ;;
         *) false ;;
       esac &&
       grep -q '^\[  SKIPPED \]' "$tmp/test_out"; }; then
    echo "ran no test, or skipped on a pthreadpool without pthreadpool_set_threads_count"
    return 1
  fi
  return $rc
}
for t in $TESTS; do
  env=()
  case $t in et_api_test|et_guard_test) env=(RCUPOOL_NUM_THREADS=3) ;; esac  # as their BUILD
  check "$t" run_test 300 "$t" "${env[@]}"
done

# 4. The executor's tests under each sanitizer, on an install instrumented
# with it (the options of .bazelrc's asan and tsan configurations).
SANITIZED="newest_executor_test newest_views_test newest_host_patterns_stress_test"
for san in thread address; do
  case $san in
    thread) flags="-fsanitize=thread"; run_under=(setarch -R)
            env=("TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:history_size=7:suppressions=$PWD/tests/tsan.supp") ;;
    address) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined"; run_under=()
             env=("ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1"
                  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1") ;;
  esac
  tests=$build/tests-$san
  check "install --deps newest --sanitize $san" tools/install.sh --deps newest \
    --sanitize "$san" --prefix "$build/prefix-$san" --build "$build/lib-$san"
  check "$san: the executor's tests build against that install" \
    build_tests "$tests" "$build/prefix-$san" "$SANITIZED" -DCMAKE_BUILD_TYPE= \
    "-DCMAKE_C_FLAGS=-O1 -g -fno-omit-frame-pointer $flags" \
    "-DCMAKE_CXX_FLAGS=-O1 -g -fno-omit-frame-pointer $flags" \
    "-DCMAKE_EXE_LINKER_FLAGS=$flags"
  for t in $SANITIZED; do
    check "$san: $t" run_test 300 "$t" "${env[@]}"
  done
done
finish
