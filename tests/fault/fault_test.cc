// SPDX-License-Identifier: LGPL-2.1-or-later
// Failures while creating a pool: injected ones (every allocation, the
// pthreadpool boundary) and a real one (a thread limit, RLIMIT_NPROC, in a
// child process). Each leaves the previous pool current and working, no
// thread and no memory behind (ASan and valgrind check the memory), and
// nothing half-built.
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/fault_injector.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::FaultInjector;
using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::OsThreadCount;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;
using rcupool_test::WaitForOsThreadCount;

namespace {

// The manager's state that a failed reset must leave as it was.
struct Snapshot {
  size_t threads;
  uint64_t generation;
  size_t pools_alive;
  uint64_t pools_created;
  uint64_t resets;
  size_t os_threads;
};

Snapshot Take(rcupool_t *m) {
  rcupool_stats_t s = Stats(m);
  return {s.threads,     s.generation, s.pools_alive,
          s.pools_created, s.resets,   OsThreadCount()};
}

void ExpectUnchanged(const Snapshot &a, rcupool_t *m) {
  Snapshot b = Take(m);
  EXPECT_EQ(b.threads, a.threads);
  EXPECT_EQ(b.generation, a.generation);
  EXPECT_EQ(b.pools_alive, a.pools_alive);
  EXPECT_EQ(b.pools_created, a.pools_created);
  EXPECT_EQ(b.resets, a.resets);
  EXPECT_EQ(WaitForOsThreadCount(a.os_threads), a.os_threads);
  EXPECT_EQ(rcupool_threads(m), a.threads);
}

}  // namespace

TEST(RcupoolReset, InjectedPoolCreateFailureIsEagainAndPreviousPoolStaysCurrent) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_pin_t held{};
  ASSERT_EQ(rcupool_pin(m, &held), 0);
  Snapshot before = Take(m);
  LogRecorder log;
  {
    FaultInjector fail(RCUPL_FAULT_SITE_POOL_CREATE, 1);
    EXPECT_EQ(rcupool_reset(m, 4), -EAGAIN);
    EXPECT_EQ(fail.failed(), 1);
  }
  ExpectUnchanged(before, m);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "stays current"), 1u);
  // The previous pool is still the one published, and it works.
  EXPECT_TRUE(rcupool_pin_is_current(&held));
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&held), 1000));
  rcupool_unpin(&held);
  // And the next reset, with nothing injected, succeeds.
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolReset, EveryAllocationFailureIsEnomemAndLeavesNothingHalfBuilt) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_barrier(m), 0);
  Snapshot before = Take(m);
  int points = 0;
  for (int k = 1; k < 50; k++) {
    int err;
    {
      FaultInjector fail(RCUPL_FAULT_SITE_ALLOC, k);
      err = rcupool_reset(m, 3);
      if (err == 0) {
        EXPECT_EQ(fail.failed(), 0);
        break;
      }
      EXPECT_EQ(fail.failed(), 1);
    }
    EXPECT_EQ(err, -ENOMEM) << "allocation " << k;
    ExpectUnchanged(before, m);
    EXPECT_TRUE(ManagerSumIsRight(m, 100));
    points++;
  }
  // The retire record and the pool object: both failure points were hit.
  EXPECT_GE(points, 2);
  EXPECT_EQ(rcupool_threads(m), 3u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_created, 2u);
}

TEST(RcupoolReset, AllocationFailureOnReuseKeepsPinnedPoolKept) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  ASSERT_EQ(Stats(m).pools_kept, 1u);
  Snapshot before = Take(m);
  {
    FaultInjector fail(RCUPL_FAULT_SITE_ALLOC, 0, /*fail_all=*/true);
    EXPECT_EQ(rcupool_reset(m, 2), -ENOMEM);
  }
  ExpectUnchanged(before, m);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_kept, 1u);
  EXPECT_EQ(s.pins, 1u);
  EXPECT_EQ(s.reuses, 0u);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 500));
  // Without the fault the same reset reuses the pinned pool.
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  EXPECT_EQ(Stats(m).reuses, 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolCreate, EveryAllocationOrStartFailureReturnsErrorAndNoThreads) {
  size_t os_threads = OsThreadCount();
  int points = 0;
  for (int k = 1; k < 50; k++) {
    rcupool_t *m = reinterpret_cast<rcupool_t *>(0x1);
    rcupool_options_t opts{};
    opts.threads = 3;
    int err;
    {
      FaultInjector fail(RCUPL_FAULT_SITE_ALLOC, k);
      err = rcupool_create(&opts, &m);
    }
    if (err == 0) {
      EXPECT_EQ(rcupool_destroy(m), 0);
      break;
    }
    EXPECT_EQ(err, -ENOMEM) << "allocation " << k;
    EXPECT_EQ(m, reinterpret_cast<rcupool_t *>(0x1));  // untouched
    EXPECT_EQ(WaitForOsThreadCount(os_threads), os_threads);
    points++;
  }
  EXPECT_GE(points, 2);  // the manager and its first pool

  rcupool_t *m = reinterpret_cast<rcupool_t *>(0x1);
  rcupool_options_t opts{};
  opts.threads = 3;
  {
    FaultInjector fail(RCUPL_FAULT_SITE_POOL_CREATE, 1);
    EXPECT_EQ(rcupool_create(&opts, &m), -EAGAIN);
  }
  EXPECT_EQ(m, reinterpret_cast<rcupool_t *>(0x1));
  EXPECT_EQ(WaitForOsThreadCount(os_threads), os_threads);
}

