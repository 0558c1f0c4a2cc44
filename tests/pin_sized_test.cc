// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_pin_sized: a pool of a chosen width per caller, without changing
// the current pool; one pool per thread count, current or not.
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/annotate.h"
#include "tests/support/support.h"

using rcupool_test::LogRecorder;
using rcupool_test::NoWarmManager;
using rcupool_test::ManagerSumIsRight;
using rcupool_test::OsThreadCount;
using rcupool_test::Stats;
using rcupool_test::WaitForOsThreadCount;

namespace {

pid_t Tid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

pthreadpool_t Current(rcupool_t *m) {
  rcupool_read_lock();
  pthreadpool_t tp = rcupool_current(m);
  rcupool_read_unlock();
  return tp;
}

// What a parallel call saw from inside its tasks: the distinct OS threads
// that ran them, and whether they all met (every task waits until `width`
// distinct threads have entered, so a pool narrower than `width` never
// meets and a wider one shows more threads).
struct Rendezvous {
  size_t width;
  std::mutex mu;
  std::set<pid_t> tids;
  std::atomic<bool> timed_out{false};
};

void RendezvousTask(void *arg, size_t) {
  auto *r = static_cast<Rendezvous *>(arg);
  {
    std::lock_guard<std::mutex> g(r->mu);
    r->tids.insert(Tid());
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    {
      std::lock_guard<std::mutex> g(r->mu);
      if (r->tids.size() >= r->width) return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      r->timed_out = true;
      return;
    }
    std::this_thread::yield();
  }
}

// Runs the rendezvous through rcupool_parallelize_1d (range = width: one
// item per thread of a pool of that width) and returns the distinct
// threads, or 0 when they never all met.
size_t ThreadsThatRan(rcupool_t *m, size_t width) {
  Rendezvous r;
  r.width = width;
  EXPECT_EQ(rcupool_parallelize_1d(m, RendezvousTask, &r, width, 0), 0);
  return r.timed_out ? 0 : r.tids.size();
}

}  // namespace

// Must-show 1.
TEST(RcupoolPinSized, TwoThreadsOfWidthsOneAndThreeRunOnThoseWidthsCurrentUnchanged) {
  NoWarmManager m(2);
  const pthreadpool_t two = Current(m);
  const uint64_t gen = rcupool_generation(m);

  struct Result {
    size_t pin_threads = 0;
    size_t ran_on = 0;
    bool sum_right = false;
    bool current = true;
  } results[2];
  const size_t widths[2] = {1, 3};
  std::atomic<int> ready{0};
  std::atomic<bool> release{false};
  auto worker = [&](int i) {
    rcupool_pin_t pin{};
    EXPECT_EQ(rcupool_pin_sized(m, widths[i], &pin), 0);
    // Both pins are held at once before either does its work.
    ready++;
    while (!release) std::this_thread::yield();
    rcupool_scope_enter(&pin);
    results[i].pin_threads = rcupool_pin_threads(&pin);
    results[i].ran_on = ThreadsThatRan(m, widths[i]);
    results[i].sum_right = ManagerSumIsRight(m, 1000);
    results[i].current = rcupool_pin_is_current(&pin);
    rcupool_scope_exit();
    ready++;
    while (ready < 4) std::this_thread::yield();
    rcupool_unpin(&pin);
  };
  std::thread a(worker, 0), b(worker, 1);
  while (ready < 2) std::this_thread::yield();
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 3u);
  EXPECT_EQ(s.pools_never_current, 2u);
  EXPECT_EQ(s.pins, 2u);
  release = true;
  while (ready < 4) std::this_thread::yield();
  // Current pool and generation unchanged while both sized pins work.
  EXPECT_EQ(Current(m), two);
  EXPECT_EQ(rcupool_generation(m), gen);
  EXPECT_EQ(rcupool_threads(m), 2u);
  a.join();
  b.join();

  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(results[i].pin_threads, widths[i]);
    EXPECT_EQ(results[i].ran_on, widths[i]) << "width " << widths[i];
    EXPECT_TRUE(results[i].sum_right);
    EXPECT_FALSE(results[i].current);
  }
  // Outside the scopes, work runs on the current pool of 2.
  EXPECT_EQ(ThreadsThatRan(m, 2), 2u);
  s = Stats(m);
  EXPECT_EQ(s.generation, gen);
  EXPECT_EQ(s.resets, 0u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.pools_freed, 2u);
}

