// SPDX-License-Identifier: LGPL-2.1-or-later
// The stand-in's default count is ExecuTorch's: every processor (2 on a
// 2-CPU mask), or, built with EXECUTORCH_THREADPOOL_USE_PERFORMANCE_CORES,
// the performance cores by rcupool's classes (RCUPOOL_CPU_CLASSES=
// 0:efficiency,1:performance in this target's environment: 1 thread).
// Under RCUPOOL_PLACEMENT
// (performance, also set here) a guard's pool has its worker on the
// performance CPU. Skips unless the mask is CPUs 0 and 1.
#include <pthreadpool.h>
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
  // ExecuTorch's default counts every processor (2) unless the stand-in is
  // built with EXECUTORCH_THREADPOOL_USE_PERFORMANCE_CORES (1: the one
  // performance core).
  EXPECT_EQ(pool->get_thread_count(),
            rcupool_default_rule(rcupool_default()) ==
                    RCUPOOL_DEFAULT_RULE_PROCESSORS
                ? 2u
                : 1u);
  rcupool_placement_t pl{};
  ASSERT_EQ(rcupool_get_placement(rcupool_default(), &pl), 0);
  EXPECT_EQ(pl.policy, RCUPOOL_PLACE_PERFORMANCE);
  const std::set<pid_t> before = rcupool_test::WorkerTids();
  {
    // A width no pool has yet: a new pool, whose workers are all placed.
    // Its own new threads; or, on a pthreadpool with the executor API, the
    // placed set's threads that every pool of this placement borrows (it
    // grew to width - 1).
    const size_t width = pool->get_thread_count() + 1;
    et::UseNThreadsThreadPoolGuard guard(width);
    EXPECT_EQ(pool->get_thread_count(), width);
#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
    const std::set<pid_t> workers = rcupool_test::WorkerTids();
    (void)before;
#else
    const std::set<pid_t> workers =
        rcupool_test::NewTids(before, rcupool_test::WorkerTids());
#endif
    ASSERT_EQ(workers.size(), width - 1);
    for (pid_t w : workers) EXPECT_EQ(rcupool_test::CpusAllowedList(w), "1");
  }
}

}  // namespace
