// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool.hpp: the C++ layer. Built twice: as is and with -fno-exceptions
// (rcupool_hpp_noexcept_test), from this one source.
#include <rcupool/rcupool.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

// Counts warnings and errors logged while alive (an unpin of an empty pin
// is logged at warning level, so a double unpin shows here).
class WarningCounter {
 public:
  WarningCounter() { rcupool_set_log(&Hook, this); }
  ~WarningCounter() { rcupool_set_log(nullptr, nullptr); }
  int count() const { return count_.load(); }

 private:
  static void Hook(void *ctx, rcupool_log_level_t level, const char *) {
    if (level >= RCUPOOL_LOG_WARN)
      static_cast<WarningCounter *>(ctx)->count_.fetch_add(1);
  }
  std::atomic<int> count_{0};
};

size_t Pins(rcupool::Manager m) {
  rcupool_stats_t s{};
  EXPECT_EQ(m.stats(s), 0);
  return s.pins;
}

// A private manager that keeps no warm pool (RCUPOOL_WARM_NONE), made
// through the options form of OwnedManager::create(): a pool that is not
// current goes at the first barrier after its last unpin, the lifetime the
// tests below check. Warm widths have tests of their own further down.
int CreateKeepingNoWarmPool(size_t threads, rcupool::OwnedManager &m) {
  rcupool_options_t opts{};
  opts.threads = threads;
  opts.warm_pools = RCUPOOL_WARM_NONE;
  return rcupool::OwnedManager::create(&opts, m);
}

rcupool_stats_t StatsOf(rcupool::Manager m) {
  rcupool_stats_t s{};
  EXPECT_EQ(m.stats(s), 0);
  return s;
}

struct ThreadSet {
  std::mutex mu;
  std::set<std::thread::id> ids;
  void Record() {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    std::lock_guard<std::mutex> g(mu);
    ids.insert(std::this_thread::get_id());
  }
};

TEST(RcupoolHppPin, CurrentPinsAndDestructorUnpinsExactlyOnce) {
  WarningCounter warnings;
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  {
    rcupool::Pin p;
    EXPECT_TRUE(p.empty());
    ASSERT_EQ(rcupool::Pin::current(m, p), 0);
    EXPECT_FALSE(p.empty());
    EXPECT_EQ(p.threads(), 2u);
    EXPECT_NE(p.pthreadpool(), nullptr);
    EXPECT_EQ(p.generation(), m.manager().generation());
    EXPECT_EQ(Pins(m), 1u);
  }
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(warnings.count(), 0);
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppPin, MoveConstructionEmptiesSourceAndUnpinsOnce) {
  WarningCounter warnings;
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  {
    rcupool::Pin b;
    {
      rcupool::Pin a;
      ASSERT_EQ(rcupool::Pin::current(m, a), 0);
      pthreadpool_t tp = a.pthreadpool();
      rcupool::Pin moved(std::move(a));
      EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move)
      EXPECT_EQ(a.pthreadpool(), nullptr);
      EXPECT_EQ(moved.pthreadpool(), tp);
      EXPECT_EQ(Pins(m), 1u);
      b = std::move(moved);
      EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
      EXPECT_EQ(b.pthreadpool(), tp);
    }  // a and moved, both empty, are destroyed: nothing is unpinned
    EXPECT_EQ(Pins(m), 1u);
    EXPECT_EQ(b.threads(), 2u);
  }
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(warnings.count(), 0);
  EXPECT_EQ(m.destroy(), 0);
}

// A move with no scope open on the Pin is legal: the moved-to Pin holds the
// very pool (same pthreadpool_t, width and generation), and a scope entered
// on it afterwards runs the work there, not on the current pool.
TEST(RcupoolHppPin, MoveWithNoScopeOpenKeepsThePoolForALaterScope) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(2, m), 0);
  rcupool::Pin a;
  ASSERT_EQ(rcupool::Pin::current(m, a), 0);
  const pthreadpool_t tp = a.pthreadpool();
  const std::uint64_t gen = a.generation();
  ASSERT_EQ(m.manager().reset(1), 0);
  rcupool::Pin b(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.pthreadpool(), tp);
  EXPECT_EQ(b.threads(), 2u);
  EXPECT_EQ(b.generation(), gen);
  EXPECT_EQ(Pins(m), 1u);
  ThreadSet on_b;
  {
    rcupool::Scope s(b);
    ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { on_b.Record(); }, 64),
              0);
  }
  EXPECT_EQ(on_b.ids.size(), 2u);  // the pinned 2-thread pool, not current 1
  rcupool::Pin c;
  c = std::move(b);  // the scope is closed: legal again
  EXPECT_EQ(c.pthreadpool(), tp);
  c.reset();
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(m.destroy(), 0);
}

class RcupoolHppPinDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

// pin.hpp: a Pin moved while a Scope on it is open makes the next parallel
// call of that scope abort, as reset() does, instead of running on another
// pool (the current 1-thread one) with no word.
TEST_F(RcupoolHppPinDeathTest, MoveWhileItsScopeIsOpenAbortsAtNextParallelCall) {
  EXPECT_DEATH(
      {
        rcupool::OwnedManager m;
        if (CreateKeepingNoWarmPool(2, m) != 0) return;
        rcupool::Pin two;
        if (rcupool::Pin::current(m, two) != 0) return;
        if (m.manager().reset(1) != 0) return;
        rcupool::Scope s(two);
        rcupool::Pin moved(std::move(two));  // the misuse
        std::atomic<size_t> calls{0};
        (void)rcupool::parallelize_1d(m, [&](size_t) { calls++; }, 8);
        std::fprintf(stderr, "ran %zu items on the pool of %zu threads\n",
                     calls.load(), m.manager().threads());
      },
      "moved from before the scope was left");
}

TEST_F(RcupoolHppPinDeathTest, ResetWhileItsScopeIsOpenAbortsAtNextParallelCall) {
  EXPECT_DEATH(
      {
        rcupool::OwnedManager m;
        if (CreateKeepingNoWarmPool(2, m) != 0) return;
        rcupool::Pin two;
        if (rcupool::Pin::current(m, two) != 0) return;
        rcupool::Scope s(two);
        two.reset();  // the misuse
        (void)rcupool::parallelize_1d(m, [](size_t) {}, 8);
      },
      "unpinned before the scope was left");
}

TEST(RcupoolHppPin, MoveAssignmentUnpinsTheTargetsPoolFirst) {
  WarningCounter warnings;
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(2, m), 0);
  rcupool::Pin two, three;
  ASSERT_EQ(rcupool::Pin::current(m, two), 0);
  ASSERT_EQ(m.manager().reset(3), 0);
  ASSERT_EQ(rcupool::Pin::current(m, three), 0);
  EXPECT_EQ(Pins(m), 2u);
  three = std::move(two);
  EXPECT_EQ(Pins(m), 1u);
  EXPECT_TRUE(two.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(three.threads(), 2u);
  three.reset();
  EXPECT_EQ(Pins(m), 0u);
  three.reset();  // empty: a no-op, not a second unpin
  EXPECT_EQ(warnings.count(), 0);
  ASSERT_EQ(m.manager().barrier(), 0);
  rcupool_stats_t s{};
  ASSERT_EQ(m.manager().stats(s), 0);
  EXPECT_EQ(s.pools_alive, 1u);  // the 2-thread pool was freed
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppPin, CurrentIntoHoldingPinIsBusyAndKeepsItsPool) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  rcupool::Pin p;
  ASSERT_EQ(rcupool::Pin::current(m, p), 0);
  pthreadpool_t tp = p.pthreadpool();
  ASSERT_EQ(m.manager().reset(1), 0);
  EXPECT_EQ(rcupool::Pin::current(m, p), -EBUSY);
  EXPECT_EQ(p.pthreadpool(), tp);
  EXPECT_EQ(Pins(m), 1u);
  EXPECT_EQ(rcupool::Pin::current(nullptr, p), -EINVAL);
}

TEST(RcupoolHppPin, SizedPinsThatWidthLeavesCurrentAndUnpinsOnce) {
  WarningCounter warnings;
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  const uint64_t gen = m.manager().generation();
  int before = 0;
  {
    rcupool::Pin p;
    ASSERT_EQ(rcupool::Pin::sized(m, 3, p), 0);
    EXPECT_EQ(p.threads(), 3u);
    EXPECT_EQ(pthreadpool_get_threads_count(p.pthreadpool()), 3u);
    EXPECT_FALSE(p.is_current());
    EXPECT_EQ(m.manager().threads(), 2u);
    EXPECT_EQ(m.manager().generation(), gen);
    EXPECT_EQ(Pins(m), 1u);
    EXPECT_EQ(rcupool::Pin::sized(m, 1, p), -EBUSY);
    rcupool::Pin q;
    EXPECT_EQ(rcupool::Pin::sized(m, RCUPOOL_MAX_THREADS + 1, q), -EINVAL);
    EXPECT_TRUE(q.empty());
    before = warnings.count();  // the two refusals above may log
  }
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(warnings.count(), before);  // the destructor unpinned once
}

