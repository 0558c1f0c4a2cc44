// SPDX-License-Identifier: LGPL-2.1-or-later
// The idle policy (rcupool_options_t.idle, rcupool_set_idle(),
// rcupool_idle()): what the setter accepts, and that the policy reaches the
// flags of the pthreadpool calls rcupool makes, observed on those calls
// (tests/xnnpack/recorder.h interposes pthreadpool_parallelize_*).
#include <errno.h>

#include <atomic>

#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/xnnpack/recorder.h"

using rcupool_test::ClearPoolRecord;
using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;
using rcupool_test::RecordedFlags;

namespace {

constexpr uint32_t kYield = rcupool_test::kYieldPolicyFlags;
#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
#define SKIP_ON_VIEWS()                                                       \
  GTEST_SKIP() << "pools are views on this pthreadpool (executor API): no " \
                  "census runs (lib/pool.c, POOL-7)"
#else
#define SKIP_ON_VIEWS() (void)0
#endif
constexpr uint32_t kDenormals = PTHREADPOOL_FLAG_DISABLE_DENORMALS;

void CountTask(void *ctx, size_t) {
  static_cast<std::atomic<size_t> *>(ctx)->fetch_add(1);
}

// The flags of the pthreadpool calls one rcupool_parallelize_1d() made.
std::vector<uint32_t> FlagsOfOneCall(rcupool_t *m, uint32_t flags) {
  std::atomic<size_t> items{0};
  ClearPoolRecord();
  EXPECT_EQ(rcupool_parallelize_1d(m, CountTask, &items, 100, flags), 0);
  std::vector<uint32_t> seen = RecordedFlags();
  EXPECT_EQ(items.load(), 100u);
  return seen;
}

rcupool_t *Create(size_t threads, rcupool_idle_t idle) {
  rcupool_options_t opts{};
  opts.threads = threads;
  opts.idle = idle;
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&opts, &m), 0);
  return m;
}

}  // namespace

TEST(RcupoolCreate, ZeroedOptionsGiveTheLibraryDefaultYield) {
  NoWarmManager m(2);
  EXPECT_EQ(rcupool_idle(m), RCUPOOL_IDLE_YIELD);
}

TEST(RcupoolCreate, IdleSpinOptionIsTheManagersPolicy) {
  rcupool_t *m = Create(2, RCUPOOL_IDLE_SPIN);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(rcupool_idle(m), RCUPOOL_IDLE_SPIN);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolCreate, IdleOutsideTheEnumReturnsEinvalAndCreatesNothing) {
  rcupool_options_t opts{};
  opts.threads = 2;
  opts.idle = static_cast<rcupool_idle_t>(3);
  rcupool_t *m = reinterpret_cast<rcupool_t *>(0x1);
  EXPECT_EQ(rcupool_create(&opts, &m), -EINVAL);
  EXPECT_EQ(m, reinterpret_cast<rcupool_t *>(0x1));
  opts.idle = static_cast<rcupool_idle_t>(-1);
  EXPECT_EQ(rcupool_create(&opts, &m), -EINVAL);
}

TEST(RcupoolSetIdle, ValueOutsideTheEnumReturnsEinvalAndKeepsThePolicy) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(rcupool_set_idle(m, static_cast<rcupool_idle_t>(3)), -EINVAL);
  EXPECT_EQ(rcupool_set_idle(m, static_cast<rcupool_idle_t>(-1)), -EINVAL);
  EXPECT_EQ(rcupool_idle(m), RCUPOOL_IDLE_SPIN);
}

TEST(RcupoolSetIdle, NullManagerReturnsEinvalAndIsNotLogged) {
  LogRecorder log;
  EXPECT_EQ(rcupool_set_idle(nullptr, RCUPOOL_IDLE_YIELD), -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, ""), 0u);
}

