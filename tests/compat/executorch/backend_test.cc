// SPDX-License-Identifier: LGPL-2.1-or-later
// The reported crash in ExecuTorch's terms: a backend loads a method on the
// thread pool, then the pool is reset to 16, to 4 and 20 more times between
// executions. Taken through get_pinned_pthreadpool() at load (the one
// change a backend makes), every output is correct and the method stays on
// the pool it planned for. The same backend keeping the raw
// get_pthreadpool() is the documented hazard: shown in a child process by
// backend_child_test.
#include <cstdio>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/sample_backend.h"
#include "tests/compat/executorch/sequence.h"

namespace {

namespace et = ::executorch::extension::threadpool;
using et_sample::kMaxRelativeError;

rcupool_stats_t Stats() {
  rcupool_stats_t s{};
  EXPECT_EQ(rcupool_get_stats(rcupool_default(), &s), 0);
  return s;
}

TEST(SampleBackendPinned, ResetsSixteenFourAndTwentyAlternationsEveryOutputCorrect) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_NE(tp, nullptr);
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(et_sample::kLoadThreads));
  et_sample::Model model(64, 256, 512, 256, 11);
  auto method = et_sample::Method::Load(model, et_sample::PoolAtLoad::kPinned);
  ASSERT_NE(method, nullptr);
  const pthreadpool_t planned = method->pool();
  ASSERT_NE(planned, nullptr);
  EXPECT_EQ(method->planned_threads(), et_sample::kLoadThreads);
  EXPECT_LT(method->Execute(), kMaxRelativeError);

  int executions = 1, correct = 1;
  for (uint32_t n : et_sample::ResetSequence()) {
    ASSERT_TRUE(tp->_unsafe_reset_threadpool(n));
    // Frees every retired pool nobody holds (what time does once a width
    // has been unused for warm_ms); never the method's pool.
    tp->_unsafe_destroy_threadpool();
    EXPECT_EQ(tp->get_thread_count(), n);
    EXPECT_NE(et::get_pthreadpool(), planned);
    // The method stays on its pool, with the count it planned for.
    EXPECT_EQ(method->pinned().get(), planned);
    EXPECT_EQ(method->pinned().thread_count(), et_sample::kLoadThreads);
    EXPECT_FALSE(method->pinned().is_current());
    double err = method->Execute();
    EXPECT_LT(err, kMaxRelativeError) << "after reset to " << n;
    executions++;
    if (err < kMaxRelativeError) correct++;
  }
  EXPECT_EQ(executions, 23);
  EXPECT_EQ(correct, executions);
  std::printf("pinned backend: %d of %d executions correct through %zu resets\n",
              correct, executions, et_sample::ResetSequence().size());
  // Unload: the pool it kept is freed once released.
  method.reset();
  tp->_unsafe_destroy_threadpool();
  rcupool_stats_t s = Stats();
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pins, 0u);
}

TEST(SampleBackendPinned, ExecutionInsideItsGuardKeepsRunKernelsOnTheMethodPool) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(3));
  et_sample::Model model(8, 32, 64, 16, 5);
  auto method = et_sample::Method::Load(model, et_sample::PoolAtLoad::kPinned);
  ASSERT_NE(method, nullptr);
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  {
    et::UsePinnedThreadPoolGuard g(method->pinned());
    EXPECT_EQ(et::get_pthreadpool(), method->pool());
    EXPECT_EQ(tp->get_thread_count(), 3u);
  }
  EXPECT_EQ(tp->get_thread_count(), 2u);
  EXPECT_LT(method->Execute(), kMaxRelativeError);
}

TEST(SampleBackendPinned, LoadedUnderNoThreadPoolGuardRunsWithoutPool) {
  et_sample::Model model(8, 32, 64, 16, 6);
  std::unique_ptr<et_sample::Method> method;
  {
    et::NoThreadPoolGuard g;
    method = et_sample::Method::Load(model, et_sample::PoolAtLoad::kPinned);
  }
  ASSERT_NE(method, nullptr);
  EXPECT_EQ(method->pool(), nullptr);
  EXPECT_FALSE(method->pinned());
  ASSERT_TRUE(et::get_threadpool()->_unsafe_reset_threadpool(3));
  EXPECT_LT(method->Execute(), kMaxRelativeError);
}

}  // namespace
