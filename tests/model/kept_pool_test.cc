// SPDX-License-Identifier: LGPL-2.1-or-later
// Regression test for a race the Promela model (lifetime.pml, switch
// C_KEPT_LOG_AFTER_PUT) found in the retire callback.
//
// rcupl_retire_cb() used to read p->threads for its "kept" log after its own
// rcupl_pool_put() had left the pool to other holders. When those holders let
// go through rcupool_destroy(), the pool is freed on the destroying thread,
// not on the reclaim thread, so nothing ordered that read before the free.
// ThreadSanitizer (--config=tsan) reports the read racing with the free on
// the old code whatever the timing, as nothing the callback thread does
// after the read synchronises with the destroying thread here (no log hook
// is installed and no stats are taken in between). Without TSAN the test
// checks the same sequence for its visible results. Since warm pools,
// destroy hands its pools to the reclaim thread as every other holder does,
// so the old read would no longer race (lifetime.pml passes with
// -DC_KEPT_LOG_AFTER_PUT); the sequence stays a test of reuse and destroy.
#include <errno.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include <rcupool/rcupool.h>

TEST(RcupoolDestroy, ReusedPoolOnceKeptIsFreedWithoutRacingItsRetireCallback) {
  rcupool_options_t opts{};
  opts.threads = 1;
  rcupool_t *m = nullptr;
  ASSERT_EQ(rcupool_create(&opts, &m), 0);

  // The 1-thread pool is pinned, retired, and its retire callback runs: it
  // drops its reference and finds the pool kept for the pin.
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  // Wait for that callback through the stats (m->lock) rather than
  // rcupool_barrier(): the barrier's grace period would order everything
  // the reclaim thread did before it, the racy read included.
  rcupool_stats_t s{};
  for (int i = 0; i < 2000; i++) {
    ASSERT_EQ(rcupool_get_stats(m, &s), 0);
    if (s.pools_kept == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(s.pools_kept, 1u);

  // A reset back to 1 thread reuses it; the pin goes. Its only reference is
  // now the manager's, which destroy drops (the reclaim thread frees it).
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_get_stats(m, &s), 0);
  EXPECT_EQ(s.reuses, 1u);
  EXPECT_EQ(s.pools_created, 2u);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}
