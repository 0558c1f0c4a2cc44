// SPDX-License-Identifier: LGPL-2.1-or-later
// The log (lib/log.c): rcupool_log, the hook of rcupool_set_log and when it
// runs (LOG-1), the bounded queue (LOG-2), pull mode (rcupool_log_hold,
// rcupool_log_take) and rcupool_set_log's wait (LOG-4). Cases with a hook
// run in a fresh process (RCUPOOL_RUN_IN_CHILD of tests/support/in_child.h),
// so a hang is a failure after a timeout. The hook with fork() is
// tests/fork/log_hook_test.cc's; the rule for logging errors (LOG-5) is
// tests/fault/error_log_test.cc's.
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::Stats;

namespace {

constexpr int kTimeoutS = 120;

}  // namespace

TEST(RcupoolLog, PublicLogReachesHookAndClampsUnknownLevel) {
  LogRecorder log;
  rcupool_log(RCUPOOL_LOG_INFO, "extension %d says %s", 7, "hello");
  rcupool_log(static_cast<rcupool_log_level_t>(42), "odd level");
  EXPECT_EQ(log.Count(RCUPOOL_LOG_INFO, "extension 7 says hello"), 1u);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "odd level"), 1u);
}

// A log hook may call rcupool functions (issue 10, defect 11).
std::atomic<int> reentrant_calls{0};
void ReentrantHook(void *, rcupool_log_level_t, const char *) {
  rcupool_t *m = rcupool_default();
  rcupool_stats_t s;
  if (m != nullptr && rcupool_get_stats(m, &s) == 0) {
    // A reset to the current size takes the writer lock and changes nothing.
    rcupool_reset(m, rcupool_threads(m));
    reentrant_calls++;
  }
}

TEST(RcupoolLog, HookThatCallsRcupoolDoesNotDeadlock) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_set_log(ReentrantHook, nullptr);
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_set_log(nullptr, nullptr);
  EXPECT_GT(reentrant_calls.load(), 0);
}

// The hook runs only on threads that called into rcupool, never on the
// reclaim thread or a pool worker, and records of the reclaim thread reach
// it at the caller's next call (here the barrier).
std::mutex hook_threads_mu;
std::vector<pthread_t> hook_threads;
void ThreadRecordingHook(void *, rcupool_log_level_t, const char *) {
  std::lock_guard<std::mutex> g(hook_threads_mu);
  hook_threads.push_back(pthread_self());
}

TEST(RcupoolLogHook, RunsOnlyOnCallingThreadAndGetsReclaimRecordsAtNextCall) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  rcupool_set_log(ThreadRecordingHook, nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);  // the free pool record, delivered here
  rcupool_set_log(nullptr, nullptr);
  std::lock_guard<std::mutex> g(hook_threads_mu);
  ASSERT_FALSE(hook_threads.empty());
  for (pthread_t t : hook_threads) EXPECT_TRUE(pthread_equal(t, pthread_self()));
}

// A full queue drops records, counts them in the stats and tells the hook.
std::atomic<int> dropped_notices{0};
void DropNoticeHook(void *, rcupool_log_level_t level, const char *message) {
  if (level == RCUPOOL_LOG_WARN &&
      strstr(message, " dropped (the queue of ") != nullptr)
    dropped_notices++;
}

void LogFromTask(void *, size_t i) {
  rcupool_log(RCUPOOL_LOG_DEBUG, "from a task %zu", i);
}

TEST(RcupoolLogHook, QueueOverflowIsCountedInStatsAndToldToHook) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  rcupool_set_log(DropNoticeHook, nullptr);
  // Inside a read-side section nothing is delivered: records pile up.
  rcupool_read_lock();
  for (int i = 0; i < 1000; i++) rcupool_log(RCUPOOL_LOG_DEBUG, "record %d", i);
  rcupool_read_unlock();
  EXPECT_GE(Stats(m).log_dropped, 1000u - 256u);
  rcupool_log_deliver();
  EXPECT_EQ(dropped_notices.load(), 1);
  rcupool_set_log(nullptr, nullptr);
}

