// SPDX-License-Identifier: LGPL-2.1-or-later
// The review's churn in ExecuTorch's terms: for n in 1..16, reset the pool
// to n, load a method through the sample backend (pinned at load), execute
// it, unload it. Afterwards one pool is alive and the process holds only
// that pool's workers beyond its baseline (/proc/self/task), where keeping
// every pool ever handed out would hold 16 pools and about 120 threads.
#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <rcupool/rcupool.h>

#include "tests/compat/executorch/sample_backend.h"
#include "tests/compat/executorch/util.h"
#include "tests/support/threads.h"

namespace {

namespace et = ::executorch::extension::threadpool;
using rcupool_test::OsThreadCount;
using rcupool_test::WaitForOsThreadCount;

TEST(UnsafeResetThreadpool, ChurnOneToSixteenLoadRunUnloadLeavesOnePool) {
  et::ThreadPool *tp = et::get_threadpool();
  ASSERT_NE(tp, nullptr);
  // The library's reclaim thread starts at the first retire: make it exist,
  // then take the baseline on a 1-thread pool (no worker).
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(2));
  ASSERT_TRUE(tp->_unsafe_reset_threadpool(1));
  tp->_unsafe_destroy_threadpool();
  const size_t baseline = rcupool_test::SettledOsThreadCount();
  const rcupool_stats_t before = et_test::Stats();

  et_sample::Model model(16, 64, 128, 32, 3);
  size_t peak = baseline;
  int correct = 0;
  for (uint32_t n = 1; n <= 16; n++) {
    ASSERT_TRUE(tp->_unsafe_reset_threadpool(n));
    auto method = et_sample::Method::Load(model, et_sample::PoolAtLoad::kPinned);
    ASSERT_NE(method, nullptr);
    EXPECT_EQ(method->planned_threads(), n);
    double err = method->Execute();
    EXPECT_LT(err, et_sample::kMaxRelativeError) << "n = " << n;
    correct += err < et_sample::kMaxRelativeError;
    peak = std::max(peak, OsThreadCount());
    method.reset();  // unload
  }
  tp->_unsafe_destroy_threadpool();
  rcupool_stats_t s = et_test::Stats();
  EXPECT_EQ(correct, 16);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.threads, 16u);
  EXPECT_EQ(s.pools_created - before.pools_created, 15u);  // sizes 2..16
  // The current pool's 15 workers (the caller is the 16th), nothing else.
  EXPECT_EQ(WaitForOsThreadCount(baseline + 15), baseline + 15);
  EXPECT_GE(peak, baseline + 15);
  std::printf(
      "churn 1..16: baseline %zu threads, peak %zu, final %zu; pools alive "
      "%zu, created %llu, freed %llu\n",
      baseline, peak, OsThreadCount(), s.pools_alive,
      (unsigned long long)(s.pools_created - before.pools_created),
      (unsigned long long)(s.pools_freed - before.pools_freed));
}

}  // namespace
