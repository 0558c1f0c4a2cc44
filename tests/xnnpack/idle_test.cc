// SPDX-License-Identifier: LGPL-2.1-or-later
// The manager's idle policy reaches XNNPACK: a runtime created under
// RCUPOOL_IDLE_YIELD gets XNN_FLAG_YIELD_WORKERS, which XNNPACK turns into
// PTHREADPOOL_FLAG_YIELD_WORKERS on its last operator's pthreadpool call.
// Observed on the calls themselves (tests/xnnpack/recorder.h).
#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/xnnpack/method.h"
#include "tests/xnnpack/recorder.h"

namespace rcupool_test {
namespace {

constexpr uint32_t kYield = PTHREADPOOL_FLAG_YIELD_WORKERS;

Case &TheCase() {
  static Case *c = new Case(8, 32, 64, 16, 7);
  return *c;
}

// The flags of the pthreadpool calls of one invoke, in order.
std::vector<uint32_t> FlagsOfOneInvoke(Method &method) {
  ClearPoolRecord();
  EXPECT_LT(method.Run(), kMaxRelativeError);
  std::vector<uint32_t> flags = RecordedFlags();
  EXPECT_FALSE(flags.empty());
  return flags;
}

// Yield on the last call only: workers still spin between operators.
void ExpectYieldOnLastCallOnly(const std::vector<uint32_t> &flags) {
  ASSERT_FALSE(flags.empty());
  EXPECT_NE(flags.back() & kYield, 0u);
  for (size_t i = 0; i + 1 < flags.size(); i++)
    EXPECT_EQ(flags[i] & kYield, 0u) << "call " << i;
}

void ExpectNoYield(const std::vector<uint32_t> &flags) {
  for (size_t i = 0; i < flags.size(); i++)
    EXPECT_EQ(flags[i] & kYield, 0u) << "call " << i;
}

}  // namespace

TEST(RcupoolXnnRuntimeInvoke, YieldPolicyLastOperatorPassesYieldFlag) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  ExpectYieldOnLastCallOnly(FlagsOfOneInvoke(method));
}

TEST(RcupoolXnnRuntimeInvoke, SpinPolicyNoOperatorPassesYieldFlag) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  ExpectNoYield(FlagsOfOneInvoke(method));
}

TEST(RcupoolXnnRuntimeCreateSized, YieldPolicyLastOperatorPassesYieldFlag) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  Method method(m, TheCase(), 3);
  ASSERT_TRUE(method.ok());
  ExpectYieldOnLastCallOnly(FlagsOfOneInvoke(method));
}

TEST(RcupoolXnnRuntimeInvoke, RuntimeKeepsThePolicyOfItsCreation) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  ExpectNoYield(FlagsOfOneInvoke(method));
}

TEST(RcupoolXnnRuntimeRefresh, RefreshedRuntimeTakesThePolicyOfItsTime) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_SPIN), 0);
  Method method(m, TheCase());
  ASSERT_TRUE(method.ok());
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_set_idle(m, RCUPOOL_IDLE_YIELD), 0);
  ASSERT_EQ(method.Refresh(), 0);
  ExpectYieldOnLastCallOnly(FlagsOfOneInvoke(method));
}

}  // namespace rcupool_test
