// SPDX-License-Identifier: LGPL-2.1-or-later
// The Module shape of ExecuTorch's bindings, on rcupool_pin_sized(): every
// "module" asks for its own thread count, and instead of resetting the
// process's pool it creates its XNNPACK method on a sized pin. Resets of the
// current pool happen in between. One pool per size stays alive, and once
// the modules are gone only the current pool and its threads remain.
#include <memory>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/xnnpack/method.h"

namespace rcupool_test {
namespace {

// Small, so that 16-thread pools on a 2-core machine stay quick.
Case &TinyCase() {
  static Case *c = new Case(4, 32, 64, 32, 17);
  return *c;
}

// The set of sizes that must be alive: every module's width and the current
// size. After a barrier, one pool per size means pools_alive equals its
// size and threads_alive its sum.
void ExpectOnePoolPerSize(rcupool_t *m,
                          const std::vector<std::unique_ptr<Method>> &mods,
                          const char *when) {
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  std::set<size_t> sizes{s.threads};
  for (const auto &mod : mods) sizes.insert(mod->threads());
  size_t threads = 0;
  for (size_t n : sizes) threads += n;
  EXPECT_EQ(s.pools_alive, sizes.size()) << when;
  EXPECT_EQ(s.threads_alive, threads) << when;
  EXPECT_EQ(s.frees_pending, 0u) << when;
}

TEST(RcupoolXnnRuntimeCreateSized, SixteenModulesOfWidthsOneToSixteenWithResetsOnePoolPerSizeThenOnlyCurrent) {
  NoWarmManager m(1);
  ASSERT_EQ(rcupool_reset(m, 2), 0);  // start rcupool's reclaim thread
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const size_t baseline = rcupool_test::SettledOsThreadCount();
  const uint64_t gen0 = rcupool_generation(m);

  std::vector<std::unique_ptr<Method>> mods;
  size_t resets = 0;
  for (size_t width = 1; width <= 16; width++) {
    // A reset of the current pool between module loads (sizes that are,
    // and are not, some module's width).
    const size_t current = 1 + (width * 5) % 7;
    ASSERT_EQ(rcupool_reset(m, current), 0);
    resets++;
    mods.push_back(std::make_unique<Method>(m, TinyCase(), width));
    Method &mod = *mods.back();
    ASSERT_TRUE(mod.ok()) << "width " << width;
    EXPECT_EQ(mod.threads(), width);
    EXPECT_EQ(pthreadpool_get_threads_count(mod.pool()), width);
    EXPECT_EQ(rcupool_threads(m), current);  // the module changed nothing
    EXPECT_LT(mod.Run(), kMaxRelativeError) << "width " << width;
    if (width % 8 == 0) {
      // Every module loaded so far, after the resets since its load.
      for (const auto &other : mods) {
        EXPECT_FALSE(rcupool_xnn_runtime_is_stale(other->runtime()));
        EXPECT_LT(other->Run(), kMaxRelativeError)
            << "width " << other->threads() << " after " << resets
            << " resets";
      }
      ExpectOnePoolPerSize(m, mods, "while loading");
    }
  }
  EXPECT_EQ(rcupool_generation(m), gen0 + resets);

  // A reset to a width some module uses makes that module's pool current.
  ASSERT_EQ(rcupool_reset(m, 11), 0);
  rcupool_read_lock();
  EXPECT_EQ(rcupool_current(m), mods[10]->pool());
  rcupool_read_unlock();
  EXPECT_FALSE(rcupool_xnn_runtime_is_stale(mods[10]->runtime()));
  ExpectOnePoolPerSize(m, mods, "after reset to 11");
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 16u);
  EXPECT_EQ(s.pins, 16u);

  // Unload half, then all.
  for (size_t i = 0; i < mods.size(); i += 2) mods[i].reset();
  std::vector<std::unique_ptr<Method>> left;
  for (auto &mod : mods)
    if (mod) left.push_back(std::move(mod));
  for (const auto &mod : left) EXPECT_LT(mod->Run(), kMaxRelativeError);
  ExpectOnePoolPerSize(m, left, "half unloaded");
  left.clear();
  mods.clear();
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.threads, 3u);
  // Only the current pool's 2 workers beyond the baseline.
  EXPECT_EQ(WaitForOsThreadCount(baseline + 2), baseline + 2);
}

}  // namespace
}  // namespace rcupool_test
