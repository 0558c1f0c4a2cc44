// SPDX-License-Identifier: LGPL-2.1-or-later
// A task that throws inside ThreadPool::run(): run() lets every task that
// started return, skips those not yet started, then rethrows the first
// exception on the calling thread (as oneTBB's parallel_for does). No
// exception crosses rcupool's or pthreadpool's C frames, so rcupool's state
// stays sound: trim() works, no pool or pin is left behind. 100 runs, one
// behaviour.
#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/util.h"

namespace {

namespace et = ::executorch::extension::threadpool;
using et_test::RunSumIsRight;
using et_test::Stats;

constexpr int kRuns = 100;

// One run() of 1000 tasks where task 17 throws; returns what came out.
std::string RunThrowingAt17(std::atomic<size_t> *calls) {
  try {
    et::get_threadpool()->run(
        [&](size_t i) {
          calls->fetch_add(1, std::memory_order_relaxed);
          if (i == 17) throw std::runtime_error("task 17");
        },
        1000);
  } catch (const std::runtime_error &e) {
    return e.what();
  } catch (...) {
    return "another exception";
  }
  return "no exception";
}

// After a throwing run: the pool works, trim succeeds, nothing is held.
void ExpectSound() {
  EXPECT_TRUE(RunSumIsRight(1000));
  EXPECT_GE(et::get_threadpool()->trim(), 0);
  rcupool_stats_t s = Stats();
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_alive, 1u);
}

TEST(Run, TaskThrowsEveryRunRethrowsFirstExceptionOnCaller) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  for (int r = 0; r < kRuns; r++) {
    std::atomic<size_t> calls{0};
    ASSERT_EQ(RunThrowingAt17(&calls), "task 17") << "run " << r;
    EXPECT_GE(calls.load(), 1u);
    EXPECT_LE(calls.load(), 1000u);
  }
  ExpectSound();
}

TEST(Run, EveryTaskThrowsOneExceptionReachesCaller) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  for (int r = 0; r < kRuns; r++) {
    int caught = 0;
    try {
      et::get_threadpool()->run([](size_t i) { throw static_cast<int>(i); },
                                64);
    } catch (int i) {
      EXPECT_GE(i, 0);
      EXPECT_LT(i, 64);
      caught++;
    }
    ASSERT_EQ(caught, 1) << "run " << r;
  }
  ExpectSound();
}

TEST(Run, TaskThrowsInsideGuardRethrowsAndReleasesGuardPool) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  for (int r = 0; r < kRuns; r++) {
    std::atomic<size_t> calls{0};
    {
      et::UseNThreadsThreadPoolGuard guard(2);
      ASSERT_EQ(RunThrowingAt17(&calls), "task 17") << "run " << r;
    }
    {
      et::NoThreadPoolGuard none;
      calls = 0;
      ASSERT_EQ(RunThrowingAt17(&calls), "task 17") << "run " << r;
      // Inline on the caller: the tasks after the throw are skipped.
      EXPECT_EQ(calls.load(), 18u);
    }
  }
  ExpectSound();
}

TEST(Run, NestedRunThrowsOuterRunRethrows) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  for (int r = 0; r < kRuns; r++) {
    std::string what;
    try {
      et::get_threadpool()->run(
          [](size_t i) {
            et::get_threadpool()->run(
                [i](size_t j) {
                  if (i == 5 && j == 3) throw std::runtime_error("inner");
                },
                8);
          },
          16);
    } catch (const std::runtime_error &e) {
      what = e.what();
    }
    ASSERT_EQ(what, "inner") << "run " << r;
  }
  ExpectSound();
}

}  // namespace
