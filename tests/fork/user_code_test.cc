// SPDX-License-Identifier: LGPL-2.1-or-later
// The library never waits on user code (design invariant 8): a log hook
// runs on an application thread with no rcupool lock held, fork's handlers
// wait for nothing a hook can hold, every manager's pools are orphans in a
// fork child, a thread limit ends in an error and a reclaim thread that
// cannot start ends a wait in an error. Each case runs in a fresh process
// (RCUPOOL_RUN_IN_CHILD), so a hang is a failure after a timeout.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::ForkAndWait;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

// gcc 12's AddressSanitizer does not lock its allocator around fork(): a
// child forked while another thread allocates can inherit an allocator lock
// held for ever (tests/torture/fork_torture_test.cc says more). The cases
// that fork while other threads churn run in the plain and memb builds.
#if defined(__SANITIZE_ADDRESS__)
#define SKIP_FORK_DURING_CHURN_UNDER_ASAN() \
  GTEST_SKIP() << "ASan's allocator is not fork-safe with concurrent allocation"
#else
#define SKIP_FORK_DURING_CHURN_UNDER_ASAN() ((void)0)
#endif

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

// Defect 1: a hook that resets on every record, a thread that forks while
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

// Defect 2: fork() inside a hook; once the hook has returned in the child,
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

// Defect 3: a hook that only enters a read-side section (documented never
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

// Defect 4: a thread dispatches from inside a read-side section and every
// task enters a section of its own, while another thread forks. Before
// (memb): the tasks' first sections queued behind the forking writer of
// fork_lock, which waited for the dispatching thread's section.
void SectionTask(void *arg, size_t) {
  for (int i = 0; i < 4; i++) {  // sections spread over the whole task
    rcupool_read_lock();
    rcupool_read_unlock();
    auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(5);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  static_cast<std::atomic<size_t> *>(arg)->fetch_add(1);
}

TEST(RcupoolParallelize1d, InsideSectionWithTasksInSectionsWhileOtherThreadForksNeverDeadlocks) {
  SKIP_UNDER_TSAN();
  SKIP_FORK_DURING_CHURN_UNDER_ASAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  std::atomic<bool> stop{false};
  std::atomic<size_t> items{0};
  std::atomic<size_t> calls{0};
  std::thread dispatcher([&] {
    while (!stop.load()) {
      rcupool_read_lock();
      rcupool_parallelize_1d(m, SectionTask, &items, 64, 0);
      rcupool_read_unlock();
      calls++;
    }
  });
  int bad = ForkLoop(150, m);
  stop = true;
  dispatcher.join();
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(items.load(), calls.load() * 64);
}

// Defect 5: a private manager's pools with frees pending at fork. Before:
// the child re-queued the shared reclaim queue but orphaned only the
// default manager's pools, then joined workers that do not exist there
// (SIGSEGV in about 15 of 20 children with pools of 4+ threads).
TEST(RcupoolFork, PrivateManagerFreesPendingAtForkDoNotCrashChild) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS * 2);
  rcupool_t *priv = nullptr;
  rcupool_options_t opts = {};
  opts.threads = 4;
  ASSERT_EQ(rcupool_create(&opts, &priv), 0);
  rcupool_t *m = rcupool_default();
  int bad = 0;
  for (int i = 0; i < 20; i++) {
    // Pinned pools of 4 and 5 threads, released just before the fork: their
    // frees are queued and run (in the child too) after the fork.
    rcupool_pin_t a = {}, b = {};
    ASSERT_EQ(rcupool_pin(priv, &a), 0);
    ASSERT_EQ(rcupool_reset(priv, 5 - i % 2), 0);
    ASSERT_EQ(rcupool_pin(priv, &b), 0);
    ASSERT_EQ(rcupool_reset(priv, 4 + i % 2), 0);
    rcupool_unpin(&a);
    rcupool_unpin(&b);
    int rc = ForkAndWait([m] {
      if (!ManagerSumIsRight(m, 64)) return 1;
      if (rcupool_barrier(m) != 0) return 2;
      return 0;
    });
    if (rc != 0) bad++;
  }
  EXPECT_EQ(bad, 0) << "children that crashed or failed";
  ASSERT_EQ(rcupool_barrier(priv), 0);
  EXPECT_EQ(rcupool_destroy(priv), 0);
}