// --- a real thread limit --------------------------------------------------
//
// RLIMIT_NPROC counts the threads of a user; root (CAP_SYS_RESOURCE) is
// exempt. The test therefore runs in a fresh child process (this binary,
// re-run by tests/support/in_child.h) that drops to the user "nobody" when it
// runs as root, lowers its soft limit to 1 so that no new thread can start,
// and checks that a reset fails with -EAGAIN and changes nothing. If a
// thread still starts under the limit (root that cannot drop privileges
// outside a user namespace), the test is skipped and says so. A child
// made by fork() alone would inherit liburcu's reclaim thread state of this
// multi-threaded process; an exec'ed one starts clean.

namespace {

constexpr int kChildSkip = 77;
// Well inside the test's own timeout (size small: 60 s).
constexpr int kChildTimeoutS = 50;

void *Nothing(void *) { return nullptr; }

// Body of the child. Returns normally (gtest reports), or _exit(kChildSkip).
void NprocChild() {
  if (geteuid() == 0) {
    // Inside a user namespace (Bazel's sandbox) only uid 0 may be mapped;
    // there the limit applies to root too, which the probe below checks.
    if (setgroups(0, nullptr) == 0 && setgid(65534) == 0 &&
        setuid(65534) == 0) {
      // setuid() cleared the dumpable flag; LeakSanitizer needs it at exit.
      prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    } else {
      fprintf(stderr, "child: staying uid 0, cannot drop root (%s)\n",
              strerror(errno));
    }
  }
  NoWarmManager m(2);
  ASSERT_NE(m.get(), nullptr);
  ASSERT_TRUE(ManagerSumIsRight(m, 100));

  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_NPROC, &saved), 0);
  struct rlimit low = saved;
  low.rlim_cur = 1;
  ASSERT_EQ(setrlimit(RLIMIT_NPROC, &low), 0);
  // Is the limit enforced for this process at all?
  pthread_t probe;
  if (pthread_create(&probe, nullptr, Nothing, nullptr) == 0) {
    pthread_join(probe, nullptr);
    setrlimit(RLIMIT_NPROC, &saved);
    fprintf(stderr, "child: RLIMIT_NPROC is not enforced for uid %d\n",
            (int)geteuid());
    _exit(kChildSkip);
  }

  Snapshot before = Take(m);
  {
    LogRecorder log;
    EXPECT_EQ(rcupool_reset(m, 4), -EAGAIN);
    EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "stays current"), 1u);
    rcupool_t *other = reinterpret_cast<rcupool_t *>(0x1);
    rcupool_options_t opts{};
    opts.threads = 3;
    EXPECT_EQ(rcupool_create(&opts, &other), -EAGAIN);
    EXPECT_EQ(other, reinterpret_cast<rcupool_t *>(0x1));
  }
  ExpectUnchanged(before, m);
  // The previous pool still runs parallel work under the limit.
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  EXPECT_TRUE(ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 1000));
  rcupool_unpin(&pin);

  // Lifting the limit, the same reset succeeds.
  ASSERT_EQ(setrlimit(RLIMIT_NPROC, &saved), 0);
  ASSERT_EQ(rcupool_reset(m, 4), 0);
  EXPECT_EQ(rcupool_threads(m), 4u);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

}  // namespace

TEST(RcupoolReset, ThreadLimitIsEagainAndPreviousPoolKeepsWorking) {
  if (rcupool_test::InChild()) {
    NprocChild();
    return;
  }
  child_result_t r = rcupool_test::RerunThisTestInChild(kChildTimeoutS);
  ASSERT_TRUE(r.exited) << "child died: signal " << r.term_signal
                        << (r.timed_out ? " (hung, killed)" : "");
  if (r.exit_code == kChildSkip)
    GTEST_SKIP() << "no thread limit can be enforced here (see child output)";
  EXPECT_EQ(r.exit_code, 0) << "the child's checks failed (above)";
}
