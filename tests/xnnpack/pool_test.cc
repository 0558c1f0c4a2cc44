// SPDX-License-Identifier: LGPL-2.1-or-later
// One pool per method, staleness and refresh, observed on the pools that
// pthreadpool is really called with (tests/xnnpack/recorder.h).
#include <errno.h>

#include <atomic>
#include <cmath>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/xnnpack/method.h"
#include "tests/xnnpack/recorder.h"

namespace rcupool_test {
namespace {

Case &TheCase() {
  static Case *c = new Case(32, 128, 256, 128, 31);
  return *c;
}

pthreadpool_t CurrentPool(rcupool_t *m) {
  rcupool_read_lock();
  pthreadpool_t p = rcupool_current(m);
  rcupool_read_unlock();
  return p;
}

void CountTask(void *ctx, size_t) {
  static_cast<std::atomic<size_t> *>(ctx)->fetch_add(1);
}

// A method as a runtime would run it: its XNNPACK partitions, then one of
// its own kernels, in the scope of its pin. Returns the pools each part
// called pthreadpool with.
struct Parts {
  std::set<pthreadpool_t> xnnpack, kernel;
  double error;
  size_t kernel_items;
};
Parts RunMethod(rcupool_t *m, Method &method) {
  Parts parts;
  rcupool_scope_enter(method.pin());
  ClearPoolRecord();
  parts.error = method.Run();
  parts.xnnpack = RecordedPoolSet();
  ClearPoolRecord();
  std::atomic<size_t> items{0};
  EXPECT_EQ(rcupool_parallelize_1d(m, CountTask, &items, 1000, 0), 0);
  parts.kernel = RecordedPoolSet();
  parts.kernel_items = items.load();
  rcupool_scope_exit();
  return parts;
}

TEST(RcupoolXnnRuntimeInvoke, PartitionsAndOwnKernelUseOnePoolBeforeAndAfterReset) {
  NoWarmManager m(2);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  const pthreadpool_t loaded_on = method.pool();
  ASSERT_EQ(loaded_on, CurrentPool(m));

  Parts before = RunMethod(m, method);
  EXPECT_LT(before.error, kMaxRelativeError);
  EXPECT_EQ(before.xnnpack, std::set<pthreadpool_t>{loaded_on});
  EXPECT_EQ(before.kernel, std::set<pthreadpool_t>{loaded_on});
  EXPECT_EQ(before.kernel_items, 1000u);

  ASSERT_EQ(rcupool_reset(m, 3), 0);  // between load and run
  const pthreadpool_t current = CurrentPool(m);
  ASSERT_NE(current, loaded_on);
  Parts after = RunMethod(m, method);
  EXPECT_LT(after.error, kMaxRelativeError);
  EXPECT_EQ(after.xnnpack, std::set<pthreadpool_t>{loaded_on});
  EXPECT_EQ(after.kernel, std::set<pthreadpool_t>{loaded_on});
  EXPECT_EQ(after.kernel_items, 1000u);

  // Outside the method's scope the same kernel runs on the current pool.
  ClearPoolRecord();
  std::atomic<size_t> items{0};
  ASSERT_EQ(rcupool_parallelize_1d(m, CountTask, &items, 1000, 0), 0);
  EXPECT_EQ(RecordedPoolSet(), std::set<pthreadpool_t>{current});
}

TEST(RcupoolXnnRuntimeInvoke, ScopeOfOneManagerDoesNotReachAnotherManagersKernel) {
  NoWarmManager a(2), b(1);
  Method method(a, TheCase());
  ASSERT_TRUE(method.ok());
  rcupool_scope_enter(method.pin());
  ClearPoolRecord();
  std::atomic<size_t> items{0};
  ASSERT_EQ(rcupool_parallelize_1d(b, CountTask, &items, 100, 0), 0);
  std::set<pthreadpool_t> used = RecordedPoolSet();
  rcupool_scope_exit();
  EXPECT_EQ(used, std::set<pthreadpool_t>{CurrentPool(b)});
  EXPECT_EQ(items.load(), 100u);
}

TEST(RcupoolXnnRuntimeIsStale, FalseBeforeResetTrueAfterAndNewMethodRunsOnNewPool) {
  NoWarmManager m(2);
  Method old_method(m, TheCase());
  ASSERT_TRUE(old_method.ok());
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(old_method.runtime()));
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(nullptr));

  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_TRUE(rcupool_xnn_runtime_is_stale(old_method.runtime()));

