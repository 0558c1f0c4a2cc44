// SPDX-License-Identifier: LGPL-2.1-or-later
// UseNThreadsThreadPoolGuard: n threads for the calls of one scope on one
// thread, on rcupool_pin_sized(), without touching the process-wide pool;
// nesting with itself, with NoThreadPoolGuard and UsePinnedThreadPoolGuard;
// resets and destroy while it is alive; a backend loaded inside it.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/sample_backend.h"
#include "tests/compat/executorch/util.h"

namespace {

namespace et = ::executorch::extension::threadpool;
using et_test::RunsKTasksAtOnce;
using et_test::RunSumIsRight;
using et_test::Stats;

// Starts every test from a 1-thread current pool and nothing else alive.
class UseNThreadsThreadPoolGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tp_ = et::get_threadpool();
    ASSERT_NE(tp_, nullptr);
    ASSERT_TRUE(tp_->_unsafe_reset_threadpool(1));
    tp_->_unsafe_destroy_threadpool();
    ASSERT_EQ(Stats().pools_alive, 1u);
  }
  et::ThreadPool *tp_ = nullptr;
};

TEST_F(UseNThreadsThreadPoolGuardTest, CallsInScopeUseNThreadsCurrentPoolUnchanged) {
  pthreadpool_t current = et::get_pthreadpool();
  uint64_t gen = rcupool_generation(rcupool_default());
  {
    et::UseNThreadsThreadPoolGuard g(3);
    ASSERT_TRUE(g.active());
    EXPECT_EQ(g.thread_count(), 3u);
    EXPECT_EQ(tp_->get_thread_count(), 3u);
    EXPECT_EQ(et::get_pthreadpool(), g.pthreadpool());
    EXPECT_NE(et::get_pthreadpool(), current);
    EXPECT_EQ(pthreadpool_get_threads_count(et::get_pthreadpool()), 3u);
    EXPECT_TRUE(RunsKTasksAtOnce(3));  // impossible on the 1-thread pool
    EXPECT_TRUE(RunSumIsRight(1000));
    // The process-wide pool did not change; other threads still see it.
    EXPECT_EQ(rcupool_generation(rcupool_default()), gen);
    EXPECT_EQ(rcupool_threads(rcupool_default()), 1u);
    pthreadpool_t other = nullptr;
    size_t other_count = 0;
    std::thread([&] {
      other = et::get_pthreadpool();
      other_count = et::get_threadpool()->get_thread_count();
    }).join();
    EXPECT_EQ(other, current);
    EXPECT_EQ(other_count, 1u);
  }
  EXPECT_EQ(et::get_pthreadpool(), current);
  EXPECT_EQ(tp_->get_thread_count(), 1u);
  // The guard's pool was never current: warm once the guard let go (kept
  // for the next guard of its width), freed by the destroy (a trim).
  tp_->_unsafe_destroy_threadpool();
  EXPECT_EQ(Stats().pools_alive, 1u);
  EXPECT_EQ(Stats().pins, 0u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, UnheldWidthStartsAPoolOnlyAtTheFirstGuard) {
  const uint64_t created = Stats().pools_created;
  for (int i = 0; i < 50; i++) {
    et::UseNThreadsThreadPoolGuard g(3);
    ASSERT_TRUE(g.active());
    EXPECT_EQ(g.thread_count(), 3u);
  }
  rcupool_stats_t s = Stats();
  EXPECT_EQ(s.pools_created, created + 1);  // then warm: a lookup
  EXPECT_EQ(s.pools_idle, 1u);
  EXPECT_EQ(tp_->trim(), 1);
}

TEST_F(UseNThreadsThreadPoolGuardTest, CurrentSizeUsesTheCurrentPool) {
  ASSERT_TRUE(tp_->_unsafe_reset_threadpool(2));
  tp_->_unsafe_destroy_threadpool();
  pthreadpool_t current = et::get_pthreadpool();
  et::UseNThreadsThreadPoolGuard g(2);
  ASSERT_TRUE(g.active());
  EXPECT_EQ(et::get_pthreadpool(), current);
  EXPECT_EQ(Stats().pools_alive, 1u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, NestedGuardsInnermostWinsEachRestores) {
  et::UseNThreadsThreadPoolGuard outer(2);
  pthreadpool_t two = et::get_pthreadpool();
  {
    et::UseNThreadsThreadPoolGuard inner(3);
    EXPECT_EQ(tp_->get_thread_count(), 3u);
    EXPECT_TRUE(RunsKTasksAtOnce(3));
    {
      et::UseNThreadsThreadPoolGuard same(2);  // the live pool of that size
      EXPECT_EQ(et::get_pthreadpool(), two);
    }
    EXPECT_EQ(tp_->get_thread_count(), 3u);
  }
  EXPECT_EQ(et::get_pthreadpool(), two);
  EXPECT_EQ(tp_->get_thread_count(), 2u);
  EXPECT_TRUE(RunsKTasksAtOnce(2));
}

TEST_F(UseNThreadsThreadPoolGuardTest, NestsWithNoThreadPoolGuardBothWays) {
  {
    et::NoThreadPoolGuard none;
    {
      et::UseNThreadsThreadPoolGuard g(3);  // innermost: threads back on
      EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());
      EXPECT_EQ(et::get_pthreadpool(), g.pthreadpool());
      EXPECT_TRUE(RunsKTasksAtOnce(3));
      {
        et::NoThreadPoolGuard inner_none;  // innermost: off again
        EXPECT_EQ(et::get_pthreadpool(), nullptr);
        EXPECT_EQ(tp_->get_thread_count(), 1u);
        std::thread::id caller = std::this_thread::get_id();
        std::atomic<int> elsewhere{0};
        tp_->run(
            [&](size_t) {
              if (std::this_thread::get_id() != caller) elsewhere++;
            },
            100);
        EXPECT_EQ(elsewhere.load(), 0);
      }
      EXPECT_EQ(tp_->get_thread_count(), 3u);
    }
    EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());
    EXPECT_EQ(et::get_pthreadpool(), nullptr);
  }
  EXPECT_FALSE(et::NoThreadPoolGuard::is_enabled());
  EXPECT_NE(et::get_pthreadpool(), nullptr);
}

