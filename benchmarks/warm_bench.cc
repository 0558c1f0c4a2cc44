// SPDX-License-Identifier: LGPL-2.1-or-later
// Warm widths (rcupool_set_warm(), rcupool_trim()): a per-call width guard
// at a width nobody holds, and the pools a guard churn leaves alive.
//
//   BM_Guard/<width>            the width guard: rcupool_pin_sized(3) +
//   BM_GuardDispatch/<width>    rcupool_scope_enter + rcupool_scope_exit +
//                               rcupool_unpin; GuardDispatch adds, inside
//                               the scope, a tiny rcupool_parallelize_1d
//                               (one store per thread of the pool).
//       current_width   the manager's current pool is 3 wide (the
//                       reference: the guard is a lookup of the current
//                       pool)
//       warm_width      the current pool is 2 wide and nothing else holds
//                       width 3: the guard's first use (untimed) started a
//                       pool of 3, the manager keeps it warm, every timed
//                       guard finds it (counter pools_started_per_guard, 0)
//       cold_width      the same with warm widths off (RCUPOOL_WARM_NONE)
//                       and an rcupool_barrier() after each guard
//                       (untimed): every guard starts a pool of 3, as each
//                       one did before warm widths. Manual time, fixed
//                       iteration count.
//   The current and warm rows run from 1 to ncpu calling threads
//   (thread_sweep.h). Target: warm_width at most 2x current_width.
//
//   BM_GuardChurn/<warm>        4 threads each run guards (sized pin, scope,
//       a tiny dispatch, unpin) of widths 1..8 in turn, a fifth resets the
//       manager to 1..8 in a loop, for kChurnSeconds; a sampler thread
//       reads rcupool_get_stats() and /proc/self/task every millisecond.
//       warm: warm_default (warm_ms and warm_pools 0: the defaults) or
//       warm_none (RCUPOOL_WARM_NONE). Counters: pools_created during the
//       churn, guards and resets done, the peaks of pools_alive,
//       threads_alive, pools_idle and of the process's OS threads,
//       pools_alive_end when the churn stops, and pools_alive_trimmed after
//       rcupool_trim() + rcupool_barrier() (1: only the current pool). The
//       iteration time (manual) is the churn's wall time.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>

#include "benchmarks/thread_sweep.h"
#include "tools/os_threads.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kGuardWidth = 3;
constexpr size_t kChurnWidths = 8;
constexpr int kChurnGuards = 4;
constexpr double kChurnSeconds = 2.0;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

rcupool_t *Create(size_t threads, uint32_t warm_pools) {
  rcupool_options_t o{};
  o.threads = threads;
  o.warm_pools = warm_pools;
  rcupool_t *m = nullptr;
  return rcupool_create(&o, &m) == 0 ? m : nullptr;
}

rcupool_stats_t Stats(rcupool_t *m) {
  rcupool_stats_t s{};
  rcupool_get_stats(m, &s);
  return s;
}

enum class Width { kCurrent, kWarm, kCold };

// The guard rows' managers, one per kind, for the whole program (all
// calling threads of a row share theirs).
rcupool_t *GuardManager(Width w) {
  static rcupool_t *current = Create(kGuardWidth, 0);
  static rcupool_t *warm = Create(2, 0);
  static rcupool_t *cold = Create(2, RCUPOOL_WARM_NONE);
  return w == Width::kCurrent ? current : w == Width::kWarm ? warm : cold;
}

void Store(void *ctx, size_t i) {
  static_cast<std::atomic<size_t> *>(ctx)[i].store(i + 1,
                                                   std::memory_order_relaxed);
}

// One guard of `width` on m; with `dispatch`, a tiny parallel call inside.
// Returns false when the sized pin failed.
bool Guard(rcupool_t *m, size_t width, bool dispatch,
           std::atomic<size_t> *out) {
  rcupool_pin_t pin{};
  if (rcupool_pin_sized(m, width, &pin) != 0) return false;
  rcupool_scope_enter(&pin);
  if (dispatch) rcupool_parallelize_1d(m, Store, out, width, 0);
  benchmark::DoNotOptimize(pin);
  rcupool_scope_exit();
  rcupool_unpin(&pin);
  return true;
}

