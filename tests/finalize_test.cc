// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_finalize(): the default manager's shutdown at exit. After it no
// thread of rcupool's is left (counted in /proc/self/task against the
// count before the first rcupool call), the manager still works and starts
// threads again on demand; a held pin makes it -EBUSY with nothing
// changed, a task -EDEADLK. Each case runs in a fresh copy of the program
// (the default manager is the process's).
#include <errno.h>
#include <pthreadpool.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include <rcupool/rcupool.h>

#include "tests/support/in_child.h"
#include "tests/support/threads.h"
#include "tests/support/annotate.h"

namespace {

constexpr int kTimeoutS = 60;

using rcupool_test::OsThreadCount;
using rcupool_test::SettledOsThreadCount;
using rcupool_test::WaitForOsThreadCount;

// The process's threads before rcupool starts any, once a thread has come
// and gone (ThreadSanitizer starts a thread of its own with the first
// one).
size_t BaselineThreadCount() {
  std::thread([] {}).join();
  return SettledOsThreadCount();
}

rcupool_stats_t Stats(rcupool_t *m) {
  rcupool_stats_t s{};
  EXPECT_EQ(rcupool_get_stats(m, &s), 0);
  return s;
}

void Add(void *ctx, size_t i) {
  static_cast<std::atomic<size_t> *>(ctx)->fetch_add(i + 1);
}

bool SumIsRight(rcupool_t *m) {
  std::atomic<size_t> total{0};
  return rcupool_parallelize_1d(m, Add, &total, 100, 0) == 0 &&
         total.load() == 5050;
}

TEST(Finalize, AfterResetsWarmAndSizedPoolsJoinsEveryRcupoolThread) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  const size_t base = BaselineThreadCount();
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_TRUE(SumIsRight(m));
  rcupool_pin_t pin = {};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);  // a second width
  rcupool_unpin(&pin);                          // now warm
  ASSERT_EQ(rcupool_reset(m, 4), 0);            // the 3-thread pool retires
  ASSERT_TRUE(SumIsRight(m));
  ASSERT_GT(OsThreadCount(), base + 3);  // workers and the reclaim thread

  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(WaitForOsThreadCount(base), base);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.threads, 1u);
  EXPECT_EQ(s.threads_alive, 1u);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.frees_pending, 0u);

  // Still usable: threads start again, and a second finalize joins them.
  EXPECT_EQ(rcupool_default(), m);
  ASSERT_TRUE(SumIsRight(m));
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_TRUE(SumIsRight(m));
  EXPECT_GE(OsThreadCount(), base + 2);
  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(WaitForOsThreadCount(base), base);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(Finalize, WithPinHeldIsEbusyAndChangesNothing) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_pin_t pin = {};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  const uint64_t gen = rcupool_generation(m);
  const size_t threads = OsThreadCount();
  EXPECT_EQ(rcupool_finalize(), -EBUSY);
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_EQ(rcupool_generation(m), gen);
  EXPECT_EQ(OsThreadCount(), threads);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(rcupool_threads(m), 1u);
}

void FinalizeInTask(void *ctx, size_t) {
  static_cast<std::atomic<int> *>(ctx)->store(rcupool_finalize());
}

TEST(Finalize, InsideTaskOrReadSectionIsEdeadlk) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  std::atomic<int> got{1};
  ASSERT_EQ(rcupool_parallelize_1d(m, FinalizeInTask, &got, 1, 0), 0);
  EXPECT_EQ(got.load(), -EDEADLK);
  rcupool_read_lock();
  EXPECT_EQ(rcupool_finalize(), -EDEADLK);
  rcupool_read_unlock();
  EXPECT_EQ(rcupool_threads(m), 2u);
  EXPECT_EQ(rcupool_finalize(), 0);
}

TEST(Finalize, BeforeTheDefaultManagerExistsStopsNothingAndSucceeds) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  const size_t base = BaselineThreadCount();
  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(OsThreadCount(), base);
  // A private manager keeps its workers; the reclaim thread its destroy
  // starts is stopped by the next finalize.
  rcupool_t *m = nullptr;
  rcupool_options_t o = {};
  o.threads = 2;
  ASSERT_EQ(rcupool_create(&o, &m), 0);
  ASSERT_TRUE(SumIsRight(m));
  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(WaitForOsThreadCount(base + 1), base + 1);  // m's one worker
  EXPECT_EQ(rcupool_destroy(m), 0);
  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(WaitForOsThreadCount(base), base);
}

// The executor's threads go too: a second library's pool made on
// rcupool_executor() and destroyed before finalize leaves no thread behind
// (the executor's floor is let go with the trim finalize makes). Needs a
// pthreadpool with the executor API; skips, saying so, on Debian 12's.
TEST(Finalize, AfterOtherLibrarysPoolOnExecutorJoinsEveryRcupoolThread) {
#ifndef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's)";
#else
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  const size_t base = BaselineThreadCount();
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  pthreadpool_t tp = pthreadpool_create_v2(e, ctx, 3);
  ASSERT_NE(tp, nullptr);
  std::atomic<size_t> total{0};
  rcupool_test::AnnotatedParallelize1d(tp, Add, &total, 100);
  EXPECT_EQ(total.load(), 5050u);
  pthreadpool_destroy(tp);
  ASSERT_GT(OsThreadCount(), base + 2);  // the set's 2 and the reclaim thread

  EXPECT_EQ(rcupool_finalize(), 0);
  EXPECT_EQ(WaitForOsThreadCount(base), base);
  EXPECT_EQ(e->num_threads(ctx), 0);
#endif
}

}  // namespace
