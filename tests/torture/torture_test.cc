// SPDX-License-Identifier: LGPL-2.1-or-later
// Torture: readers, pinners, a resetter and a checker hammer one manager for
// a configurable time, in the manner of rcutorture.
//
//   readers   run parallel work on the current pool inside read-side
//             sections and check the pool's canary before and after; each
//             reader thread exits after a few hundred sections and a new one
//             takes its place (threads exiting at any time);
//   pinners   pin, run work on the pinned pool (directly, and through a
//             scope) for random lengths, check its canary, and unpin;
//   sized     the same with rcupool_pin_sized() of random sizes in
//   pinners   1..min(8, max): the pool may be current, retired, shared with
//             another sized pin, or started for them and never current;
//             they also check the pool has exactly the size asked for;
//   resetter  resets to random counts in 1..max, repeats included, and
//             sometimes to 0 (the default count);
//   checker   samples the stats with the pins frozen and checks the design's
//             invariants; every ~250 ms it also pauses the resetter, drains
//             with rcupool_barrier() and checks that exactly one pool per
//             size in use is alive.
//
// A pool's canary is poisoned when the pool is freed, so a use after free
// shows up as a canary failure even without a sanitizer.
//
// Parameters (environment):
//   RCUPOOL_TORTURE_SECONDS      run time (default 10)
//   RCUPOOL_TORTURE_READERS      reader threads (default 2)
//   RCUPOOL_TORTURE_PINNERS      pinner threads (default 2)
//   RCUPOOL_TORTURE_SIZED        sized pinner threads (default 2)
//   RCUPOOL_TORTURE_MAX_THREADS  largest pool size reset to (default 16)
//   RCUPOOL_TORTURE_SEED         random seed (default: from the clock)
// A one-hour run:
//   bazel test //tests/torture:torture_test --test_output=streamed
//     --test_timeout=4000 --test_env=RCUPOOL_TORTURE_SECONDS=3600
#include <errno.h>
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/annotate.h"
#include "tests/support/support.h"
#include "tests/torture/pool_peek.h"

using rcupool_test::ManagerSumIsRight;
using rcupool_test::OsThreadCount;
using rcupool_test::ParallelSumIsRight;
using rcupool_test::Stats;
using rcupool_test::WaitForOsThreadCount;

namespace {

using Clock = std::chrono::steady_clock;

// pthreadpool 2025+ (the executor API's) lowers a pool's own count for the
// length of a call with fewer items than threads.
#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
constexpr bool kPthreadpoolCountMayDrop = true;
#else
constexpr bool kPthreadpoolCountMayDrop = false;
#endif

long EnvLong(const char *name, long fallback, long lo, long hi) {
  const char *s = getenv(name);
  if (s == nullptr || *s == '\0') return fallback;
  char *end = nullptr;
  long v = strtol(s, &end, 10);
  if (*end != '\0' || v < lo || v > hi) {
    ADD_FAILURE() << name << "=\"" << s << "\" is not in " << lo << ".." << hi;
    return fallback;
  }
  return v;
}

struct Config {
  long seconds;
  long readers;
  long pinners;
  long sized_pinners;
  size_t max_threads;
  uint64_t seed;
};

Config ConfigFromEnv() {
  Config c;
  c.seconds = EnvLong("RCUPOOL_TORTURE_SECONDS", 10, 1, 7 * 24 * 3600);
  c.readers = EnvLong("RCUPOOL_TORTURE_READERS", 2, 0, 64);
  c.pinners = EnvLong("RCUPOOL_TORTURE_PINNERS", 2, 0, 64);
  c.sized_pinners = EnvLong("RCUPOOL_TORTURE_SIZED", 2, 0, 64);
  c.max_threads = static_cast<size_t>(
      EnvLong("RCUPOOL_TORTURE_MAX_THREADS", 16, 2, RCUPOOL_MAX_THREADS));
  c.seed = static_cast<uint64_t>(EnvLong(
      "RCUPOOL_TORTURE_SEED",
      static_cast<long>(Clock::now().time_since_epoch().count() & 0x7fffffff),
      0, 0x7fffffff));
  return c;
}

class Torture {
 public:
  Torture(rcupool_t *m, const Config &c) : m_(m), c_(c) {}

  void Run();

