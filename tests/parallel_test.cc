// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_parallelize_1d and scopes (lib/parallel.c): which pool runs the
// work, nesting, a task that lets go of its scope's pin, bad input and
// misuse. The cases from a direct pthreadpool call and the ten-round unpin
// run in a fresh process (RCUPOOL_RUN_IN_CHILD of
// tests/support/in_child.h), so a hang is a failure after a timeout.
#include <errno.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

namespace {

constexpr int kTimeoutS = 60;

}  // namespace

namespace {
struct Nested {
  rcupool_t *m;
  std::atomic<size_t> inner{0};
  std::atomic<int> errors{0};
};
void InnerTask(void *arg, size_t) {
  static_cast<Nested *>(arg)->inner.fetch_add(1);
}
void OuterTask(void *arg, size_t) {
  auto *n = static_cast<Nested *>(arg);
  if (rcupool_parallelize_1d(n->m, InnerTask, n, 10, 0) != 0) n->errors++;
}
}  // namespace

TEST(RcupoolParallelize1d, EveryIndexRunsOnce) {
  NoWarmManager m(4);
  for (size_t range : {1u, 2u, 3u, 7u, 64u, 1000u, 100003u})
    EXPECT_TRUE(ManagerSumIsRight(m, range)) << range;
}

TEST(RcupoolParallelize1d, ZeroRangeRunsNothing) {
  NoWarmManager m(2);
  EXPECT_EQ(rcupool_parallelize_1d(m, InnerTask, nullptr, 0, 0), 0);
}

TEST(RcupoolParallelize1d, NestedCallFromTaskCompletesInline) {
  NoWarmManager m(2);
  Nested n;
  n.m = m;
  ASSERT_EQ(rcupool_parallelize_1d(m, OuterTask, &n, 16, 0), 0);
  EXPECT_EQ(n.inner.load(), 160u);
  EXPECT_EQ(n.errors.load(), 0);
}

namespace {
struct PoolRecorder {
  std::mutex mu;
  std::set<std::thread::id> threads;
};
void RecordThread(void *arg, size_t) {
  auto *r = static_cast<PoolRecorder *>(arg);
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  std::lock_guard<std::mutex> g(r->mu);
  r->threads.insert(std::this_thread::get_id());
}
}  // namespace

TEST(RcupoolScope, ParallelWorkRunsOnPinnedPoolAfterReset) {
  NoWarmManager m(1);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);  // a 1-thread pool: caller only
  ASSERT_EQ(rcupool_reset(m, 4), 0);

  PoolRecorder in_scope, outside;
  rcupool_scope_enter(&pin);
  ASSERT_EQ(rcupool_parallelize_1d(m, RecordThread, &in_scope, 64, 0), 0);
  rcupool_scope_exit();
  ASSERT_EQ(rcupool_parallelize_1d(m, RecordThread, &outside, 64, 0), 0);
  // The pinned 1-thread pool runs everything on the caller.
  EXPECT_EQ(in_scope.threads.size(), 1u);
  EXPECT_EQ(*in_scope.threads.begin(), std::this_thread::get_id());
  // The current 4-thread pool spreads the work.
  EXPECT_GT(outside.threads.size(), 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolScope, ScopeOfOneManagerDoesNotAffectAnother) {
  NoWarmManager a(1), b(3);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(a, &pin), 0);
  rcupool_scope_enter(&pin);
  PoolRecorder on_b;
  ASSERT_EQ(rcupool_parallelize_1d(b, RecordThread, &on_b, 64, 0), 0);
  rcupool_scope_exit();
  EXPECT_GT(on_b.threads.size(), 1u);  // b's own 3-thread pool
  rcupool_unpin(&pin);
}

TEST(RcupoolScope, NestedScopesInnermostWins) {
  NoWarmManager m(1);
  rcupool_pin_t one{}, four{};
  ASSERT_EQ(rcupool_pin(m, &one), 0);
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  ASSERT_EQ(rcupool_pin(m, &four), 0);
  ASSERT_EQ(rcupool_reset(m, 2), 0);

  rcupool_scope_enter(&four);
  rcupool_scope_enter(&one);
  PoolRecorder inner;
  ASSERT_EQ(rcupool_parallelize_1d(m, RecordThread, &inner, 32, 0), 0);
  rcupool_scope_exit();
  PoolRecorder outer;
  ASSERT_EQ(rcupool_parallelize_1d(m, RecordThread, &outer, 64, 0), 0);
  rcupool_scope_exit();
  EXPECT_EQ(inner.threads.size(), 1u);
  EXPECT_GT(outer.threads.size(), 1u);
  rcupool_unpin(&one);
  rcupool_unpin(&four);
}

