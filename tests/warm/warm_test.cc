// Warm widths: a pool whose last pin is released stays alive, held by its
// manager, so the next sized pin, scope or reset of its width is a lookup;
// it goes after its linger, beyond the manager's limit, or at
// rcupool_trim(), and never while a pin holds it.
#include <stddef.h>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::Manager;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;

namespace {

TEST(RcupoolPinSized, AfterLastUnpinOfSameWidthReusesIdlePool) {
  Manager m(2, 0, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const uint64_t created = Stats(m).pools_created;
  for (int i = 0; i < 20; i++) {
    ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
    EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 100));
    rcupool_unpin(&pin);
    ASSERT_EQ(rcupool_barrier(m), 0);
  }
  EXPECT_EQ(Stats(m).pools_created, created);
  EXPECT_EQ(Stats(m).pools_alive, 2u);
}

TEST(RcupoolReset, ToWidthOfIdlePoolReusesItWithoutStartingOne) {
  Manager m(2, 0, 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const rcupool_stats_t before = Stats(m);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  const rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.pools_created, before.pools_created);
  EXPECT_EQ(after.reuses, before.reuses + 1);
  EXPECT_EQ(after.threads, 3u);
}

TEST(RcupoolPinSized, AtWidthOfRetiredPoolWithoutPinsReusesIt) {
  Manager m(2, 0, 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // the width-3 pool is past its retire
  const uint64_t created = Stats(m).pools_created;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), 3u);
  rcupool_unpin(&pin);
  EXPECT_EQ(Stats(m).pools_created, created);
}

TEST(RcupoolScope, AtUnheldWidthAfterFirstUseStartsNoPool) {
  Manager m(2, 0, 0);
  // The guard of a call: sized pin, scope, parallel work, exit, unpin.
  auto guard = [&] {
    rcupool_pin_t pin{};
    ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
    rcupool_scope_enter(&pin);
    EXPECT_TRUE(rcupool_test::ManagerSumIsRight(m, 64));
    rcupool_scope_exit();
    rcupool_unpin(&pin);
  };
  guard();
  ASSERT_EQ(rcupool_barrier(m), 0);
  const uint64_t created = Stats(m).pools_created;
  for (int i = 0; i < 50; i++) guard();
  EXPECT_EQ(Stats(m).pools_created, created);
}

}  // namespace
