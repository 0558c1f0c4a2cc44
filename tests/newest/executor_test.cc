// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_executor (lib/executor.c): a second library's
// pthreadpool_create_v2 pool runs on the manager's set of threads. On a
// pthreadpool without the executor API (Debian 12's) it answers -ENOTSUP
// and the cases that need a pool on it skip, saying so.
#include <errno.h>
#include <pthreadpool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "rcupool/rcupool.h"
#include "tests/support/annotate.h"
#include "tests/support/support.h"
#include "tests/support/threads.h"
#include "tests/support/watchdog.h"
#include "tests/placement_support.h"

using rcupool_test::FinishesWithin;
using rcupool_test::NoWarmManager;
using rcupool_test::WorkerTids;
using rcupool_test::ParallelSumIsRight;

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
#define HAS_EXECUTOR_API 1
#else
#define HAS_EXECUTOR_API 0
#endif

namespace {

TEST(RcupoolExecutor, NullArgumentsAreInvalid) {
  NoWarmManager m(2);
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  EXPECT_EQ(rcupool_executor(nullptr, &e, &ctx), -EINVAL);
  EXPECT_EQ(rcupool_executor(m, nullptr, &ctx), -EINVAL);
  EXPECT_EQ(rcupool_executor(m, &e, nullptr), -EINVAL);
}

TEST(RcupoolExecutor, WithoutExecutorApiIsNotSupportedAndSetsNothing) {
  if (HAS_EXECUTOR_API) GTEST_SKIP() << "this pthreadpool has the executor API";
  NoWarmManager m(2);
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  EXPECT_EQ(rcupool_executor(m, &e, &ctx), -ENOTSUP);
  EXPECT_EQ(e, nullptr);
  EXPECT_EQ(ctx, nullptr);
}

#if HAS_EXECUTOR_API
struct Seen {
  std::mutex mu;
  std::set<long> tids;
};
void RecordTid(void *arg, size_t) {
  auto *s = static_cast<Seen *>(arg);
  long tid = syscall(SYS_gettid);
  std::lock_guard<std::mutex> g(s->mu);
  s->tids.insert(tid);
  std::this_thread::sleep_for(std::chrono::microseconds(200));
}
#endif

TEST(RcupoolExecutor, OtherLibrarysPoolRunsOnManagerThreadsAndStartsNone) {
#if !HAS_EXECUTOR_API
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's): "
                  "build against the newest set (tests/newest/run.sh)";
#else
  NoWarmManager m(3);
  size_t before = rcupool_test::SettledOsThreadCount();
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  // The set holds the current width's threads besides its caller: the
  // manager's own pool of 3 is a view over it, so it started none now.
  EXPECT_EQ(e->num_threads(ctx), 2);
  size_t with_set = rcupool_test::SettledOsThreadCount();
  EXPECT_EQ(with_set, before);

  pthreadpool_t tp = pthreadpool_create_v2(e, ctx, 3);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(tp), 3u);
  Seen seen;
  rcupool_test::AnnotatedParallelize1d(tp, RecordTid, &seen, 64);
  EXPECT_TRUE(ParallelSumIsRight(tp, 257));
  // The library's pool started no thread of its own.
  EXPECT_EQ(rcupool_test::SettledOsThreadCount(), with_set);
  EXPECT_GE(seen.tids.size(), 1u);
  EXPECT_LE(seen.tids.size(), 3u);
  pthreadpool_destroy(tp);
  // A second call gives the same set.
  struct pthreadpool_executor *e2 = nullptr;
  void *ctx2 = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e2, &ctx2), 0);
  EXPECT_EQ(e2, e);
  EXPECT_EQ(ctx2, ctx);
#endif
}