TEST(RcupoolParallelize1d, ConcurrentCallersWithResetsAllComputeRight) {
  NoWarmManager m(2);
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; t++)
    callers.emplace_back([&] {
      while (!stop.load())
        if (!ManagerSumIsRight(m, 513)) wrong++;
    });
  for (int i = 0; i < 40; i++) ASSERT_EQ(rcupool_reset(m, 1 + i % 5), 0);
  stop = true;
  for (auto &t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

namespace {

struct StatsProbe {
  rcupool_t *m;
  rcupool_pin_t *unpin;  // unpinned by item 0 when not NULL
  std::atomic<size_t> items{0};
  std::atomic<size_t> pins_max{0};
  std::atomic<int> stats_err{0};
};

void ProbeTask(void *arg, size_t i) {
  auto *p = static_cast<StatsProbe *>(arg);
  if (i == 0 && p->unpin != nullptr) rcupool_unpin(p->unpin);
  rcupool_stats_t s{};
  if (rcupool_get_stats(p->m, &s) != 0) p->stats_err++;
  size_t seen = p->pins_max.load();
  while (s.pins > seen && !p->pins_max.compare_exchange_weak(seen, s.pins)) {
  }
  p->items++;
}

}  // namespace

// The reference a dispatch holds on its pool is not a pin: stats seen from
// inside the tasks count only the caller's pins.
TEST(RcupoolParallelize1d, DispatchReferenceNeverCountsAsPinInStats) {
  NoWarmManager m(2);
  StatsProbe outside;
  outside.m = m;
  outside.unpin = nullptr;
  ASSERT_EQ(rcupool_parallelize_1d(m, ProbeTask, &outside, 64, 0), 0);
  EXPECT_EQ(outside.items.load(), 64u);
  EXPECT_EQ(outside.pins_max.load(), 0u);
  EXPECT_EQ(outside.stats_err.load(), 0);

  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_scope_enter(&pin);
  StatsProbe inside;
  inside.m = m;
  inside.unpin = nullptr;
  ASSERT_EQ(rcupool_parallelize_1d(m, ProbeTask, &inside, 64, 0), 0);
  rcupool_scope_exit();
  rcupool_unpin(&pin);
  EXPECT_EQ(inside.pins_max.load(), 1u);
}

// The next case without a child process, so ThreadSanitizer sees it: a task
// unpins the scope's pin, the last reference of a retired pool; the
// dispatch keeps the pool until it returns, then it is freed.
TEST(RcupoolParallelize1d, TaskUnpinsLastPinOfScopeAllItemsRunPoolFreedAfterCall) {
  NoWarmManager m(2);
  for (int round = 0; round < 4; round++) {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin(m, &pin), 0);
    ASSERT_EQ(rcupool_reset(m, round % 2 == 0 ? 3 : 2), 0);
    ASSERT_EQ(rcupool_barrier(m), 0);
    StatsProbe p;
    p.m = m;
    p.unpin = &pin;
    rcupool_scope_enter(&pin);
    ASSERT_EQ(rcupool_parallelize_1d(m, ProbeTask, &p, 64, 0), 0);
    rcupool_scope_exit();
    EXPECT_EQ(p.items.load(), 64u);
    EXPECT_EQ(p.stats_err.load(), 0);
    ASSERT_EQ(rcupool_barrier(m), 0);
    rcupool_stats_t s{};
    ASSERT_EQ(rcupool_get_stats(m, &s), 0);
    EXPECT_EQ(s.pins, 0u);
    EXPECT_EQ(s.pools_alive, 1u);
  }
}

// A task unpins the pin of the scope it was dispatched from, and that pin
// held the last reference of a retired pool (issue 10, defect 12). The
// dispatch keeps its own reference: the pool is freed after the call, not
// under it.
struct Unpinner {
  rcupool_pin_t *pin;
  std::atomic<size_t> items{0};
  std::atomic<bool> unpinned{false};
};

void UnpinTask(void *arg, size_t i) {
  auto *u = static_cast<Unpinner *>(arg);
  if (i == 0) {
    rcupool_unpin(u->pin);
    u->unpinned = true;
  }
  std::this_thread::sleep_for(std::chrono::microseconds(200));
  u->items++;
}