  // Final counters.
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> pins{0};
  std::atomic<uint64_t> sized_pins{0};
  std::atomic<uint64_t> reader_threads{0};
  std::atomic<uint64_t> checks{0};
  std::atomic<uint64_t> barrier_checks{0};
  std::atomic<uint64_t> canary_failures{0};
  std::atomic<uint64_t> work_failures{0};
  std::atomic<uint64_t> invariant_failures{0};

 private:
  void ReaderSlot(uint64_t seed);
  void Pinner(uint64_t seed, bool sized);
  void Resetter(uint64_t seed);
  void Checker();
  void CheckCanary(const void *pool, const char *who);
  void Violation(const std::string &what);
  bool Stopping() const { return stop_.load(std::memory_order_relaxed); }

  rcupool_t *m_;
  Config c_;
  std::atomic<bool> stop_{false};

  // Pinners hold pin_mu_ shared while they pin or unpin and record the
  // size; the checker holds it exclusively, so the set of pins it sees
  // matches the library's.
  std::shared_mutex pin_mu_;
  std::array<std::atomic<int>, RCUPOOL_MAX_THREADS + 1> pinned_by_size_{};
  std::atomic<int> pinned_total_{0};
  // The resetter holds reset_mu_ around each reset; the checker holds it
  // across a barrier check.
  std::mutex reset_mu_;
};

void Torture::Violation(const std::string &what) {
  if (invariant_failures.fetch_add(1) < 10) ADD_FAILURE() << what;
}

void Torture::CheckCanary(const void *pool, const char *who) {
  uint64_t canary = rcupl_testing_pool_canary(pool);
  if (canary != RCUPL_TESTING_POOL_CANARY) {
    if (canary_failures.fetch_add(1) < 10)
      ADD_FAILURE() << who << ": pool " << pool << " canary " << std::hex
                    << canary << " (freed while in use)";
  }
}

void Torture::ReaderSlot(uint64_t seed) {
  std::mt19937_64 rng(seed);
  while (!Stopping()) {
    // A fresh thread runs a few hundred sections and exits without any
    // cleanup call; the next one takes its place.
    int sections = 50 + static_cast<int>(rng() % 400);
    uint64_t thread_seed = rng();
    std::thread t([this, sections, thread_seed] {
      std::mt19937_64 r(thread_seed);
      for (int i = 0; i < sections && !Stopping(); i++) {
        size_t range = 1 + r() % 64;
        rcupool_read_lock();
        const void *pool = rcupl_testing_current_pool(m_);
        CheckCanary(pool, "reader");
        bool ok;
        if (r() % 2 == 0) {
          ok = ParallelSumIsRight(rcupl_testing_pool_pthreadpool(pool), range);
        } else {
          // Nested section inside the library; same guarantees.
          ok = ManagerSumIsRight(m_, range);
        }
        CheckCanary(pool, "reader after work");
        rcupool_read_unlock();
        if (!ok) work_failures++;
        reads++;
      }
    });
    t.join();
    reader_threads++;
  }
}

void Torture::Pinner(uint64_t seed, bool sized) {
  std::mt19937_64 rng(seed);
  const size_t max_sized = std::min<size_t>(8, c_.max_threads);
  while (!Stopping()) {
    rcupool_pin_t pin{};
    size_t size;
    {
      std::shared_lock<std::shared_mutex> g(pin_mu_);
      size_t want = 1 + rng() % max_sized;
      int err = sized ? rcupool_pin_sized(m_, want, &pin) : rcupool_pin(m_, &pin);
      if (err != 0) {
        Violation(std::string(sized ? "rcupool_pin_sized" : "rcupool_pin") +
                  " failed: " + std::to_string(err));
        return;
      }
      size = rcupool_pin_threads(&pin);
      if (sized && size != want)
        Violation("sized pin of " + std::to_string(want) + " got " +
                  std::to_string(size));
      pinned_by_size_.at(size)++;
      pinned_total_++;
    }
    (sized ? sized_pins : pins)++;
    const void *pool = rcupl_testing_pin_pool(&pin);
    int rounds = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < rounds; i++) {
      CheckCanary(pool, "pinner");
      size_t range = 1 + rng() % 128;
      bool ok;
      if (rng() % 2 == 0) {
        ok = ParallelSumIsRight(rcupool_pin_pthreadpool(&pin), range);
      } else {
        rcupool_scope_enter(&pin);
        ok = ManagerSumIsRight(m_, range);
        rcupool_scope_exit();
      }
      if (!ok) work_failures++;
      // rcupool's count is the pin's for its whole life. pthreadpool's own
      // is too on Debian 12's; pthreadpool 2025+ lowers it to the range of
      // a call that another pinner runs on this pool meanwhile, never more
      // (tests/newest/views_test.cc, PinThreads).
      if (rcupool_pin_threads(&pin) != size)
        Violation("pinned pool changed its thread count");
      const size_t tp_count =
          pthreadpool_get_threads_count(rcupool_pin_pthreadpool(&pin));
      if (kPthreadpoolCountMayDrop ? tp_count == 0 || tp_count > size
                                   : tp_count != size)
        Violation("pthreadpool's count of a pinned pool is " +
                  std::to_string(tp_count) + ", not " + std::to_string(size));
      if (rng() % 4 == 0)
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
    }
    CheckCanary(pool, "pinner before unpin");
    {
      std::shared_lock<std::shared_mutex> g(pin_mu_);
      pinned_by_size_.at(size)--;
      pinned_total_--;
      rcupool_unpin(&pin);
    }
  }
}