TEST(RcupoolHppPin, PinKeepsItsPoolAcrossResetAndStopsBeingCurrent) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  rcupool::Pin p;
  ASSERT_EQ(rcupool::Pin::current(m, p), 0);
  EXPECT_TRUE(p.is_current());
  ASSERT_EQ(m.manager().reset(1), 0);
  EXPECT_FALSE(p.is_current());
  EXPECT_EQ(pthreadpool_get_threads_count(p.pthreadpool()), 2u);
  EXPECT_EQ(m.destroy(), -EBUSY);  // the pin holds the manager
  p.reset();
  EXPECT_EQ(m.destroy(), 0);
  EXPECT_FALSE(m);
}

TEST(RcupoolHppScope, NestedScopesInnermostWinsAndExitRestoresOuter) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(1, m), 0);
  rcupool::Pin one, four;
  ASSERT_EQ(rcupool::Pin::current(m, one), 0);
  ASSERT_EQ(m.manager().reset(4), 0);
  ASSERT_EQ(rcupool::Pin::current(m, four), 0);
  ASSERT_EQ(m.manager().reset(2), 0);

  ThreadSet inner, outer;
  {
    rcupool::Scope s4(four);
    {
      rcupool::Scope s1(one);
      ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { inner.Record(); }, 32),
                0);
    }
    ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { outer.Record(); }, 64),
              0);
  }
  EXPECT_EQ(inner.ids.size(), 1u);  // the 1-thread pool: the caller only
  EXPECT_EQ(*inner.ids.begin(), std::this_thread::get_id());
  EXPECT_GT(outer.ids.size(), 1u);  // the 4-thread pool, not the current 2
  // No scope left open: work runs on the current pool, inside a section.
  ThreadSet after;
  ASSERT_EQ(m.manager().reset(1), 0);
  ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { after.Record(); }, 16), 0);
  EXPECT_EQ(after.ids.size(), 1u);
}

TEST(RcupoolHppReadGuard, CurrentIsTheCurrentPoolAndOutlivesAResetInside) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(2, m), 0);
  rcupool::Pin p;
  ASSERT_EQ(rcupool::Pin::current(m, p), 0);
  {
    rcupool::ReadGuard g;
    pthreadpool_t tp = g.current(m);
    EXPECT_EQ(tp, p.pthreadpool());
    p.reset();  // only the section holds the 2-thread pool now
    ASSERT_EQ(m.manager().reset(3), 0);
    {
      rcupool::ReadGuard nested;
      EXPECT_NE(nested.current(m), tp);
      EXPECT_EQ(pthreadpool_get_threads_count(nested.current(m)), 3u);
    }
    // Still inside the outer section: the retired pool is usable.
    EXPECT_EQ(pthreadpool_get_threads_count(tp), 2u);
    EXPECT_EQ(g.current(nullptr), nullptr);
  }
  ASSERT_EQ(m.manager().barrier(), 0);
  rcupool_stats_t s{};
  ASSERT_EQ(m.manager().stats(s), 0);
  EXPECT_EQ(s.pools_alive, 1u);  // freed once the section was left
  EXPECT_EQ(s.pools_freed, 1u);
}

