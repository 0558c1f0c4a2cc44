// SPDX-License-Identifier: LGPL-2.1-or-later
// The pool object (lib/pool.c): a pool starts only when its workers can
// (POOL-4), and a pool orphaned by fork() is freed without its pthreadpool,
// which stays reachable (POOL-5). Cases run in a fresh process
// (RCUPOOL_RUN_IN_CHILD of tests/support/in_child.h) or a forked child, so
// a hang is a failure after a timeout.
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

#include <thread>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::ForkAndWait;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

namespace {

constexpr int kTimeoutS = 120;

}  // namespace

// A limit the old room check did not read (RLIMIT_DATA) stops
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

// A fork child's inherited pools have no workers there: the child's first
// pin settles the default manager (lib/fork.c), and the orphaned pools are
// then freed without their pthreadpools, which cannot be destroyed there
// (pthreadpool_destroy would wait for workers that do not exist). Those
// pthreadpools must stay reachable, not lost: the valgrind job runs this
// binary under memcheck, whose leak check at the grandchild's exit turns a
// definitely lost block into exit code 99.
TEST(RcupoolDefault, ForkChildFreesOrphanedPoolsAndKeepsTheirPthreadpoolsReachable) {
  SKIP_UNDER_TSAN();
  int code = rcupool_test::ForkAndWait([] {
    rcupool_t *m = rcupool_default();
    if (m == nullptr || rcupool_reset(m, 2) != 0) return 10;
    return rcupool_test::ForkAndWait([m] {
      rcupool_stats_t before{}, after{};
      if (rcupool_get_stats(m, &before) != 0) return 11;
      rcupool_pin_t pin{};
      if (rcupool_pin(m, &pin) != 0) return 12;
      if (rcupool_pin_threads(&pin) != 2) return 13;
      rcupool_unpin(&pin);
      // The spare turns warm when the pin settles the manager: trim lets
      // it go (a barrier would keep it for the next pin of one thread).
      if (rcupool_trim(m) < 0) return 14;
      if (rcupool_get_stats(m, &after) != 0) return 15;
      // Freed in this process: the orphaned 2-thread pool and the spare
      // that stood in until the pin settled the manager.
      if (after.pools_freed < before.pools_freed + 2) return 16;
      return 0;
    });
  });
  EXPECT_EQ(code, 0);
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