  Method new_method(m, TheCase());
  ASSERT_TRUE(new_method.ok());
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(new_method.runtime()));
  EXPECT_EQ(new_method.threads(), 3u);
  EXPECT_EQ(new_method.pool(), CurrentPool(m));
  ClearPoolRecord();
  EXPECT_LT(new_method.Run(), kMaxRelativeError);
  EXPECT_EQ(RecordedPoolSet(), std::set<pthreadpool_t>{CurrentPool(m)});
  ClearPoolRecord();
  EXPECT_LT(old_method.Run(), kMaxRelativeError);
  EXPECT_EQ(RecordedPoolSet(), std::set<pthreadpool_t>{old_method.pool()});

  // A reset back to 2 reuses the old method's pinned pool: current again.
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(old_method.runtime()));
  EXPECT_TRUE(rcupool_xnn_runtime_is_stale(new_method.runtime()));
}

// is_stale is documented "any thread": one thread asks it in a loop while
// the runtime's user refreshes it across resets. Under ThreadSanitizer a
// read of the pin that refresh overwrites is a reported race.
TEST(RcupoolXnnRuntimeIsStale, ConcurrentWithRefreshFromAnotherThreadIsRaceFree) {
  NoWarmManager m(2);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  std::atomic<bool> stop{false};
  std::atomic<size_t> asked{0}, seen_stale{0};
  std::thread asker([&] {
    while (!stop.load()) {
      if (rcupool_xnn_runtime_is_stale(method.runtime())) seen_stale++;
      asked++;
    }
  });
  for (int i = 0; i < 20; i++) {
    ASSERT_EQ(rcupool_reset(m, i % 2 == 0 ? 3 : 2), 0);
    EXPECT_TRUE(rcupool_xnn_runtime_is_stale(method.runtime()));
    while (asked.load() == 0) std::this_thread::yield();
    EXPECT_EQ(method.Refresh(), 0);
    EXPECT_FALSE(rcupool_xnn_runtime_is_stale(method.runtime()));
  }
  stop = true;
  asker.join();
  EXPECT_GT(asked.load(), 0u);
  EXPECT_EQ(method.pool(), CurrentPool(m));
  EXPECT_LT(method.Run(), kMaxRelativeError);
}

TEST(RcupoolXnnRuntimeRefresh, StaleRuntimeMovesToCurrentPoolSameOutputsOldPoolFreed) {
  NoWarmManager m(2);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  ASSERT_LT(method.Run(), kMaxRelativeError);
  const std::vector<float> before = method.output();
  const uint64_t freed_before = Stats(m).pools_freed;

  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_TRUE(rcupool_xnn_runtime_is_stale(method.runtime()));
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_kept, 1u);  // the method's pin holds the old pool

  ASSERT_EQ(method.Refresh(), 0);
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(method.runtime()));
  EXPECT_EQ(method.threads(), 3u);
  EXPECT_EQ(method.pool(), CurrentPool(m));
  ClearPoolRecord();
  EXPECT_LT(method.Run(), kMaxRelativeError);
  EXPECT_EQ(RecordedPoolSet(), std::set<pthreadpool_t>{CurrentPool(m)});
  ASSERT_EQ(method.output().size(), before.size());
  for (size_t i = 0; i < before.size(); i++)
    ASSERT_NEAR(method.output()[i], before[i],
                1e-5f * (1.0f + std::fabs(before[i])))
        << "output " << i;

  // Nothing else pinned the old pool: it is freed after a barrier.
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.pins, 1u);
  EXPECT_EQ(s.pools_freed - freed_before, 1u);
}