TEST(RcupoolHppParallelize1d, CapturingLambdaRunsEveryIndexOnce) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  const size_t n = 10000;
  std::vector<std::atomic<int>> hits(n);
  std::atomic<uint64_t> total{0};
  uint64_t scale = 3;  // captured by copy
  auto body = [&hits, &total, scale](size_t i) {
    hits[i].fetch_add(1, std::memory_order_relaxed);
    total.fetch_add(scale * i + 1, std::memory_order_relaxed);
  };
  for (size_t threads : {1u, 3u, 2u}) {
    ASSERT_EQ(m.manager().reset(threads), 0);
    for (auto &h : hits) h.store(0);
    total.store(0);
    ASSERT_EQ(rcupool::parallelize_1d(m, body, n), 0);  // an lvalue
    size_t once = 0;
    for (auto &h : hits) once += h.load() == 1;
    EXPECT_EQ(once, n) << threads << " threads";
    EXPECT_EQ(total.load(), scale * (n * (n - 1) / 2) + n);
  }
  // A const callable and a temporary.
  const auto &cbody = body;
  ASSERT_EQ(rcupool::parallelize_1d(m, cbody, 10), 0);
  std::atomic<size_t> calls{0};
  ASSERT_EQ(rcupool::parallelize_1d(
                m, [&calls](size_t) { calls.fetch_add(1); }, 77),
            0);
  EXPECT_EQ(calls.load(), 77u);
  EXPECT_EQ(rcupool::parallelize_1d(nullptr, body, 10), -EINVAL);
}

TEST(RcupoolHppManager, ProcessManagerIsTheDefaultAndResets) {
  rcupool::Manager m = rcupool::Manager::process();
  ASSERT_TRUE(m);
  EXPECT_EQ(m.get(), rcupool_default());
  ASSERT_EQ(m.reset(2), 0);
  EXPECT_EQ(m.threads(), 2u);
  EXPECT_EQ(m.reset(RCUPOOL_MAX_THREADS + 1), -EINVAL);
  EXPECT_EQ(m.threads(), 2u);
}

TEST(RcupoolHppManager, SetIdleForwardsAndIdleReadsItBack) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  ASSERT_EQ(m.manager().set_idle(RCUPOOL_IDLE_SPIN), 0);
  EXPECT_EQ(m.manager().idle(), RCUPOOL_IDLE_SPIN);
  ASSERT_EQ(m.manager().set_idle(RCUPOOL_IDLE_YIELD), 0);
  EXPECT_EQ(m.manager().idle(), RCUPOOL_IDLE_YIELD);
  EXPECT_EQ(m.manager().set_idle(static_cast<rcupool_idle_t>(7)), -EINVAL);
  EXPECT_EQ(m.manager().idle(), RCUPOOL_IDLE_YIELD);
  EXPECT_EQ(rcupool::Manager().idle(), RCUPOOL_IDLE_DEFAULT);
}

TEST(RcupoolHppManager, TrimFreesTheWarmPoolOfAnUnpinnedWidthAndCountsIt) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);  // warm defaults
  {
    rcupool::Pin p;
    ASSERT_EQ(rcupool::Pin::sized(m, 3, p), 0);
  }
  ASSERT_EQ(m.manager().barrier(), 0);
  rcupool_stats_t s = StatsOf(m);
  EXPECT_EQ(s.pools_alive, 2u);  // the barrier leaves the warm width alone
  EXPECT_EQ(s.pools_idle, 1u);
  EXPECT_EQ(s.threads_idle, 3u);
  EXPECT_EQ(m.manager().trim(), 1);
  s = StatsOf(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_idle, 0u);
  EXPECT_EQ(s.threads_idle, 0u);
  EXPECT_EQ(s.threads_alive, 2u);
  EXPECT_EQ(m.manager().trim(), 0);  // nothing warm left
  EXPECT_EQ(m.manager().threads(), 2u);
}

TEST(RcupoolHppManager, TrimKeepsAPinnedWidthAndTheCurrentPool) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  rcupool::Pin p;
  ASSERT_EQ(rcupool::Pin::sized(m, 3, p), 0);
  EXPECT_EQ(m.manager().trim(), 0);
  EXPECT_EQ(StatsOf(m).pools_alive, 2u);
  EXPECT_EQ(pthreadpool_get_threads_count(p.pthreadpool()), 3u);
  p.reset();
  EXPECT_EQ(m.manager().trim(), 1);
  EXPECT_EQ(StatsOf(m).pools_alive, 1u);
  EXPECT_EQ(rcupool::Manager().trim(), -EINVAL);
}