// Must-show 2, first part.
TEST(RcupoolPinSized, OfCurrentSizeIsTheCurrentPool) {
  NoWarmManager m(2);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), Current(m));
  EXPECT_TRUE(rcupool_pin_is_current(&pin));
  EXPECT_EQ(rcupool_pin_generation(&pin), rcupool_generation(m));
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, 1u);
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.pins, 1u);
  rcupool_unpin(&pin);
}

TEST(RcupoolPinSized, ZeroMeansDefaultCount) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_reset(m, 3), 0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 0, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), 2u);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
}

// A manager created with 0 threads computes its default count (mask and
// quota) at create and at every rcupool_reset(m, 0); a sized pin of 0 gets
// that count as well, not a pool of 0 threads.
TEST(RcupoolPinSized, ZeroOnManagerOfComputedDefaultPinsThatCount) {
  NoWarmManager m(0);
  const size_t def = rcupool_threads(m);
  ASSERT_EQ(rcupool_reset(m, def < RCUPOOL_MAX_THREADS ? def + 1 : def - 1),
            0);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 0, &pin), 0);
  EXPECT_EQ(rcupool_pin_threads(&pin), def);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  rcupool_unpin(&pin);
}

// Must-show 2, third part.
TEST(RcupoolPinSized, OfRetiredPoolSizeReusesThatPool) {
  NoWarmManager m(2);
  rcupool_pin_t old{};
  ASSERT_EQ(rcupool_pin(m, &old), 0);
  const pthreadpool_t two = rcupool_pin_pthreadpool(&old);
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  ASSERT_EQ(Stats(m).pools_kept, 1u);

  rcupool_pin_t sized{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &sized), 0);
  EXPECT_EQ(rcupool_pin_pthreadpool(&sized), two);
  EXPECT_FALSE(rcupool_pin_is_current(&sized));
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, 2u);
  EXPECT_EQ(s.pools_alive, 2u);
  EXPECT_EQ(s.pools_kept, 1u);  // was current once: kept, not never-current
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.pins, 2u);

  // The sized pin alone keeps it alive.
  rcupool_unpin(&old);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 2u);
  rcupool_scope_enter(&sized);
  EXPECT_EQ(ThreadsThatRan(m, 2), 2u);
  rcupool_scope_exit();
  rcupool_unpin(&sized);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolPinSized, RetiredPoolWithinGracePeriodIsReusedNotDuplicated) {
  NoWarmManager m(3);
  rcupool_pin_t pin{};
  // This thread holds a read-side section, so the 3 stays within its grace
  // period (its retire callback cannot run) while the sized pin looks.
  rcupool_read_lock();
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
  const uint64_t created = Stats(m).pools_created;
  rcupool_read_unlock();
  EXPECT_EQ(created, 2u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 2u);
  EXPECT_EQ(s.pools_kept, 1u);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
}

TEST(RcupoolPinSized, SecondSizedPinOfSameSizeSharesThePool) {
  NoWarmManager m(1);
  rcupool_pin_t a{}, b{};
  ASSERT_EQ(rcupool_pin_sized(m, 3, &a), 0);
  ASSERT_EQ(rcupool_pin_sized(m, 3, &b), 0);
  EXPECT_EQ(rcupool_pin_pthreadpool(&a), rcupool_pin_pthreadpool(&b));
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, 2u);
  EXPECT_EQ(s.pools_never_current, 1u);
  EXPECT_EQ(s.pins, 2u);
  rcupool_unpin(&a);
  ASSERT_EQ(rcupool_barrier(m), 0);
  EXPECT_EQ(Stats(m).pools_never_current, 1u);  // b still holds it
  rcupool_unpin(&b);
  ASSERT_EQ(rcupool_barrier(m), 0);
  s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_never_current, 0u);
}

TEST(RcupoolPinSized, NeverCurrentPoolFreedAfterLastUnpinWithItsThreads) {
  NoWarmManager m(1);
  ASSERT_EQ(rcupool_reset(m, 2), 0);  // start rcupool's reclaim thread
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  const size_t baseline = rcupool_test::SettledOsThreadCount();

  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  // 3 workers; the caller is the 4th.
  EXPECT_EQ(WaitForOsThreadCount(baseline + 3), baseline + 3);
  rcupool_unpin(&pin);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_never_current, 0u);
  EXPECT_EQ(s.threads_alive, 1u);
  EXPECT_EQ(WaitForOsThreadCount(baseline), baseline);
}

