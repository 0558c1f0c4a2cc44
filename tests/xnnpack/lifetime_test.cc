// SPDX-License-Identifier: LGPL-2.1-or-later
// Methods loaded across many resets: all stay correct while alive, and once
// they are gone the process holds one pool and only its threads.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/support/support.h"
#include "tests/xnnpack/method.h"

namespace rcupool_test {
namespace {

Case &SmallCase() {
  static Case *c = new Case(16, 64, 128, 64, 21);
  return *c;
}

// Starts the manager's reclaim thread and measures the process's threads
// with a 1-thread current pool (no worker): the baseline of the checks.
size_t BaselineThreads(rcupool_t *m) {
  EXPECT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(rcupool_reset(m, 1), 0);
  EXPECT_EQ(rcupool_barrier(m), 0);
  return rcupool_test::SettledOsThreadCount();
}

TEST(RcupoolXnnRuntimeCreate, After20ResetsBetweenTwoCountsAll21MethodsCorrectThenOnePoolRemains) {
  NoWarmManager m(1);
  const size_t baseline = BaselineThreads(m);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  // The 1-thread pool, retired unpinned, is freed by the reclaim thread:
  // waited for here, so the count below is of the pools the loop keeps.
  ASSERT_EQ(rcupool_barrier(m), 0);
  const uint64_t reuses_before = Stats(m).reuses;

  std::vector<std::unique_ptr<Method>> methods;
  methods.push_back(std::make_unique<Method>(m, SmallCase()));
  ASSERT_TRUE(methods.back()->ok());
  for (int i = 0; i < 20; i++) {
    const size_t n = i % 2 == 0 ? 3 : 2;
    ASSERT_EQ(rcupool_reset(m, n), 0);
    methods.push_back(std::make_unique<Method>(m, SmallCase()));
    ASSERT_TRUE(methods.back()->ok());
    EXPECT_EQ(methods.back()->threads(), n);
    EXPECT_LT(methods.back()->Run(), kMaxRelativeError) << "new method " << i;
    // The first method, loaded before every reset, is still right.
    EXPECT_LT(methods.front()->Run(), kMaxRelativeError) << "after reset " << i;
    // Pinned pools are reused: at most one per count is alive.
    EXPECT_LE(Stats(m).pools_alive, 2u);
  }
  for (size_t i = 0; i < methods.size(); i++)
    EXPECT_LT(methods[i]->Run(), kMaxRelativeError) << "method " << i;
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 21u);
  // Every reset but the first found its pool alive (pinned) and reused it.
  EXPECT_EQ(s.reuses - reuses_before, 19u);

  methods.clear();
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.threads, 2u);
  EXPECT_EQ(WaitForOsThreadCount(baseline + 1), baseline + 1)
      << "baseline " << baseline << " + the current pool's 1 worker";
}

// The review's trigger. A "keep every pool" policy ends this loop with 16
// pools and 0 + 1 + ... + 15 = 120 idle workers.
TEST(RcupoolXnnRuntimeDestroy, ResetToEachCount1To16LoadRunDestroyLeavesOnePoolAndNoExtraThreads) {
  NoWarmManager m(1);
  const size_t baseline = BaselineThreads(m);
  const uint64_t created_before = Stats(m).pools_created;
  for (size_t n = 1; n <= 16; n++) {
    ASSERT_EQ(rcupool_reset(m, n), 0);
    Method method(m, SmallCase());
    ASSERT_TRUE(method.ok());
    EXPECT_EQ(method.threads(), n);
    EXPECT_LT(method.Run(), kMaxRelativeError) << n << " threads";
  }
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.threads_alive, 16u);
  EXPECT_EQ(s.pools_created - created_before, 15u);  // 2..16; 1 was current
  EXPECT_EQ(s.pools_created - s.pools_freed, 1u);
  EXPECT_EQ(WaitForOsThreadCount(baseline + 15), baseline + 15)
      << "baseline " << baseline << " + the current pool's 15 workers";
}

}  // namespace
}  // namespace rcupool_test