TEST(RcupoolHppManager, SetWarmNoneLetsTheBarrierFreeAWidthAndRejectsTooLong) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(2, m), 0);
  EXPECT_EQ(m.manager().set_warm(RCUPOOL_WARM_MS_MAX + 1, 0), -EINVAL);
  EXPECT_EQ(rcupool::Manager().set_warm(0, 0), -EINVAL);
  ASSERT_EQ(m.manager().set_warm(RCUPOOL_WARM_MS_MAX, RCUPOOL_WARM_NONE), 0);
  {
    rcupool::Pin p;
    ASSERT_EQ(rcupool::Pin::sized(m, 3, p), 0);
  }
  ASSERT_EQ(m.manager().barrier(), 0);
  rcupool_stats_t s = StatsOf(m);
  EXPECT_EQ(s.pools_alive, 1u);
  EXPECT_EQ(s.pools_idle, 0u);
  ASSERT_EQ(m.manager().set_warm(0, 0), 0);  // the defaults again
  {
    rcupool::Pin p;
    ASSERT_EQ(rcupool::Pin::sized(m, 3, p), 0);
  }
  ASSERT_EQ(m.manager().barrier(), 0);
  EXPECT_EQ(StatsOf(m).pools_idle, 1u);
}

TEST(RcupoolHppOwnedManager, CreateWithWarmOptionsKeepsOrRejects) {
  rcupool_options_t opts{};
  opts.threads = 1;
  opts.warm_ms = RCUPOOL_WARM_MS_MAX + 1;
  rcupool::OwnedManager m;
  EXPECT_EQ(rcupool::OwnedManager::create(&opts, m), -EINVAL);
  EXPECT_FALSE(m);
  opts.warm_ms = RCUPOOL_WARM_MS_MAX;
  opts.warm_pools = 1;  // one warm width at most
  ASSERT_EQ(rcupool::OwnedManager::create(&opts, m), 0);
  for (size_t width : {2, 3}) {
    {
      rcupool::Pin p;
      ASSERT_EQ(rcupool::Pin::sized(m, width, p), 0);
    }
    // An expiry pass sees the 2-thread width unused before the 3-thread one.
    ASSERT_EQ(m.manager().barrier(), 0);
  }
  rcupool_stats_t s = StatsOf(m);
  EXPECT_EQ(s.pools_idle, 1u);  // the 2-thread width went first
  EXPECT_EQ(s.threads_idle, 3u);
}

TEST(RcupoolHppOwnedManager, CreateIntoHoldingHandleIsBusy) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(1, m), 0);
  rcupool_t *first = m.get();
  EXPECT_EQ(rcupool::OwnedManager::create(1, m), -EBUSY);
  EXPECT_EQ(m.get(), first);
  rcupool::OwnedManager other(std::move(m));
  EXPECT_FALSE(m);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(other.get(), first);
  EXPECT_EQ(rcupool::OwnedManager::create(RCUPOOL_MAX_THREADS + 1, m),
            -EINVAL);
}

TEST(RcupoolHppPin, PlacedTakesTextOrStructAndSameIdentityIsOnePool) {
  rcupool::OwnedManager m;
  ASSERT_EQ(rcupool::OwnedManager::create(1, m), 0);
  rcupool::Pin a, b, c;
  ASSERT_EQ(rcupool::Pin::placed(m, 2, "0:strict", a), 0);
  rcupool_placement_t pl{};
  pl.policy = RCUPOOL_PLACE_CPUS;
  pl.cpus[0] = 1;  // CPU 0
  pl.strict = true;
  ASSERT_EQ(rcupool::Pin::placed(m, 2, pl, b), 0);
  EXPECT_EQ(a.pthreadpool(), b.pthreadpool());  // one identity, one pool
  ASSERT_EQ(rcupool::Pin::sized(m, 2, c), 0);   // the manager's placement
  EXPECT_NE(c.pthreadpool(), a.pthreadpool());
  rcupool::Pin d;
  EXPECT_EQ(rcupool::Pin::placed(m, 2, "fastest", d), -EINVAL);
  EXPECT_TRUE(d.empty());
}

}  // namespace

