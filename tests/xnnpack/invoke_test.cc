// SPDX-License-Identifier: LGPL-2.1-or-later
// The reported crash, end to end, with the real libXNNPACK: a method loaded
// through rcupool keeps running, correctly, on the pool it was created on,
// whatever resets happen between its invokes.
#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/xnnpack/method.h"

namespace rcupool_test {
namespace {

// Two fully-connected layers, 256 -> 512 -> 256, batch 64.
Case &BigCase() {
  static Case *c = new Case(64, 256, 512, 256, 11);
  return *c;
}

TEST(RcupoolXnnRuntimeInvoke, AfterResetsTo16Then4And20AlternatingOutputsMatchReference) {
  NoWarmManager m(2);
  Method method(m, BigCase());
  ASSERT_TRUE(method.ok());
  EXPECT_LT(method.Run(), kMaxRelativeError) << "before any reset";

  std::vector<size_t> resets = {16, 4};
  // 20 more, alternating 8 and 3. (Alternating 16 and 4 costs ~10 s here:
  // each fresh pool's workers spin before they sleep, and 15 spinning
  // workers on 2 cores are what makes oversubscription so expensive.)
  for (int i = 0; i < 20; i++) resets.push_back(i % 2 == 0 ? 8 : 3);
  for (size_t i = 0; i < resets.size(); i++) {
    ASSERT_EQ(rcupool_reset(m, resets[i]), 0);
    EXPECT_TRUE(rcupool_xnn_runtime_is_stale(method.runtime()));
    // The method keeps the pool it planned for.
    EXPECT_EQ(method.threads(), 2u);
    EXPECT_LT(method.Run(), kMaxRelativeError)
        << "invoke after reset " << i + 1 << " to " << resets[i];
  }
  // Only the method's pin keeps its pool alive next to the current one.
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 1u);
  EXPECT_EQ(s.pools_alive, 2u);
  EXPECT_EQ(s.pools_kept, 1u);
  method.Destroy();
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolXnnRuntimeInvoke, MethodLoadedOn16ThreadsStaysCorrectAfterResetTo1) {
  NoWarmManager m(16);
  Method method(m, BigCase());
  ASSERT_TRUE(method.ok());
  EXPECT_LT(method.Run(), kMaxRelativeError);
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(method.threads(), 16u);
  EXPECT_LT(method.Run(), kMaxRelativeError);
}

}  // namespace
}  // namespace rcupool_test
