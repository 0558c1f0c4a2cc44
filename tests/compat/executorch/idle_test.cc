// SPDX-License-Identifier: LGPL-2.1-or-later
// The default manager's idle policy reaches the stand-in's run(): its
// pthreadpool call carries PTHREADPOOL_FLAG_YIELD_WORKERS under
// RCUPOOL_IDLE_YIELD and not under RCUPOOL_IDLE_SPIN, in and out of a
// guard. Observed on the calls themselves (tests/xnnpack/recorder.h,
// which interposes pthreadpool for librcupool.so.0 too).
#include <atomic>
#include <vector>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/xnnpack/recorder.h"

namespace {

namespace et = ::executorch::extension::threadpool;
using rcupool_test::ClearPoolRecord;
using rcupool_test::RecordedFlags;

constexpr uint32_t kYield = rcupool_test::kYieldPolicyFlags;

std::vector<uint32_t> FlagsOfOneRun() {
  std::atomic<size_t> items{0};
  ClearPoolRecord();
  et::get_threadpool()->run([&](size_t) { items.fetch_add(1); }, 100);
  EXPECT_EQ(items.load(), 100u);
  return RecordedFlags();
}

// Leaves the default manager's policy as it found it.
class PolicyRestorer {
 public:
  PolicyRestorer() : saved_(rcupool_idle(rcupool_default())) {}
  ~PolicyRestorer() { rcupool_set_idle(rcupool_default(), saved_); }

 private:
  rcupool_idle_t saved_;
};

}  // namespace

TEST(ThreadPoolRun, YieldPolicyOfTheDefaultManagerPassesYieldFlag) {
  PolicyRestorer restore;
  et::ThreadPool *pool = et::get_threadpool();
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(rcupool_set_idle(pool->manager(), RCUPOOL_IDLE_YIELD), 0);
  EXPECT_EQ(FlagsOfOneRun(), std::vector<uint32_t>{kYield});
}

TEST(ThreadPoolRun, SpinPolicyOfTheDefaultManagerPassesNoYieldFlag) {
  PolicyRestorer restore;
  et::ThreadPool *pool = et::get_threadpool();
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(rcupool_set_idle(pool->manager(), RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(FlagsOfOneRun(), std::vector<uint32_t>{0});
}

TEST(ThreadPoolRun, InsideAUseNThreadsGuardFollowsThePolicy) {
  PolicyRestorer restore;
  et::ThreadPool *pool = et::get_threadpool();
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(rcupool_set_idle(pool->manager(), RCUPOOL_IDLE_YIELD), 0);
  et::UseNThreadsThreadPoolGuard guard(3);
  EXPECT_EQ(FlagsOfOneRun(), std::vector<uint32_t>{kYield});
}
