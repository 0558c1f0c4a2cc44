// SPDX-License-Identifier: LGPL-2.1-or-later
// Pools as views (issue 40): on a pthreadpool with the executor API
// (tools/setup.sh --deps newest; bazel -c opt --config=newest), rcupool's
// pools are pthreadpool_create_v2 views over the manager's set of threads
// (lib/executor.c). Each row is measured beside the path of pools that own
// their threads, which is Debian 12's: pthreadpool_create(n) on the same
// pthreadpool, in the same run.
//
//   BM_ResetNewWidth_View/<n>   rcupool_reset(m, n) from 1 (warm widths
//       off, so each reset makes a new pool: a view) while a pool of 16 is
//       pinned, so the set has the threads
//   BM_ResetNewWidth_ViewGrow/<n>  the same with nothing wider alive: the
//       set starts the view's threads (and lets them go with it)
//   BM_ResetNewWidth_Owned/<n>  pthreadpool_create(n) and one dispatch of n
//       items (the start of a pool that owns its threads; its destroy is
//       not timed). Counter p50_ms: the median iteration, in ms.
//   BM_ThreadsWarm_View / _Owned  widths 1, 2, 4 and 8 alive at once:
//       rcupool pins of each (views), or four pthreadpool_create pools.
//       Counter workers: the OS threads they added (/proc/self/task).
//   BM_Dispatch_View/<tasks>   pthreadpool_parallelize_1d on rcupool's
//       view (one thread per CPU, RCUPOOL_IDLE_SPIN: flags 0)
//   BM_Dispatch_RcupoolView/<tasks>  rcupool_parallelize_1d on it
//   BM_Dispatch_Owned/<tasks>  pthreadpool_parallelize_1d on a
//       pthreadpool_create pool of the same width, flags 0
//       tasks: tiny (one store per thread), tiny_tasks (1024 stores),
//       10us_tasks (32 tasks of ~10 us, calibrated at start-up).
//   BM_IdleCpu_View/<policy>   one tiny dispatch through rcupool (yield or
//       spin policy), then the process's CPU time over the next 50 ms; the
//       iteration time (manual) is that CPU time.
//   BM_IdleCpu_Owned/spin      the same on a pthreadpool_create pool,
//       flags 0 (its workers spin).
// Without the executor API every row skips, saying so.
#include <dirent.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <rcupool/rcupool.h>

#include "benchmarks/spin.h"
#include "benchmarks/thread_sweep.h"

