// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_reset: publishes a pool of the new size (reusing a live one of
// that size), retires the previous one without waiting for its readers, and
// rejects what it cannot do without changing anything.
#include <errno.h>
#include <stdint.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;

namespace {

pthreadpool_t Current(rcupool_t *m) {
  rcupool_read_lock();
  pthreadpool_t tp = rcupool_current(m);
  rcupool_read_unlock();
  return tp;
}

// Resets m to n, the size of the live pool `pin` holds, and checks that this
// pool became current as one reuse, creating none (m had created `created`).
void ExpectResetReusesPinnedPool(rcupool_t *m, size_t n, rcupool_pin_t *pin,
                                 uint64_t created) {
  const pthreadpool_t pinned = rcupool_pin_pthreadpool(pin);
  ASSERT_EQ(rcupool_reset(m, n), 0);
  EXPECT_EQ(Current(m), pinned);
  EXPECT_TRUE(rcupool_pin_is_current(pin));
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.reuses, 1u);
  EXPECT_EQ(s.pools_created, created);
}

}  // namespace

// --- bad input --------------------------------------------------------------

TEST(RcupoolReset, NullManagerIsInvalid) {
  EXPECT_EQ(rcupool_reset(nullptr, 2), -EINVAL);
}

TEST(RcupoolReset, AboveMaximumIsInvalidAndChangesNothing) {
  NoWarmManager m(2);
  rcupool_stats_t before = Stats(m);
  EXPECT_EQ(rcupool_reset(m, RCUPOOL_MAX_THREADS + 1), -EINVAL);
  EXPECT_EQ(rcupool_reset(m, SIZE_MAX), -EINVAL);
  rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(after.pools_created, before.pools_created);
  EXPECT_EQ(rcupool_threads(m), 2u);
}

TEST(RcupoolReset, ToCurrentSizeChangesNothing) {
  NoWarmManager m(2);
  EXPECT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(rcupool_generation(m), 1u);
  EXPECT_EQ(Stats(m).resets, 0u);
}

// --- from where it may be called ---------------------------------------------

namespace {
struct ResetCtx {
  rcupool_t *m;
  std::atomic<int> result{1};
};
void ResetFromTask(void *arg, size_t i) {
  auto *c = static_cast<ResetCtx *>(arg);
  if (i == 0) c->result = rcupool_reset(c->m, 3);
}
}  // namespace

TEST(RcupoolReset, FromInsideTaskSucceedsAndTaskPoolStaysUsable) {
  NoWarmManager m(2);
  ResetCtx c;
  c.m = m;
  ASSERT_EQ(rcupool_parallelize_1d(m, ResetFromTask, &c, 8, 0), 0);
  EXPECT_EQ(c.result.load(), 0);
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolReset, DoesNotWaitForReaderInsideSection) {
  NoWarmManager m(2);
  std::atomic<int> phase{0};
  std::thread reader([&] {
    rcupool_read_lock();
    pthreadpool_t seen = rcupool_current(m);
    phase = 1;
    while (phase.load() != 2) std::this_thread::yield();
    // The pool seen in this section is still usable after the reset.
    EXPECT_TRUE(ParallelSumIsRight(seen, 100));
    rcupool_read_unlock();
  });
  while (phase.load() != 1) std::this_thread::yield();
  // If reset waited for the reader, this would never return.
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_EQ(Stats(m).pools_alive, 2u);
  phase = 2;
  reader.join();
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

// --- reuse by size -----------------------------------------------------------

TEST(RcupoolReset, BackToPinnedSizeReusesThatPool) {
  NoWarmManager m(3);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);

  ASSERT_EQ(rcupool_reset(m, 5), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 2u);  // the 5 and the kept 3
  EXPECT_EQ(s.pools_kept, 1u);

  ExpectResetReusesPinnedPool(m, 3, &pin, 2);

  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);  // the 5 was never pinned: freed
  EXPECT_EQ(s.threads_alive, 3u);  // one 3-thread pool, not two
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);  // current pools are never freed
}

TEST(RcupoolReset, ReuseOfPoolWithinItsGracePeriodKeepsOnePoolPerSize) {
  NoWarmManager m(2);
  // 2 -> 3 -> 2 -> 3 ... while no grace period can end (this thread holds
  // a read-side section): each reset back reuses the pool still waiting
  // for its callback.
  rcupool_read_lock();
  for (int i = 0; i < 20; i++) ASSERT_EQ(rcupool_reset(m, i % 2 ? 2 : 3), 0);
  rcupool_stats_t s = Stats(m);
  rcupool_read_unlock();
  EXPECT_EQ(s.pools_created, 2u);
  EXPECT_LE(s.pools_alive, 2u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.frees_pending, 0u);
  EXPECT_EQ(s.pools_freed, 1u);
  EXPECT_TRUE(ManagerSumIsRight(m, 100));
}

TEST(RcupoolReset, ToSizeOfLiveSizedPinMakesThatPoolCurrentAndCountsReuse) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  const pthreadpool_t three = rcupool_pin_pthreadpool(&pin);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, 2u);
  EXPECT_EQ(s.pools_never_current, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.reuses, 0u);

  ExpectResetReusesPinnedPool(m, 3, &pin, 2);
  s = Stats(m);
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.pins, 1u);
  EXPECT_EQ(s.threads, 3u);

  // Once current, it lives on as any current pool after its pin goes.
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(Current(m), three);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
}

// --- what stays after a churn --------------------------------------------------

// The churn that a "keep every pool" policy turns into 16 pools and ~120
// idle threads.
TEST(RcupoolReset, ChurnOverSixteenSizesLeavesOnlyCurrentPoolThreads) {
  NoWarmManager m(1);
  const size_t baseline = rcupool_test::ThreadBaselineAtOneThread(m);

  size_t peak = baseline;
  for (size_t n = 1; n <= 16; n++) {
    ASSERT_EQ(rcupool_reset(m, n), 0);
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin(m, &pin), 0);
    EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 100));
    rcupool_unpin(&pin);
    peak = std::max(peak, rcupool_test::OsThreadCount());
  }
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.threads, 16u);
  // Current pool: 15 workers (the caller is the 16th).
  EXPECT_EQ(rcupool_test::WaitForOsThreadCount(baseline + 15), baseline + 15);
  EXPECT_GE(peak, baseline + 15);
  std::printf("baseline %zu threads, peak %zu, final %zu, pools created %llu\n",
              baseline, peak, rcupool_test::OsThreadCount(),
              (unsigned long long)s.pools_created);
}
