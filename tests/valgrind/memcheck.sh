#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs a test binary under valgrind memcheck: any error, or a definite or
# indirect leak, fails the test (exit 99). Used as Bazel's --run_under:
#   bazel test --run_under=//tests/valgrind:memcheck //tests:all \
#     //tests/fault:all //tests/torture:thread_exit_test //tests/fuzz:corpus_test
# Not tests/fork: there a fork child of a multi-threaded test loses what the
# parent's other threads held (their std::thread states, reported as
# definitely lost). The library's own orphaned pthreadpools stay reachable
# in a fork child (lib/pool.c, POOL-5; default_env_test checks it here).
# Suppressions, if ever needed, name internals of liburcu and pthreadpool
# only (memcheck.supp; none are needed today).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
supp="$here/memcheck.supp"
[ -f "$supp" ] || supp="${BASH_SOURCE[0]}.runfiles/rcupool/tests/valgrind/memcheck.supp"
exec valgrind --quiet --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
  --fair-sched=yes --child-silent-after-fork=yes \
  --suppressions="$supp" "$@"
