// SPDX-License-Identifier: LGPL-2.1-or-later
// Every lock a fork can catch (docs/design.md, "Every lock a fork can
// catch"): a thread is held inside the critical section of each lock of
// lib/ (the library's hold points, lib/testing.h), the main thread forks,
// and the child uses a private manager fully (reset to the default count,
// a sized pin with parallel work, trim, destroy) and the default manager.
// A lock the child inherited held would hang it: the child is killed after
// a timeout and the test fails. Each case runs in a fresh process.
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "rcupool_private/testing.h"
#include "tests/support/in_child.h"
#include "tests/support/support.h"

namespace {

using rcupool_test::ParallelSumIsRight;

// Holds the first thread of this process that reaches `site` there until
// Release() (or 2 s, so that a fork handler that waits for the lock ends
// too: the fork then happens after the hold, which is also correct).
class Holder {
 public:
  explicit Holder(int site) : site_(site), pid_(getpid()) {
    rcupl_fault_set_hook(&Holder::Hook, this);
  }
  ~Holder() { rcupl_fault_set_hook(nullptr, nullptr); }
  bool WaitEntered() {
    std::unique_lock<std::mutex> g(mu_);
    return cv_.wait_for(g, std::chrono::seconds(20), [&] { return entered_; });
  }
  void Release() {
    std::lock_guard<std::mutex> g(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  static bool Hook(void *ctx, int site) {
    auto *self = static_cast<Holder *>(ctx);
    // Never in a fork child (its mutex may be inherited held), never twice.
    if (site != self->site_ || getpid() != self->pid_) return false;
    if (self->taken_.exchange(true)) return false;
    std::unique_lock<std::mutex> g(self->mu_);
    self->entered_ = true;
    self->cv_.notify_all();
    self->cv_.wait_for(g, std::chrono::seconds(2),
                       [&] { return self->released_; });
    return false;
  }
  const int site_;
  const pid_t pid_;
  std::atomic<bool> taken_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false;
  bool released_ = false;
};

// The child's full use of a private manager and of the default one;
// returns 0 or the number of the step that failed.
int UseManagersFully(rcupool_t *m) {
  if (rcupool_reset(m, 0) != 0) return 1;  // default count: cpus, limits
  if (rcupool_reset(m, 2) != 0) return 2;
  rcupool_pin_t pin{};
  if (rcupool_pin_sized(m, 3, &pin) != 0) return 3;
  if (!ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), 1000)) return 4;
  rcupool_unpin(&pin);
  if (rcupool_trim(m) < 0) return 5;
  rcupool_stats_t s{};
  if (rcupool_get_stats(m, &s) != 0 || s.pools_alive != 1) return 6;
  if (rcupool_destroy(m) != 0) return 7;
  rcupool_t *d = rcupool_default();
  if (d == nullptr || rcupool_reset(d, 0) != 0 || rcupool_reset(d, 2) != 0)
    return 8;
  if (!rcupool_test::ManagerSumIsRight(d, 1000)) return 9;
  if (rcupool_trim(d) < 0) return 10;
  return 0;
}

// Holds a thread at `site` while it runs `work` (a call that reaches the
// site), forks, and checks the child.
template <typename Work>
void ForkWhileHeld(int site, rcupool_t *m, Work work) {
  Holder hold(site);
  std::thread t(work);
  if (!hold.WaitEntered()) {
    ADD_FAILURE() << "no thread reached hold point " << site;
    hold.Release();
    t.join();
    return;
  }
  const int code =
      rcupool_test::ForkAndWait([m] { return UseManagersFully(m); }, 20);
  hold.Release();
  t.join();
  EXPECT_EQ(code, 0) << "the child failed at step " << code
                     << " (-1: it hung or died)";
}

rcupool_t *Create(size_t threads) {
  rcupool_options_t o{};
  o.threads = threads;
  rcupool_t *m = nullptr;
  EXPECT_EQ(rcupool_create(&o, &m), 0);
  return m;
}

// Issue 32, defect 4: a private manager's writer held by a reset starting
// its pool. (Before: the child inherited it held; its destroy hung.)
TEST(RcupoolFork, DuringPrivateResetChildCanResetPinTrimAndDestroy) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(60);
  rcupool_t *m = Create(1);
  ASSERT_NE(m, nullptr);
  ForkWhileHeld(RCUPL_FAULT_SITE_POOL_CREATE, m,
                [m] { EXPECT_EQ(rcupool_reset(m, 3), 0); });
  EXPECT_EQ(rcupool_threads(m), 3u);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// A private reset held after its publish, before its retire is queued: the
// child drops the retire no thread will queue (FORK-7), so its destroy
// does not wait for the old pool for ever.
TEST(RcupoolFork, BetweenPrivateResetPublishAndRetireChildCanDestroy) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(60);
  rcupool_t *m = Create(1);
  ASSERT_NE(m, nullptr);
  ForkWhileHeld(RCUPL_HOLD_SITE_RESET_RETIRE, m,
                [m] { EXPECT_EQ(rcupool_reset(m, 3), 0); });
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// The same with a sized pin starting a pool of a new width (writer too).
TEST(RcupoolFork, DuringPrivateSizedPinStartChildCanUseAndDestroy) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(60);
  rcupool_t *m = Create(1);
  ASSERT_NE(m, nullptr);
  ForkWhileHeld(RCUPL_FAULT_SITE_POOL_CREATE, m, [m] {
    rcupool_pin_t pin{};
    EXPECT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
    rcupool_unpin(&pin);
  });
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// The default manager's writer, held by a reset starting its pool.
TEST(RcupoolFork, DuringDefaultResetChildCanUseManagers) {
  SKIP_UNDER_TSAN();
  RCUPOOL_RUN_IN_CHILD(60);
  rcupool_t *d = rcupool_default();
  ASSERT_NE(d, nullptr);
  rcupool_t *m = Create(1);
  ASSERT_NE(m, nullptr);
  ForkWhileHeld(RCUPL_FAULT_SITE_POOL_CREATE, m,
                [d] { EXPECT_EQ(rcupool_reset(d, 3), 0); });
  EXPECT_EQ(rcupool_destroy(m), 0);
}

// Every other lock of the table: a thread inside its critical section
// (`work` reaches the hold point) while the main thread forks.
struct HeldLock {
  const char *lock;
  int site;
};

void PrintTo(const HeldLock &h, std::ostream *os) { *os << h.lock; }

class RcupoolForkWhileHeld : public ::testing::TestWithParam<HeldLock> {};

TEST_P(RcupoolForkWhileHeld, ChildCanResetPinTrimAndDestroy) {
  SKIP_UNDER_TSAN();
  const HeldLock h = GetParam();
#if !defined(RCUPOOL_URCU_MEMB)
  if (h.site == RCUPL_HOLD_SITE_MEMB_FORK_LOCK)
    GTEST_SKIP() << "memb's fork_lock exists in the memb flavour only";
#endif
  RCUPOOL_RUN_IN_CHILD(60);
  // The default manager exists before the hold, except where its creation
  // is what is held.
  if (h.site != RCUPL_HOLD_SITE_DEFAULT_LOCK) {
    ASSERT_NE(rcupool_default(), nullptr);
  }
  rcupool_t *m = Create(0);      // the child's; its reset(0) sizes anew
  rcupool_t *other = Create(0);  // the holder's; its reset(0) sizes anew
  ASSERT_NE(m, nullptr);
  ASSERT_NE(other, nullptr);
  rcupool_t *created = nullptr;
  ForkWhileHeld(h.site, m, [&] {
    rcupool_pin_t empty{};
    switch (h.site) {
      case RCUPL_HOLD_SITE_DEFAULT_LOCK:
        EXPECT_NE(rcupool_default(), nullptr);
        break;
      case RCUPL_HOLD_SITE_MANAGER_LOCK: {
        rcupool_stats_t s{};
        EXPECT_EQ(rcupool_get_stats(m, &s), 0);
        break;
      }
      case RCUPL_HOLD_SITE_MANAGERS_MU:
        EXPECT_EQ(rcupool_create(nullptr, &created), 0);
        break;
      case RCUPL_HOLD_SITE_RECLAIM_QUEUE:  // the retire's push
      case RCUPL_HOLD_SITE_GP_GATE:        // the reclaim thread's grace period
        EXPECT_EQ(rcupool_reset(other, rcupool_threads(other) + 1), 0);
        EXPECT_EQ(rcupool_barrier(other), 0);
        break;
      case RCUPL_HOLD_SITE_LOG_QUEUE:
        rcupool_unpin(&empty);  // a warning
        break;
      case RCUPL_HOLD_SITE_MACHINE_LOCK:  // the default count
      case RCUPL_HOLD_SITE_CPUS_LOCK:
        EXPECT_EQ(rcupool_reset(other, 0), 0);
        break;
      case RCUPL_HOLD_SITE_MEMB_FORK_LOCK:  // a first section registers
        rcupool_read_lock();
        rcupool_read_unlock();
        break;
    }
  });
  EXPECT_EQ(rcupool_destroy(created), 0);
  EXPECT_EQ(rcupool_destroy(other), 0);
  EXPECT_EQ(rcupool_destroy(m), 0);
}

INSTANTIATE_TEST_SUITE_P(
    EveryLock, RcupoolForkWhileHeld,
    ::testing::Values(HeldLock{"default_lock", RCUPL_HOLD_SITE_DEFAULT_LOCK},
                      HeldLock{"manager_lock", RCUPL_HOLD_SITE_MANAGER_LOCK},
                      HeldLock{"managers_mu", RCUPL_HOLD_SITE_MANAGERS_MU},
                      HeldLock{"reclaim_queue", RCUPL_HOLD_SITE_RECLAIM_QUEUE},
                      HeldLock{"gp_gate", RCUPL_HOLD_SITE_GP_GATE},
                      HeldLock{"log_queue", RCUPL_HOLD_SITE_LOG_QUEUE},
                      HeldLock{"machine_lock", RCUPL_HOLD_SITE_MACHINE_LOCK},
                      HeldLock{"cpus_lock", RCUPL_HOLD_SITE_CPUS_LOCK},
                      HeldLock{"memb_fork_lock",
                               RCUPL_HOLD_SITE_MEMB_FORK_LOCK}),
    [](const ::testing::TestParamInfo<HeldLock> &i) {
      return std::string(i.param.lock);
    });

}  // namespace
