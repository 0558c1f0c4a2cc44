// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_pin_threads and rcupool_threads on a pthreadpool whose
// pthreadpool_get_threads_count reflects pthreadpool_set_threads_count
// (pthreadpool with the executor API, 2025 on; docs/building.md, "The
// newest Debian dependencies"): a caller that lowers the count of a pool
// rcupool gave out does not change the widths rcupool reports, which are
// the widths rcupool created the pools with. On a pthreadpool without
// pthreadpool_set_threads_count (Debian 12's) each case skips.
#include <pthreadpool.h>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::NoWarmManager;
using rcupool_test::ParallelSumIsRight;

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
#define RCUPOOL_TEST_HAS_SET_THREADS_COUNT 1
#else
#define RCUPOOL_TEST_HAS_SET_THREADS_COUNT 0
#endif

#define SKIP_WITHOUT_SET_THREADS_COUNT()                                    \
  if (!RCUPOOL_TEST_HAS_SET_THREADS_COUNT)                                  \
  GTEST_SKIP() << "this pthreadpool has no pthreadpool_set_threads_count " \
                  "(Debian 12's): build against the newest set "            \
                  "(--config=newest, tests/newest/run.sh)"

// Sets the pool's count through pthreadpool itself (0: back to the
// count it was created with); returns what pthreadpool_get_threads_count
// then says.
static size_t SetCount(pthreadpool_t tp, size_t n) {
#if RCUPOOL_TEST_HAS_SET_THREADS_COUNT
  pthreadpool_set_threads_count(tp, n);
#else
  (void)n;
#endif
  return pthreadpool_get_threads_count(tp);
}

TEST(RcupoolPinThreads, AfterSetThreadsCountLowersPoolReportsCreationWidth) {
  SKIP_WITHOUT_SET_THREADS_COUNT();
  NoWarmManager m(3);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  pthreadpool_t tp = rcupool_pin_pthreadpool(&pin);
  ASSERT_EQ(pthreadpool_get_threads_count(tp), 3u);
  // pthreadpool now says 1: the new pthreadpool's get reflects the set.
  EXPECT_EQ(SetCount(tp, 1), 1u);
  EXPECT_EQ(rcupool_pin_threads(&pin), 3u);
  EXPECT_EQ(rcupool_threads(m), 3u);
  // The pool still computes right on the threads it was left.
  EXPECT_TRUE(ParallelSumIsRight(tp, 257));
  // Put back for the other users of the pool (the caller's duty).
  EXPECT_EQ(SetCount(tp, 0), 3u);
  rcupool_unpin(&pin);
}

TEST(RcupoolPinSized, OfPoolWhoseCountWasLoweredReportsRequestedWidth) {
  SKIP_WITHOUT_SET_THREADS_COUNT();
  NoWarmManager m(1);
  rcupool_pin_t first{}, second{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &first), 0);
  pthreadpool_t tp = rcupool_pin_pthreadpool(&first);
  EXPECT_EQ(SetCount(tp, 1), 1u);
  // A second sized pin of that width shares the pool (pin.h) and reports
  // the width asked for, whatever pthreadpool says of it now.
  ASSERT_EQ(rcupool_pin_sized(m, 2, &second), 0);
  EXPECT_EQ(rcupool_pin_pthreadpool(&second), tp);
  EXPECT_EQ(rcupool_pin_threads(&second), 2u);
  EXPECT_EQ(rcupool_pin_threads(&first), 2u);
  EXPECT_EQ(SetCount(tp, 0), 2u);
  rcupool_unpin(&second);
  rcupool_unpin(&first);
}
