// SPDX-License-Identifier: LGPL-2.1-or-later
// Every function of the stand-in's threadpool.h and threadpool_guard.h
// except UseNThreadsThreadPoolGuard (guard_test.cc): what each returns in
// and out of guards, nesting, the pinned variant, the deprecated aliases.
#include <atomic>
#include <cerrno>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/util.h"

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void *addr);
extern "C" void __tsan_release(void *addr);
static inline void ApiTsanAcquire(void *p) { __tsan_acquire(p); }
static inline void ApiTsanRelease(void *p) { __tsan_release(p); }
#else
static inline void ApiTsanAcquire(void *) {}
static inline void ApiTsanRelease(void *) {}
#endif

namespace {

namespace et = ::executorch::extension::threadpool;
using et_test::RunsKTasksAtOnce;
using et_test::RunSumIsRight;
using et_test::Stats;

pthreadpool_t CurrentPool() {
  rcupool_read_lock();
  pthreadpool_t tp = rcupool_current(rcupool_default());
  rcupool_read_unlock();
  return tp;
}

// Counts warnings logged through rcupool's hook while alive.
class WarningCounter {
 public:
  WarningCounter() { rcupool_set_log(Hook, this); }
  ~WarningCounter() { rcupool_set_log(nullptr, nullptr); }
  size_t Count(const std::string &needle) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (auto &l : lines_) n += l.find(needle) != std::string::npos;
    return n;
  }

 private:
  static void Hook(void *ctx, rcupool_log_level_t level, const char *msg) {
    auto *self = static_cast<WarningCounter *>(ctx);
    if (level < RCUPOOL_LOG_WARN) return;
    std::lock_guard<std::mutex> lock(self->mu_);
    self->lines_.push_back(msg);
  }
  std::mutex mu_;
  std::vector<std::string> lines_;
};

// --- get_threadpool / get_pthreadpool / get_thread_count --------------------

TEST(GetThreadpool, SameObjectOnEveryThreadViewOfDefaultManager) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->manager(), rcupool_default());
  et::ThreadPool *other = nullptr;
  std::thread([&] { other = et::get_threadpool(); }).join();
  EXPECT_EQ(other, tp);
  static_assert(!std::is_copy_constructible<et::ThreadPool>::value, "");
  static_assert(!std::is_move_constructible<et::ThreadPool>::value, "");
}

TEST(GetPthreadpool, ReturnsCurrentPoolAndFollowsReset) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  pthreadpool_t before = et::get_pthreadpool();
  EXPECT_NE(before, nullptr);
  EXPECT_EQ(before, CurrentPool());
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  EXPECT_NE(et::get_pthreadpool(), before);
  EXPECT_EQ(et::get_pthreadpool(), CurrentPool());
  EXPECT_EQ(pthreadpool_get_threads_count(et::get_pthreadpool()), 3u);
}

TEST(GetThreadCount, FollowsResetAndIsOneUnderNoThreadPoolGuard) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  EXPECT_EQ(tp->get_thread_count(), 3u);
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  EXPECT_EQ(tp->get_thread_count(), 2u);
  {
    et::NoThreadPoolGuard g;
    EXPECT_EQ(tp->get_thread_count(), 1u);
  }
  EXPECT_EQ(tp->get_thread_count(), 2u);
}

// --- _unsafe_reset_threadpool ----------------------------------------------

// The test target sets RCUPOOL_NUM_THREADS=3: the default count.
TEST(UnsafeResetThreadpool, ZeroMeansDefaultCountAndReturnsTrue) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(5));
  EXPECT_TRUE(tp->_unsafe_reset_threadpool(0));
  EXPECT_EQ(tp->get_thread_count(), 3u);
}

TEST(UnsafeResetThreadpool, AboveMaximumReturnsFalseAndKeepsCurrentPool) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  pthreadpool_t before = et::get_pthreadpool();
  uint64_t gen = rcupool_generation(rcupool_default());
  EXPECT_FALSE(tp->_unsafe_reset_threadpool(RCUPOOL_MAX_THREADS + 1));
  EXPECT_EQ(et::get_pthreadpool(), before);
  EXPECT_EQ(rcupool_generation(rcupool_default()), gen);
  EXPECT_TRUE(RunSumIsRight(1000));
}