void Torture::Resetter(uint64_t seed) {
  std::mt19937_64 rng(seed);
  while (!Stopping()) {
    size_t n = 1 + rng() % c_.max_threads;
    if (rng() % 16 == 0) n = 0;  // the default count
    int repeats = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 3) : 1;
    for (int i = 0; i < repeats; i++) {
      std::lock_guard<std::mutex> g(reset_mu_);
      int err = rcupool_reset(m_, n);
      if (err != 0) Violation("rcupool_reset(" + std::to_string(n) +
                              ") returned " + std::to_string(err));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 5000));
  }
}

void Torture::Checker() {
  rcupool_stats_t prev{};
  auto next_barrier = Clock::now();
  while (!Stopping()) {
    bool drain = Clock::now() >= next_barrier;
    std::unique_lock<std::mutex> reset_guard(reset_mu_, std::defer_lock);
    if (drain) reset_guard.lock();
    std::unique_lock<std::shared_mutex> pin_guard(pin_mu_);
    if (drain && rcupool_barrier(m_) != 0) Violation("barrier failed");
    rcupool_stats_t s = Stats(m_);
    std::set<size_t> pinned;
    for (size_t n = 0; n < pinned_by_size_.size(); n++)
      if (pinned_by_size_[n].load() > 0) pinned.insert(n);
    size_t pinned_total = static_cast<size_t>(pinned_total_.load());
    pin_guard.unlock();
    if (drain) reset_guard.unlock();

    // Sizes a kept or never-current pool may have.
    std::set<size_t> kept_sizes = pinned;
    kept_sizes.erase(s.threads);
    std::string at = " (generation " + std::to_string(s.generation) +
                     ", alive " + std::to_string(s.pools_alive) + ", kept " +
                     std::to_string(s.pools_kept) + ", never current " +
                     std::to_string(s.pools_never_current) + ", pins " +
                     std::to_string(s.pins) + ")";
    if (s.pins != pinned_total) Violation("pins differ from pins held" + at);
    if (s.pools_alive != s.pools_created - s.pools_freed)
      Violation("alive != created - freed" + at);
    if (s.pools_alive < 1) Violation("no pool alive" + at);
    // Kept and never-current pools are pinned, one per size at most, never
    // the current size.
    if (s.pools_kept + s.pools_never_current > kept_sizes.size())
      Violation("more kept and never-current pools than distinct pinned "
                "sizes" + at);
    if (s.threads < 1 || s.threads > c_.max_threads)
      Violation("current size out of range" + at);
    if (s.generation < prev.generation || s.resets < prev.resets ||
        s.reuses < prev.reuses || s.pools_freed < prev.pools_freed ||
        s.pools_created < prev.pools_created)
      Violation("a counter went backwards" + at);
    if (s.reuses > s.resets) Violation("more reuses than resets" + at);
    if (drain) {
      // Outside any grace period: the current pool and one pool per other
      // pinned size, nothing else.
      std::set<size_t> sizes = pinned;
      sizes.insert(s.threads);
      size_t threads = 0;
      for (size_t n : sizes) threads += n;
      if (s.pools_alive != sizes.size())
        Violation("after barrier, alive != distinct pinned sizes + current" +
                  at);
      if (s.pools_kept + s.pools_never_current != kept_sizes.size())
        Violation("after barrier, kept + never current != pinned sizes but "
                  "current" + at);
      if (s.frees_pending != 0) Violation("after barrier, frees pending" + at);
      if (s.threads_alive != threads)
        Violation("after barrier, threads alive != sum of sizes" + at);
      barrier_checks++;
      next_barrier = Clock::now() + std::chrono::milliseconds(250);
    }
    checks++;
    prev = s;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void Torture::Run() {
  std::mt19937_64 seeds(c_.seed);
  std::vector<std::thread> threads;
  for (long i = 0; i < c_.readers; i++)
    threads.emplace_back(&Torture::ReaderSlot, this, seeds());
  for (long i = 0; i < c_.pinners; i++)
    threads.emplace_back(&Torture::Pinner, this, seeds(), false);
  for (long i = 0; i < c_.sized_pinners; i++)
    threads.emplace_back(&Torture::Pinner, this, seeds(), true);
  threads.emplace_back(&Torture::Resetter, this, seeds());
  threads.emplace_back(&Torture::Checker, this);
  auto end = Clock::now() + std::chrono::seconds(c_.seconds);
  while (Clock::now() < end && !::testing::Test::HasFatalFailure())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop_ = true;
  for (auto &t : threads) t.join();
}

}  // namespace

TEST(RcupoolTorture, ReadersPinnersResetsKeepInvariantsAndNoPoolUsedAfterFree) {
  Config c = ConfigFromEnv();
  rcupool_test::NoWarmManager m(1);
  // Start the reclaim thread and settle, so the thread baseline includes it.
  ASSERT_EQ(rcupool_reset(m, 2), 0);
  ASSERT_EQ(rcupool_barrier(m), 0);
  size_t baseline = OsThreadCount() - 1;  // less the 2-thread pool's worker

  Torture t(m, c);
  auto start = Clock::now();
  t.Run();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();

  // Everything let go: only the current pool's workers remain.
  ASSERT_EQ(rcupool_barrier(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.frees_pending, 0u);
  EXPECT_EQ(WaitForOsThreadCount(baseline + s.threads - 1),
            baseline + s.threads - 1);

  printf(
      "torture: %.1f s, seed %llu, %ld readers, %ld pinners, %ld sized "
      "pinners, sizes 1..%zu: "
      "reads %llu, pins %llu, sized pins %llu, resets %llu, reuses %llu, "
      "frees %llu, "
      "reader threads %llu, checks %llu, barrier checks %llu, "
      "work failures %llu, invariant failures %llu, canary failures %llu\n",
      secs, (unsigned long long)c.seed, c.readers, c.pinners, c.sized_pinners,
      c.max_threads, (unsigned long long)t.reads.load(),
      (unsigned long long)t.pins.load(), (unsigned long long)t.sized_pins.load(),
      (unsigned long long)s.resets, (unsigned long long)s.reuses,
      (unsigned long long)s.pools_freed,
      (unsigned long long)t.reader_threads.load(),
      (unsigned long long)t.checks.load(),
      (unsigned long long)t.barrier_checks.load(),
      (unsigned long long)t.work_failures.load(),
      (unsigned long long)t.invariant_failures.load(),
      (unsigned long long)t.canary_failures.load());
  fflush(stdout);

  EXPECT_EQ(t.canary_failures.load(), 0u);
  EXPECT_EQ(t.work_failures.load(), 0u);
  EXPECT_EQ(t.invariant_failures.load(), 0u);
  // The run did something of each kind (not a vacuous pass).
  EXPECT_GT(t.reads.load(), 0u);
  if (c.pinners > 0) {
    EXPECT_GT(t.pins.load(), 0u);
  }
  if (c.sized_pinners > 0) {
    EXPECT_GT(t.sized_pins.load(), 0u);
  }
  EXPECT_GT(s.resets, 0u);
  EXPECT_GT(s.pools_freed, 0u);
  EXPECT_GT(t.barrier_checks.load(), 0u);
}
