// SPDX-License-Identifier: LGPL-2.1-or-later
// The ExecuTorch stand-in from a bzlmod consumer: a pinned pool keeps its
// width across a reset and a guard runs the thread pool's work on it.
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <atomic>

#include <gtest/gtest.h>

namespace tp = ::executorch::extension::threadpool;

TEST(ThreadPool, PinnedPoolUnderGuardKeepsItsWidthAfterReset) {
  tp::ThreadPool *pool = tp::get_threadpool();
  ASSERT_NE(pool, nullptr);
  ASSERT_TRUE(pool->_unsafe_reset_threadpool(2));
  tp::PinnedPthreadpool pinned = tp::get_pinned_pthreadpool();
  ASSERT_TRUE(pool->_unsafe_reset_threadpool(3));
  EXPECT_EQ(pinned.thread_count(), 2u);
  EXPECT_FALSE(pinned.is_current());
  std::atomic<size_t> total(0);
  {
    tp::UsePinnedThreadPoolGuard guard(pinned);
    EXPECT_EQ(pool->get_thread_count(), 2u);
    pool->run([&total](size_t i) { total += i + 1; }, 100);
  }
  EXPECT_EQ(total.load(), 5050u);
  EXPECT_EQ(pool->get_thread_count(), 3u);
}