// Defect 6: a sized pin that starts a pool logs while it holds the writer
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

// Neighbour of 1-6: the forking thread holds an application lock that the
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
  if (level == RCUPOOL_LOG_WARN && strstr(message, "records dropped") != nullptr)
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

// Defect 9: a limit the old room check did not read (RLIMIT_DATA) stops
// the workers' pthread_create; Debian's pthreadpool_create() then waited
// for ever. Now the start is -EAGAIN and nothing changes.
static size_t VmDataBytes() {
  FILE *f = fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  size_t kb = 0;
  while (fgets(line, sizeof line, f) != nullptr)
    if (sscanf(line, "VmData: %zu kB", &kb) == 1) break;
  fclose(f);
  return kb * 1024;
}

TEST(RcupoolReset, ThreadLimitOfRlimitDataReturnsEagainNotHang) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's own mappings count against RLIMIT_DATA";
#endif
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  // Room for the heap to grow a little, not for one more 8 MiB stack.
  struct rlimit lim;
  ASSERT_EQ(getrlimit(RLIMIT_DATA, &lim), 0);
  lim.rlim_cur = VmDataBytes() + (2u << 20);
  ASSERT_EQ(setrlimit(RLIMIT_DATA, &lim), 0);
  rcupool_stats_t before = Stats(m);
  EXPECT_EQ(rcupool_reset(m, 6), -EAGAIN);
  rcupool_pin_t pin = {};
  EXPECT_EQ(rcupool_pin_sized(m, 5, &pin), -EAGAIN);
  rcupool_stats_t after = Stats(m);
  EXPECT_EQ(after.threads, 1u);
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(after.pools_alive, before.pools_alive);
  EXPECT_TRUE(ManagerSumIsRight(m, 64));
}

// Defect 10: the reclaim thread cannot start. Before: barrier and destroy
// retried with sched_yield for ever at 100% CPU. Now both return -EAGAIN
// at once, destroy having changed nothing, and both work once it can.
bool FailReclaimThread(void *, int site) {
  return site == RP_FAULT_SITE_RECLAIM_THREAD;
}

static double CpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(RcupoolBarrier, ReclaimThreadCannotStartReturnsEagainWithoutSpinning) {
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *priv = nullptr;
  rcupool_options_t opts = {};
  opts.threads = 2;
  ASSERT_EQ(rcupool_create(&opts, &priv), 0);
  rp_fault_set_hook(FailReclaimThread, nullptr);
  ASSERT_EQ(rcupool_reset(priv, 1), 0);  // a retire waits in the queue
  double cpu0 = CpuSeconds();
  EXPECT_EQ(rcupool_barrier(priv), -EAGAIN);
  EXPECT_EQ(rcupool_destroy(priv), -EAGAIN);
  EXPECT_LT(CpuSeconds() - cpu0, 0.5);
  EXPECT_EQ(Stats(priv).pools_alive, 2u);  // destroy changed nothing
  EXPECT_TRUE(ManagerSumIsRight(priv, 64));
  rp_fault_set_hook(nullptr, nullptr);
  EXPECT_EQ(rcupool_barrier(priv), 0);
  EXPECT_GE(rcupool_trim(priv), 0);  // the pool it made stays warm otherwise
  EXPECT_EQ(Stats(priv).pools_alive, 1u);
  EXPECT_EQ(rcupool_destroy(priv), 0);
}

// Issue 24, fork child stats: the child counts no thread for pools whose
// workers stayed in the parent.
TEST(RcupoolFork, ChildStatsCountNoThreadsOfOrphanedPools) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_pin_t held = {};
  std::thread other([&] { ASSERT_EQ(rcupool_pin(m, &held), 0); });
  other.join();  // a thread that does not exist in the child holds a pin
  int rc = ForkAndWait([m] {
    if (!ManagerSumIsRight(m, 64)) return 4;  // settles at 3 threads
    if (rcupool_barrier(m) != 0) return 1;
    if (rcupool_trim(m) < 0) return 5;  // the spare of 1 thread was warm
    rcupool_stats_t s = Stats(m);
    // The orphan (3 threads, pinned) has no worker here: only the current
    // pool's threads count.
    if (s.threads_alive != s.threads) return 2;
    if (s.pins != 1) return 3;
    return 0;
  });
  EXPECT_EQ(rc, 0);
  rcupool_unpin(&held);
}
