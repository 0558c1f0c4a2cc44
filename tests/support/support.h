/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Helpers shared by rcupool's tests: OS thread counts, a log recorder and a
// parallel sum whose result proves every index ran exactly once.
#ifndef RCUPOOL_TESTS_SUPPORT_H
#define RCUPOOL_TESTS_SUPPORT_H

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <pthread.h>
#include <pthreadpool.h>
#include <rcupool/rcupool.h>

#include <gtest/gtest.h>

#include "tests/support/threads.h"

namespace rcupool_test {

// Sums f(i) = i * 3 + 1 over [0, range) on `pool`, each index added once.
// Returns true when the total matches the closed form.
bool ParallelSumIsRight(pthreadpool_t pool, size_t range);
bool ManagerSumIsRight(rcupool_t *m, size_t range);

// The OS threads that ran a parallel call's items: give RecordThread as the
// task and a ThreadIds as its argument.
struct ThreadIds {
  std::mutex mu;
  std::set<pthread_t> ids;
  std::atomic<size_t> calls{0};
};
void RecordThread(void *arg, size_t);

// Records every log message while alive; restores the default hook after.
// Count() and All() first deliver what is queued (records of the reclaim
// thread and of pool workers reach a hook at an application thread's
// next call).
class LogRecorder {
 public:
  LogRecorder();
  ~LogRecorder();
  size_t Count(rcupool_log_level_t level, const std::string &needle) const;
  std::vector<std::string> All() const;

 private:
  static void Hook(void *ctx, rcupool_log_level_t level, const char *message);
  mutable std::mutex mu_;
  std::vector<std::pair<rcupool_log_level_t, std::string>> lines_;
};

// The process's OS threads once m's library threads exist (rcupool's
// reclaim thread starts at the first retire) and m is reset to a 1-thread
// pool, which has no worker: a baseline to which only m's current pool adds
// (its threads - 1 workers). Leaves m at 1 thread.
size_t ThreadBaselineAtOneThread(rcupool_t *m);

// Sleeps two ticks of CLOCK_MONOTONIC_COARSE, the clock pools' last uses
// are stamped on (lib/clock.h): uses on either side of it are ordered by
// their stamps, never tied (a pool start that owns no thread, a view on a
// pthreadpool with the executor API, makes two uses in one tick likely).
void SleepTwoCoarseTicks();

// Stats of m, asserting the call succeeds.
rcupool_stats_t Stats(rcupool_t *m);

// A private manager of `threads` threads with the given warm widths
// (rcupool_options_t's warm_ms and warm_pools: 0, 0 is the default
// lifetime), destroyed at scope exit (the test fails if destroy fails).
class Manager {
 public:
  Manager(size_t threads, uint32_t warm_ms, uint32_t warm_pools);
  ~Manager();
  rcupool_t *get() const { return m_; }
  operator rcupool_t *() const { return m_; }

 private:
  rcupool_t *m_ = nullptr;
};

// A Manager that keeps no warm pool (RCUPOOL_WARM_NONE): a pool that is not
// current goes at the first barrier after its last unpin, the lifetime most
// tests check. Tests of the default lifetime (warm widths on) use
// Manager(threads, 0, 0); tests/warm_test.cc tests warm widths themselves.
class NoWarmManager : public Manager {
 public:
  explicit NoWarmManager(size_t threads)
      : Manager(threads, 0, RCUPOOL_WARM_NONE) {}
};

// Registers, before the first test of the binary, a setting of the default
// manager to keep no warm pool (RCUPOOL_WARM_NONE): for test files that
// check the default manager's lifetime as "a barrier frees every pool that
// is neither current nor pinned". Use at namespace scope:
//   RCUPOOL_TEST_DEFAULT_KEEPS_NO_WARM_POOLS();
#define RCUPOOL_TEST_DEFAULT_KEEPS_NO_WARM_POOLS()                       \
  static ::testing::Environment *const rcupool_no_warm_env_ =            \
      ::testing::AddGlobalTestEnvironment(                               \
          new ::rcupool_test::DefaultKeepsNoWarmPools())
class DefaultKeepsNoWarmPools : public ::testing::Environment {
 public:
  void SetUp() override;
};

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_SUPPORT_H
