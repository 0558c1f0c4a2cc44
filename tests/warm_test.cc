// SPDX-License-Identifier: LGPL-2.1-or-later
// Warm widths: a pool whose last pin is released stays alive, held by its
// manager, so the next sized pin, scope or reset of its width is a lookup;
// it goes after its linger, beyond the manager's limit, or at
// rcupool_trim(), and never while a pin holds it.
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::Manager;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;

namespace {

TEST(RcupoolPinSized, AfterLastUnpinOfSameWidthReusesIdlePool) {
  Manager m(2, 0, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const uint64_t created = Stats(m).pools_created;
  for (int i = 0; i < 20; i++) {
    ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
    EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 100));
    rcupool_unpin(&pin);
    ASSERT_EQ(rcupool_barrier(m), 0);
  }
  EXPECT_EQ(Stats(m).pools_created, created);
  EXPECT_EQ(Stats(m).pools_alive, 2u);
}

TEST(RcupoolReset, ToWidthOfIdlePoolReusesItWithoutStartingOne) {
  Manager m(2, 0, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const rcupool_stats_t before = Stats(m);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  const rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.pools_created, before.pools_created);
  EXPECT_EQ(after.reuses, before.reuses + 1);
  EXPECT_EQ(after.threads, 3u);
}

TEST(RcupoolPinSized, AtWidthOfRetiredPoolWithoutPinsReusesIt) {
  Manager m(2, 0, 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // the width-3 pool is past its retire
  const uint64_t created = Stats(m).pools_created;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), 3u);
  rcupool_unpin(&pin);
  EXPECT_EQ(Stats(m).pools_created, created);
}

TEST(RcupoolScope, AtUnheldWidthAfterFirstUseStartsNoPool) {
  Manager m(2, 0, 0);
  // The guard of a call: sized pin, scope, parallel work, exit, unpin.
  auto guard = [&] {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
    rcupool_scope_enter(&pin);
    EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));
    rcupool_scope_exit();
    rcupool_unpin(&pin);
  };
  guard();
  ASSERT_EQ(rcupool_barrier(m), 0);
  const uint64_t created = Stats(m).pools_created;
  for (int i = 0; i < 50; i++) guard();
  EXPECT_EQ(Stats(m).pools_created, created);
}

}  // namespace

namespace {

using rcupool_test::OsThreadCount;
using rcupool_test::WaitForOsThreadCount;

// Polls stats until pred holds or `seconds` pass; returns the last stats.
template <typename Pred>
rcupool_stats_t StatsWhenOrAfter(rcupool_t *m, Pred pred, int seconds) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  rcupool_stats_t s = Stats(m);
  while (!pred(s) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    s = Stats(m);
  }
  return s;
}

TEST(RcupoolStats, IdlePoolAfterLastUnpinCountsAsIdleWithItsThreads) {
  Manager m(2, 0, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_idle, 0u);
  EXPECT_EQ(s.pools_never_current, 1u);
  rcupool_unpin(&pin);
  s = Stats(m);
  EXPECT_EQ(s.pools_idle, 1u);
  EXPECT_EQ(s.threads_idle, 3u);
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_alive, 2u);
}

TEST(RcupoolWarm, IdlePoolIsFreedWithItsThreadsAfterItsLinger) {
  Manager m(1, 50, 0);  // 50 ms
  ASSERT_EQ(rcupool_barrier(m), 0);  // the reclaim thread exists
  const size_t baseline = rcupool_test::SettledOsThreadCount();
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  EXPECT_EQ(OsThreadCount(), baseline + 3);
  // Read before the unpin: the linger (50 ms) may end before the next line.
  const uint64_t freed = Stats(m).pools_freed;
  rcupool_unpin(&pin);
  // Freed by the reclaim thread's own pass: no barrier, no trim.
  rcupool_stats_t s = StatsWhenOrAfter(
      m, [&](const rcupool_stats_t &x) { return x.pools_alive == 1; }, 10);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_freed, freed + 1);
  EXPECT_EQ(s.pools_idle, 0u);
  EXPECT_EQ(WaitForOsThreadCount(baseline), baseline);
}