TEST(RcupoolXnnRuntimeRefresh, NotStaleChangesNothing) {
  NoWarmManager m(2);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  ASSERT_LT(method.Run(), kMaxRelativeError);
  const rcupool_pin_t *pin = method.pin();
  const pthreadpool_t pool = method.pool();
  const uint64_t generation = rcupool_pin_generation(pin);
  const rcupool_stats_t s0 = Stats(m);

  // Called directly: no setup afterwards, so the old setup must still hold.
  ASSERT_EQ(rcupool_xnn_runtime_refresh(method.runtime(), nullptr), -EINVAL);
  xnn_subgraph_t sg = nullptr;
  ASSERT_EQ(mlp_subgraph(TheCase().model, &sg), 0);
  EXPECT_EQ(rcupool_xnn_runtime_refresh(method.runtime(), sg), 0);
  xnn_delete_subgraph(sg);

  EXPECT_EQ(method.pin(), pin);
  EXPECT_EQ(method.pool(), pool);
  EXPECT_EQ(rcupool_pin_generation(method.pin()), generation);
  rcupool_stats_t s1 = Stats(m);
  EXPECT_EQ(s1.pins, s0.pins);
  EXPECT_EQ(s1.pools_created, s0.pools_created);
  ClearPoolRecord();
  EXPECT_LT(method.Run(), kMaxRelativeError);
  EXPECT_EQ(RecordedPoolSet(), std::set<pthreadpool_t>{pool});
}


TEST(RcupoolXnnRuntimeCreateSized, PartitionsAndKernelRunOnSizedPoolNeverStaleRefreshNoop) {
  NoWarmManager m(2);
  Method method(m, TheCase(), 1);
  ASSERT_TRUE(method.ok());
  const pthreadpool_t one = method.pool();
  EXPECT_EQ(method.threads(), 1u);
  EXPECT_EQ(pthreadpool_get_threads_count(one), 1u);
  EXPECT_NE(one, CurrentPool(m));
  EXPECT_EQ(Stats(m).pools_never_current, 1u);
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(method.runtime()));

  Parts before = RunMethod(m, method);
  EXPECT_LT(before.error, kMaxRelativeError);
  EXPECT_EQ(before.xnnpack, std::set<pthreadpool_t>{one});
  EXPECT_EQ(before.kernel, std::set<pthreadpool_t>{one});

  for (size_t n : {3u, 4u, 2u}) {
    ASSERT_EQ(rcupool_reset(m, n), 0);
    // A reset of the current pool never makes a sized runtime stale.
    EXPECT_FALSE(rcupool_xnn_runtime_is_stale(method.runtime())) << n;
  }
  const uint64_t created = Stats(m).pools_created;
  ASSERT_EQ(method.Refresh(), 0);  // does nothing: still on its pool
  EXPECT_EQ(method.pool(), one);
  EXPECT_EQ(Stats(m).pools_created, created);
  Parts after = RunMethod(m, method);
  EXPECT_LT(after.error, kMaxRelativeError);
  EXPECT_EQ(after.xnnpack, std::set<pthreadpool_t>{one});
  EXPECT_EQ(after.kernel, std::set<pthreadpool_t>{one});
  EXPECT_EQ(after.kernel_items, 1000u);

  method.Destroy();
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_never_current, 0u);
}

TEST(RcupoolXnnRuntimeCreateSized, AboveMaximumOrNullIsInvalidAndPinsNothing) {
  NoWarmManager m(1);
  xnn_subgraph_t sg = nullptr;
  ASSERT_EQ(xnn_initialize(nullptr), xnn_status_success);
  ASSERT_EQ(mlp_subgraph(TheCase().model, &sg), 0);
  rcupool_xnn_runtime_t *rt = nullptr;
  EXPECT_EQ(rcupool_xnn_runtime_create_sized(m, RCUPOOL_MAX_THREADS + 1, sg, 0,
                                             &rt),
            -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_create_sized(nullptr, 2, sg, 0, &rt), -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_create_sized(m, 2, nullptr, 0, &rt), -EINVAL);
  EXPECT_EQ(rcupool_xnn_runtime_create_sized(m, 2, sg, 0, nullptr), -EINVAL);
  EXPECT_EQ(rt, nullptr);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_created, 1u);
  xnn_delete_subgraph(sg);
}

}  // namespace
}  // namespace rcupool_test
