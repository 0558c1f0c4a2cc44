// rcupool_pin_sized when a new pool cannot start: injected allocation and
// pthreadpool failures (//lib:testing hooks). Each returns the error, leaves
// the pin empty and the manager as it was, and starts no thread.
#include <errno.h>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::Manager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::OsThreadCount;
using rcupool_test::Stats;
using rcupool_test::WaitForOsThreadCount;

namespace {

// Fails every call at `site` while alive.
class FailAll {
 public:
  explicit FailAll(int site) : site_(site) {
    rp_fault_set_hook(&FailAll::Hook, this);
  }
  ~FailAll() { rp_fault_set_hook(nullptr, nullptr); }
  int failed() const { return failed_; }

 private:
  static bool Hook(void *ctx, int site) {
    auto *self = static_cast<FailAll *>(ctx);
    if (site != self->site_) return false;
    self->failed_++;
    return true;
  }
  int site_;
  int failed_ = 0;
};

void ExpectPoolStartFailureChangesNothing(int site, int expected_error) {
  Manager m(2);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t before = Stats(m);
  const size_t os_threads = WaitForOsThreadCount(OsThreadCount());
  LogRecorder log;
  rcupool_pin_t pin{};
  {
    FailAll fail(site);
    EXPECT_EQ(rcupool_pin_sized(m, 4, &pin), expected_error);
    EXPECT_EQ(fail.failed(), 1);
  }
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  EXPECT_EQ(rcupool_pin_threads(&pin), 0u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "nothing changed"), 1u);
  rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.pools_alive, before.pools_alive);
  EXPECT_EQ(after.pools_created, before.pools_created);
  EXPECT_EQ(after.pools_never_current, 0u);
  EXPECT_EQ(after.pins, 0u);
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(WaitForOsThreadCount(os_threads), os_threads);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  // The empty pin is usable, and the same call succeeds without the fault.
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), 4u);
  EXPECT_EQ(Stats(m).pools_never_current, 1u);
  rcupool_unpin(&pin);
}

}  // namespace

TEST(RcupoolPinSized, InjectedPoolStartFailureIsEagainAndChangesNothing) {
  ExpectPoolStartFailureChangesNothing(RP_FAULT_SITE_POOL_CREATE, -EAGAIN);
}

TEST(RcupoolPinSized, InjectedAllocationFailureIsEnomemAndChangesNothing) {
  ExpectPoolStartFailureChangesNothing(RP_FAULT_SITE_ALLOC, -ENOMEM);
}

TEST(RcupoolPinSized, FailureForNewSizeDoesNotDisturbLivePoolsOfOtherSizes) {
  Manager m(1);
  rcupool_pin_t three{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &three), 0);
  rcupool_pin_t four{}, again{};
  {
    FailAll fail(RP_FAULT_SITE_POOL_CREATE);
    EXPECT_EQ(rcupool_pin_sized(m, 4, &four), -EAGAIN);
    // A live size needs no new pool: the fault is not reached.
    EXPECT_EQ(rcupool_pin_sized(m, 3, &again), 0);
    EXPECT_EQ(fail.failed(), 1);
  }
  EXPECT_EQ(rcupool_pin_pthreadpool(&again), rcupool_pin_pthreadpool(&three));
  EXPECT_EQ(Stats(m).pools_never_current, 1u);
  rcupool_unpin(&again);
  rcupool_unpin(&three);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}
