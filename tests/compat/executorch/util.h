/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Helpers of the stand-in's tests: stats of the default manager, a parallel
// sum through ThreadPool::run(), and a rendezvous that proves k tasks ran at
// the same time (so on a pool of at least k threads).
#ifndef RCUPOOL_TESTS_COMPAT_EXECUTORCH_UTIL_H
#define RCUPOOL_TESTS_COMPAT_EXECUTORCH_UTIL_H

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/run_sum.h"

namespace et_test {

namespace et = ::executorch::extension::threadpool;

inline rcupool_stats_t Stats() {
  rcupool_stats_t s{};
  EXPECT_EQ(rcupool_get_stats(rcupool_default(), &s), 0);
  return s;
}

// Waits (at most `limit`) until `count` reaches `want`.
inline bool WaitFor(const std::atomic<size_t> &count, size_t want,
                    std::chrono::seconds limit = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (count.load() < want) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// run() over k tasks that each wait for all k to have started: true only
// when k tasks ran at once (a pool of at least k threads). On a smaller
// pool or inline, the first task waits out the limit: false.
inline bool RunsKTasksAtOnce(size_t k) {
  std::atomic<size_t> started{0}, met{0};
  et::get_threadpool()->run(
      [&](size_t) {
        started.fetch_add(1);
        if (WaitFor(started, k, std::chrono::seconds(5))) met.fetch_add(1);
      },
      k);
  return met.load() == k;
}

}  // namespace et_test

#endif  // RCUPOOL_TESTS_COMPAT_EXECUTORCH_UTIL_H
