// SPDX-License-Identifier: LGPL-2.1-or-later
// Reclamation and the barrier (lib/reclaim.c, lib/barrier.c): retired pools are freed after
// their grace period and last pin, on the library's thread, and nothing
// accumulates; rcupool_barrier where it would wait for itself (-EDEADLK)
// and when the reclaim thread cannot start (-EAGAIN). The cases from a
// direct pthreadpool call and with the reclaim thread failing run in a
// fresh process (RCUPOOL_RUN_IN_CHILD of tests/support/in_child.h), so a
// hang is a failure after a timeout.
#include <errno.h>
#include <pthread.h>
#include <rcupool/inline.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;
using rcupool_test::WaitForOsThreadCount;

namespace {

constexpr int kTimeoutS = 120;

}  // namespace

TEST(RcupoolBarrier, NeverPinnedRetiredPoolIsFreed) {
  NoWarmManager m(2);
  // A section held across the reset keeps the retired pool's grace period
  // open, so the first snapshot sees it pending however fast the reclaim
  // thread is (it wakes at once).
  rcupool_read_lock();
  EXPECT_EQ(rcupool_reset(m, 4), 0);
  rcupool_stats_t s = Stats(m);
  rcupool_read_unlock();
  EXPECT_EQ(s.pools_alive, 2u);
  EXPECT_EQ(s.frees_pending, 1u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_kept, 0u);
  EXPECT_EQ(s.frees_pending, 0u);
  EXPECT_EQ(s.pools_freed, 1u);
  EXPECT_EQ(s.threads_alive, 4u);
}

TEST(RcupoolBarrier, AfterAllHoldersLetGoThreadsAreCurrentPoolPlusConstant) {
  NoWarmManager m(1);
  const size_t baseline = rcupool_test::ThreadBaselineAtOneThread(m);

  std::vector<rcupool_pin_t> pins(8);
  for (size_t i = 0; i < pins.size(); i++) {
    ASSERT_EQ(rcupool_reset(m, 2 + i % 4), 0);
    pins[i] = rcupool_pin_t{};
    ASSERT_EQ(rcupool_pin(m, &pins[i]), 0);
  }
  ASSERT_EQ(rcupool_reset(m, 7), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  // Sizes 2..5 pinned: four kept pools, one per size.
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_kept, 4u);
  EXPECT_EQ(s.pools_alive, 5u);
  for (auto &p : pins) rcupool_unpin(&p);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
  EXPECT_EQ(WaitForOsThreadCount(baseline + 6), baseline + 6);
}

TEST(RcupoolBarrier, ThreadsThatUsedSectionsAndExitedDoNotBlockGracePeriods) {
  NoWarmManager m(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 1000; i++) {
        rcupool_read_lock();
        EXPECT_NE(rcupool_current(m), nullptr);
        rcupool_read_unlock();
      }
      if (t % 2 == 0) {  // half also pinned and unpinned before leaving
        rcupool_pin_t pin{};
        EXPECT_EQ(rcupool_pin(m, &pin), 0);
        rcupool_unpin(&pin);
      }
      // Exit with no cleanup call of any kind.
    });
  }
  for (auto &t : threads) t.join();
  for (size_t n : {3u, 4u, 3u, 5u}) ASSERT_EQ(rcupool_reset(m, n), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.frees_pending, 0u);
}

// --- where the barrier would wait for itself --------------------------------

TEST(RcupoolBarrier, NullManagerIsInvalid) {
  EXPECT_EQ(rcupool_barrier(nullptr), -EINVAL);
}

TEST(RcupoolBarrier, InsideReadSectionIsDeadlockError) {
  NoWarmManager m(2);
  rcupool_read_lock();
  EXPECT_EQ(rcupool_barrier(m), -EDEADLK);
  EXPECT_EQ(rcupool_destroy(m), -EDEADLK);
  rcupool_read_unlock();
}

namespace {
struct InTaskCtx {
  rcupool_t *m;
  std::atomic<int> barrier_result{1};
  std::atomic<int> destroy_result{1};
};
void CallBarrierInTask(void *arg, size_t i) {
  auto *c = static_cast<InTaskCtx *>(arg);
  if (i != 0) return;
  c->barrier_result = rcupool_barrier(c->m);
  c->destroy_result = rcupool_destroy(c->m);
}
}  // namespace

