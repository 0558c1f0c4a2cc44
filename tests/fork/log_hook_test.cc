// SPDX-License-Identifier: LGPL-2.1-or-later
// The log hook and fork() (lib/log.c, LOG-1; lib/fork.c): fork's handlers
// call no hook and wait for nothing a hook can hold, a hook may fork, and
// a hook that resets, enters a section or takes an application lock never
// deadlocks a fork on another thread. Each case runs in a fresh process
// (RCUPOOL_RUN_IN_CHILD of tests/support/in_child.h), so a hang is a
// failure after a timeout.
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::ForkAndWait;
using rcupool_test::ManagerSumIsRight;

namespace {

constexpr int kTimeoutS = 120;

// A thread that forks `forks` times, each child calling into the default
// manager and exiting; returns how many children did not exit 0.
int ForkLoop(int forks, rcupool_t *m) {
  int bad = 0;
  for (int i = 0; i < forks; i++) {
    int rc = ForkAndWait([m] { return ManagerSumIsRight(m, 64) ? 0 : 1; }, 20);
    if (rc != 0) bad++;
  }
  return bad;
}

// Resets between two sizes, so retired pools are freed by the reclaim
// thread while the test forks.
void Churn(rcupool_t *m, std::atomic<bool> *stop) {
  for (size_t i = 0; !stop->load(); i++) rcupool_reset(m, 2 + i % 2);
}

}  // namespace

// The fork child handler calls no log hook, and a parent thread inside the
// hook at fork time does not hang the child's rcupool_set_log (issue 10,
// defect 7).
std::atomic<int> hook_calls_in_pid{0};
std::atomic<pid_t> hook_last_pid{0};
std::mutex hook_gate;
std::atomic<bool> hook_block{false};
std::atomic<bool> hook_inside{false};

void RecordingHook(void *, rcupool_log_level_t, const char *) {
  hook_last_pid = getpid();
  if (hook_block.load()) {
    hook_inside = true;
    std::lock_guard<std::mutex> g(hook_gate);
  }
}

TEST(RcupoolDefault, ForkChildHandlerCallsNoHookAndChildCanSetLog) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  rcupool_set_log(RecordingHook, nullptr);
  int rc = ForkAndWait([] { return hook_last_pid.load() == getpid() ? 1 : 0; });
  EXPECT_EQ(rc, 0) << "the hook ran in the child before fork() returned";

  // Another thread sits inside the hook across the fork.
  std::unique_lock<std::mutex> gate(hook_gate);
  hook_block = true;
  std::thread t([] { rcupool_log(RCUPOOL_LOG_INFO, "blocked in the hook"); });
  while (!hook_inside.load()) std::this_thread::yield();
  rc = ForkAndWait([m] {
    rcupool_set_log(nullptr, nullptr);
    return ManagerSumIsRight(m, 100) ? 0 : 1;
  });
  EXPECT_EQ(rc, 0);
  gate.unlock();
  t.join();
  rcupool_set_log(nullptr, nullptr);
}

// A hook that resets on every record, a thread that forks while
// pools are freed. Before: fork's prepare held the writer lock and waited
// for the reclaim thread, which sat in the hook waiting for that lock.
std::atomic<int> resets_in_hook{0};
std::atomic<bool> resetting_hook_stop{false};
void ResettingHook(void *, rcupool_log_level_t, const char *) {
  if (resetting_hook_stop.load()) return;  // the test is ending
  rcupool_t *m = rcupool_default();
  if (rcupool_reset(m, 2 + resets_in_hook++ % 2) != 0) abort();
}

TEST(RcupoolLogHook, ThatResetsOnEveryRecordWhileOtherThreadForksNeverDeadlocks) {
  SKIP_UNDER_TSAN();
  SKIP_FORK_DURING_CHURN_UNDER_ASAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  rcupool_set_log(ResettingHook, nullptr);
  std::atomic<bool> stop{false};
  std::thread churn(Churn, m, &stop);
  int bad = ForkLoop(20, m);
  resetting_hook_stop = true;
  stop = true;
  churn.join();
  rcupool_set_log(nullptr, nullptr);
  EXPECT_EQ(bad, 0);
  EXPECT_GT(resets_in_hook.load(), 0);
}

