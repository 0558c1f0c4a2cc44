// rcupool/inline.h: the inlined read side keeps the out-of-line contract and
// mixes with it.
#include <rcupool/inline.h>

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::Manager;
using rcupool_test::Stats;

TEST(RcupoolCurrentInline, SeesSamePoolAsOutOfLineCall) {
  Manager m(2);
  rcupool_read_lock_inline();
  pthreadpool_t fast = rcupool_current_inline(m);
  rcupool_read_unlock_inline();
  rcupool_read_lock();
  pthreadpool_t slow = rcupool_current(m);
  rcupool_read_unlock();
  EXPECT_NE(fast, nullptr);
  EXPECT_EQ(fast, slow);
  EXPECT_EQ(rcupool_current_inline(nullptr), nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_read_lock_inline();
  EXPECT_NE(rcupool_current_inline(m), fast);
  EXPECT_EQ(pthreadpool_get_threads_count(rcupool_current_inline(m)), 3u);
  rcupool_read_unlock_inline();
}

TEST(RcupoolReadLockInline, SectionHoldsPoolAcrossResetAndMixesWithOutOfLine) {
  Manager m(2);
  rcupool_read_lock_inline();
  rcupool_read_lock();  // nested, the other kind
  pthreadpool_t seen = rcupool_current_inline(m);
  std::thread resetter([&] { EXPECT_EQ(rcupool_reset(m, 3), 0); });
  resetter.join();
  rcupool_read_unlock_inline();
  // Still inside the outer section: the retired pool cannot be freed.
  EXPECT_EQ(Stats(m).pools_alive, 2u);
  EXPECT_TRUE(rcupool_test::ParallelSumIsRight(seen, 100));
  rcupool_read_unlock();
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolBarrier, InsideInlineSectionIsDeadlockError) {
  Manager m(2);
  rcupool_read_lock_inline();
  EXPECT_EQ(rcupool_barrier(m), -EDEADLK);
  rcupool_read_unlock_inline();
}
