// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_pin / rcupool_unpin (lib/pin.c): a pin keeps its pool, across
// resets, until it lets go; bad input and misuse.
#include <errno.h>

#include <thread>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;

TEST(RcupoolPin, PinnedBeforeResetsKeepsWorkingPoolOfItsSize) {
  // Two threads: the machine's cores. A bigger pinned pool would be right
  // too, only slow: spinning workers of an oversubscribed pool starve each
  // other for a time slice per run.
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  pthreadpool_t pinned = rcupool_pin_pthreadpool(&pin);
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(rcupool_pin_threads(&pin), 2u);

  for (size_t n : {5u, 1u, 8u, 3u}) ASSERT_EQ(rcupool_reset(m, n), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));

  // The pinned pool is alive, still has 2 threads, and computes right.
  EXPECT_EQ(pthreadpool_get_threads_count(pinned), 2u);
  int wrong = 0;
  for (int run = 0; run < 1000; run++)
    if (!ParallelSumIsRight(pinned, 257)) wrong++;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(Stats(m).pools_kept, 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolPin, PinRecordsGenerationAndThreadsOfCurrentPool) {
  NoWarmManager m(2);
  rcupool_pin_t a{}, b{};
  ASSERT_EQ(rcupool_pin(m, &a), 0);
  EXPECT_EQ(rcupool_pin_generation(&a), rcupool_generation(m));
  EXPECT_TRUE(rcupool_pin_is_current(&a));
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  ASSERT_EQ(rcupool_pin(m, &b), 0);
  EXPECT_EQ(rcupool_pin_generation(&b), rcupool_pin_generation(&a) + 1);
  EXPECT_EQ(rcupool_pin_threads(&b), 4u);
  EXPECT_FALSE(rcupool_pin_is_current(&a));
  EXPECT_TRUE(rcupool_pin_is_current(&b));
  EXPECT_EQ(Stats(m).pins, 2u);
  rcupool_unpin(&a);
  rcupool_unpin(&b);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolUnpin, LastUnpinOfRetiredPoolFreesItAfterBarrier) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_kept, 1u);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.pools_freed, 1u);
}

TEST(RcupoolUnpin, KeptPoolIsLoggedAtInfoWithPinCount) {
  LogRecorder log;
  NoWarmManager m(2);
  rcupool_pin_t a{}, b{};
  ASSERT_EQ(rcupool_pin(m, &a), 0);
  ASSERT_EQ(rcupool_pin(m, &b), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "kept: 2 pins"), 1u);
  rcupool_unpin(&a);
  rcupool_unpin(&b);
  ASSERT_EQ(rcupool_barrier(m), 0);
  // The last unpin leaves the manager's reference (the pool turns warm);
  // the barrier's pass lets it go, as m keeps no warm pool: the free's
  // record names that cause, not the unpin.
  EXPECT_EQ(log.Count(RCUPOOL_LOG_DEBUG, "beyond warm_pools"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_DEBUG, "last pin released"), 0u);
  EXPECT_GE(log.Count(RCUPOOL_LOG_DEBUG, "publish"), 2u);
  EXPECT_GE(log.Count(RCUPOOL_LOG_DEBUG, "retire"), 1u);
}

// A thread's first pin goes the checked way (liburcu has not met the
// thread yet), later pins the fast way: both pin the current pool and
// leave no read-side section open (a barrier from inside one would be
// -EDEADLK).
TEST(RcupoolPin, FirstAndLaterPinsOfNewThreadPinCurrentPoolAndLeaveNoSection) {
  NoWarmManager m(3);
  std::thread t([&] {
    for (int i = 0; i < 2; i++) {
      rcupool_pin_t pin{};
      ASSERT_EQ(rcupool_pin(m, &pin), 0);
      EXPECT_EQ(rcupool_pin_threads(&pin), 3u);
      EXPECT_TRUE(rcupool_pin_is_current(&pin));
      EXPECT_EQ(rcupool_barrier(m), 0);
      rcupool_unpin(&pin);
    }
  });
  t.join();
  EXPECT_EQ(Stats(m).pins, 0u);
}

// --- bad input and misuse ---------------------------------------------------

TEST(RcupoolPin, NullManagerOrPinIsInvalidAndNotLogged) {
  rcupool_pin_t pin{};
  EXPECT_EQ(rcupool_pin(nullptr, &pin), -EINVAL);
  NoWarmManager m(2);
  LogRecorder log;
  EXPECT_EQ(rcupool_pin(m, nullptr), -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "NULL pin"), 0u);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolPin, AccessorsOfNullPinReadAsEmpty) {
  EXPECT_EQ(rcupool_pin_pthreadpool(nullptr), nullptr);
  EXPECT_EQ(rcupool_pin_threads(nullptr), 0u);
  EXPECT_EQ(rcupool_pin_generation(nullptr), 0u);
  EXPECT_FALSE(rcupool_pin_is_current(nullptr));
}

TEST(RcupoolPin, UsedAfterUnpinReadsAsEmpty) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  EXPECT_EQ(rcupool_pin_threads(&pin), 0u);
  EXPECT_EQ(rcupool_pin_generation(&pin), 0u);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  // The released storage can be pinned again.
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
}

TEST(RcupoolPin, AlreadyHoldingPinIsBusyAndKeepsFirstPool) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  pthreadpool_t first = rcupool_pin_pthreadpool(&pin);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_EQ(rcupool_pin(m, &pin), -EBUSY);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), first);
  EXPECT_EQ(Stats(m).pins, 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolUnpin, NullPinIsLoggedNoop) {
  NoWarmManager m(2);
  LogRecorder log;
  rcupool_unpin(nullptr);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "NULL pin"), 1u);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolUnpin, ZeroedPinIsLoggedNoop) {
  NoWarmManager m(2);
  LogRecorder log;
  rcupool_pin_t pin{};
  rcupool_unpin(&pin);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "is empty"), 1u);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolUnpin, TwiceIsLoggedNoopAndFreesOnce) {
  NoWarmManager m(2);
  LogRecorder log;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_unpin(&pin);
  rcupool_unpin(&pin);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "is empty"), 1u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_freed, 1u);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pins, 0u);
}