TEST_F(UseNThreadsThreadPoolGuardTest, NestsWithUsePinnedThreadPoolGuard) {
  ASSERT_TRUE(tp_->_unsafe_reset_threadpool(2));
  et::PinnedPthreadpool two = et::get_pinned_pthreadpool();
  ASSERT_TRUE(tp_->_unsafe_reset_threadpool(1));
  et::UseNThreadsThreadPoolGuard g(3);
  {
    et::UsePinnedThreadPoolGuard p(two);
    EXPECT_EQ(et::get_pthreadpool(), two.get());
    EXPECT_EQ(tp_->get_thread_count(), 2u);
    {
      et::UseNThreadsThreadPoolGuard four(4);
      EXPECT_EQ(tp_->get_thread_count(), 4u);
    }
    EXPECT_EQ(et::get_pthreadpool(), two.get());
  }
  EXPECT_EQ(et::get_pthreadpool(), g.pthreadpool());
  EXPECT_EQ(tp_->get_thread_count(), 3u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, ResetAndDestroyInsideDoNotMoveTheGuard) {
  et::UseNThreadsThreadPoolGuard g(3);
  pthreadpool_t mine = et::get_pthreadpool();
  ASSERT_TRUE(tp_->_unsafe_reset_threadpool(4));
  ASSERT_TRUE(tp_->_unsafe_reset_threadpool(2));
  tp_->_unsafe_destroy_threadpool();
  EXPECT_EQ(et::get_pthreadpool(), mine);
  EXPECT_EQ(tp_->get_thread_count(), 3u);
  EXPECT_TRUE(RunsKTasksAtOnce(3));
  EXPECT_EQ(rcupool_threads(rcupool_default()), 2u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, ZeroMeansDefaultCount) {
  et::UseNThreadsThreadPoolGuard g(0);
  ASSERT_TRUE(g.active());
  // The test target sets RCUPOOL_NUM_THREADS=3.
  EXPECT_EQ(tp_->get_thread_count(), 3u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, AboveMaximumIsInactiveAndChangesNothing) {
  pthreadpool_t current = et::get_pthreadpool();
  {
    et::NoThreadPoolGuard none;
    et::UseNThreadsThreadPoolGuard g(RCUPOOL_MAX_THREADS + 1);
    EXPECT_FALSE(g.active());
    EXPECT_EQ(g.pthreadpool(), nullptr);
    EXPECT_EQ(g.thread_count(), 0u);
    EXPECT_TRUE(et::NoThreadPoolGuard::is_enabled());  // still off
    EXPECT_EQ(et::get_pthreadpool(), nullptr);
  }
  EXPECT_EQ(et::get_pthreadpool(), current);
  EXPECT_EQ(Stats().pins, 0u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, PinnedTakenInsideIsTheGuardPoolAndOutlivesIt) {
  et::PinnedPthreadpool kept;
  pthreadpool_t guard_pool = nullptr;
  {
    et::UseNThreadsThreadPoolGuard g(3);
    guard_pool = g.pthreadpool();
    kept = et::get_pinned_pthreadpool();
    EXPECT_EQ(kept.get(), guard_pool);
    EXPECT_EQ(kept.thread_count(), 3u);
  }
  tp_->_unsafe_destroy_threadpool();
  EXPECT_EQ(kept.get(), guard_pool);
  EXPECT_EQ(Stats().pools_alive, 2u);  // the current one and the kept one
  {
    et::UsePinnedThreadPoolGuard p(kept);
    EXPECT_TRUE(RunsKTasksAtOnce(3));
  }
  kept.reset();
  tp_->_unsafe_destroy_threadpool();
  EXPECT_EQ(Stats().pools_alive, 1u);
}

TEST_F(UseNThreadsThreadPoolGuardTest, BackendLoadedInsidePlansForNAndStaysCorrect) {
  et_sample::Model model(16, 64, 128, 32, 9);
  std::unique_ptr<et_sample::Method> method;
  {
    et::UseNThreadsThreadPoolGuard g(3);
    method = et_sample::Method::Load(model, et_sample::PoolAtLoad::kPinned);
    ASSERT_NE(method, nullptr);
    EXPECT_EQ(method->pool(), g.pthreadpool());
  }
  EXPECT_EQ(method->planned_threads(), 3u);
  for (uint32_t n : {4u, 2u, 1u}) {
    ASSERT_TRUE(tp_->_unsafe_reset_threadpool(n));
    tp_->_unsafe_destroy_threadpool();
    EXPECT_LT(method->Execute(), et_sample::kMaxRelativeError);
  }
}

TEST_F(UseNThreadsThreadPoolGuardTest, GuardsOnTwoThreadsRunAtTheSameTime) {
  std::atomic<size_t> a_started{0}, b_started{0};
  std::atomic<int> a_met{0}, b_met{0};
  auto body = [&](size_t n, std::atomic<size_t> &mine,
                  std::atomic<size_t> &theirs, std::atomic<int> &met) {
    et::UseNThreadsThreadPoolGuard g(n);
    et::get_threadpool()->run(
        [&](size_t) {
          mine.fetch_add(1);
          if (et_test::WaitFor(theirs, 1)) met.fetch_add(1);
        },
        4);
  };
  std::thread ta([&] { body(2, a_started, b_started, a_met); });
  std::thread tb([&] { body(3, b_started, a_started, b_met); });
  ta.join();
  tb.join();
  EXPECT_EQ(a_met.load(), 4);
  EXPECT_EQ(b_met.load(), 4);
}

}  // namespace
