/* SPDX-License-Identifier: LGPL-2.1-or-later */
// GoogleTest side of tools/child_process.h: run part of a test in
// a child process with a timeout, so that a hang or a crash there is a
// failure of the test rather than a stuck or lost test run. No rcupool:
// tests/shared's host, which loads rcupool only through dlopen, uses it.
#ifndef RCUPOOL_TESTS_SUPPORT_IN_CHILD_H
#define RCUPOOL_TESTS_SUPPORT_IN_CHILD_H

#include <stdio.h>
#include <string.h>

#include <gtest/gtest.h>

#include "tools/child_process.h"

namespace rcupool_test {

// Forks; the child runs body() (returning int) and _exit()s with its value.
// A child still running after timeout_s is killed. Fails the test (not
// fatally) when fork() fails; the result then reads as killed by signal 0.
template <typename Body>
child_result_t ForkChild(Body body, int timeout_s) {
  child_result_t r{};
  auto run = [](void *arg) -> int { return (*static_cast<Body *>(arg))(); };
  int err = child_run_function(run, &body, timeout_s, &r);
  if (err != 0) {
    ADD_FAILURE() << "fork: " << strerror(-err);
    r.signaled = 1;
  }
  return r;
}

// ForkChild(), reduced to the child's exit code, or -1 when it died of a
// signal or hung (said on stderr).
template <typename Body>
int ForkAndWait(Body body, int timeout_s = 20) {
  child_result_t r = ForkChild(body, timeout_s);
  if (r.exited) return r.exit_code;
  char what[256];
  child_describe(&r, what, sizeof what);
  fprintf(stderr, "child: %s\n", what);
  return -1;
}

// Tests that need a fresh process (threads counted, extensions loaded, a
// limit set) run in a new copy of this test program, filtered to the
// current test: the parent calls RerunThisTestInChild() and checks the
// result; the copy (InChild() true) runs the body. The copy writes to this
// process's stdout/stderr, none of the test runner's result or shard files,
// and is killed after timeout_s.
bool InChild();
child_result_t RerunThisTestInChild(int timeout_s);

}  // namespace rcupool_test

// Runs the rest of the test body in a fresh copy of the program (see above);
// the copy must exit 0 within timeout_s.
#define RCUPOOL_RUN_IN_CHILD(timeout_s)                                       \
  do {                                                                        \
    if (!::rcupool_test::InChild()) {                                         \
      child_result_t r_ = ::rcupool_test::RerunThisTestInChild(timeout_s);    \
      EXPECT_FALSE(r_.timed_out) << "the child did not finish in "            \
                                 << timeout_s << " s (killed)";               \
      EXPECT_TRUE(r_.exited)                                                  \
          << "the child died of signal " << r_.term_signal;                   \
      EXPECT_EQ(r_.exit_code, 0) << "the child failed (its output is above)"; \
      return;                                                                 \
    }                                                                         \
  } while (0)

// Skips a test that starts threads in a fork child under ThreadSanitizer,
// which cannot follow such a child (it ends the child, or with
// die_after_fork=0 aborts on "dup thread with used id" when a new thread
// reuses a parent thread's id); the plain and asan configurations run it.
#if defined(__SANITIZE_THREAD__)
#define SKIP_UNDER_TSAN() \
  GTEST_SKIP() << "ThreadSanitizer does not support threads in a fork child"
#else
#define SKIP_UNDER_TSAN() ((void)0)
#endif

// Skips a test that forks while other threads allocate under gcc 12's
// AddressSanitizer, which does not lock its allocator around fork(): such a
// child can inherit an allocator lock held for ever
// (tests/torture/fork_torture_test.cc says more). The plain and memb builds
// run it.
#if defined(__SANITIZE_ADDRESS__)
#define SKIP_FORK_DURING_CHURN_UNDER_ASAN() \
  GTEST_SKIP() << "ASan's allocator is not fork-safe with concurrent allocation"
#else
#define SKIP_FORK_DURING_CHURN_UNDER_ASAN() ((void)0)
#endif

#endif  // RCUPOOL_TESTS_SUPPORT_IN_CHILD_H