TEST(RcupoolWarm, PoolUsedMoreOftenThanItsLingerStaysAlive) {
  Manager m(1, 200, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
  rcupool_unpin(&pin);
  const uint64_t created = Stats(m).pools_created;
  // 1 s of guards 20 ms apart: the pool's linger keeps starting again.
  for (int i = 0; i < 50; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
    rcupool_unpin(&pin);
  }
  EXPECT_EQ(Stats(m).pools_created, created);
}

TEST(RcupoolTrim, FreesIdlePoolsAndTheirThreadsAndReturnsTheirCount) {
  Manager m(1, 0, 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const size_t baseline = rcupool_test::SettledOsThreadCount();
  for (size_t w = 2; w <= 4; w++) {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin_sized(m, w, &pin), 0);
    rcupool_unpin(&pin);
  }
  EXPECT_EQ(Stats(m).pools_idle, 3u);
  EXPECT_EQ(rcupool_trim(m), 3);
  const rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_idle, 0u);
  EXPECT_EQ(s.frees_pending, 0u);
  // Trim waited for the joins: the threads are gone when it returns.
  EXPECT_EQ(OsThreadCount(), baseline);
  EXPECT_EQ(rcupool_trim(m), 0);
}

TEST(RcupoolTrim, RightAfterResetFreesTheRetiredPoolToo) {
  Manager m(2, 0, 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_EQ(rcupool_trim(m), 1);  // waited for the retire, then freed it
  EXPECT_EQ(Stats(m).pools_alive, 1u);
  EXPECT_EQ(rcupool_threads(m), 3u);
}

// Under warm_pools none, a retired pool whose last pin is gone goes at the
// first pass that looks: the one of trim's first wait. That release is the
// trim's, and its count says so. (The next pass of the reclaim thread's
// own is due one linger, an hour, after the barrier below: none runs
// between the unpin and the trim.)
TEST(RcupoolTrim, UnderWarmNoneCountsThePoolItsFirstWaitReleases) {
  Manager m(2, RCUPOOL_WARM_MS_MAX, RCUPOOL_WARM_NONE);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // retired, kept by the pin
  rcupool_unpin(&pin);
  const rcupool_stats_t before = Stats(m);
  ASSERT_EQ(before.pools_alive, 2u);
  EXPECT_EQ(rcupool_trim(m), 1);
  const rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.pools_alive, 1u);
  EXPECT_EQ(after.pools_freed, before.pools_freed + 1);
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_EQ(rcupool_trim(m), 0);
}