TEST(UnsafeResetThreadpool, FromInsideRunTaskSucceedsAndRunCompletes) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  std::atomic<int> ok{0};
  std::atomic<size_t> calls{0};
  tp->run(
      [&](size_t i) {
        if (i == 0) ok = tp->_unsafe_reset_threadpool(3) ? 1 : -1;
        calls.fetch_add(1);
      },
      64);
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(calls.load(), 64u);
  EXPECT_EQ(tp->get_thread_count(), 3u);
}

TEST(UnsafeResetThreadpool, WithConcurrentRunsNeverBreaksThem) {
  et::ThreadPool *tp = et::get_threadpool();
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::thread runner([&] {
    while (!stop.load())
      if (!RunSumIsRight(500)) wrong++;
  });
  for (int i = 0; i < 30; i++)
    ASSERT_TRUE(tp->_unsafe_reset_threadpool(1 + i % 4));
  stop = true;
  runner.join();
  EXPECT_EQ(wrong.load(), 0);
}

// --- _unsafe_destroy_threadpool ---------------------------------------------

TEST(UnsafeDestroyThreadpool, FreesUnusedRetiredPoolsKeepsCurrentAndPinned) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  tp->_unsafe_destroy_threadpool();
  et::PinnedPthreadpool kept = et::get_pinned_pthreadpool();
  ASSERT_TRUE(kept);
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(4));  // 3 retired, 2 pinned
  tp->_unsafe_destroy_threadpool();
  rcupool_stats_t s = Stats();
  EXPECT_EQ(s.pools_alive, 2u);  // the current and the pinned one
  EXPECT_EQ(s.pools_kept, 1u);
  EXPECT_EQ(s.threads, 4u);
  // Both stay usable, and so does the ThreadPool.
  // A direct pthreadpool call: pthreadpool is not instrumented, so its
  // start and end edges are annotated for TSAN here (lib/tsan.h does the
  // same inside rcupool_parallelize_1d).
  std::atomic<size_t> calls{0};
  ApiTsanRelease(&calls);
  pthreadpool_parallelize_1d(
      kept.get(),
      [](void *c, size_t) {
        ApiTsanAcquire(c);
        static_cast<std::atomic<size_t> *>(c)->fetch_add(1);
        ApiTsanRelease(c);
      },
      &calls, 100, 0);
  ApiTsanAcquire(&calls);
  EXPECT_EQ(calls.load(), 100u);
  EXPECT_TRUE(RunSumIsRight(1000));
  EXPECT_EQ(tp->get_thread_count(), 4u);
  kept.reset();
  tp->_unsafe_destroy_threadpool();
  EXPECT_EQ(Stats().pools_alive, 1u);
}

TEST(UnsafeDestroyThreadpool, InsideRunTaskLogsWarningFreesNothingReturns) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));  // a retired pool to free
  WarningCounter log;
  std::atomic<size_t> calls{0};
  tp->run(
      [&](size_t) {
        tp->_unsafe_destroy_threadpool();
        calls.fetch_add(1);
      },
      1);
  EXPECT_EQ(calls.load(), 1u);
  EXPECT_EQ(log.Count("_unsafe_destroy_threadpool"), 1u);
  tp->_unsafe_destroy_threadpool();  // outside: frees it
  EXPECT_EQ(Stats().pools_alive, 1u);
}

TEST(UnsafeDestroyThreadpool, FreesWarmWidthsOfEndedGuardsToo) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  tp->_unsafe_destroy_threadpool();
  { et::UseNThreadsThreadPoolGuard g(3); }
  ASSERT_EQ(rcupool_barrier(rcupool_default()), 0);
  ASSERT_EQ(Stats().pools_idle, 1u);  // the width stays warm after the guard
  tp->_unsafe_destroy_threadpool();
  rcupool_stats_t s = Stats();
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_idle, 0u);
}

// --- trim -------------------------------------------------------------------

TEST(Trim, FreesTheWarmWidthOfAnEndedGuardAndReturnsTheCount) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  ASSERT_GE(tp->trim(), 0);
  { et::UseNThreadsThreadPoolGuard g(3); }
  ASSERT_EQ(rcupool_barrier(rcupool_default()), 0);
  rcupool_stats_t s = Stats();
  EXPECT_EQ(s.pools_idle, 1u);
  EXPECT_EQ(s.threads_idle, 3u);
  EXPECT_EQ(tp->trim(), 1);
  s = Stats();
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.threads_alive, 2u);
  EXPECT_EQ(tp->trim(), 0);
  EXPECT_TRUE(RunSumIsRight(1000));  // the current pool is untouched
}