namespace {
struct FreeWitness {
  std::mutex mu;
  pid_t free_tid = 0;
};
void FreeWitnessHook(void *ctx, rcupool_log_level_t, const char *message) {
  auto *w = static_cast<FreeWitness *>(ctx);
  if (std::string(message).find("free pool") != std::string::npos) {
    // The record names the thread that freed the pool (the hook itself
    // runs on an application thread).
    const char *on = strstr(message, "on thread ");
    std::lock_guard<std::mutex> g(w->mu);
    if (on != nullptr) w->free_tid = static_cast<pid_t>(atol(on + 10));
  }
}
struct UnpinCtx {
  rcupool_pin_t *pin;
  std::atomic<pid_t> tid{0};
};
void UnpinOnce(void *arg, size_t i) {
  auto *c = static_cast<UnpinCtx *>(arg);
  if (i != 0) return;
  c->tid = Tid();
  rcupool_unpin(c->pin);
}
}  // namespace

TEST(RcupoolPinSized, LastUnpinFromTaskOfThatPoolFreesItOnReclaimThread) {
  NoWarmManager m(1);
  FreeWitness w;
  rcupool_set_log(FreeWitnessHook, &w);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
  pthreadpool_t two = rcupool_pin_pthreadpool(&pin);
  // The task runs on the sized pool and drops its only pin; a free on the
  // unpinning thread would join the pool from inside its own task (hang).
  // The caller holds a read-side section, as rcupool_parallelize_1d does
  // outside a scope, so the pool outlives the call.
  UnpinCtx c{&pin};
  rcupool_read_lock();
  rcupool_test::AnnotatedParallelize1d(two, UnpinOnce, &c, 2);
  rcupool_read_unlock();
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_set_log(nullptr, nullptr);
  EXPECT_EQ(Stats(m).pools_alive, 1u);
  EXPECT_NE(c.tid.load(), 0);
  EXPECT_NE(w.free_tid, 0);
  EXPECT_NE(w.free_tid, c.tid.load());
  EXPECT_NE(w.free_tid, Tid());
}

TEST(RcupoolPinSized, GenerationIsManagerGenerationWhenTakenAndResetsDoNotMoveIt) {
  NoWarmManager m(2);
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  const uint64_t gen = rcupool_generation(m);
  ASSERT_EQ(gen, 3u);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 4, &pin), 0);
  EXPECT_EQ(rcupool_pin_generation(&pin), gen);
  EXPECT_FALSE(rcupool_pin_is_current(&pin));
  ASSERT_EQ(rcupool_reset(m, 1), 0);
  EXPECT_EQ(rcupool_pin_generation(&pin), gen);
  EXPECT_EQ(rcupool_pin_threads(&pin), 4u);
  EXPECT_EQ(rcupool_generation(m), gen + 1);
  rcupool_unpin(&pin);
}

// Bad input and misuse (docs/misuse.md).
TEST(RcupoolPinSized, NullManagerOrPinOrAboveMaximumIsInvalidAndChangesNothing) {
  NoWarmManager m(1);
  LogRecorder log;
  rcupool_pin_t pin{};
  EXPECT_EQ(rcupool_pin_sized(nullptr, 2, &pin), -EINVAL);
  EXPECT_EQ(rcupool_pin_sized(m, 2, nullptr), -EINVAL);
  EXPECT_EQ(rcupool_pin_sized(m, RCUPOOL_MAX_THREADS + 1, &pin), -EINVAL);
  EXPECT_EQ(rcupool_pin_sized(m, SIZE_MAX, &pin), -EINVAL);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), nullptr);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_ERROR, "above the maximum"), 2u);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, 1u);
  EXPECT_EQ(s.pins, 0u);
}

TEST(RcupoolPinSized, AlreadyHoldingPinIsBusyAndKeepsFirstPool) {
  NoWarmManager m(1);
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
  pthreadpool_t first = rcupool_pin_pthreadpool(&pin);
  EXPECT_EQ(rcupool_pin_sized(m, 3, &pin), -EBUSY);
  EXPECT_EQ(rcupool_pin_sized(m, 2, &pin), -EBUSY);
  EXPECT_EQ(rcupool_pin_pthreadpool(&pin), first);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_created, 2u);  // no 3 was started
  EXPECT_EQ(s.pins, 1u);
  rcupool_unpin(&pin);
  EXPECT_EQ(Stats(m).pins, 0u);
}

