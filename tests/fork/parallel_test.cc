// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_parallelize_1d and fork() (lib/parallel.c, lib/fork.c): a task
// may fork while a grace period is pending, and a dispatch from inside a
// section whose tasks enter sections never deadlocks a fork on another
// thread. Each case runs in a fresh process (RCUPOOL_RUN_IN_CHILD of
// tests/support/in_child.h), so a hang is a failure after a timeout.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::ForkAndWait;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

namespace {

// These cases check the default manager's lifetime without warm pools (a
// barrier frees every pool that is neither current nor pinned); warm
// widths, in a fork child too, are tests/warm_test.cc's.
RCUPOOL_TEST_DEFAULT_KEEPS_NO_WARM_POOLS();

constexpr int kTimeoutS = 120;

void CountItem(void *arg, size_t) {
  static_cast<std::atomic<size_t> *>(arg)->fetch_add(1);
}

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

}  // namespace

// A task of rcupool_parallelize_1d (outside any scope) forks while a grace
// period is pending (issue 10, defect 5). The call must hold no read-side
// section on its thread while tasks run: a fork from the calling thread's
// own share would be refused (a section), and the parent's prepare handler
// waits for grace periods that such a section would hold up forever.
struct Forker {
  std::atomic<int> forked{0};
  std::atomic<int> bad{0};
};

void ForkTask(void *arg, size_t) {
  auto *f = static_cast<Forker *>(arg);
  pid_t pid = fork();
  if (pid == 0) {
    std::atomic<size_t> n{0};
    int r = rcupool_parallelize_1d(rcupool_default(), CountItem, &n, 8, 0);
    _exit(r == 0 && n.load() == 8 ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    f->bad++;
  f->forked++;
}

TEST(RcupoolParallelize1d, TaskThatForksWhileGracePeriodPendingNeitherHangsNorAborts) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  for (int round = 0; round < 6; round++) {
    // A retire whose grace period is pending when the tasks fork.
    ASSERT_EQ(rcupool_reset(m, round % 2 == 0 ? 3 : 2), 0);
    Forker f;
    ASSERT_EQ(rcupool_parallelize_1d(m, ForkTask, &f, 6, 0), 0);
    EXPECT_EQ(f.forked.load(), 6);
    EXPECT_EQ(f.bad.load(), 0);
  }
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_alive, 1u);
}

// A thread dispatches from inside a read-side section and every
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
