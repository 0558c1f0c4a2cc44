// SPDX-License-Identifier: LGPL-2.1-or-later
// The stand-in's default count is the performance cores in the mask, as
// ExecuTorch's performance-cores default, with rcupool's classes
// (RCUPOOL_CPU_CLASSES=0:efficiency,1:performance in this target's
// environment): 1 thread on a 2-CPU mask. Under RCUPOOL_PLACEMENT
// (performance, also set here) a guard's pool has its worker on the
// performance CPU. Skips unless the mask is CPUs 0 and 1.
#include <sched.h>

#include <set>
#include <string>

#include <gtest/gtest.h>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>
#include <rcupool/rcupool.h>

#include "tests/placement_support.h"

namespace {

namespace et = ::executorch::extension::threadpool;

TEST(EtClasses, DefaultCountIsThePerformanceCoresAndAGuardIsPlacedOnThem) {
  if (!rcupool_test::MaskIsCpus01())
    GTEST_SKIP() << "needs an affinity mask of CPUs 0 and 1";
  et::ThreadPool *pool = et::get_threadpool();
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->get_thread_count(), 1u);
  rcupool_placement_t pl{};
  ASSERT_EQ(rcupool_get_placement(rcupool_default(), &pl), 0);
  EXPECT_EQ(pl.policy, RCUPOOL_PLACE_PERFORMANCE);
  const std::set<pid_t> before = rcupool_test::WorkerTids();
  {
    et::UseNThreadsThreadPoolGuard guard(2);
    EXPECT_EQ(pool->get_thread_count(), 2u);
    const std::set<pid_t> workers =
        rcupool_test::NewTids(before, rcupool_test::WorkerTids());
    ASSERT_EQ(workers.size(), 1u);
    EXPECT_EQ(rcupool_test::CpusAllowedList(*workers.begin()), "1");
  }
}

}  // namespace