TEST(Trim, KeepsPinnedAndGuardedPoolsAndTheCurrentOne) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  et::PinnedPthreadpool kept = et::get_pinned_pthreadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(4));
  ASSERT_GE(tp->trim(), 0);
  {
    et::UseNThreadsThreadPoolGuard g(3);
    EXPECT_EQ(tp->trim(), 0);
    EXPECT_EQ(Stats().pools_alive, 3u);  // 4 current, 2 pinned, 3 guarded
    EXPECT_TRUE(RunsKTasksAtOnce(3));
  }
  EXPECT_EQ(pthreadpool_get_threads_count(kept.get()), 2u);
  kept.reset();
  EXPECT_EQ(tp->trim(), 2);
  EXPECT_EQ(Stats().pools_alive, 1u);
}

TEST(Trim, InsideRunTaskReturnsEdeadlkAndFreesNothing) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  ASSERT_GE(tp->trim(), 0);
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));  // 2 retired: warm
  int inside = 0;
  tp->run([&](size_t) { inside = tp->trim(); }, 1);
  EXPECT_EQ(inside, -EDEADLK);
  EXPECT_EQ(tp->trim(), 1);  // outside: frees it
}

// --- run --------------------------------------------------------------------

void AddIndex(size_t i);
std::atomic<uint64_t> g_function_total{0};
void AddIndex(size_t i) { g_function_total.fetch_add(i + 1); }

TEST(Run, LambdaStdFunctionAndFunctionPointerEachIndexOnce) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  EXPECT_TRUE(RunSumIsRight(1000));  // a lambda
  std::atomic<uint64_t> total{0};
  const std::function<void(size_t)> fn = [&](size_t i) { total += i + 1; };
  tp->run(fn, 100);  // a const std::function lvalue
  EXPECT_EQ(total.load(), 5050u);
  tp->run(std::function<void(size_t)>(fn), 100);  // an rvalue
  EXPECT_EQ(total.load(), 10100u);
  const auto lambda = [&](size_t i) { total += i + 1; };
  tp->run(lambda, 100);  // a const lambda
  EXPECT_EQ(total.load(), 15150u);
  g_function_total = 0;
  tp->run(AddIndex, 100);  // a function
  tp->run(&AddIndex, 100);  // a function pointer
  EXPECT_EQ(g_function_total.load(), 10100u);
}

TEST(Run, ZeroRangeCallsNothing) {
  std::atomic<size_t> calls{0};
  et::get_threadpool()->run([&](size_t) { calls++; }, 0);
  EXPECT_EQ(calls.load(), 0u);
}

TEST(Run, WithoutGuardRunsTasksOnSeveralThreadsAtOnce) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  EXPECT_TRUE(RunsKTasksAtOnce(3));
}

TEST(Run, UnderNoThreadPoolGuardRunsEveryTaskOnCallingThread) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  std::mutex mu;
  std::vector<std::thread::id> ids;
  {
    et::NoThreadPoolGuard g;
    et::get_threadpool()->run(
        [&](size_t) {
          std::lock_guard<std::mutex> lock(mu);
          ids.push_back(std::this_thread::get_id());
        },
        200);
  }
  ASSERT_EQ(ids.size(), 200u);
  for (auto id : ids) EXPECT_EQ(id, std::this_thread::get_id());
}

TEST(Run, NestedRunInsideTaskRunsInlineAndCompletes) {
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(2));
  std::atomic<uint64_t> inner{0};
  et::get_threadpool()->run(
      [&](size_t) {
        et::get_threadpool()->run([&](size_t j) { inner += j + 1; }, 10);
      },
      8);
  EXPECT_EQ(inner.load(), 8u * 55u);
}