TEST(RcupoolParallelize1d, TaskUnpinsScopePinOfRetiredPoolRunsAllItemsPoolFreedAfter) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_options_t o{};
  o.threads = 3;
  o.warm_pools = RCUPOOL_WARM_NONE;  // the barrier frees the unpinned pool
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(&o, &m), 0);
  for (int round = 0; round < 10; round++) {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin(m, &pin), 0);
    ASSERT_EQ(rcupool_reset(m, round % 2 == 0 ? 2 : 3), 0);
    ASSERT_EQ(rcupool_barrier(m), 0);  // the pin is the pool's last reference
    Unpinner u;
    u.pin = &pin;
    rcupool_scope_enter(&pin);
    ASSERT_EQ(rcupool_parallelize_1d(m, UnpinTask, &u, 64, 0), 0);
    rcupool_scope_exit();
    EXPECT_TRUE(u.unpinned.load());
    EXPECT_EQ(u.items.load(), 64u);
    ASSERT_EQ(rcupool_barrier(m), 0);
    rcupool_stats_t s = Stats(m);
    EXPECT_EQ(s.pins, 0u);
    EXPECT_EQ(s.pools_alive, 1u);
    EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  }
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// A task that pthreadpool runs directly on a worker of an rcupool pool calls
// rcupool_parallelize_1d inside the pin's scope: inline (issue 10, defect
// 8).
struct DirectNested {
  rcupool_t *m;
  pthread_t caller;
  std::atomic<size_t> inner{0};
  std::atomic<size_t> nested_calls{0};
};

void DirectInnerTask(void *arg, size_t) {
  static_cast<DirectNested *>(arg)->inner++;
}

void OuterDirectTask(void *arg, size_t) {
  auto *n = static_cast<DirectNested *>(arg);
  if (pthread_equal(pthread_self(), n->caller)) return;  // not detected there
  n->nested_calls++;
  rcupool_parallelize_1d(n->m, DirectInnerTask, n, 8, 0);
}

TEST(RcupoolParallelize1d, FromWorkerOfDirectPthreadpoolCallRunsInline) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_options_t o{};
  o.threads = 3;
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(&o, &m), 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_scope_enter(&pin);
  DirectNested n;
  n.m = m;
  n.caller = pthread_self();
  pthreadpool_parallelize_1d(rcupool_pin_pthreadpool(&pin), OuterDirectTask,
                             &n, 300, 0);
  rcupool_scope_exit();
  EXPECT_EQ(n.inner.load(), 8 * n.nested_calls.load());
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// --- bad input and misuse ---------------------------------------------------

namespace {

void Noop(void *, size_t) {}

// Re-executes the binary for each death test: safe with the pools' threads
// running (and under ThreadSanitizer).
class ThreadsafeDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};
using RcupoolScopeEnterDeathTest = ThreadsafeDeathTest;
using RcupoolParallelize1dDeathTest = ThreadsafeDeathTest;

}  // namespace

TEST(RcupoolParallelize1d, NullManagerOrFunctionIsInvalid) {
  EXPECT_EQ(rcupool_parallelize_1d(nullptr, Noop, nullptr, 4, 0), -EINVAL);
  NoWarmManager m(2);
  EXPECT_EQ(rcupool_parallelize_1d(m, nullptr, nullptr, 4, 0), -EINVAL);
}

TEST_F(RcupoolParallelize1dDeathTest, InScopeOfUnpinnedPinAborts) {
  EXPECT_DEATH(
      {
        NoWarmManager m(2);
        rcupool_pin_t pin{};
        rcupool_pin(m, &pin);
        rcupool_scope_enter(&pin);
        rcupool_unpin(&pin);  // the misuse: released inside its scope
        rcupool_parallelize_1d(m, Noop, nullptr, 10, 0);
      },
      "unpinned before the scope was left");
}

TEST_F(RcupoolScopeEnterDeathTest, WithEmptyOrNullPinAborts) {
  rcupool_pin_t pin{};
  EXPECT_DEATH(rcupool_scope_enter(&pin), "pin is NULL or empty");
  EXPECT_DEATH(rcupool_scope_enter(nullptr), "pin is NULL or empty");
}

TEST_F(RcupoolScopeEnterDeathTest, NestedDeeperThanMaximumAborts) {
  EXPECT_DEATH(
      {
        NoWarmManager m(1);
        rcupool_pin_t pin{};
        rcupool_pin(m, &pin);
        for (int i = 0; i <= RCUPOOL_SCOPE_MAX_DEPTH; i++)
          rcupool_scope_enter(&pin);
      },
      "nested deeper than");
}

TEST(RcupoolScopeExit, WithoutEnterIsLoggedNoop) {
  LogRecorder log;
  rcupool_scope_exit();
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "no scope entered"), 1u);
}

TEST(RcupoolScopeExit, OnAnotherThreadThanEnterIsLoggedNoop) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_scope_enter(&pin);
  {
    LogRecorder log;
    std::thread([] { rcupool_scope_exit(); }).join();
    EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "no scope entered"), 1u);
  }
  // This thread's scope is untouched.
  EXPECT_TRUE(ManagerSumIsRight(m, 100));
  rcupool_scope_exit();
  rcupool_unpin(&pin);
}
