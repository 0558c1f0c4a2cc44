// SPDX-License-Identifier: LGPL-2.1-or-later
// The hazard side by side with the fix, each in a child process running
// backend_control: the sample backend that keeps the raw get_pthreadpool()
// from load through the reset sequence fails (a hang killed at the timeout,
// or an AddressSanitizer use-after-free report); the same backend taking
// get_pinned_pthreadpool() exits cleanly with every output correct.
//
// This test process itself never creates rcupool's default manager: its
// fork handlers would start threads in each child, which ThreadSanitizer
// refuses after a multi-threaded fork.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "tools/child_process.h"

namespace {

// --- the hazard, in a child process --------------------------------------

const char kControl[] = "tests/compat/executorch/backend_control";
// A hang is killed after this long (the pinned run takes a few seconds on
// a loaded machine, and gets much longer).
constexpr double kRawTimeoutSeconds = 10.0;
constexpr double kPinnedTimeoutSeconds = 180.0;

child_result_t RunControl(const char *flag) {
  std::string path = kControl, arg = flag;
  char *argv[3] = {&path[0], &arg[0], nullptr};
  child_result_t r;
  bool raw = arg == "--raw";
  EXPECT_EQ(child_run_program(
                argv, nullptr, 1,
                raw ? kRawTimeoutSeconds : kPinnedTimeoutSeconds, &r),
            0);
  char what[256];
  child_describe(&r, what, sizeof what);
  std::printf("%s backend in a child: %s\n", raw ? "raw" : "pinned", what);
  return r;
}

TEST(SampleBackendRaw, KeptGetPthreadpoolAcrossResetsFailsInChild) {
  child_result_t r = RunControl("--raw");
  EXPECT_FALSE(r.exited && r.exit_code == 127) << "control did not start";
  // A hang: it loaded and executed correctly before the first reset, then
  // stopped. (A sanitizer report names the failure itself, and its length
  // pushes the progress lines out of the captured tail.)
  if (r.timed_out) {
    EXPECT_NE(std::string(r.tail).find("run 0 correct"), std::string::npos)
        << r.tail;
  }
  // ...and did not get through the resets.
  bool failed = r.timed_out || r.signaled || (r.exited && r.exit_code != 0);
  EXPECT_TRUE(failed) << "the raw backend survived the resets:\n" << r.tail;
#if defined(__SANITIZE_ADDRESS__)
  EXPECT_TRUE(r.asan_use_after_free) << r.tail;
#endif
}

TEST(SampleBackendPinned, SameSequenceInChildExitsCleanly) {
  child_result_t r = RunControl("--pinned");
  EXPECT_TRUE(r.exited && r.exit_code == 0) << r.tail;
  EXPECT_NE(std::string(r.tail).find("pinned: 23 executions, all outputs correct"),
            std::string::npos)
      << r.tail;
}

}  // namespace
