// Bad input gets its documented error or a logged no-op: never a crash, a
// double free or a change of state.
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::Manager;
using rcupool_test::Stats;

namespace {
void Noop(void *, size_t) {}
}  // namespace

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

TEST(RcupoolNullManager, EveryCallRejectsIt) {
  EXPECT_EQ(rcupool_destroy(nullptr), 0);
  EXPECT_EQ(rcupool_reset(nullptr, 2), -EINVAL);
  EXPECT_EQ(rcupool_threads(nullptr), 0u);
  EXPECT_EQ(rcupool_generation(nullptr), 0u);
  EXPECT_EQ(rcupool_barrier(nullptr), -EINVAL);
  rcupool_read_lock();
  EXPECT_EQ(rcupool_current(nullptr), nullptr);
  rcupool_read_unlock();
  rcupool_pin_t pin{};
  EXPECT_EQ(rcupool_pin(nullptr, &pin), -EINVAL);
  EXPECT_EQ(rcupool_parallelize_1d(nullptr, Noop, nullptr, 4, 0), -EINVAL);
  rcupool_stats_t s;
  EXPECT_EQ(rcupool_get_stats(nullptr, &s), -EINVAL);
}

TEST(RcupoolNullPin, EveryCallRejectsIt) {
  Manager m(2);
  LogRecorder log;
  EXPECT_EQ(rcupool_pin(m, nullptr), -EINVAL);
  rcupool_unpin(nullptr);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "NULL pin"), 1u);
  EXPECT_EQ(rcupool_pin_pthreadpool(nullptr), nullptr);
  EXPECT_EQ(rcupool_pin_threads(nullptr), 0u);
  EXPECT_EQ(rcupool_pin_generation(nullptr), 0u);
  EXPECT_FALSE(rcupool_pin_is_current(nullptr));
  EXPECT_EQ(rcupool_get_stats(m, nullptr), -EINVAL);
  EXPECT_EQ(rcupool_parallelize_1d(m, nullptr, nullptr, 4, 0), -EINVAL);
}

TEST(RcupoolReset, AboveMaximumIsInvalidAndChangesNothing) {
  Manager m(2);
  rcupool_stats_t before = Stats(m);
  EXPECT_EQ(rcupool_reset(m, RCUPOOL_MAX_THREADS + 1), -EINVAL);
  EXPECT_EQ(rcupool_reset(m, SIZE_MAX), -EINVAL);
  rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(after.pools_created, before.pools_created);
  EXPECT_EQ(rcupool_threads(m), 2u);
}

TEST(RcupoolReset, ToCurrentSizeChangesNothing) {
  Manager m(2);
  EXPECT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(rcupool_generation(m), 1u);
  EXPECT_EQ(Stats(m).resets, 0u);
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

TEST(RcupoolDestroy, DefaultManagerIsRefused) {
  EXPECT_EQ(rcupool_destroy(rcupool_default()), -EPERM);
  EXPECT_TRUE(rcupool_test::ManagerSumIsRight(rcupool_default(), 100));
}

TEST(RcupoolScopeExit, WithoutEnterIsLoggedNoop) {
  LogRecorder log;
  rcupool_scope_exit();
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "no scope entered"), 1u);
}

TEST(RcupoolLog, PublicLogReachesHookAndClampsUnknownLevel) {
  LogRecorder log;
  rcupool_log(RCUPOOL_LOG_INFO, "extension %d says %s", 7, "hello");
  rcupool_log(static_cast<rcupool_log_level_t>(42), "odd level");
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "extension 7 says hello"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "odd level"), 1u);
}
