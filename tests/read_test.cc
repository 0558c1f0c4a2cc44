// SPDX-License-Identifier: LGPL-2.1-or-later
// The read side (lib/read.c and its inlined twin, rcupool/inline.h):
// read-side sections and rcupool_current. The signal-handler and memb
// registration cases run in a fresh process (RCUPOOL_RUN_IN_CHILD of
// tests/support/in_child.h), so a hang is a failure after a timeout.
#include <pthread.h>
#include <rcupool/inline.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/in_child.h"
#include "tests/support/support.h"

#if defined(RCUPOOL_URCU_MEMB)
#include <urcu/urcu-memb.h>
#endif

using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::Stats;

namespace {

constexpr int kTimeoutS = 60;

}  // namespace

TEST(RcupoolCurrent, NullManagerIsNull) {
  rcupool_read_lock();
  EXPECT_EQ(rcupool_current(nullptr), nullptr);
  rcupool_read_unlock();
}

TEST(RcupoolCurrentInline, SeesSamePoolAsOutOfLineCall) {
  NoWarmManager m(2);
  rcupool_read_lock_inline();
  pthreadpool_t fast = rcupool_current_inline(m);
  rcupool_read_unlock_inline();
  rcupool_read_lock();
  pthreadpool_t slow = rcupool_current(m);
  rcupool_read_unlock();
  EXPECT_NE(fast, nullptr);
  EXPECT_EQ(fast, slow);
  EXPECT_EQ(rcupool_current_inline(nullptr), nullptr);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_read_lock_inline();
  EXPECT_NE(rcupool_current_inline(m), fast);
  EXPECT_EQ(pthreadpool_get_threads_count(rcupool_current_inline(m)), 3u);
  rcupool_read_unlock_inline();
}

TEST(RcupoolReadLockInline, SectionHoldsPoolAcrossResetAndMixesWithOutOfLine) {
  NoWarmManager m(2);
  rcupool_read_lock_inline();
  rcupool_read_lock();  // nested, the other kind
  pthreadpool_t seen = rcupool_current_inline(m);
  std::thread resetter([&] { EXPECT_EQ(rcupool_reset(m, 3), 0); });
  resetter.join();
  rcupool_read_unlock_inline();
  // Still inside the outer section: the retired pool cannot be freed.
  EXPECT_EQ(Stats(m).pools_alive, 2u);
  EXPECT_TRUE(rcupool_test::ParallelSumIsRight(seen, 100));
  rcupool_read_unlock();
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

// What rcupool_read_lock() promises in a signal handler (issue 10, defect
// 13; include/rcupool/rcupool.h): on a thread past its first section (memb:
// registered by the application), a handler may run a section and
// rcupool_current() while the thread runs sections of its own and another
// thread resets (grace periods in flight). No deadlock, no NULL pool.
rcupool_t *g_sig_manager;
std::atomic<long> g_sig_handled{0};
std::atomic<long> g_sig_bad{0};

void SectionHandler(int) {
  rcupool_read_lock();
  if (rcupool_current(g_sig_manager) == nullptr) g_sig_bad++;
  rcupool_read_unlock();
  g_sig_handled++;
}

TEST(RcupoolReadLock, InSignalHandlerOnThreadPastFirstSectionNeverDeadlocks) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  static_assert(std::atomic<long>::is_always_lock_free, "handler counters");
  g_sig_manager = rcupool_default();
  struct sigaction sa {};
  sa.sa_handler = SectionHandler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, nullptr), 0);
  std::atomic<bool> ready{false}, stop{false}, stop_resets{false};
  std::atomic<long> sections{0}, resets_bad{0};
  std::thread target([&] {
#if defined(RCUPOOL_URCU_MEMB)
    urcu_memb_register_thread();
#endif
    rcupool_read_lock();  // the first section, outside any handler
    rcupool_read_unlock();
    ready = true;
    while (!stop) {
      rcupool_read_lock();
      if (rcupool_current(g_sig_manager) == nullptr) g_sig_bad++;
      rcupool_read_unlock();
      sections++;
    }
    // Signals still pending stay blocked and die with the thread: no
    // handler runs while the thread exits (not covered by the promise).
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
#if defined(RCUPOOL_URCU_MEMB)
    urcu_memb_unregister_thread();
#endif
  });
  std::thread resetter([&] {
    for (int i = 0; !stop_resets; i++)
      if (rcupool_reset(g_sig_manager, 1 + i % 2) != 0) resets_bad++;
  });
  while (!ready) std::this_thread::yield();
  for (int i = 0; i < 3000; i++) {
    ASSERT_EQ(pthread_kill(target.native_handle(), SIGUSR1), 0);
    if (i % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  while (g_sig_handled.load() == 0) std::this_thread::yield();
  stop_resets = true;
  resetter.join();
  stop = true;
  target.join();
  EXPECT_GT(g_sig_handled.load(), 0);
  EXPECT_GT(sections.load(), 0);
  EXPECT_EQ(g_sig_bad.load(), 0);
  EXPECT_EQ(resets_bad.load(), 0);
  EXPECT_EQ(rcupool_barrier(g_sig_manager), 0);
}

// Memb only (issue 10, defect 1): a thread liburcu-memb already counts as
// registered is not registered again, and the application may register a
// thread after rcupool used it.
TEST(RcupoolReadLock, MembThreadRegisteredByApplicationEitherOrderDoesNotAbort) {
#if !defined(RCUPOOL_URCU_MEMB)
  GTEST_SKIP() << "memb flavour only";
#else
  RCUPOOL_RUN_IN_CHILD(kTimeoutS);
  rcupool_t *m = rcupool_default();
  std::thread a([m] {
    urcu_memb_register_thread();
    rcupool_read_lock();
    (void)rcupool_current(m);
    rcupool_read_unlock();
    EXPECT_TRUE(ManagerSumIsRight(m, 100));
    urcu_memb_unregister_thread();
  });
  a.join();
  std::thread b([m] {
    rcupool_read_lock();
    (void)rcupool_current(m);
    rcupool_read_unlock();
    urcu_memb_register_thread();
    rcupool_read_lock();
    rcupool_read_unlock();
    urcu_memb_unregister_thread();
  });
  b.join();
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  EXPECT_EQ(rcupool_barrier(m), 0);
#endif
}
