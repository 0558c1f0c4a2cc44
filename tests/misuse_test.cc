// Misuse of the API and bad input: each case gets its documented error, a
// logged no-op, or a clear abort, never a crash, a double free, a silent
// corruption or a change of state. README's misuse list points here (and,
// for rcupool_reset, to reset_test.cc; for sized pins, pin_sized_test.cc).
#include <errno.h>
#include <stdlib.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::Manager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

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

// --- rcupool_create / rcupool_destroy ----------------------------------------

TEST(RcupoolCreate, NullOutOrTooManyThreadsIsInvalid) {
  EXPECT_EQ(rcupool_create(nullptr, nullptr), -EINVAL);
  rcupool_options_t opts{};
  opts.threads = RCUPOOL_MAX_THREADS + 1;
  rcupool_t *m = reinterpret_cast<rcupool_t *>(0x1);
  EXPECT_EQ(rcupool_create(&opts, &m), -EINVAL);
  EXPECT_EQ(m, reinterpret_cast<rcupool_t *>(0x1));  // untouched
}

TEST(RcupoolCreate, NullOptionsUsesDefaultCount) {
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(nullptr, &m), 0);
  EXPECT_GE(rcupool_threads(m), 1u);
  EXPECT_EQ(rcupool_generation(m), 1u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolDestroy, NullManagerIsNoop) {
  EXPECT_EQ(rcupool_destroy(nullptr), 0);
}

TEST(RcupoolDestroy, DefaultManagerIsRefused) {
  EXPECT_EQ(rcupool_destroy(rcupool_default()), -EPERM);
  EXPECT_TRUE(ManagerSumIsRight(rcupool_default(), 100));
}

// --- the manager's getters ------------------------------------------------------

TEST(RcupoolThreads, NullManagerIsZero) {
  EXPECT_EQ(rcupool_threads(nullptr), 0u);
}

TEST(RcupoolGeneration, NullManagerIsZero) {
  EXPECT_EQ(rcupool_generation(nullptr), 0u);
}

TEST(RcupoolCurrent, NullManagerIsNull) {
  rcupool_read_lock();
  EXPECT_EQ(rcupool_current(nullptr), nullptr);
  rcupool_read_unlock();
}

TEST(RcupoolGetStats, NullManagerOrOutIsInvalid) {
  rcupool_stats_t s;
  EXPECT_EQ(rcupool_get_stats(nullptr, &s), -EINVAL);
  Manager m(2);
  EXPECT_EQ(rcupool_get_stats(m, nullptr), -EINVAL);
}

// --- rcupool_pin / rcupool_unpin ---------------------------------------------------

TEST(RcupoolPin, NullManagerOrPinIsInvalidAndNotLogged) {
  rcupool_pin_t pin{};
  EXPECT_EQ(rcupool_pin(nullptr, &pin), -EINVAL);
  Manager m(2);
  LogRecorder log;
  EXPECT_EQ(rcupool_pin(m, nullptr), -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "NULL pin"), 0u);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolPin, AccessorsOfNullPinReadAsEmpty) {
  EXPECT_EQ(rcupool_pin_pthreadpool(nullptr), nullptr);
  EXPECT_EQ(rcupool_pin_threads(nullptr), 0u);
  EXPECT_EQ(rcupool_pin_generation(nullptr), 0u);
  EXPECT_FALSE(rcupool_pin_is_current(nullptr));
}

TEST(RcupoolPin, UsedAfterUnpinReadsAsEmpty) {
  Manager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  EXPECT_EQ(rcupool_pin_threads(&pin), 0u);
  EXPECT_EQ(rcupool_pin_generation(&pin), 0u);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  // The released storage can be pinned again.
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
}

TEST(RcupoolPin, AlreadyHoldingPinIsBusyAndKeepsFirstPool) {
  Manager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  pthreadpool_t first = rcupool_pin_pthreadpool(&pin);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_EQ(rcupool_pin(m, &pin), -EBUSY);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), first);
  EXPECT_EQ(Stats(m).pins, 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolUnpin, NullPinIsLoggedNoop) {
  Manager m(2);
  LogRecorder log;
  rcupool_unpin(nullptr);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "NULL pin"), 1u);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolUnpin, ZeroedPinIsLoggedNoop) {
  Manager m(2);
  LogRecorder log;
  rcupool_pin_t pin{};
  rcupool_unpin(&pin);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "is empty"), 1u);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolUnpin, TwiceIsLoggedNoopAndFreesOnce) {
  Manager m(2);
  LogRecorder log;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_unpin(&pin);
  rcupool_unpin(&pin);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "is empty"), 1u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_freed, 1u);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pins, 0u);
}

// --- rcupool_barrier (and destroy) where it would wait for itself ---------------

TEST(RcupoolBarrier, NullManagerIsInvalid) {
  EXPECT_EQ(rcupool_barrier(nullptr), -EINVAL);
}

TEST(RcupoolBarrier, InsideReadSectionIsDeadlockError) {
  Manager m(2);
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
  Manager m(2);
  InTaskCtx c;
  c.m = m;
  ASSERT_EQ(rcupool_parallelize_1d(m, CallBarrierInTask, &c, 4, 0), 0);
  EXPECT_EQ(c.barrier_result.load(), -EDEADLK);
  EXPECT_EQ(c.destroy_result.load(), -EDEADLK);
}

// --- rcupool_parallelize_1d and scopes ----------------------------------------------

TEST(RcupoolParallelize1d, NullManagerOrFunctionIsInvalid) {
  EXPECT_EQ(rcupool_parallelize_1d(nullptr, Noop, nullptr, 4, 0), -EINVAL);
  Manager m(2);
  EXPECT_EQ(rcupool_parallelize_1d(m, nullptr, nullptr, 4, 0), -EINVAL);
}

TEST_F(RcupoolParallelize1dDeathTest, InScopeOfUnpinnedPinAborts) {
  EXPECT_DEATH(
      {
        Manager m(2);
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
        Manager m(1);
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
  Manager m(2);
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

// --- rcupool_log ------------------------------------------------------------------

TEST(RcupoolLog, PublicLogReachesHookAndClampsUnknownLevel) {
  LogRecorder log;
  rcupool_log(RCUPOOL_LOG_INFO, "extension %d says %s", 7, "hello");
  rcupool_log(static_cast<rcupool_log_level_t>(42), "odd level");
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "extension 7 says hello"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "odd level"), 1u);
}
