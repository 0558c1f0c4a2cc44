// fork(): the default manager in the child can reset and run parallel work
// at once; the parent is unaffected; a pin taken before the fork stays
// valid to unpin in the child and its scope runs parallel work inline (its
// pool's workers do not exist there). See README "fork".
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

using rcupool_test::ManagerSumIsRight;
using rcupool_test::OsThreadCount;
using rcupool_test::RecordThread;
using rcupool_test::Stats;
using rcupool_test::ThreadIds;
using rcupool_test::WaitForOsThreadCount;

namespace {

// Checks in a child process: gtest's assertions would only fail the
// child's copy of the test, so a failed check prints and sets the exit code.
int child_failures = 0;
#define CHILD_CHECK(cond)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "child %d: %s:%d: check failed: %s\n", (int)getpid(), \
              __FILE__, __LINE__, #cond);                                  \
      child_failures++;                                                    \
    }                                                                      \
  } while (0)

// Forks (tests/support/in_child.h); the child runs body() and exits with 0
// when every check passed. A child that hangs is killed after 60 s and fails.
template <typename Body>
void RunInChild(Body body) {
  child_result_t r = rcupool_test::ForkChild(
      [&body] {
        child_failures = 0;
        body();
        return child_failures == 0 ? 0 : 1;
      },
      60);
  char what[256];
  child_describe(&r, what, sizeof what);
  ASSERT_FALSE(r.timed_out) << "child " << what;
  ASSERT_TRUE(r.exited) << "child " << what;
  EXPECT_EQ(r.exit_code, 0) << "child checks failed (see above)";
}

}  // namespace

TEST(RcupoolDefault, ForkChildCanResetAndRunParallelWorkAtOnce) {
  SKIP_UNDER_TSAN();
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  uint64_t gen = rcupool_generation(m);
  size_t parent_threads = OsThreadCount();

  RunInChild([&] {
    // A fresh pool of the same size is current before fork() returns.
    CHILD_CHECK(rcupool_default() == m);
    CHILD_CHECK(rcupool_threads(m) == 3);
    CHILD_CHECK(rcupool_generation(m) == gen + 1);
    CHILD_CHECK(ManagerSumIsRight(m, 1000));
    // Its workers are real threads of the child: main + 2.
    CHILD_CHECK(OsThreadCount() >= 3);
    CHILD_CHECK(rcupool_reset(m, 2) == 0);
    CHILD_CHECK(ManagerSumIsRight(m, 1000));
    CHILD_CHECK(rcupool_reset(m, 4) == 0);
    CHILD_CHECK(ManagerSumIsRight(m, 1000));
    // Grace periods and reclamation work in the child.
    CHILD_CHECK(rcupool_barrier(m) == 0);
    CHILD_CHECK(rcupool_trim(m) >= 0);  // the pools of 3 and 2 were warm
    rcupool_stats_t s{};
    CHILD_CHECK(rcupool_get_stats(m, &s) == 0);
    CHILD_CHECK(s.pools_alive == 1);
    CHILD_CHECK(s.pins == 0);
    CHILD_CHECK(s.frees_pending == 0);
    CHILD_CHECK(s.threads == 4);
  });

  // The parent is unaffected.
  EXPECT_EQ(rcupool_generation(m), gen);
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  EXPECT_EQ(WaitForOsThreadCount(parent_threads), parent_threads);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolDefault, PinTakenBeforeForkRunsInlineInChildAndUnpinsCleanly) {
  SKIP_UNDER_TSAN();
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin(m, &pin), 0);
  uint64_t pinned_gen = rcupool_pin_generation(&pin);

  RunInChild([&] {
    // The pin still describes its pool, which is no longer current.
    CHILD_CHECK(rcupool_pin_threads(&pin) == 3);
    CHILD_CHECK(rcupool_pin_generation(&pin) == pinned_gen);
    CHILD_CHECK(!rcupool_pin_is_current(&pin));
    rcupool_stats_t s{};
    CHILD_CHECK(rcupool_get_stats(m, &s) == 0);
    CHILD_CHECK(s.pins == 1);
    // In its scope, parallel work runs inline on this thread.
    ThreadIds ids;
    rcupool_scope_enter(&pin);
    CHILD_CHECK(rcupool_parallelize_1d(m, RecordThread, &ids, 64, 0) == 0);
    rcupool_scope_exit();
    CHILD_CHECK(ids.calls.load() == 64);
    CHILD_CHECK(ids.ids.size() == 1 && *ids.ids.begin() == pthread_self());
    // Outside the scope, the child's own pool runs it.
    CHILD_CHECK(ManagerSumIsRight(m, 1000));
    // Unpinning frees the orphan without touching its (absent) workers.
    rcupool_unpin(&pin);
    CHILD_CHECK(rcupool_barrier(m) == 0);
    CHILD_CHECK(rcupool_get_stats(m, &s) == 0);
    CHILD_CHECK(s.pins == 0);
    CHILD_CHECK(s.pools_alive == 1);
    CHILD_CHECK(s.frees_pending == 0);
  });

  // In the parent the pin is current and its scope uses its pool.
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  EXPECT_EQ(Stats(m).pins, 1u);
  rcupool_scope_enter(&pin);
  EXPECT_TRUE(ManagerSumIsRight(m, 1000));
  rcupool_scope_exit();
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolDefault, ForkDuringConcurrentResetsPinsAndReadsChildAlwaysWorks) {
  SKIP_UNDER_TSAN();
  rcupool_t *m = rcupool_default();
  ASSERT_NE(m, nullptr);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // resetter
    for (size_t i = 0; !stop; i++)
      if (rcupool_reset(m, 1 + i % 4) != 0) bad++;
  });
  threads.emplace_back([&] {  // reader
    while (!stop)
      if (!ManagerSumIsRight(m, 200)) bad++;
  });
  threads.emplace_back([&] {  // pinner
    while (!stop) {
      rcupool_pin_t pin{};
      if (rcupool_pin(m, &pin) != 0) bad++;
      rcupool_scope_enter(&pin);
      if (!ManagerSumIsRight(m, 200)) bad++;
      rcupool_scope_exit();
      rcupool_unpin(&pin);
    }
  });

  const int kForks = 12;
  for (int i = 0; i < kForks; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    RunInChild([&] {
      size_t n = rcupool_threads(m);
      CHILD_CHECK(n >= 1 && n <= 4);
      CHILD_CHECK(ManagerSumIsRight(m, 500));
      CHILD_CHECK(rcupool_reset(m, n % 4 + 1) == 0);
      CHILD_CHECK(ManagerSumIsRight(m, 500));
      CHILD_CHECK(rcupool_barrier(m) == 0);
      rcupool_stats_t s{};
      CHILD_CHECK(rcupool_get_stats(m, &s) == 0);
      // The parent's pinner thread does not exist here; its pin, if one was
      // held at the fork, stays as the one kept orphan.
      CHILD_CHECK(s.pins <= 1);
      CHILD_CHECK(s.pools_alive == 1 + s.pins);
    });
    if (HasFatalFailure()) break;
  }
  stop = true;
  for (auto &t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_alive, 1u);
}
