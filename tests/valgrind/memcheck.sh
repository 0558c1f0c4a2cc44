#!/bin/bash
# Runs a test binary under valgrind memcheck: any error, or a definite or
# indirect leak, fails the test (exit 99). Used as Bazel's --run_under:
#   bazel test --run_under=//tests/valgrind:memcheck --test_tag_filters=-torture,-fuzz,-fork \
#     //tests/...
# Suppressions name internals of liburcu and pthreadpool only (memcheck.supp).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
supp="$here/memcheck.supp"
[ -f "$supp" ] || supp="${BASH_SOURCE[0]}.runfiles/rcupool/tests/valgrind/memcheck.supp"
exec valgrind --quiet --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
  --fair-sched=yes --child-silent-after-fork=yes \
  --suppressions="$supp" "$@"