void GuardRow(benchmark::State &state, Width w, bool dispatch) {
  rcupool_t *m = GuardManager(w);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  std::atomic<size_t> out[kGuardWidth] = {};
  // The first use, untimed: the warm row's pool of 3 starts here (or is
  // still warm from the last repetition).
  if (!Guard(m, kGuardWidth, false, out))
    return state.SkipWithError("sized pin failed");
  if (w == Width::kCold) rcupool_barrier(m);  // the first guard's pool goes
  const uint64_t created = Stats(m).pools_created;
  for (auto _ : state) {
    if (w == Width::kCold) {
      auto t0 = Clock::now();
      bool ok = Guard(m, kGuardWidth, dispatch, out);
      auto t1 = Clock::now();
      if (!ok) return state.SkipWithError("sized pin failed");
      state.SetIterationTime(Seconds(t0, t1));
      rcupool_barrier(m);  // the pool is freed: the next guard starts one
    } else if (!Guard(m, kGuardWidth, dispatch, out)) {
      return state.SkipWithError("sized pin failed");
    }
  }
  if (dispatch)
    for (size_t i = 0; i < kGuardWidth; i++)
      if (out[i].load() != i + 1)
        return state.SkipWithError("a task's output is wrong");
  if (state.thread_index() != 0) return;
  const double started = static_cast<double>(Stats(m).pools_created - created);
  state.counters["pools_started_per_guard"] =
      started / static_cast<double>(state.iterations());
  // An honest row: the cold guards each started a pool, the others none.
  if (w == Width::kCold && started < state.iterations())
    state.SkipWithError("a cold guard did not start a pool");
  if (w == Width::kCurrent && started != 0)
    state.SkipWithError("a guard of the current width started a pool");
}

void BM_Guard(benchmark::State &state, Width w) { GuardRow(state, w, false); }
void BM_GuardDispatch(benchmark::State &state, Width w) {
  GuardRow(state, w, true);
}

// Peaks of what the sampler reads.
struct Peaks {
  size_t pools_alive = 0, threads_alive = 0, pools_idle = 0, os_threads = 0;
};

void BM_GuardChurn(benchmark::State &state, uint32_t warm_pools) {
  for (auto _ : state) {
    rcupool_t *m = Create(2, warm_pools);
    if (m == nullptr) return state.SkipWithError("rcupool_create failed");
    const uint64_t created = Stats(m).pools_created;
    std::atomic<bool> stop{false}, failed{false};
    std::atomic<uint64_t> guards{0}, resets{0};
    Peaks peaks;
    std::vector<std::thread> threads;
    threads.emplace_back([&] {  // the sampler
      while (!stop.load()) {
        rcupool_stats_t s = Stats(m);
        peaks.pools_alive = std::max(peaks.pools_alive, s.pools_alive);
        peaks.threads_alive = std::max(peaks.threads_alive, s.threads_alive);
        peaks.pools_idle = std::max(peaks.pools_idle, s.pools_idle);
        peaks.os_threads = std::max(peaks.os_threads, os_thread_count());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    auto t0 = Clock::now();
    for (int g = 0; g < kChurnGuards; g++)
      threads.emplace_back([&, g] {
        std::atomic<size_t> out[kChurnWidths] = {};
        uint64_t n = 0;
        for (size_t k = static_cast<size_t>(g) * 2; !stop.load(); k++, n++)
          if (!Guard(m, k % kChurnWidths + 1, true, out)) failed.store(true);
        guards.fetch_add(n);
      });
    threads.emplace_back([&] {  // the resetter
      uint64_t n = 0;
      for (size_t k = 0; !stop.load(); k++, n++)
        if (rcupool_reset(m, k % kChurnWidths + 1) != 0) failed.store(true);
      resets.fetch_add(n);
    });
    std::this_thread::sleep_for(
        std::chrono::duration<double>(kChurnSeconds));
    stop.store(true);
    for (size_t i = 1; i < threads.size(); i++) threads[i].join();
    auto t1 = Clock::now();
    threads[0].join();
    state.SetIterationTime(Seconds(t0, t1));
    rcupool_stats_t end = Stats(m);
    rcupool_trim(m);
    rcupool_barrier(m);
    rcupool_stats_t trimmed = Stats(m);
    rcupool_destroy(m);
    if (failed.load())
      return state.SkipWithError("a sized pin or a reset failed");
    state.counters["pools_created"] =
        static_cast<double>(end.pools_created - created);
    state.counters["guards"] = static_cast<double>(guards.load());
    state.counters["resets"] = static_cast<double>(resets.load());
    state.counters["pools_alive_peak"] = static_cast<double>(peaks.pools_alive);
    state.counters["threads_alive_peak"] =
        static_cast<double>(peaks.threads_alive);
    state.counters["pools_idle_peak"] = static_cast<double>(peaks.pools_idle);
    state.counters["os_threads_peak"] = static_cast<double>(peaks.os_threads);
    state.counters["pools_alive_end"] = static_cast<double>(end.pools_alive);
    state.counters["pools_alive_trimmed"] =
        static_cast<double>(trimmed.pools_alive);
  }
}

using rcupool_bench::MaxThreads;
BENCHMARK_CAPTURE(BM_Guard, current_width, Width::kCurrent)
    ->DenseThreadRange(1, MaxThreads())
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Guard, warm_width, Width::kWarm)
    ->DenseThreadRange(1, MaxThreads())
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Guard, cold_width, Width::kCold)
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GuardDispatch, current_width, Width::kCurrent)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GuardDispatch, warm_width, Width::kWarm)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GuardDispatch, cold_width, Width::kCold)
    ->Iterations(20)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GuardChurn, warm_default, 0u)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GuardChurn, warm_none, RCUPOOL_WARM_NONE)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
