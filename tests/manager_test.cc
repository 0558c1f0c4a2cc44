// SPDX-License-Identifier: LGPL-2.1-or-later
// The manager (lib/manager.c): rcupool_create, rcupool_destroy and what can
// be read about a manager (rcupool_threads, rcupool_generation,
// rcupool_get_stats), bad input included.
#include <errno.h>
#include <stddef.h>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;

// --- rcupool_create ------------------------------------------------------------

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

// --- rcupool_destroy -----------------------------------------------------------

TEST(RcupoolDestroy, NullManagerIsNoop) {
  EXPECT_EQ(rcupool_destroy(nullptr), 0);
}

TEST(RcupoolDestroy, DefaultManagerIsRefused) {
  EXPECT_EQ(rcupool_destroy(rcupool_default()), -EPERM);
  EXPECT_TRUE(ManagerSumIsRight(rcupool_default(), 100));
}

TEST(RcupoolDestroy, WithPinHeldIsBusyAndPinKeepsWorking) {
  rcupool_options_t opts{};
  opts.threads = 2;
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(&opts, &m), 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);

  EXPECT_EQ(rcupool_destroy(m), -EBUSY);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_freed, 0u);
  EXPECT_EQ(s.pins, 1u);
  EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 1000));
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));

  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

TEST(RcupoolDestroy, WithSizedPinHeldIsBusy) {
  rcupool_t *m = nullptr;
  rcupool_options_t o{};
  o.threads = 1;
  ASSERT_EQ(rcupool_create(&o, &m), 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
  EXPECT_EQ(rcupool_destroy(m), -EBUSY);
  rcupool_scope_enter(&pin);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  rcupool_scope_exit();
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// --- the manager's getters -----------------------------------------------------

TEST(RcupoolThreads, NullManagerIsZero) {
  EXPECT_EQ(rcupool_threads(nullptr), 0u);
}

TEST(RcupoolGeneration, NullManagerIsZero) {
  EXPECT_EQ(rcupool_generation(nullptr), 0u);
}

TEST(RcupoolGetStats, NullManagerOrOutIsInvalid) {
  rcupool_stats_t s;
  EXPECT_EQ(rcupool_get_stats(nullptr, &s), -EINVAL);
  NoWarmManager m(2);
  EXPECT_EQ(rcupool_get_stats(m, nullptr), -EINVAL);
}

// The fields that existed before pools_never_current keep their offsets
// (the struct only grew at its end).
TEST(RcupoolGetStats, StructFieldsBeforePoolsNeverCurrentKeepTheirOffsets) {
  EXPECT_EQ(offsetof(rcupool_stats_t, generation), 0u);
  EXPECT_EQ(offsetof(rcupool_stats_t, threads), 8u);
  EXPECT_EQ(offsetof(rcupool_stats_t, pools_alive), 16u);
  EXPECT_EQ(offsetof(rcupool_stats_t, pools_kept), 24u);
  EXPECT_EQ(offsetof(rcupool_stats_t, pins), 32u);
  EXPECT_EQ(offsetof(rcupool_stats_t, resets), 40u);
  EXPECT_EQ(offsetof(rcupool_stats_t, reuses), 48u);
  EXPECT_EQ(offsetof(rcupool_stats_t, pools_created), 56u);
  EXPECT_EQ(offsetof(rcupool_stats_t, pools_freed), 64u);
  EXPECT_EQ(offsetof(rcupool_stats_t, frees_pending), 72u);
  EXPECT_EQ(offsetof(rcupool_stats_t, threads_alive), 80u);
  EXPECT_EQ(offsetof(rcupool_stats_t, pools_never_current), 88u);
}