// fork() inside a hook; once the hook has returned in the child,
// the child installs another hook and logs. Before: the child
// re-initialised the hook lock under the forking thread's own read hold,
// the hook's return unlocked the fresh lock, and the child's next
// rcupool_set_log() hung.
std::atomic<int> child_hook_calls{0};
void CountingHook(void *, rcupool_log_level_t, const char *) {
  child_hook_calls++;
}
pid_t forked_in_hook = -1;
void ForkingHook(void *, rcupool_log_level_t, const char *message) {
  if (strstr(message, "fork me") != nullptr) forked_in_hook = fork();
}

TEST(RcupoolLogHook, ThatForksLeavesChildAbleToSetLogAndLog) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_set_log(ForkingHook, nullptr);
  rcupool_log(RCUPOOL_LOG_INFO, "fork me");  // the hook forks, and returns
  if (forked_in_hook == 0) {                 // in both processes
    rcupool_set_log(CountingHook, nullptr);
    rcupool_log(RCUPOOL_LOG_INFO, "in the child");
    rcupool_set_log(nullptr, nullptr);
    _exit(child_hook_calls.load() == 1 ? 0 : 1);
  }
  ASSERT_GT(forked_in_hook, 0);
  rcupool_set_log(nullptr, nullptr);
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 200 && done == 0; i++) {
    done = waitpid(forked_in_hook, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (done == 0) {
    kill(forked_in_hook, SIGKILL);
    waitpid(forked_in_hook, &status, 0);
    FAIL() << "the child hung in rcupool_set_log()";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// A hook that only enters a read-side section (documented never
// to block), while another thread forks during frees. Before (memb): the
// hook ran on the reclaim thread, prepare held fork_lock and waited for
// the reclaim batch, the hook's section waited for fork_lock.
std::atomic<int> sections_in_hook{0};
void SectionHook(void *, rcupool_log_level_t, const char *) {
  rcupool_read_lock_current(rcupool_default());
  rcupool_read_unlock();
  sections_in_hook++;
}

TEST(RcupoolLogHook, ThatEntersSectionWhileOtherThreadForksNeverDeadlocks) {
  SKIP_UNDER_TSAN();
  SKIP_FORK_DURING_CHURN_UNDER_ASAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  rcupool_set_log(SectionHook, nullptr);
  std::atomic<bool> stop{false};
  std::thread churn(Churn, m, &stop);
  int bad = ForkLoop(40, m);
  stop = true;
  churn.join();
  rcupool_set_log(nullptr, nullptr);
  EXPECT_EQ(bad, 0);
  EXPECT_GT(sections_in_hook.load(), 0);
}

// The forking thread holds an application lock that the
// hook takes, while another thread's calls run that hook. Fork must not
// wait for the hook (blocked on that lock); before, prepare waited for a
// reclaim batch whose hook could be the one blocked.
std::mutex app_lock;
std::atomic<int> locked_hook_calls{0};
void AppLockHook(void *, rcupool_log_level_t, const char *) {
  std::lock_guard<std::mutex> g(app_lock);
  locked_hook_calls++;
}

TEST(RcupoolLogHook, TakingAppLockHeldByForkingThreadNeverDeadlocksFork) {
  SKIP_UNDER_TSAN();
  SKIP_FORK_DURING_CHURN_UNDER_ASAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  rcupool_set_log(AppLockHook, nullptr);
  std::atomic<bool> stop{false};
  std::thread caller([&] {
    for (size_t i = 0; !stop.load(); i++) {
      rcupool_pin_t pin = {};
      if (rcupool_pin_sized(m, 1 + i % 3, &pin) == 0) rcupool_unpin(&pin);
      rcupool_reset(m, 2 + i % 2);
    }
  });
  int bad = 0;
  for (int i = 0; i < 40; i++) {
    std::lock_guard<std::mutex> g(app_lock);
    // The child inherits app_lock held by this thread: it removes the hook
    // (which takes that lock) before it calls in.
    if (ForkAndWait([m] {
          rcupool_set_log(nullptr, nullptr);
          return ManagerSumIsRight(m, 64) ? 0 : 1;
        }) != 0)
      bad++;
  }
  stop = true;
  caller.join();
  rcupool_set_log(nullptr, nullptr);
  EXPECT_EQ(bad, 0);
  EXPECT_GT(locked_hook_calls.load(), 0);
}