TEST(RcupoolPinSized, UnpinTwiceIsLoggedNoopAndFreesOnce) {
  NoWarmManager m(1);
  LogRecorder log;
  rcupool_pin_t pin{};
  ASSERT_EQ(rcupool_pin_sized(m, 2, &pin), 0);
  rcupool_unpin(&pin);
  rcupool_unpin(&pin);
  EXPECT_EQ(log.Count(RCUPOOL_LOG_WARN, "is empty"), 1u);
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pools_freed, 1u);
  EXPECT_EQ(s.pools_alive, 1u);
}

// As RcupoolPin's: the first sized pin of a new thread (checked path) and
// the next (fast path) pin the current pool of that size and leave no
// read-side section open.
TEST(RcupoolPinSized, FirstAndLaterOfNewThreadPinCurrentSizeAndLeaveNoSection) {
  NoWarmManager m(3);
  std::thread t([&] {
    for (int i = 0; i < 2; i++) {
      rcupool_pin_t pin{};
      ASSERT_EQ(rcupool_pin_sized(m, 3, &pin), 0);
      EXPECT_EQ(rcupool_pin_threads(&pin), 3u);
      EXPECT_TRUE(rcupool_pin_is_current(&pin));
      EXPECT_EQ(rcupool_barrier(m), 0);
      rcupool_unpin(&pin);
    }
  });
  t.join();
  EXPECT_EQ(Stats(m).pools_created, 1u);
}

// A sized pin of a size that is not current finds its pool without
// m->lock: it walks the pool list inside a read-side section (lib/pin.c,
// SIZED-1). Here the pools it walks past keep dying (their last unpin) and
// being unlinked and freed by the reclaim thread while other searches stand
// on them. Pools of one thread start no worker, so thousands come and go in
// a fraction of a second. A pool freed under a search is a use after free:
// ASan reports it, TSan a race with the free.
TEST(RcupoolPinSized, LiveSizeSearchWhilePoolsOfThatSizeDieReadsNoFreedPool) {
  NoWarmManager m(2);
  const uint64_t created_before = Stats(m).pools_created;
  std::atomic<bool> stop{false};
  std::atomic<long> pinned{0}, wrong{0};
  // With no warm width the pool of one thread is retired by the last of
  // its unpins, whenever the three pinners are all between two pins, so
  // the searches keep meeting dying and freed pools. A scheduler that runs
  // one thread at a time (valgrind) can keep a pin held across every
  // switch, so once a round the trimmer also makes the pinners meet
  // between two pins: the pool dies there at least, and the searches
  // resume while the reclaim thread unlinks and frees it.
  constexpr int kPinners = 3;
  std::atomic<bool> gap_wanted{false};
  std::atomic<int> stepped_aside{0};
  std::vector<std::thread> pinners;
  for (int t = 0; t < kPinners; t++)
    pinners.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        if (gap_wanted.load()) {
          stepped_aside++;
          while (gap_wanted.load() && !stop.load())
            std::this_thread::sleep_for(std::chrono::microseconds(100));
          stepped_aside--;
          continue;
        }
        rcupool_pin_t pin{};
        if (rcupool_pin_sized(m, 1, &pin) != 0 ||
            rcupool_pin_threads(&pin) != 1) {
          wrong++;
          continue;
        }
        pinned++;
        rcupool_unpin(&pin);
      }
    });
  std::atomic<long> trim_errors{0};
  std::thread trimmer([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      gap_wanted = true;
      while (stepped_aside.load() < kPinners && !stop.load())
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      gap_wanted = false;
      if (rcupool_trim(m) < 0) trim_errors++;
    }
  });
  // Each trim waits for grace periods and joins: run until enough pools
  // have died (one a round at least), or 120 s.
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < until &&
         Stats(m).pools_created - created_before <= 25)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  for (auto &t : pinners) t.join();
  trimmer.join();
  EXPECT_EQ(trim_errors.load(), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);

  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(pinned.load(), 0);
  const rcupool_stats_t s = Stats(m);
  // Pools of one thread kept dying and starting again (a free to search past).
  EXPECT_GT(s.pools_created - created_before, 20u);
  // Every one of them was freed; only the current pool is left.
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_created - s.pools_freed, 1u);
  EXPECT_EQ(s.pins, 0u);
}
