// SPDX-License-Identifier: LGPL-2.1-or-later
// The C++ header from a bzlmod consumer, with the registry's GoogleTest
// module names (@googletest//:gtest_main).
#include <atomic>

#include <gtest/gtest.h>
#include <rcupool/rcupool.hpp>

TEST(Pin, CurrentPinAfterResetKeepsItsWidthAndItsScopeRunsOnIt) {
  rcupool::OwnedManager owned;
  ASSERT_EQ(rcupool::OwnedManager::create(2, owned), 0);
  rcupool::Manager m = owned;
  {
    rcupool::Pin pin;
    ASSERT_EQ(rcupool::Pin::current(m, pin), 0);
    ASSERT_EQ(m.reset(3), 0);
    EXPECT_EQ(pin.threads(), 2u);
    EXPECT_FALSE(pin.is_current());
    EXPECT_EQ(m.threads(), 3u);
    std::atomic<long> sum(0);
    {
      rcupool::Scope scope(pin);
      ASSERT_EQ(rcupool::parallelize_1d(
                    m, [&sum](std::size_t i) { sum += static_cast<long>(i); }, 1000),
                0);
    }
    EXPECT_EQ(sum.load(), 499500);
  }
  EXPECT_EQ(owned.destroy(), 0);
}

TEST(Pin, SizedPinOfTheCurrentWidthSharesTheCurrentPool) {
  rcupool::OwnedManager owned;
  ASSERT_EQ(rcupool::OwnedManager::create(2, owned), 0);
  rcupool::Manager m = owned;
  {
    rcupool::Pin current, sized;
    ASSERT_EQ(rcupool::Pin::current(m, current), 0);
    ASSERT_EQ(rcupool::Pin::sized(m, 2, sized), 0);
    EXPECT_EQ(sized.pthreadpool(), current.pthreadpool());
    EXPECT_TRUE(sized.is_current());
  }
  EXPECT_EQ(owned.destroy(), 0);
}