TEST(RcupoolBarrier, InsideTaskIsDeadlockError) {
  NoWarmManager m(2);
  InTaskCtx c;
  c.m = m;
  ASSERT_EQ(rcupool_parallelize_1d(m, CallBarrierInTask, &c, 4, 0), 0);
  EXPECT_EQ(c.barrier_result.load(), -EDEADLK);
  EXPECT_EQ(c.destroy_result.load(), -EDEADLK);
}

TEST(RcupoolBarrier, InsideInlineSectionIsDeadlockError) {
  NoWarmManager m(2);
  rcupool_read_lock_inline();
  EXPECT_EQ(rcupool_barrier(m), -EDEADLK);
  rcupool_read_unlock_inline();
}

TEST(RcupoolBarrier, InsideSectionIsEdeadlkAndLoggedOnceAtErrorLevel) {
  NoWarmManager m(1);
  LogRecorder log;
  rcupool_read_lock();
  int err = rcupool_barrier(m);
  rcupool_read_unlock();
  EXPECT_EQ(err, -EDEADLK);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "barrier:"), 1u);
}

// Barrier or destroy from a task that pthreadpool runs directly (docs/misuse.md;
// short use: section, rcupool_current, pthreadpool_parallelize; issue 10,
// defect 10).
struct Direct {
  rcupool_t *m;
  pthread_t caller;
  std::atomic<int> deadlk{0};
  std::atomic<int> other{0};
  std::atomic<int> on_workers{0};
  bool destroy;
};

// The caller's own items wait (up to 10 s) until a worker has taken an
// item: otherwise the caller, whose items fail fast, may steal every item
// before a worker wakes, and the case of a worker calling barrier or
// destroy would never run.
void BarrierTask(void *arg, size_t) {
  auto *d = static_cast<Direct *>(arg);
  if (pthread_equal(pthread_self(), d->caller)) {
    for (int i = 0; i < 10000 && d->on_workers.load() == 0; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } else {
    d->on_workers++;
  }
  int r = d->destroy ? rcupool_destroy(d->m) : rcupool_barrier(d->m);
  (r == -EDEADLK ? d->deadlk : d->other)++;
}

TEST(RcupoolBarrier, FromTaskOfDirectPthreadpoolCallIsEdeadlk) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  for (bool destroy : {false, true}) {
    rcupool_options_t o{};
    o.threads = 3;
    rcupool_t *m = nullptr;
    ASSERT_EQ(rcupool_create(&o, &m), 0);
    ASSERT_EQ(rcupool_reset(m, 2), 0);  // a retire in flight
    ASSERT_EQ(rcupool_reset(m, 3), 0);
    Direct d;
    d.m = m;
    d.caller = pthread_self();
    d.destroy = destroy;
    rcupool_read_lock();
    pthreadpool_parallelize_1d(rcupool_current(m), BarrierTask, &d, 30, 0);
    rcupool_read_unlock();
    EXPECT_GT(d.on_workers.load(), 0) << "no worker ran an item";
    EXPECT_EQ(d.other.load(), 0) << (destroy ? "destroy" : "barrier");
    EXPECT_EQ(d.deadlk.load(), 30);
    EXPECT_EQ(rcupool_destroy(m), 0);
  }
}

// --- when the reclaim thread cannot start -----------------------------------

// The reclaim thread cannot start. Before: barrier and destroy retried with
// sched_yield for ever at 100% CPU. Now both return -EAGAIN at once,
// destroy having changed nothing, and both work once it can.
bool FailReclaimThread(void *, int site) {
  return site == RCUPL_FAULT_SITE_RECLAIM_THREAD;
}

static double CpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(RcupoolBarrier, ReclaimThreadCannotStartReturnsEagainWithoutSpinning) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *priv = nullptr;
  rcupool_options_t opts = {};
  opts.threads = 2;
  ASSERT_EQ(rcupool_create(&opts, &priv), 0);
  rcupl_fault_set_hook(FailReclaimThread, nullptr);
  ASSERT_EQ(rcupool_reset(priv, 1), 0);  // a retire waits in the queue
  double cpu0 = CpuSeconds();
  EXPECT_EQ(rcupool_barrier(priv), -EAGAIN);
  EXPECT_EQ(rcupool_destroy(priv), -EAGAIN);
  EXPECT_LT(CpuSeconds() - cpu0, 0.5);
  EXPECT_EQ(Stats(priv).pools_alive, 2u);  // destroy changed nothing
  EXPECT_TRUE(ManagerSumIsRight(priv, 64));
  rcupl_fault_set_hook(nullptr, nullptr);
  EXPECT_EQ(rcupool_barrier(priv), 0);
  EXPECT_GE(rcupool_trim(priv), 0);  // the pool it made stays warm otherwise
  EXPECT_EQ(Stats(priv).pools_alive, 1u);
  EXPECT_EQ(rcupool_destroy(priv), 0);
}