// lib/log.c, LOG-5: every error but -EINVAL for NULL is logged once.
TEST(RcupoolSetIdle, ValueOutsideTheEnumIsLoggedOnceAtErrorLevel) {
  NoWarmManager m(2);
  LogRecorder log;
  EXPECT_EQ(rcupool_set_idle(m, static_cast<rcupool_idle_t>(9)), -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "9 is not an idle policy"), 1u);
}

TEST(RcupoolCreate, IdleOutsideTheEnumIsLoggedOnceAtErrorLevel) {
  LogRecorder log;
  rcupool_options_t opts{};
  opts.idle = static_cast<rcupool_idle_t>(9);
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&opts, &m), -EINVAL);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "9 is not an idle policy"), 1u);
}

TEST(RcupoolSetIdle, DefaultRestoresTheLibraryDefault) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_DEFAULT), 0);
  EXPECT_EQ(rcupool_idle(m), RCUPOOL_IDLE_YIELD);
}

TEST(RcupoolIdle, NullManagerReturnsDefault) {
  EXPECT_EQ(rcupool_idle(nullptr), RCUPOOL_IDLE_DEFAULT);
}

TEST(RcupoolParallelize1d, YieldPolicyAddsYieldFlagToThePthreadpoolCall) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{kYield});
  EXPECT_EQ(FlagsOfOneCall(m, kDenormals),
            std::vector<uint32_t>{kYield | kDenormals});
}

TEST(RcupoolParallelize1d, SpinPolicyPassesTheCallersFlagsUnchanged) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{0});
  EXPECT_EQ(FlagsOfOneCall(m, kDenormals), std::vector<uint32_t>{kDenormals});
  // The caller may still ask for a yield on one call.
  EXPECT_EQ(FlagsOfOneCall(m, kYield), std::vector<uint32_t>{kYield});
}

TEST(RcupoolParallelize1d, SetIdleReachesTheNextCall) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{0});
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{kYield});
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{0});
}

TEST(RcupoolParallelize1d, InScopeOfASizedPinFollowsThePinsManagersPolicy) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_scope_enter(&pin);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{kYield});
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(FlagsOfOneCall(m, 0), std::vector<uint32_t>{0});
  rcupool_scope_exit();
  rcupool_unpin(&pin);
}

TEST(RcupoolParallelize1d, PolicyOfOneManagerDoesNotReachAnother) {
  NoWarmManager spin(2), yield(2);
  ASSERT_EQ(rcupool_set_idle(spin, RCUPOOL_IDLE_SPIN), 0);
  ASSERT_EQ(rcupool_set_idle(yield, RCUPOOL_IDLE_YIELD), 0);
  EXPECT_EQ(FlagsOfOneCall(spin, 0), std::vector<uint32_t>{0});
  EXPECT_EQ(FlagsOfOneCall(yield, 0), std::vector<uint32_t>{kYield});
}

// A new pool's worker census (one call on the new pool, lib/parallel.c)
// leaves the workers as the policy says: under yield they sleep at once
// instead of spinning after the pool starts.
TEST(RcupoolReset, NewPoolsWorkerCensusFollowsThePolicy) {
  SKIP_ON_VIEWS();
  NoWarmManager m(1);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  ClearPoolRecord();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(RecordedFlags(), std::vector<uint32_t>{kYield});
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  ClearPoolRecord();
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  EXPECT_EQ(RecordedFlags(), std::vector<uint32_t>{0});
}

TEST(RcupoolCreate, FirstPoolsWorkerCensusFollowsTheOptionsPolicy) {
  SKIP_ON_VIEWS();
  ClearPoolRecord();
  rcupool_t *m = Create(2, RCUPOOL_IDLE_SPIN);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RecordedFlags(), std::vector<uint32_t>{0});
  EXPECT_EQ(rcupool_destroy(m), 0);
  ClearPoolRecord();
  m = Create(2, RCUPOOL_IDLE_DEFAULT);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RecordedFlags(), std::vector<uint32_t>{kYield});
  EXPECT_EQ(rcupool_destroy(m), 0);
}
