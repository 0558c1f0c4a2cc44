// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_pin_sized when a new pool cannot start: injected allocation and
// pthreadpool failures (//lib:testing hooks). Each returns the error, leaves
// the pin empty and the manager as it was, and starts no thread.
#include <errno.h>

#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <rcupool/rcupool.hpp>

#include "tests/support/fault_injector.h"
#include "tests/support/support.h"

using rcupool_test::FaultInjector;
using rcupool_test::NoWarmManager;
using rcupool_test::Stats;

namespace {

void ExpectPoolStartFailureChangesNothing(int site, int expected_error) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t before = Stats(m);
  const size_t os_threads =
      rcupool_test::WaitForOsThreadCount(rcupool_test::OsThreadCount());
  rcupool_test::LogRecorder log;
  rcupool_pin_t pin{};
  {
    FaultInjector fail(site, 0, /*fail_all=*/true);
    EXPECT_EQ(rcupool_pin_sized(m, 4, &pin), expected_error);
    EXPECT_EQ(fail.failed(), 1);
  }
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  EXPECT_EQ(rcupool_pin_threads(&pin), 0u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "nothing changed"), 1u);
  rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.pools_alive, before.pools_alive);
  EXPECT_EQ(after.pools_created, before.pools_created);
  EXPECT_EQ(after.pools_never_current, 0u);
  EXPECT_EQ(after.pins, 0u);
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(rcupool_test::WaitForOsThreadCount(os_threads), os_threads);
  EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 1000));
  // The empty pin is usable, and the same call succeeds without the fault.
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), 4u);
  EXPECT_EQ(Stats(m).pools_never_current, 1u);
  rcupool_unpin(&pin);
}

}  // namespace

TEST(RcupoolPinSized, InjectedPoolStartFailureIsEagainAndChangesNothing) {
  ExpectPoolStartFailureChangesNothing(RCUPL_FAULT_SITE_POOL_CREATE, -EAGAIN);
}

TEST(RcupoolPinSized, InjectedAllocationFailureIsEnomemAndChangesNothing) {
  ExpectPoolStartFailureChangesNothing(RCUPL_FAULT_SITE_ALLOC, -ENOMEM);
}

TEST(RcupoolPinSized, FailureForNewSizeDoesNotDisturbLivePoolsOfOtherSizes) {
  NoWarmManager m(1);
  rcupool_pin_t three{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &three), 0);
  rcupool_pin_t four{}, again{};
  {
    FaultInjector fail(RCUPL_FAULT_SITE_POOL_CREATE, 0, /*fail_all=*/true);
    EXPECT_EQ(rcupool_pin_sized(m, 4, &four), -EAGAIN);
    // A live size needs no new pool: the fault is not reached.
    EXPECT_EQ(rcupool_pin_sized(m, 3, &again), 0);
    EXPECT_EQ(fail.failed(), 1);
  }
  EXPECT_EQ(rcupool_pin_pthreadpool(&again), rcupool_pin_pthreadpool(&three));
  EXPECT_EQ(Stats(m).pools_never_current, 1u);
  rcupool_unpin(&again);
  rcupool_unpin(&three);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

// rcupool.hpp's Width (issue 34): the same failure inside the one-object
// guard reports its errno, enters no scope and never aborts; the work in
// its lifetime runs on the current pool.
TEST(RcupoolHppWidth, InjectedPoolStartFailureIsEagainAndRunsOnTheCurrentPool) {
  NoWarmManager m(1);
  rcupool_test::LogRecorder log;
  std::mutex mu;
  std::set<std::thread::id> ids;
  bool called = false;
  {
    FaultInjector fail(RCUPL_FAULT_SITE_POOL_CREATE, 0, /*fail_all=*/true);
    {
      rcupool::Width w(m.get(), 4);
      EXPECT_FALSE(w);
      EXPECT_EQ(w.error(), -EAGAIN);
      EXPECT_EQ(w.threads(), 0u);
      EXPECT_EQ(Stats(m).pins, 0u);
      ASSERT_EQ(rcupool::parallelize_1d(m.get(),
                                        [&](size_t) {
                                          std::lock_guard<std::mutex> g(mu);
                                          ids.insert(std::this_thread::get_id());
                                        },
                                        64),
                0);
    }
    EXPECT_EQ(rcupool::with_threads(m.get(), 4, [&] { called = true; }),
              -EAGAIN);
    EXPECT_EQ(fail.failed(), 2);
  }
  EXPECT_FALSE(called);
  EXPECT_EQ(ids.size(), 1u);  // the current 1-thread pool: the caller only
  EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "nothing changed"), 2u);
  EXPECT_EQ(Stats(m).pins, 0u);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
  // Without the fault the same width works.
  EXPECT_EQ(rcupool::with_threads(m.get(), 4, [&] { called = true; }), 0);
  EXPECT_TRUE(called);
}