// Pull mode: records wait for rcupool_log_take(), in order.
TEST(RcupoolLogTake, AfterHoldReturnsRecordsInOrderThenZero) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_log_hold();
  rcupool_log(RCUPOOL_LOG_INFO, "first");
  rcupool_log(RCUPOOL_LOG_ERROR, "second");
  rcupool_log_record_t r;
  ASSERT_EQ(rcupool_log_take(&r), 1);
  EXPECT_EQ(r.level, RCUPOOL_LOG_INFO);
  EXPECT_STREQ(r.message, "first");
  ASSERT_EQ(rcupool_log_take(&r), 1);
  EXPECT_EQ(r.level, RCUPOOL_LOG_ERROR);
  EXPECT_STREQ(r.message, "second");
  EXPECT_EQ(rcupool_log_take(&r), 0);
  EXPECT_EQ(rcupool_log_take(nullptr), -EINVAL);
  rcupool_set_log(nullptr, nullptr);
}

// rcupool_set_log() returns only once calls of the old hook on other
// threads have returned; from inside a hook it does not wait for itself.
std::atomic<bool> slow_hook_inside{false};
std::atomic<bool> slow_hook_done{false};
void SlowHook(void *, rcupool_log_level_t, const char *) {
  slow_hook_inside = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  slow_hook_done = true;
}
void SwitchingHook(void *, rcupool_log_level_t, const char *) {
  rcupool_set_log(nullptr, nullptr);  // installs another from inside a hook
}

// Two hooks that install sinks at the same time do not wait for each
// other (each would wait for the other's call in flight).
std::atomic<int> both_inside{0};
void SwitchWhenBothInsideHook(void *, rcupool_log_level_t, const char *) {
  both_inside++;
  while (both_inside.load() < 2) std::this_thread::yield();
  rcupool_set_log(nullptr, nullptr);
}

TEST(RcupoolSetLog, FromTwoHooksAtOnceNeverDeadlocks) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_set_log(SwitchWhenBothInsideHook, nullptr);
  std::thread a([] { rcupool_log(RCUPOOL_LOG_INFO, "a"); });
  std::thread b([] { rcupool_log(RCUPOOL_LOG_INFO, "b"); });
  a.join();
  b.join();
  EXPECT_EQ(both_inside.load(), 2);
}

TEST(RcupoolSetLog, WaitsForOtherThreadsCallsButNotItsOwn) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_set_log(SlowHook, nullptr);
  std::thread t([] { rcupool_log(RCUPOOL_LOG_INFO, "slow"); });
  while (!slow_hook_inside.load()) std::this_thread::yield();
  rcupool_set_log(nullptr, nullptr);
  EXPECT_TRUE(slow_hook_done.load());
  t.join();
  rcupool_set_log(SwitchingHook, nullptr);
  rcupool_log(RCUPOOL_LOG_INFO, "switch");  // returns: no self-wait
  rcupool_set_log(nullptr, nullptr);
}

// A sized pin that starts a pool logs while it holds the writer
// lock; a hook that resets on that record deadlocked on its own thread.
std::atomic<int> sized_hook_resets{0};
void ResetOnSizedStartHook(void *, rcupool_log_level_t, const char *message) {
  if (strstr(message, "for a sized pin") == nullptr) return;
  if (rcupool_reset(rcupool_default(), 2) == 0) sized_hook_resets++;
}

TEST(RcupoolPinSized, NewPoolWithHookThatResetsOnItsRecordReturns) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  rcupool_set_log(ResetOnSizedStartHook, nullptr);
  rcupool_pin_t pin = {};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), 3u);
  rcupool_unpin(&pin);
  rcupool_set_log(nullptr, nullptr);
  EXPECT_EQ(sized_hook_resets.load(), 1);
}
