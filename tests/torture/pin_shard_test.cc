// SPDX-License-Identifier: LGPL-2.1-or-later
// Stress of the sharded pin count (lib/pool.h, POOL-8): threads pin the
// current pool and unpin, often on another thread than the one that
// pinned (a shard goes negative), and take sized pins of the two widths
// the resets alternate and of a third one, which a section counts on a
// shard or a search counts in refs, the current pool's too (lib/pin.c,
// PIN-4), while a resetter retires the pool under
// them (its last retire callback gathers the shards into one count after
// the grace period, a reuse shards it again) and the reclaim thread frees
// the pools let go. Every held pin's pool is read (its canary: ASan
// reports a pool freed while pinned); at a pause the pins the manager
// counts are the pins held; at the end every count is back to zero: no
// pin counted, every retired pool freed, destroy succeeds.
// RCUPOOL_PIN_SHARD_SECONDS (default 2) sets how long the threads run.
#include <stdlib.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/support.h"
#include "tests/torture/pool_peek.h"

using rcupool_test::NoWarmManager;
using rcupool_test::Stats;

namespace {
constexpr int kPinners = 4;
constexpr size_t kRing = 4;     // pins a thread holds at once
constexpr size_t kMailbox = 8;  // pins handed to another thread to unpin

double Seconds() {
  const char *s = getenv("RCUPOOL_PIN_SHARD_SECONDS");
  return s != nullptr && atof(s) > 0 ? atof(s) : 2.0;
}

// Pins whose unpin is left to whichever thread takes them next.
struct Mailbox {
  std::mutex mu;
  std::array<rcupool_pin_t, kMailbox> pins{};
};

// True if the pool of a held pin is intact (read through its memory).
bool Intact(const rcupool_pin_t &pin) {
  const void *pool = rcupl_testing_pin_pool(&pin);
  return pool != nullptr &&
         rcupl_testing_pool_canary(pool) == RCUPL_TESTING_POOL_CANARY &&
         rcupool_pin_threads(&pin) >= 1;
}
}  // namespace

TEST(RcupoolPin, ShardAndRefsPinsWithCrossThreadUnpinsAndResetsReturnToZero) {
  NoWarmManager m(1);
  Mailbox mailbox;
  std::atomic<bool> stop{false}, pause{false};
  std::atomic<int> paused{0};
  std::atomic<long> pins_taken{0}, broken{0};

  auto pinner = [&](unsigned seed) {
    std::mt19937 rng(seed);
    std::array<rcupool_pin_t, kRing> ring{};
    size_t next = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      if (pause.load(std::memory_order_acquire)) {
        paused.fetch_add(1);
        while (pause.load(std::memory_order_acquire)) std::this_thread::yield();
        paused.fetch_sub(1);
      }
      rcupool_pin_t &slot = ring[next];
      next = (next + 1) % kRing;
      if (slot.pool_ != nullptr) {
        if (rng() % 4 == 0) {
          // Hand it over: the thread that takes the mailbox slot unpins it.
          std::lock_guard<std::mutex> lock(mailbox.mu);
          std::swap(slot, mailbox.pins[rng() % kMailbox]);
        }
        if (slot.pool_ != nullptr) rcupool_unpin(&slot);
      }
      // A pin of the current pool (a shard), or a sized pin: of 1 or 2
      // threads (current or not: a shard, or refs when the search takes
      // it), or now and then of 3 (never current: refs).
      const unsigned kind = rng() % 16;
      const int err = kind < 8    ? rcupool_pin(m, &slot)
                      : kind < 15 ? rcupool_pin_sized(m, 1 + rng() % 2, &slot)
                                  : rcupool_pin_sized(m, 3, &slot);
      if (err != 0) {
        broken.fetch_add(1);
        continue;
      }
      pins_taken.fetch_add(1, std::memory_order_relaxed);
      for (const rcupool_pin_t &held : ring)
        if (held.pool_ != nullptr && !Intact(held)) broken.fetch_add(1);
    }
    for (rcupool_pin_t &held : ring)
      if (held.pool_ != nullptr) rcupool_unpin(&held);
  };

  std::atomic<long> resets{0};
  auto resetter = [&] {
    size_t width = 1;
    while (!stop.load(std::memory_order_relaxed)) {
      if (pause.load(std::memory_order_acquire)) {
        paused.fetch_add(1);
        while (pause.load(std::memory_order_acquire)) std::this_thread::yield();
        paused.fetch_sub(1);
      }
      width = width == 1 ? 2 : 1;
      if (rcupool_reset(m, width) != 0) broken.fetch_add(1);
      resets.fetch_add(1, std::memory_order_relaxed);
      // A grace period or two, so callbacks gather and frees run between.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  };

  std::vector<std::thread> threads;
  for (int i = 0; i < kPinners; i++) threads.emplace_back(pinner, 7u + i);
  threads.emplace_back(resetter);

  const auto half = std::chrono::duration<double>(Seconds() / 2);
  std::this_thread::sleep_for(half);
  // A pause with pins held: the count the manager sums is the pins held.
  pause.store(true, std::memory_order_release);
  while (paused.load() != kPinners + 1) std::this_thread::yield();
  {
    // Every pinner paused with a full ring; the mailbox is counted too.
    size_t in_mailbox = 0;
    {
      std::lock_guard<std::mutex> lock(mailbox.mu);
      for (const rcupool_pin_t &p : mailbox.pins)
        if (p.pool_ != nullptr) in_mailbox++;
    }
    EXPECT_EQ(Stats(m).pins, kPinners * kRing + in_mailbox);
  }
  pause.store(false, std::memory_order_release);
  std::this_thread::sleep_for(half);
  stop.store(true);
  for (std::thread &t : threads) t.join();
  for (rcupool_pin_t &p : mailbox.pins)
    if (p.pool_ != nullptr) rcupool_unpin(&p);

  EXPECT_EQ(broken.load(), 0);
  EXPECT_GT(pins_taken.load(), 1000);
  EXPECT_GT(resets.load(), 10);
  ASSERT_GE(rcupool_trim(m), 0);
  rcupool_stats_t s = Stats(m);
  EXPECT_EQ(s.pins, 0u);
  EXPECT_EQ(s.pools_alive, 1u);  // every retired pool reached zero
  EXPECT_EQ(s.pools_created - s.pools_freed, 1u);
  EXPECT_EQ(s.frees_pending, 0u);
  // ~NoWarmManager: destroy fails the test unless the current pool's
  // count is zero pins too.
}
