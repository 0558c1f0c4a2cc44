// SPDX-License-Identifier: LGPL-2.1-or-later
// Dispatch: rcupool_parallelize_1d against pthreadpool_parallelize_1d on the
// very same pool (the manager's current pool, one thread per CPU and at
// least 2: thread_sweep.h), for tiny tasks and for tasks of about 10 us.
//
//   BM_Dispatch_Pthreadpool/<tasks>     pthreadpool_parallelize_1d directly
//   BM_Dispatch_Rcupool/<tasks>         rcupool_parallelize_1d, no scope (the
//                                       pool is read inside a section)
//   BM_Dispatch_RcupoolScoped/<tasks>   the same inside a pin's scope
//
// tasks tiny_tasks: 1024 tasks of one store each; 10us_tasks: 32 tasks of
// ~10 us (a fixed amount of arithmetic, calibrated once at start-up so that
// every variant runs the same work). Each benchmark checks every task's
// output. One calling thread; the counter pool_threads is the pool's width.
// The manager's idle policy is RCUPOOL_IDLE_SPIN, so both calls pass
// pthreadpool the same flags (0): this compares rcupool's dispatch with
// pthreadpool's, not the policies (idle_bench does).
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>

#include "benchmarks/spin.h"
#include "benchmarks/thread_sweep.h"

namespace {

constexpr size_t kTinyRange = 1024;
constexpr size_t kSpinRange = 32;

using rcupool_bench::SpinTask;
using Work = rcupool_bench::SpinWork;

// Chooses the spin steps so that one task takes about 10 us on this machine.
void Calibrate() {
  rcupool_bench::SpinSteps() = rcupool_bench::CalibrateSpinSteps(10e3, 1e6);
}

enum class Tasks { kTiny, kTenMicroseconds };

Work MakeWork(Tasks tasks) {
  bool spin = tasks == Tasks::kTenMicroseconds;
  return Work{std::vector<uint64_t>(spin ? kSpinRange : kTinyRange, 0), spin};
}

rcupool_t *Manager() {
  static rcupool_t *m = [] {
    Calibrate();
    rcupool_options_t opts{};
    opts.threads = static_cast<size_t>(rcupool_bench::MaxThreads());
    opts.idle = RCUPOOL_IDLE_SPIN;
    rcupool_t *created = nullptr;
    return rcupool_create(&opts, &created) == 0 ? created : nullptr;
  }();
  return m;
}

void Finish(benchmark::State &state, const Work &w) {
  state.counters["tasks"] = static_cast<double>(w.out.size());
  state.counters["pool_threads"] = rcupool_bench::MaxThreads();
  if (!rcupool_bench::SpinOutputsRight(w)) state.SkipWithError("a task's output is wrong");
}

void BM_Dispatch_Pthreadpool(benchmark::State &state, Tasks tasks) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  Work w = MakeWork(tasks);
  rcupool_pin_t pin = {};
  rcupool_pin(m, &pin);
  pthreadpool_t tp = rcupool_pin_pthreadpool(&pin);
  for (auto _ : state)
    pthreadpool_parallelize_1d(tp, SpinTask, &w, w.out.size(), 0);
  rcupool_unpin(&pin);
  Finish(state, w);
}

void BM_Dispatch_Rcupool(benchmark::State &state, Tasks tasks) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  Work w = MakeWork(tasks);
  for (auto _ : state) rcupool_parallelize_1d(m, SpinTask, &w, w.out.size(), 0);
  Finish(state, w);
}

void BM_Dispatch_RcupoolScoped(benchmark::State &state, Tasks tasks) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  Work w = MakeWork(tasks);
  rcupool_pin_t pin = {};
  rcupool_pin(m, &pin);
  rcupool_scope_enter(&pin);
  for (auto _ : state) rcupool_parallelize_1d(m, SpinTask, &w, w.out.size(), 0);
  rcupool_scope_exit();
  rcupool_unpin(&pin);
  Finish(state, w);
}

BENCHMARK_CAPTURE(BM_Dispatch_Pthreadpool, tiny_tasks, Tasks::kTiny)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_Pthreadpool, 10us_tasks, Tasks::kTenMicroseconds)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_Rcupool, tiny_tasks, Tasks::kTiny)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_Rcupool, 10us_tasks, Tasks::kTenMicroseconds)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_RcupoolScoped, tiny_tasks, Tasks::kTiny)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_RcupoolScoped, 10us_tasks, Tasks::kTenMicroseconds)
    ->UseRealTime();

}  // namespace