TEST(RcupoolTrim, NeverFreesPoolHeldByPinWhichStaysUsable) {
  Manager m(2, 0, 0);
  rcupool_pin_t held{}, sized{};
  ASSERT_EQ(rcupool_pin(m, &held), 0);
  ASSERT_EQ(rcupool_reset(m, 1), 0);  // the held pool is retired
  ASSERT_EQ(rcupool_pin_sized(m, 3, &sized), 0);
  EXPECT_EQ(rcupool_trim(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 3u);
  EXPECT_EQ(s.pins, 2u);
  EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&held), 1000));
  EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&sized), 1000));
  rcupool_unpin(&held);
  rcupool_unpin(&sized);
  EXPECT_EQ(rcupool_trim(m), 2);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolTrim, RacingGuardsOfThatWidthNeverFreesAPinnedPool) {
  Manager m(1, 0, 0);
  std::atomic<bool> stop{false}, pause{false};
  std::atomic<long> wrong{0}, guards{0};
  std::atomic<int> paused{0};
  std::vector<std::thread> pinners;
  for (int t = 0; t < 2; t++)
    pinners.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        if (pause.load()) {
          // A quiet moment the trimmer asked for: no pin is held.
          paused++;
          while (pause.load() && !stop.load()) std::this_thread::yield();
          paused--;
          continue;
        }
        rcupool_pin_t pin{};
        if (rcupool_pin_sized(m, 2, &pin) != 0) {
          wrong++;
          continue;
        }
        // A pool freed under the pin would fail the sum (or crash, or be
        // reported by ASan).
        if (!ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 64)) wrong++;
        rcupool_unpin(&pin);
        guards++;
        // Gaps in which the pool is warm, so trims release it between
        // guards as well as lose races to them.
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
    });
  long trimmed = 0, trims = 0;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((trims < 30 || guards.load() < 300 || trimmed < 5) &&
         std::chrono::steady_clock::now() < until) {
    // Every 16th trim waits for both guards to be between pins, so that
    // trims free the warm pool between guards even where the guards run
    // back to back (one loaded CPU), as well as race them the rest of
    // the time.
    bool quiet = trims % 16 == 15;
    if (quiet) {
      pause = true;
      while (paused.load() < 2 && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
    }
    int n = rcupool_trim(m);
    if (quiet) pause = false;
    ASSERT_GE(n, 0);
    trimmed += n;
    trims++;
  }
  stop = true;
  for (auto &t : pinners) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(guards.load(), 0);
  EXPECT_GT(trimmed, 0);  // the race was run, not only the no-op
  std::printf("%ld guards, %ld trims, %ld pools trimmed\n", guards.load(),
              trims, trimmed);
  EXPECT_GE(rcupool_trim(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolWarm, BeyondWarmPoolsTheLongestUnusedGoFirst) {
  Manager m(1, 0, 2);  // two warm pools at most
  // Each use two coarse ticks after the one before: their order is the
  // stamps' (rcupool_test::SleepTwoCoarseTicks).
  for (size_t w = 2; w <= 5; w++) {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin_sized(m, w, &pin), 0);
    rcupool_unpin(&pin);
    rcupool_test::SleepTwoCoarseTicks();
  }
  ASSERT_EQ(rcupool_barrier(m), 0);  // a barrier's pass enforces the limit
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_idle, 2u);
  EXPECT_EQ(s.pools_alive, 3u);
  // The widths used last (4 and 5) are the ones kept.
  const uint64_t created = s.pools_created;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 5, &pin), 0);
  rcupool_unpin(&pin);
  rcupool_test::SleepTwoCoarseTicks();
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  rcupool_unpin(&pin);
  EXPECT_EQ(Stats(m).pools_created, created);
}

TEST(RcupoolWarm, NoneKeepsNothingPastABarrier) {
  Manager m(1, 0, RCUPOOL_WARM_NONE);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolSetWarm, ChangesKeptPoolsAndRejectsBadValues) {
  Manager m(1, 0, 0);
  EXPECT_EQ(rcupool_set_warm(nullptr, 0, 0), -EINVAL);
  EXPECT_EQ(rcupool_set_warm(m, RCUPOOL_WARM_MS_MAX + 1, 0), -EINVAL);
  rcupool_options_t bad{};
  bad.warm_ms = RCUPOOL_WARM_MS_MAX + 1;
  rcupool_t *never = nullptr;
  EXPECT_EQ(rcupool_create(&bad, &never), -EINVAL);
  EXPECT_EQ(never, nullptr);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  EXPECT_EQ(Stats(m).pools_idle, 1u);
  // From now on none is kept: the reclaim thread's pass frees it, no
  // barrier needed.
  ASSERT_EQ(rcupool_set_warm(m, 0, RCUPOOL_WARM_NONE), 0);
  rcupool_stats_t s = StatsWhenOrAfter(
      m, [](const rcupool_stats_t &x) { return x.pools_alive == 1; }, 10);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(rcupool_trim(nullptr), -EINVAL);
}