// The debug record of every free (lib/reclaim.c: "manager M: free pool P
// (N threads) on thread T: CAUSE") names what let the pool go, not always
// "last pin released".
namespace {

// The free records of the log whose cause is `why`.
size_t FreesFor(const LogRecorder &log, const std::string &why) {
  size_t n = 0;
  const std::string tail = ": " + why;
  for (const std::string &line : log.All())
    if (line.find("free pool") != std::string::npos &&
        line.size() >= tail.size() &&
        line.compare(line.size() - tail.size(), tail.size(), tail) == 0)
      n++;
  return n;
}

size_t Frees(const LogRecorder &log) {
  size_t n = 0;
  for (const std::string &line : log.All())
    if (line.find("free pool") != std::string::npos) n++;
  return n;
}

}  // namespace

TEST(ReclaimFreeLog, TrimOfAWarmPoolNamesTrim) {
  rcupool_test::Manager m(2, 0, 0);
  LogRecorder log;
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  ASSERT_EQ(Stats(m).pools_idle, 1u);  // the 2-thread pool, warm
  ASSERT_EQ(rcupool_trim(m), 1);
  EXPECT_EQ(FreesFor(log, "trim"), 1u);
  EXPECT_EQ(FreesFor(log, "last pin released"), 0u);
  EXPECT_EQ(Frees(log), 1u);
}

TEST(ReclaimFreeLog, WarmPoolUnusedForWarmMsNamesExpiry) {
  rcupool_test::Manager m(2, 1, 0);  // warm for 1 ms
  LogRecorder log;
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  // The reclaim thread's pass (or a barrier's) lets it go once 1 ms has
  // passed; a loaded machine may take a while.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Stats(m).pools_freed < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(rcupool_barrier(m), 0);
  }
  ASSERT_EQ(Stats(m).pools_freed, 1u);
  EXPECT_EQ(FreesFor(log, "warm expiry (unused for warm_ms)"), 1u);
  EXPECT_EQ(FreesFor(log, "last pin released"), 0u);
  EXPECT_EQ(Frees(log), 1u);
}

TEST(ReclaimFreeLog, WarmPoolBeyondWarmPoolsNamesTheLimit) {
  rcupool_test::Manager m(1, 60000, 1);  // at most 1 warm pool, for 60 s
  LogRecorder log;
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // its pass keeps 1 of the 2 warm pools
  EXPECT_EQ(Stats(m).pools_idle, 1u);
  EXPECT_EQ(FreesFor(log, "beyond warm_pools"), 1u);
  EXPECT_EQ(FreesFor(log, "last pin released"), 0u);
  EXPECT_EQ(Frees(log), 1u);
}

TEST(ReclaimFreeLog, DestroyNamesDestroyForTheCurrentAndTheWarmPool) {
  LogRecorder log;
  rcupool_options_t opts{};
  opts.threads = 2;
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(&opts, &m), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  ASSERT_EQ(Stats(m).pools_idle, 1u);
  ASSERT_EQ(rcupool_destroy(m), 0);
  EXPECT_EQ(FreesFor(log, "manager destroyed"), 2u);
  EXPECT_EQ(FreesFor(log, "last pin released"), 0u);
  EXPECT_EQ(Frees(log), 2u);
}

// The last unpin of a managed pool hands nothing over (the manager's
// reference stays): the pool turns warm, and a manager that keeps no warm
// pool lets it go at the barrier's pass, for that reason.
TEST(ReclaimFreeLog, KeptPoolOfAManagerWithoutWarmPoolsNamesTheLimit) {
  NoWarmManager m(2);
  LogRecorder log;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // kept: pinned
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(FreesFor(log, "beyond warm_pools"), 1u);
  EXPECT_EQ(FreesFor(log, "last pin released"), 0u);
  EXPECT_EQ(Frees(log), 1u);
}