namespace {

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
constexpr bool kViews = true;
#else
constexpr bool kViews = false;
#endif
#define SKIP_WITHOUT_VIEWS(state)                                           \
  if (!kViews)                                                              \
  return state.SkipWithError(                                               \
      "this pthreadpool has no executor API: build with --config=newest")

int OsThreads() {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  if (d == nullptr) return -1;
  while (struct dirent *e = readdir(d))
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

double Seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

rcupool_t *NewManager(size_t threads, rcupool_idle_t idle, uint32_t warm) {
  rcupool_options_t opts{};
  opts.threads = threads;
  opts.idle = idle;
  opts.warm_pools = warm;
  rcupool_t *m = nullptr;
  return rcupool_create(&opts, &m) == 0 ? m : nullptr;
}

void Nop(void *, size_t) {}

void SetP50(benchmark::State &state, std::vector<double> &ms) {
  if (ms.empty()) return;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  state.counters["p50_ms"] = ms[ms.size() / 2];
}

// A reset 1 -> n on a manager that keeps no warm pool; `wider` pins a pool
// of 16 meanwhile (a view another user holds), so the set has the threads
// and the new view borrows them; without it the set must start them.
void ResetNewWidth(benchmark::State &state, bool wider) {
  SKIP_WITHOUT_VIEWS(state);
  size_t n = static_cast<size_t>(state.range(0));
  rcupool_t *m = NewManager(n, RCUPOOL_IDLE_YIELD, RCUPOOL_WARM_NONE);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  rcupool_pin_t held = {};
  if (wider && rcupool_pin_sized(m, 16, &held) != 0)
    return state.SkipWithError("rcupool_pin_sized failed");
  std::vector<double> ms;
  for (auto _ : state) {
    state.PauseTiming();
    rcupool_reset(m, 1);
    rcupool_barrier(m);
    double t0 = Seconds(CLOCK_MONOTONIC);
    state.ResumeTiming();
    if (rcupool_reset(m, n) != 0) state.SkipWithError("reset failed");
    ms.push_back((Seconds(CLOCK_MONOTONIC) - t0) * 1e3);
  }
  SetP50(state, ms);
  if (wider) rcupool_unpin(&held);
  rcupool_destroy(m);
}

void BM_ResetNewWidth_View(benchmark::State &state) {
  ResetNewWidth(state, true);
}

void BM_ResetNewWidth_ViewGrow(benchmark::State &state) {
  ResetNewWidth(state, false);
}

void BM_ResetNewWidth_Owned(benchmark::State &state) {
  SKIP_WITHOUT_VIEWS(state);
  size_t n = static_cast<size_t>(state.range(0));
  std::vector<double> ms;
  for (auto _ : state) {
    double t0 = Seconds(CLOCK_MONOTONIC);
    pthreadpool_t tp = pthreadpool_create(n);
    pthreadpool_parallelize_1d(tp, Nop, nullptr, n, 0);
    ms.push_back((Seconds(CLOCK_MONOTONIC) - t0) * 1e3);
    state.PauseTiming();
    pthreadpool_destroy(tp);
    state.ResumeTiming();
  }
  SetP50(state, ms);
}

constexpr size_t kWidths[] = {1, 2, 4, 8};

void BM_ThreadsWarm_View(benchmark::State &state) {
  SKIP_WITHOUT_VIEWS(state);
  for (auto _ : state) {
    state.PauseTiming();
    rcupool_t *m = NewManager(1, RCUPOOL_IDLE_YIELD, RCUPOOL_WARM_NONE);
    if (m == nullptr) return state.SkipWithError("rcupool_create failed");
    rcupool_reset(m, 2);  // the reclaim thread starts at the first retire
    rcupool_reset(m, 1);
    rcupool_barrier(m);  // the pool of 2 goes, and its set's thread
    int base = OsThreads();
    state.ResumeTiming();
    rcupool_pin_t pins[4] = {};
    for (int i = 0; i < 4; i++) rcupool_pin_sized(m, kWidths[i], &pins[i]);
    for (auto &p : pins)
      pthreadpool_parallelize_1d(rcupool_pin_pthreadpool(&p), Nop, nullptr,
                                 64, 0);
    state.PauseTiming();
    state.counters["workers"] = OsThreads() - base;
    for (auto &p : pins) rcupool_unpin(&p);
    rcupool_destroy(m);
    state.ResumeTiming();
  }
}

void BM_ThreadsWarm_Owned(benchmark::State &state) {
  SKIP_WITHOUT_VIEWS(state);
  for (auto _ : state) {
    int base = OsThreads();
    pthreadpool_t tps[4];
    for (int i = 0; i < 4; i++) tps[i] = pthreadpool_create(kWidths[i]);
    state.counters["workers"] = OsThreads() - base;
    for (auto tp : tps) pthreadpool_destroy(tp);
  }
}

enum class Tasks { kTiny, kTinyTasks, kTenMicroseconds };

using Work = rcupool_bench::SpinWork;
constexpr auto Task = rcupool_bench::SpinTask;

Work MakeWork(Tasks t) {
  size_t threads = static_cast<size_t>(rcupool_bench::MaxThreads());
  size_t n = t == Tasks::kTiny ? threads : t == Tasks::kTinyTasks ? 1024 : 32;
  return Work{std::vector<uint64_t>(n, 0), t == Tasks::kTenMicroseconds};
}

void Check(benchmark::State &state, const Work &w) {
  if (!rcupool_bench::SpinOutputsRight(w))
    return state.SkipWithError("a task's output is wrong");
  state.counters["pool_threads"] = rcupool_bench::MaxThreads();
}

rcupool_t *SpinManager() {
  static rcupool_t *m = [] {
    rcupool_bench::SpinSteps() = rcupool_bench::CalibrateSpinSteps(10e3, 1e6);
    return NewManager(static_cast<size_t>(rcupool_bench::MaxThreads()),
                      RCUPOOL_IDLE_SPIN, 0);
  }();
  return m;
}

void BM_Dispatch_View(benchmark::State &state, Tasks t) {
  SKIP_WITHOUT_VIEWS(state);
  rcupool_t *m = SpinManager();
  Work w = MakeWork(t);
  rcupool_pin_t pin = {};
  rcupool_pin(m, &pin);
  pthreadpool_t tp = rcupool_pin_pthreadpool(&pin);
  for (auto _ : state) pthreadpool_parallelize_1d(tp, Task, &w, w.out.size(), 0);
  rcupool_unpin(&pin);
  Check(state, w);
}

void BM_Dispatch_RcupoolView(benchmark::State &state, Tasks t) {
  SKIP_WITHOUT_VIEWS(state);
  rcupool_t *m = SpinManager();
  Work w = MakeWork(t);
  for (auto _ : state) rcupool_parallelize_1d(m, Task, &w, w.out.size(), 0);
  Check(state, w);
}

void BM_Dispatch_Owned(benchmark::State &state, Tasks t) {
  SKIP_WITHOUT_VIEWS(state);
  SpinManager();  // the calibration
  Work w = MakeWork(t);
  pthreadpool_t tp =
      pthreadpool_create(static_cast<size_t>(rcupool_bench::MaxThreads()));
  for (auto _ : state) pthreadpool_parallelize_1d(tp, Task, &w, w.out.size(), 0);
  pthreadpool_destroy(tp);
  Check(state, w);
}

// One tiny dispatch, then the CPU time of the next 50 ms, per iteration.
template <class Dispatch>
void IdleCpu(benchmark::State &state, Dispatch dispatch) {
  for (auto _ : state) {
    dispatch();
    double before = Seconds(CLOCK_PROCESS_CPUTIME_ID);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    double cpu = Seconds(CLOCK_PROCESS_CPUTIME_ID) - before;
    state.SetIterationTime(cpu);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // quiet
  }
}

void BM_IdleCpu_View(benchmark::State &state, rcupool_idle_t idle) {
  SKIP_WITHOUT_VIEWS(state);
  size_t n = static_cast<size_t>(rcupool_bench::MaxThreads());
  rcupool_t *m = NewManager(n, idle, 0);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  IdleCpu(state, [&] { rcupool_parallelize_1d(m, Nop, nullptr, n, 0); });
  rcupool_destroy(m);
}

void BM_IdleCpu_Owned(benchmark::State &state, uint32_t flags) {
  SKIP_WITHOUT_VIEWS(state);
  size_t n = static_cast<size_t>(rcupool_bench::MaxThreads());
  pthreadpool_t tp = pthreadpool_create(n);
  IdleCpu(state,
          [&] { pthreadpool_parallelize_1d(tp, Nop, nullptr, n, flags); });
  pthreadpool_destroy(tp);
}

BENCHMARK(BM_ResetNewWidth_View)->Arg(4)->Arg(8)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ResetNewWidth_ViewGrow)->Arg(4)->Arg(8)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ResetNewWidth_Owned)->Arg(4)->Arg(8)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ThreadsWarm_View)->Iterations(3)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ThreadsWarm_Owned)->Iterations(3)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Dispatch_View, tiny, Tasks::kTiny)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_View, tiny_tasks, Tasks::kTinyTasks)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_View, 10us_tasks, Tasks::kTenMicroseconds)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_RcupoolView, tiny, Tasks::kTiny)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_RcupoolView, tiny_tasks, Tasks::kTinyTasks)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_RcupoolView, 10us_tasks, Tasks::kTenMicroseconds)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_Owned, tiny, Tasks::kTiny)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_Owned, tiny_tasks, Tasks::kTinyTasks)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dispatch_Owned, 10us_tasks, Tasks::kTenMicroseconds)->UseRealTime();
BENCHMARK_CAPTURE(BM_IdleCpu_View, yield, RCUPOOL_IDLE_YIELD)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IdleCpu_View, spin, RCUPOOL_IDLE_SPIN)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_IdleCpu_Owned, spin, 0u)->Iterations(10)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