// Guard churn at widths 1..8 from 4 threads while a fifth resets: the pools
// alive stay bounded by the widths in use plus a small constant (before
// warm widths: 1,487-1,649 at the peak, freed but not yet reclaimed), and
// pools start about once per width.
TEST(RcupoolWarm, GuardChurnAtEightWidthsWithResetterKeepsPoolsAliveBounded) {
  Manager m(2, 0, 0);
  std::atomic<bool> stop{false};
  std::atomic<long> wrong{0}, guards{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      size_t w = 1 + t;
      while (!stop.load(std::memory_order_relaxed)) {
        rcupool_pin_t pin{};
        if (rcupool_pin_sized(m, w, &pin) != 0) {
          wrong++;
          continue;
        }
        rcupool_scope_enter(&pin);
        if (!rcupool_test::ManagerSumIsRight(m, 32)) wrong++;
        rcupool_scope_exit();
        rcupool_unpin(&pin);
        guards++;
        w = w % 8 + 1;
      }
    });
  threads.emplace_back([&] {
    size_t w = 1;
    while (!stop.load(std::memory_order_relaxed)) {
      if (rcupool_reset(m, w) != 0) wrong++;
      w = w % 8 + 1;
    }
  });
  size_t peak = 0;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  while (std::chrono::steady_clock::now() < until) {
    peak = std::max(peak, Stats(m).pools_alive);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop = true;
  for (auto &t : threads) t.join();
  const rcupool_stats_t s = Stats(m);
  std::printf("%ld guards, peak pools_alive %zu, pools created %llu\n",
              guards.load(), peak, (unsigned long long)s.pools_created);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(guards.load(), 0);
  EXPECT_LE(peak, 8u + 4u);
  EXPECT_LE(s.pools_created, 8u + 4u);
  EXPECT_LE(s.pools_alive, 8u + 1u);
}

}  // namespace

namespace {

// A warm pool a fork child inherits has no workers there: the child lets it
// go (it is never reused), and a guard of that width in the child starts a
// pool of its own and runs on it.
TEST(RcupoolWarm, ForkChildFreesInheritedWarmPoolAndStartsItsOwnForThatWidth) {
  SKIP_UNDER_TSAN();
  Manager m(1, 0, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  ASSERT_EQ(Stats(m).pools_idle, 1u);
  rcupool_t *mm = m;
  int code = rcupool_test::ForkAndWait([mm] {
    rcupool_stats_t s{};
    if (rcupool_get_stats(mm, &s) != 0) return 10;
    if (s.pools_idle != 0) return 11;  // let go by the child handler
    const uint64_t created = s.pools_created;
    rcupool_pin_t p{};
    if (rcupool_pin_sized(mm, 3, &p) != 0) return 12;
    if (!ParallelSumIsRight(rcupool_pin_pthreadpool(&p), 1000)) return 13;
    rcupool_unpin(&p);
    if (rcupool_get_stats(mm, &s) != 0) return 14;
    if (s.pools_created != created + 1) return 15;
    if (rcupool_trim(mm) < 0) return 16;
    if (rcupool_get_stats(mm, &s) != 0) return 17;
    return s.pools_alive == 1 ? 0 : 18;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(Stats(m).pools_idle, 1u);  // the parent's stays warm
}

}  // namespace

namespace {

// A pool's linger starts when it turns warm, not when it was warm before:
// a width that was warm long ago, then current, is kept for a whole linger
// once a reset retires it again.
TEST(RcupoolWarm, PoolRetiredAgainAfterLongAsCurrentGetsAWholeLinger) {
  Manager m(2, 200, 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // the 3-thread pool is warm
  ASSERT_EQ(rcupool_reset(m, 3), 0);  // and current again
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // its pass must not find it expired
  const rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_idle, 1u);
  EXPECT_EQ(s.threads_idle, 3u);  // the 3-thread pool (the first 2-thread
                                  // pool expired during the sleep)
}

}  // namespace