TEST(RcupoolExecutor, TwoPoolsWiderThanSetBothCompleteConcurrently) {
#if !HAS_EXECUTOR_API
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's)";
#else
  NoWarmManager m(2);  // a set of 1 thread, two pools of 2 on it
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  ASSERT_EQ(e->num_threads(ctx), 1);
  pthreadpool_t a = pthreadpool_create_v2(e, ctx, 2);
  pthreadpool_t b = pthreadpool_create_v2(e, ctx, 2);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::atomic<int> wrong{0};
  auto run = [&](pthreadpool_t tp) {
    for (int i = 0; i < 200; i++)
      if (!ParallelSumIsRight(tp, 101)) wrong++;
  };
  std::thread ta(run, a), tb(run, b);
  ta.join();
  tb.join();
  EXPECT_EQ(wrong.load(), 0);
  pthreadpool_destroy(a);
  pthreadpool_destroy(b);
#endif
}

// The set keeps the threads another library's pool was sized from across
// the going of the view that had them (EXECUTOR_API-1), and rcupool_trim()
// lets them go with no pool of the library in sight; the library's next
// parallel call starts them again, so the call and the pool's destroy
// (which waits for every request the pool queued) return.
TEST(RcupoolTrim, OtherLibrarysPoolSizedFromWiderViewStillRunsAndDestroys) {
#if !HAS_EXECUTOR_API
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's)";
#else
  NoWarmManager m(1);
  rcupool_pin_t pin = {};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);  // the set grows to 2
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  ASSERT_EQ(e->num_threads(ctx), 2);
  pthreadpool_t tp = pthreadpool_create_v2(e, ctx, 3);
  ASSERT_NE(tp, nullptr);
  ASSERT_EQ(pthreadpool_get_threads_count(tp), 3u);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);  // the view of 3 goes
  EXPECT_EQ(e->num_threads(ctx), 2) << "the library's pool lost its threads";
  ASSERT_GE(rcupool_trim(m), 0);
  FinishesWithin(std::chrono::seconds(30), "a call and destroy after trim", [&] {
    for (int i = 0; i < 20; i++) EXPECT_TRUE(ParallelSumIsRight(tp, 257));
    EXPECT_EQ(e->num_threads(ctx), 2) << "the call did not start them again";
    pthreadpool_destroy(tp);
  });
#endif
}

// A new user's scenario: the application sets 8 threads, a second library
// runs a pool of 8 on the executor and destroys it, the application resets
// to 1 and trims: the set lets every thread go (the widest width in use,
// 1, minus its caller), as rcupool_get_stats() says.
TEST(RcupoolTrim, AfterOtherLibrarysPoolIsDestroyedKeepsWidestWidthInUseMinusOne) {
#if !HAS_EXECUTOR_API
  GTEST_SKIP() << "this pthreadpool has no executor API (Debian 12's)";
#else
  NoWarmManager m(8);
  struct pthreadpool_executor *e = nullptr;
  void *ctx = nullptr;
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  pthreadpool_t tp = pthreadpool_create_v2(e, ctx, 8);
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(tp), 8u);
  EXPECT_TRUE(ParallelSumIsRight(tp, 1001));
  pthreadpool_destroy(tp);
  EXPECT_EQ(WorkerTids().size(), 7u);
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_GE(rcupool_trim(m), 0);
  rcupool_stats_t s{};
  ASSERT_EQ(rcupool_get_stats(m, &s), 0);
  EXPECT_EQ(s.threads_alive, 1u);
  // Joined threads may stay listed for a moment.
  for (int i = 0; i < 200 && !WorkerTids().empty(); i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(WorkerTids().size(), 0u) << "the executor kept its floor";
  EXPECT_EQ(e->num_threads(ctx), 0);
  // Later pools on the executor still work (a width of 1 plus what the
  // set has then, as at any creation).
  ASSERT_EQ(rcupool_executor(m, &e, &ctx), 0);
  pthreadpool_t again = pthreadpool_create_v2(e, ctx, 4);
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(ParallelSumIsRight(again, 257));
  pthreadpool_destroy(again);
#endif
}

}  // namespace