// The original serializes every run() through one global mutex. Here two
// threads, each inside the guard of its own pinned pool, run at the same
// time: each one's tasks wait until the other's have started.
TEST(Run, TwoThreadsOnDifferentPoolsRunAtTheSameTime) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  et::PinnedPthreadpool a = et::get_pinned_pthreadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  et::PinnedPthreadpool b = et::get_pinned_pthreadpool();
  ASSERT_NE(a.get(), b.get());
  std::atomic<size_t> a_started{0}, b_started{0};
  std::atomic<int> a_met{0}, b_met{0};
  auto body = [&](const et::PinnedPthreadpool &pool, std::atomic<size_t> &mine,
                  std::atomic<size_t> &theirs, std::atomic<int> &met) {
    et::UsePinnedThreadPoolGuard g(pool);
    et::get_threadpool()->run(
        [&](size_t) {
          mine.fetch_add(1);
          if (et_test::WaitFor(theirs, 1)) met.fetch_add(1);
        },
        4);
  };
  std::thread ta([&] { body(a, a_started, b_started, a_met); });
  std::thread tb([&] { body(b, b_started, a_started, b_met); });
  ta.join();
  tb.join();
  EXPECT_EQ(a_met.load(), 4);
  EXPECT_EQ(b_met.load(), 4);
}

// --- NoThreadPoolGuard ------------------------------------------------------

TEST(NoThreadPoolGuard, NullPoolOnThisThreadOnlyAndRestoredAfter) {
  ASSERT_FALSE(et::NoThreadPoolGuard::is_enabled());
  pthreadpool_t before = et::get_pthreadpool();
  ASSERT_NE(before, nullptr);
  {
    et::NoThreadPoolGuard g;
    EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());
    EXPECT_EQ(et::get_pthreadpool(), nullptr);
    EXPECT_FALSE(et::get_pinned_pthreadpool());
    pthreadpool_t seen = nullptr;
    bool enabled_there = true;
    std::thread([&] {
      seen = et::get_pthreadpool();
      enabled_there = et::NoThreadPoolGuard::is_enabled();
    }).join();
    EXPECT_EQ(seen, before);
    EXPECT_FALSE(enabled_there);
  }
  EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());
  EXPECT_EQ(et::get_pthreadpool(), before);
}

TEST(NoThreadPoolGuard, NestsAndEachRestoresWhatItFound) {
  {
    et::NoThreadPoolGuard outer;
    {
      et::NoThreadPoolGuard inner;
      EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());
    }
    EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());  // outer still alive
    EXPECT_EQ(et::get_pthreadpool(), nullptr);
    et::NoThreadPoolGuard::set_enabled(false);
    EXPECT_NE(et::get_pthreadpool(), nullptr);
    {
      et::NoThreadPoolGuard inner;
      EXPECT_EQ(et::get_pthreadpool(), nullptr);
    }
    EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());  // restored to false
  }
  EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());
  et::NoThreadPoolGuard::set_enabled(true);
  EXPECT_EQ(et::get_pthreadpool(), nullptr);
  et::NoThreadPoolGuard::set_enabled(false);
  EXPECT_NE(et::get_pthreadpool(), nullptr);
}

// --- PinnedPthreadpool and UsePinnedThreadPoolGuard ------------------------

TEST(GetPinnedPthreadpool, KeepsItsPoolAcrossResetsAndDestroyUntilReleased) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  tp->_unsafe_destroy_threadpool();
  et::PinnedPthreadpool h = et::get_pinned_pthreadpool();
  ASSERT_TRUE(h);
  EXPECT_EQ(h.get(), et::get_pthreadpool());
  EXPECT_EQ(h.thread_count(), 2u);
  EXPECT_TRUE(h.is_current());
  EXPECT_EQ(Stats().pins, 1u);
  for (uint32_t n : {16u, 4u, 3u}) ASSERT_TRUE(tp->_unsafe_reset_threadpool(n));
  tp->_unsafe_destroy_threadpool();
  EXPECT_FALSE(h.is_current());
  EXPECT_EQ(h.thread_count(), 2u);
  EXPECT_EQ(pthreadpool_get_threads_count(h.get()), 2u);
  EXPECT_EQ(Stats().pools_kept, 1u);
  h.reset();
  EXPECT_FALSE(h);
  EXPECT_EQ(h.get(), nullptr);
  EXPECT_EQ(h.thread_count(), 0u);
  EXPECT_EQ(Stats().pins, 0u);
  tp->_unsafe_destroy_threadpool();
  EXPECT_EQ(Stats().pools_alive, 1u);
}

