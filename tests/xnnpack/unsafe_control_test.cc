// SPDX-License-Identifier: LGPL-2.1-or-later
// The control: the reported sequence done the unsafe way (raw XNNPACK on a
// raw pthreadpool destroyed and replaced by each reset) fails in a child
// process (ASan report, signal, or a hang killed at the timeout), while the
// same sequence through rcupool exits cleanly. So the guard is shown to
// guard, with the same binary, model and resets.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "tools/child_process.h"

namespace {

// Relative to the test's working directory (its runfiles).
const char kControl[] = "tests/xnnpack/unsafe_control";
// The unsafe control hangs on its first invoke after a reset (seen every
// time here without sanitizers); the safe one takes a few seconds on a
// loaded 2-core machine, so it gets much longer before counting as hung.
constexpr double kUnsafeTimeoutSeconds = 5.0;
constexpr double kSafeTimeoutSeconds = 120.0;

child_result_t RunControl(bool safe) {
  std::string path = kControl;
  std::string flag = "--safe";
  char *argv[3] = {&path[0], safe ? &flag[0] : nullptr, nullptr};
  child_result_t r;
  const double timeout = safe ? kSafeTimeoutSeconds : kUnsafeTimeoutSeconds;
  EXPECT_EQ(child_run_program(argv, nullptr, 1, timeout, &r), 0);
  char what[256];
  child_describe(&r, what, sizeof what);
  std::printf("%s control: %s\n", safe ? "safe" : "unsafe", what);
  return r;
}

TEST(UnsafeResetControl, RawPthreadpoolReplacedUnderRuntimeFailsInChild) {
  child_result_t r = RunControl(false);
  bool failed = r.timed_out || r.signaled || (r.exited && r.exit_code != 0);
  EXPECT_TRUE(failed) << "the unsafe sequence survived; its output:\n"
                      << r.tail;
  EXPECT_FALSE(r.exited && r.exit_code == 127) << "control did not start";
#if defined(__SANITIZE_ADDRESS__)
  // Built with ASan, the use after free itself is what stops the child.
  EXPECT_TRUE(r.asan_use_after_free) << r.tail;
#endif
}

TEST(UnsafeResetControl, SameSequenceThroughRcupoolExitsCleanlyInChild) {
  child_result_t r = RunControl(true);
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.tail;
  EXPECT_FALSE(r.timed_out);
}

}  // namespace
