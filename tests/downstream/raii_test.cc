// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool.hpp from a downstream workspace, built with Bazel's default C++
// standard (no copt in BUILD or .bazelrc: Bazel 4.2.3 compiles C++ as
// -std=c++0x): an OwnedManager, a Pin that keeps its pool across a reset,
// a Scope that runs parallelize_1d on it, a ReadGuard, and Pin's move.
// Exits non-zero on the first failure.
#include <atomic>
#include <cstdio>
#include <utility>

#include <rcupool/rcupool.hpp>

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,       \
                   __LINE__, #cond);                                     \
      return 1;                                                          \
    }                                                                    \
  } while (0)

namespace {

std::size_t pins(rcupool::Manager m) {
  rcupool_stats_t s{};
  return m.stats(s) == 0 ? s.pins : ~std::size_t(0);
}

}  // namespace

int main() {
  std::printf("__cplusplus %ld\n", static_cast<long>(__cplusplus));
  rcupool::OwnedManager owned;
  CHECK(rcupool::OwnedManager::create(2, owned) == 0);
  rcupool::Manager m = owned;
  {
    rcupool::Pin pin;
    CHECK(pin.empty());
    CHECK(rcupool::Pin::current(m, pin) == 0);
    CHECK(m.reset(3) == 0);
    CHECK(pin.threads() == 2 && !pin.is_current() && m.threads() == 3);
    std::atomic<long> sum(0);
    {
      rcupool::Scope scope(pin);  // the pinned pool, not the current one
      CHECK(rcupool::parallelize_1d(
                m, [&sum](std::size_t i) { sum += static_cast<long>(i); },
                1000) == 0);
    }
    CHECK(sum.load() == 499500);
    rcupool::Pin moved(std::move(pin));
    CHECK(pin.empty() && moved.threads() == 2);  // NOLINT(bugprone-use-after-move)
    CHECK(pins(m) == 1);
    {
      rcupool::ReadGuard guard;
      CHECK(guard.current(m) != nullptr);
    }
  }  // ~Pin: unpinned once
  CHECK(pins(m) == 0);
  CHECK(m.barrier() == 0);
  rcupool::OwnedManager other(std::move(owned));
  CHECK(!owned && other);  // NOLINT(bugprone-use-after-move)
  CHECK(other.destroy() == 0);
  std::printf("raii ok\n");
  return 0;
}