TEST(PinnedPthreadpool, MoveTransfersThePinAndEmptiesTheSource) {
  et::PinnedPthreadpool a = et::get_pinned_pthreadpool();
  ASSERT_TRUE(a);
  pthreadpool_t pool = a.get();
  et::PinnedPthreadpool b(std::move(a));
  EXPECT_FALSE(a);
  EXPECT_EQ(b.get(), pool);
  et::PinnedPthreadpool c;
  EXPECT_FALSE(c);
  c = std::move(b);
  EXPECT_FALSE(b);
  EXPECT_EQ(c.get(), pool);
  EXPECT_EQ(Stats().pins, 1u);
  c = et::PinnedPthreadpool();  // releases
  EXPECT_EQ(Stats().pins, 0u);
  static_assert(!std::is_copy_constructible<et::PinnedPthreadpool>::value, "");
}

TEST(UsePinnedThreadPoolGuard, EveryCallUsesThePinnedPoolThenRestores) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  et::PinnedPthreadpool h = et::get_pinned_pthreadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(1));
  pthreadpool_t current = et::get_pthreadpool();
  {
    et::UsePinnedThreadPoolGuard g(h);
    EXPECT_EQ(et::get_pthreadpool(), h.get());
    EXPECT_EQ(tp->get_thread_count(), 3u);
    // On the 1-thread current pool this could not meet.
    EXPECT_TRUE(RunsKTasksAtOnce(3));
    et::PinnedPthreadpool again = et::get_pinned_pthreadpool();
    EXPECT_EQ(again.get(), h.get());
  }
  EXPECT_EQ(et::get_pthreadpool(), current);
  EXPECT_EQ(tp->get_thread_count(), 1u);
}

TEST(UsePinnedThreadPoolGuard, EmptyHandleActsAsNoThreadPoolGuard) {
  et::PinnedPthreadpool empty;
  {
    et::UsePinnedThreadPoolGuard g(empty);
    EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());
    EXPECT_EQ(et::get_pthreadpool(), nullptr);
    EXPECT_EQ(et::get_threadpool()->get_thread_count(), 1u);
  }
  EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());
  EXPECT_NE(et::get_pthreadpool(), nullptr);
}

TEST(UsePinnedThreadPoolGuard, NestsWithItselfAndWithNoThreadPoolGuard) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  et::PinnedPthreadpool two = et::get_pinned_pthreadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  et::PinnedPthreadpool three = et::get_pinned_pthreadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(1));
  pthreadpool_t current = et::get_pthreadpool();
  {
    et::UsePinnedThreadPoolGuard g2(two);
    EXPECT_EQ(et::get_pthreadpool(), two.get());
    {
      et::UsePinnedThreadPoolGuard g3(three);
      EXPECT_EQ(et::get_pthreadpool(), three.get());
      EXPECT_TRUE(RunsKTasksAtOnce(3));
      {
        et::NoThreadPoolGuard none;
        EXPECT_EQ(et::get_pthreadpool(), nullptr);
        EXPECT_EQ(tp->get_thread_count(), 1u);
        {
          et::UsePinnedThreadPoolGuard g2again(two);  // innermost wins
          EXPECT_EQ(et::get_pthreadpool(), two.get());
          EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());
        }
        EXPECT_EQ(et::get_pthreadpool(), nullptr);
      }
      EXPECT_EQ(et::get_pthreadpool(), three.get());
      EXPECT_EQ(tp->get_thread_count(), 3u);
    }
    EXPECT_EQ(et::get_pthreadpool(), two.get());
    EXPECT_EQ(tp->get_thread_count(), 2u);
    EXPECT_TRUE(RunSumIsRight(1000));
  }
  EXPECT_EQ(et::get_pthreadpool(), current);
}

// --- deprecated aliases -----------------------------------------------------

TEST(TorchExecutorchAliases, NameTheSameFunctionsTypesAndPool) {
  namespace old = ::torch::executorch::threadpool;
  static_assert(std::is_same<old::ThreadPool, et::ThreadPool>::value, "");
  static_assert(std::is_same<old::NoThreadPoolGuard, et::NoThreadPoolGuard>::value,
                "");
  old::ThreadPool *tp = old::get_threadpool();
  EXPECT_EQ(tp, et::get_threadpool());
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  EXPECT_EQ(old::get_pthreadpool(), et::get_pthreadpool());
  EXPECT_EQ(tp->get_thread_count(), 2u);
  {
    old::NoThreadPoolGuard g;
    EXPECT_EQ(old::get_pthreadpool(), nullptr);
    EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());
  }
  std::atomic<size_t> calls{0};
  tp->run([&](size_t) { calls++; }, 10);
  EXPECT_EQ(calls.load(), 10u);
}

}  // namespace
