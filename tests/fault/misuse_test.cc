// Misuse of the API that the library detects: each case gets its documented
// error, a logged no-op, or a clear abort (never a silent corruption). The
// misuse list in README.md points here and to tests/bad_input_test.cc.
#include <errno.h>

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::Manager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

namespace {

void Noop(void *, size_t) {}

class MisuseDeathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Re-executes the binary for each death test: safe with the pools'
    // threads running (and under ThreadSanitizer).
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

}  // namespace

TEST_F(MisuseDeathTest, ScopeEnterWithEmptyPinAborts) {
  rcupool_pin_t pin{};
  EXPECT_DEATH(rcupool_scope_enter(&pin), "pin is NULL or empty");
  EXPECT_DEATH(rcupool_scope_enter(nullptr), "pin is NULL or empty");
}

TEST_F(MisuseDeathTest, ScopeNestedDeeperThanMaximumAborts) {
  EXPECT_DEATH(
      {
        Manager m(1);
        rcupool_pin_t pin{};
        rcupool_pin(m, &pin);
        for (int i = 0; i <= RCUPOOL_SCOPE_MAX_DEPTH; i++)
          rcupool_scope_enter(&pin);
      },
      "nested deeper than");
}

TEST_F(MisuseDeathTest, ParallelizeInScopeOfUnpinnedPinAborts) {
  EXPECT_DEATH(
      {
        Manager m(2);
        rcupool_pin_t pin{};
        rcupool_pin(m, &pin);
        rcupool_scope_enter(&pin);
        rcupool_unpin(&pin);  // the misuse: released inside its scope
        rcupool_parallelize_1d(m, Noop, nullptr, 10, 0);
      },
      "unpinned before the scope was left");
}

TEST(RcupoolPin, UsedAfterUnpinReadsAsEmpty) {
  Manager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_unpin(&pin);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  EXPECT_EQ(rcupool_pin_threads(&pin), 0u);
  EXPECT_EQ(rcupool_pin_generation(&pin), 0u);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  // The released storage can be pinned again.
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
}

namespace {
struct ResetCtx {
  rcupool_t *m;
  std::atomic<int> result{1};
};
void ResetFromTask(void *arg, size_t i) {
  auto *c = static_cast<ResetCtx *>(arg);
  if (i == 0) c->result = rcupool_reset(c->m, 3);
}
}  // namespace

TEST(RcupoolReset, FromInsideTaskSucceedsAndTaskPoolStaysUsable) {
  Manager m(2);
  ResetCtx c;
  c.m = m;
  ASSERT_EQ(rcupool_parallelize_1d(m, ResetFromTask, &c, 8, 0), 0);
  EXPECT_EQ(c.result.load(), 0);
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolScopeExit, OnAnotherThreadThanEnterIsLoggedNoop) {
  Manager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  rcupool_scope_enter(&pin);
  {
    LogRecorder log;
    std::thread([] { rcupool_scope_exit(); }).join();
    EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "no scope entered"), 1u);
  }
  // This thread's scope is untouched.
  EXPECT_TRUE(ManagerSumIsRight(m, 100));
  rcupool_scope_exit();
  rcupool_unpin(&pin);
}
