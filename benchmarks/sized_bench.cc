// SPDX-License-Identifier: LGPL-2.1-or-later
// rcupool_pin_sized against the calls it stands beside.
//
//   BM_Pin_Rcupool                   rcupool_pin + rcupool_unpin of the
//                                    current pool (the reference of the two
//                                    rows below), 1 to ncpu threads
//                                    (thread_sweep.h), as the two below
//   BM_PinSized_CurrentSize          rcupool_pin_sized of the current size
//                                    + unpin (the pool is the current one)
//   BM_PinSized_LiveSize             rcupool_pin_sized of a size that is
//                                    not current but alive (another pin
//                                    holds a never-current pool of it)
//                                    + unpin: the search under the lock
//   BM_PinSized_StartPool/<n>        rcupool_pin_sized(n) when no pool of n
//                                    is alive: it starts one; timed beside
//                                    pthreadpool_create(n)
//                                    (paired_create.h), the counter
//                                    sized_over_create is the paired ratio.
//                                    The unpin and the free (barrier) are
//                                    outside the timed region; warm widths
//                                    are off (RCUPOOL_WARM_NONE), so the
//                                    barrier frees the pool. A pin of a
//                                    warm width: warm_bench.
//
// Targets: the two pin rows at most 2x BM_Pin_Rcupool; the start row at
// most 1.1x pthreadpool_create.
#include <chrono>

#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <rcupool/rcupool.h>

#include "benchmarks/paired_create.h"
#include "benchmarks/thread_sweep.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// One manager of 2 threads for the pin rows (all threads of a row share
// it), and a never-current pool of 1 thread kept alive by a pin.
struct Shared {
  rcupool_t *m = nullptr;
  rcupool_pin_t keep_one{};
  Shared() {
    rcupool_options_t o{};
    o.threads = 2;
    if (rcupool_create(&o, &m) != 0) m = nullptr;
    if (m != nullptr && rcupool_pin_sized(m, 1, &keep_one) != 0) m = nullptr;
  }
};

Shared &TheShared() {
  static Shared *s = new Shared();
  return *s;
}

void BM_Pin_Rcupool(benchmark::State &state) {
  rcupool_t *m = TheShared().m;
  if (m == nullptr) return state.SkipWithError("setup failed");
  rcupool_pin_t pin{};
  for (auto _ : state) {
    rcupool_pin(m, &pin);
    benchmark::DoNotOptimize(rcupool_pin_pthreadpool(&pin));
    rcupool_unpin(&pin);
  }
}

void PinSizedLoop(benchmark::State &state, size_t n, bool want_current) {
  rcupool_t *m = TheShared().m;
  if (m == nullptr) return state.SkipWithError("setup failed");
  rcupool_pin_t pin{};
  for (auto _ : state) {
    rcupool_pin_sized(m, n, &pin);
    benchmark::DoNotOptimize(rcupool_pin_pthreadpool(&pin));
    rcupool_unpin(&pin);
  }
  // An honest loop: the pin held the pool it should have.
  rcupool_pin_sized(m, n, &pin);
  bool ok = rcupool_pin_threads(&pin) == n &&
            rcupool_pin_is_current(&pin) == want_current;
  rcupool_unpin(&pin);
  if (!ok) state.SkipWithError("sized pin did not hold the expected pool");
}

void BM_PinSized_CurrentSize(benchmark::State &state) {
  PinSizedLoop(state, 2, true);
}

void BM_PinSized_LiveSize(benchmark::State &state) {
  PinSizedLoop(state, 1, false);
}

void BM_PinSized_StartPool(benchmark::State &state) {
  const size_t n = static_cast<size_t>(state.range(0));
  rcupool_options_t o{};
  o.threads = 1;
  // Warm widths off: the unpinned pool goes at the barrier, so the next
  // sized pin of n starts one again (with them on it would find it warm).
  o.warm_pools = RCUPOOL_WARM_NONE;
  rcupool_t *m = nullptr;
  if (rcupool_create(&o, &m) != 0) return state.SkipWithError("create failed");
  rcupool_stats_t s0{};
  rcupool_get_stats(m, &s0);
  bool ran = rcupool_bench::PairedWithCreate(
      state, n, "pin_sized failed", "sized_over_create", [&] {
        rcupool_pin_t pin{};
        auto t0 = Clock::now();
        int err = rcupool_pin_sized(m, n, &pin);
        auto t1 = Clock::now();
        if (err != 0) return -1.0;
        rcupool_unpin(&pin);
        rcupool_barrier(m);  // the pool is freed (threads joined)
        return Seconds(t0, t1);
      });
  rcupool_stats_t s1{};
  rcupool_get_stats(m, &s1);
  if (ran && s1.pools_created - s0.pools_created <
                 static_cast<uint64_t>(state.iterations()))
    state.SkipWithError("a timed sized pin did not start a pool");
  rcupool_destroy(m);
}

using rcupool_bench::MaxThreads;
BENCHMARK(BM_Pin_Rcupool)->DenseThreadRange(1, MaxThreads())->UseRealTime();
BENCHMARK(BM_PinSized_CurrentSize)
    ->DenseThreadRange(1, MaxThreads())
    ->UseRealTime();
BENCHMARK(BM_PinSized_LiveSize)
    ->DenseThreadRange(1, MaxThreads())
    ->UseRealTime();
BENCHMARK(BM_PinSized_StartPool)
    ->Arg(2)
    ->Arg(4)
    ->Arg(8)
    ->Iterations(20)
    ->UseManualTime();

}  // namespace
