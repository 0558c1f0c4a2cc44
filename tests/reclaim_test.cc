// Reclamation: retired pools are freed after their grace period and last
// pin, on the library's thread, and nothing accumulates.
#include <errno.h>

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::Manager;
using rcupool_test::Stats;
using rcupool_test::WaitForOsThreadCount;

TEST(RcupoolBarrier, NeverPinnedRetiredPoolIsFreed) {
  Manager m(2);
  // A section held across the reset keeps the retired pool's grace period
  // open, so the first snapshot sees it pending however fast the reclaim
  // thread is (it wakes at once).
  rcupool_read_lock();
  EXPECT_EQ(rcupool_reset(m, 4), 0);
  rcupool_stats_t s = Stats(m);
  rcupool_read_unlock();
  EXPECT_EQ(s.pools_alive, 2u);
  EXPECT_EQ(s.frees_pending, 1u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.frees_pending, 0u);
  EXPECT_EQ(s.pools_freed, 1u);
  EXPECT_EQ(s.threads_alive, 4u);
}

TEST(RcupoolBarrier, AfterAllHoldersLetGoThreadsAreCurrentPoolPlusConstant) {
  Manager m(1);
  const size_t baseline = rcupool_test::ThreadBaselineAtOneThread(m);

  std::vector<rcupool_pin_t> pins(8);
  for (size_t i = 0; i < pins.size(); i++) {
    ASSERT_EQ(rcupool_reset(m, 2 + i % 4), 0);
    pins[i] = rcupool_pin_t{};
    ASSERT_EQ(rcupool_pin(m, &pins[i]), 0);
  }
  ASSERT_EQ(rcupool_reset(m, 7), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  // Sizes 2..5 pinned: four kept pools, one per size.
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_kept, 4u);
  EXPECT_EQ(s.pools_alive, 5u);
  for (auto &p : pins) rcupool_unpin(&p);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
  EXPECT_EQ(WaitForOsThreadCount(baseline + 6), baseline + 6);
}

TEST(RcupoolBarrier, ThreadsThatUsedSectionsAndExitedDoNotBlockGracePeriods) {
  Manager m(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 1000; i++) {
        rcupool_read_lock();
        EXPECT_NE(rcupool_current(m), nullptr);
        rcupool_read_unlock();
      }
      if (t % 2 == 0) {  // half also pinned and unpinned before leaving
        rcupool_pin_t pin{};
        EXPECT_EQ(rcupool_pin(m, &pin), 0);
        rcupool_unpin(&pin);
      }
      // Exit with no cleanup call of any kind.
    });
  }
  for (auto &t : threads) t.join();
  for (size_t n : {3u, 4u, 3u, 5u}) ASSERT_EQ(rcupool_reset(m, n), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.frees_pending, 0u);
}