TEST(RcupoolHppWidth, WidthRunsParallelWorkOnItsSizeAndUnpinsAtItsEnd) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(1, m), 0);
  ThreadSet wide, after;
  {
    rcupool::Width w(m, 4);
    ASSERT_TRUE(w);
    EXPECT_EQ(w.error(), 0);
    EXPECT_EQ(w.threads(), 4u);
    EXPECT_EQ(Pins(m), 1u);
    EXPECT_EQ(m.manager().threads(), 1u);  // the current pool is unchanged
    ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { wide.Record(); }, 64),
              0);
  }
  EXPECT_GT(wide.ids.size(), 1u);  // the 4-thread pool, not the current 1
  EXPECT_LE(wide.ids.size(), 4u);
  EXPECT_EQ(Pins(m), 0u);
  // The scope was left: work runs on the current 1-thread pool again.
  ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { after.Record(); }, 16), 0);
  EXPECT_EQ(after.ids.size(), 1u);
  ASSERT_EQ(m.manager().barrier(), 0);
  EXPECT_EQ(StatsOf(m).pools_alive, 1u);
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppWidth, FailedPinReportsErrorEntersNoScopeAndNeverAborts) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(1, m), 0);
  ThreadSet inside;
  {
    rcupool::Width w(m, RCUPOOL_MAX_THREADS + 1);
    EXPECT_FALSE(w);
    EXPECT_EQ(w.error(), -EINVAL);
    EXPECT_EQ(w.threads(), 0u);
    EXPECT_TRUE(w.pin().empty());
    EXPECT_EQ(Pins(m), 0u);
    // No scope was entered: the current pool runs the work.
    ASSERT_EQ(
        rcupool::parallelize_1d(m, [&](size_t) { inside.Record(); }, 16), 0);
  }
  EXPECT_EQ(inside.ids.size(), 1u);
  rcupool::Width none(rcupool::Manager(), 2);
  EXPECT_EQ(none.error(), -EINVAL);
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppWidth, NestedWidthsInnermostWinsAndEachUnpins) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(2, m), 0);
  ThreadSet inner, outer;
  {
    rcupool::Width four(m, 4);
    ASSERT_TRUE(four);
    {
      rcupool::Width one(m, 1);
      ASSERT_TRUE(one);
      EXPECT_EQ(Pins(m), 2u);
      ASSERT_EQ(
          rcupool::parallelize_1d(m, [&](size_t) { inner.Record(); }, 32), 0);
    }
    EXPECT_EQ(Pins(m), 1u);
    ASSERT_EQ(
        rcupool::parallelize_1d(m, [&](size_t) { outer.Record(); }, 64), 0);
  }
  EXPECT_EQ(inner.ids.size(), 1u);
  EXPECT_GT(outer.ids.size(), 2u);  // the 4-thread pool, not the current 2
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppWithThreads, RunsTheCallableOnThatWidthAndReturnsZero) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(1, m), 0);
  ThreadSet ids;
  size_t pins_inside = 0;
  int rc = rcupool::with_threads(m, 3, [&] {
    pins_inside = Pins(m);
    EXPECT_EQ(rcupool::parallelize_1d(m, [&](size_t) { ids.Record(); }, 64),
              0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(pins_inside, 1u);
  EXPECT_GT(ids.ids.size(), 1u);
  EXPECT_LE(ids.ids.size(), 3u);
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppWithThreads, FailedPinReturnsTheErrorAndDoesNotCall) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(1, m), 0);
  bool called = false;
  EXPECT_EQ(rcupool::with_threads(m, RCUPOOL_MAX_THREADS + 1,
                                  [&] { called = true; }),
            -EINVAL);
  EXPECT_FALSE(called);
  EXPECT_EQ(Pins(m), 0u);
  EXPECT_EQ(m.destroy(), 0);
}

TEST(RcupoolHppWithThreads, ProcessManagerFormLeavesTheGlobalCount) {
  rcupool::Manager p = rcupool::Manager::process();
  ASSERT_TRUE(p);
  const size_t before = p.threads();
  size_t inside = 0;
  EXPECT_EQ(rcupool::with_threads(2, [&] { inside = Pins(p); }), 0);
  EXPECT_EQ(inside, 1u);
  EXPECT_EQ(p.threads(), before);
  EXPECT_EQ(Pins(p), 0u);
}

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
TEST(RcupoolHppWithThreads, ExceptionPropagatesAfterScopeAndPinAreReleased) {
  rcupool::OwnedManager m;
  ASSERT_EQ(CreateKeepingNoWarmPool(1, m), 0);
  bool caught = false;
  try {
    (void)rcupool::with_threads(m, 3, [] { throw 42; });
  } catch (int v) {
    caught = v == 42;
  }
  EXPECT_TRUE(caught);
  EXPECT_EQ(Pins(m), 0u);
  ThreadSet after;  // no scope left open: the current 1-thread pool
  ASSERT_EQ(rcupool::parallelize_1d(m, [&](size_t) { after.Record(); }, 16), 0);
  EXPECT_EQ(after.ids.size(), 1u);
  EXPECT_EQ(m.destroy(), 0);
}
#endif
