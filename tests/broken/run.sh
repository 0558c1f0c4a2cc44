#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows that the tests guarding crashes and leaks do guard: each patch here
# turns the library into a known-broken policy, and the listed tests must
# then fail (under ASan, so a use after free is reported, not just likely).
#
#   destroy_on_reset.patch  the old pool is destroyed at reset, pins or not
#   keep_forever.patch      retired pools are never freed
#   midpoint_classes.patch  core classes by the rule before issue 37: a split
#                           at the midpoint of the first source's values, no
#                           MIDR, no hybrid lists (the zoo and the class
#                           cases of placement_test must catch it)
#
# Usage: tests/broken/run.sh [patch-name...]   (default: all)
# Prints one line per variant and "N passed, N failed" (a variant passes
# when every test expected to catch it failed). Exit 0 when all passed.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

declare -A expect
expect[destroy_on_reset]="//tests:pin_test //tests:reset_test //tests:parallel_test"
expect[keep_forever]="//tests:reclaim_test //tests:reset_test //tests:pin_test"
expect[midpoint_classes]="//tests/zoo:zoo_test //tests:placement_test"

variants=("$@")
[ ${#variants[@]} -eq 0 ] && variants=(destroy_on_reset keep_forever midpoint_classes)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
for v in "${variants[@]}"; do
  tree="$work/$v"
  mkdir -p "$tree"
  # The working tree as it is (tracked and new files), without Bazel's links.
  git ls-files -co --exclude-standard | tar -cf - -T - 2>/dev/null \
    | tar -xf - -C "$tree"
  if ! patch -s -p0 -d "$tree" < "tests/broken/$v.patch"; then
    echo "broken variant $v: patch no longer applies (update tests/broken/$v.patch)"
    failed=$((failed + 1))
    continue
  fi
  echo "=== broken variant $v: expecting ${expect[$v]} to fail"
  out=$(cd "$tree" && bazel --output_base="$work/ob-$v" test --config=asan \
        --test_timeout=60 ${expect[$v]} 2>&1)
  (cd "$tree" && bazel --output_base="$work/ob-$v" shutdown) >/dev/null 2>&1
  caught=1
  for t in ${expect[$v]}; do
    if echo "$out" | grep -E "^$t +(FAILED|TIMEOUT)" >/dev/null; then
      echo "  $t failed, as it must"
      log="$work/ob-$v/execroot/rcupool/bazel-out/k8-fastbuild/testlogs/${t#//}"
      log="${log/://}/test.log"
      grep -m3 -E "ERROR: AddressSanitizer|SUMMARY: AddressSanitizer|canary|Failure|FAILED  \]|timed out" \
        "$log" 2>/dev/null | sed 's/^/    /'
    else
      echo "  $t did NOT fail: the guard does not guard"
      caught=0
    fi
  done
  if [ $caught -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
