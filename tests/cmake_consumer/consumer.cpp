// SPDX-License-Identifier: LGPL-2.1-or-later
// The consumer of tests/cmake_consumer: the process-wide manager through
// rcupool.hpp, through resets. A "method" pins the pool at load and runs
// its kernels (a lambda given to parallelize_1d) inside its Scope; resets
// happen between loads and runs. Checks every sum, that each method stays
// on the pool it pinned, and that once every pin is dropped only the
// current pool is left. Prints "consumer ok" and exits 0 only then.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <rcupool/rcupool.hpp>

namespace {

int failures = 0;
void check(bool ok, const char *what, std::size_t detail = 0) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s (%zu)\n", what, detail);
    failures++;
  }
}

struct Method {
  rcupool::Pin pin;
  std::size_t planned_threads = 0;
};

// A method's run: every index once, the right total, on its own pool.
void run(rcupool::Manager m, const Method &method, std::size_t n) {
  std::atomic<std::uint64_t> total{0};
  std::vector<std::atomic<int>> hits(n);
  std::mutex mu;
  std::set<std::thread::id> threads;
  rcupool::Scope scope(method.pin);
  int err = rcupool::parallelize_1d(
      m,
      [&](std::size_t i) {
        hits[i].fetch_add(1, std::memory_order_relaxed);
        total.fetch_add(3 * i + 1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> g(mu);
        threads.insert(std::this_thread::get_id());
      },
      n);
  check(err == 0, "parallelize_1d");
  std::size_t once = 0;
  for (auto &h : hits) once += h.load() == 1;
  check(once == n, "every index once", once);
  check(total.load() == 3 * (n * (n - 1) / 2) + n, "total");
  // At most the pinned pool's threads took part (the caller is one of them).
  check(threads.size() <= method.planned_threads, "ran on the pinned pool",
        threads.size());
  check(method.pin.threads() == method.planned_threads, "pin keeps its size");
}

}  // namespace

int main() {
  rcupool::Manager m = rcupool::Manager::process();
  if (!m) {
    std::fprintf(stderr, "FAIL: no process manager\n");
    return 1;
  }
  std::vector<Method> methods;
  for (std::size_t size : {2u, 1u, 3u, 2u, 4u, 1u}) {
    check(m.reset(size) == 0, "reset", size);
    Method method;
    check(rcupool::Pin::current(m, method.pin) == 0, "pin", size);
    method.planned_threads = method.pin.threads();
    check(method.planned_threads == size, "pinned size", size);
    methods.push_back(std::move(method));
    // Every method loaded so far runs after this reset, on its own pool.
    for (const Method &old : methods) run(m, old, 2000);
  }
  check(!methods.front().pin.is_current(), "the first method is stale");
  // The first pool (the machine's default count) is warm if no size above
  // is that count: let it go, so the pools counted are the pinned ones.
  check(m.trim() >= 0, "trim");
  rcupool_stats_t s{};
  check(m.stats(s) == 0, "stats");
  check(s.pins == methods.size(), "pins held", s.pins);
  check(s.pools_alive == 4, "one pool per size alive", s.pools_alive);

  {
    rcupool::ReadGuard g;
    check(g.current(m) != nullptr, "current pool in a section");
  }
  methods.clear();  // ~Pin: every pin released exactly once
  check(m.barrier() == 0, "barrier");
  check(m.trim() >= 0, "trim");  // the sizes used are kept warm otherwise
  check(m.stats(s) == 0, "stats");
  check(s.pins == 0, "no pins left", s.pins);
  check(s.pools_alive == 1, "only the current pool left", s.pools_alive);
  if (failures != 0) return 1;
  std::printf("consumer ok: %s library, %llu resets, %llu reuses, %zu threads\n",
              RCUPOOL_CONSUMER_LINK, (unsigned long long)s.resets,
              (unsigned long long)s.reuses, m.threads());
  return 0;
}
