// SPDX-License-Identifier: LGPL-2.1-or-later
// Idle workers: the CPU a pool's workers burn after a job (pthreadpool's
// workers spin before they sleep unless the call asks them to yield), and
// what yielding costs when dispatches come back to back. Both sides of the
// trade behind rcupool's idle policy (rcupool_set_idle(); benchmarks/README.md, "Idle
// workers").
//
//   BM_IdleCpu/<variant>/<threads>     one tiny dispatch, then the process's
//       CPU time over the next 50 ms (CLOCK_PROCESS_CPUTIME_ID around a
//       sleep of the calling thread, which burns next to nothing). The
//       iteration time (manual) is that CPU time. On a loaded machine a
//       spin stretches well past 50 ms of wall time: the counters also give
//       the CPU burned from the dispatch until the process is quiet again.
//   BM_CycleCpu/<variant>/<threads>    the same, counted from just before
//       the dispatch: a pool whose call returns before its borrowed
//       workers have gone back to sleep (views) moves their wake-up out of
//       the dispatch into the window; here it counts once either way.
//   BM_BackToBack/<variant>/<threads>  a batch of 200 tiny dispatches, one
//       right after the other. The iteration time (manual) is the batch's
//       wall time over 200: one dispatch.
//
// variant: pthreadpool_spin    pthreadpool_parallelize_1d, flags 0
//          pthreadpool_yield   the same with PTHREADPOOL_FLAG_YIELD_WORKERS
//          rcupool_spin        rcupool_parallelize_1d, RCUPOOL_IDLE_SPIN
//          rcupool_yield       rcupool_parallelize_1d, RCUPOOL_IDLE_YIELD
//          no_dispatch         not BM_BackToBack: no pool, no dispatch, the
//                              window's floor (the calling thread's sleep
//                              and clock reads), which every row includes
// threads: 2 and one per CPU (thread_sweep.h), once when they are equal.
// A tiny dispatch is one item per thread, each a store.
//
// Paired: every iteration also measures the baseline, pthreadpool_spin of
// the same width on a pool of its own, beside the row (which of the two
// goes first alternates), so each ratio compares measurements taken a
// fraction of a second apart, under the same load. Counters:
//   idle_cpu_ms / dispatch_us          the row, per window / per dispatch
//   baseline_idle_cpu_ms / baseline_dispatch_us   the baseline, the same
//   over_pthreadpool                   the row's sum over the baseline's
//   idle_cpu_total_ms, baseline_idle_cpu_total_ms  BM_IdleCpu, until quiet
//   idle_cpu_others_ms, baseline_idle_cpu_others_ms  BM_IdleCpu, the window
//       on every thread but the caller (its sleep is most of no_dispatch)
// "Quiet": a 10 ms sleep of the calling thread in which the process burns
// under 0.2 ms of CPU. Every measurement starts quiet (BM_IdleCpu ends with
// the wait, BM_BackToBack begins with it), so a spinning worker of one pool
// does not leak into the other's window. Fixed iteration counts: a window
// is 50 ms of wall time whatever it measures.
#include <time.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <rcupool/rcupool.h>

#include "benchmarks/thread_sweep.h"

namespace {

constexpr auto kWindow = std::chrono::milliseconds(50);
constexpr auto kQuietSlice = std::chrono::milliseconds(10);
constexpr double kQuietCpuSeconds = 0.2e-3;
constexpr auto kQuietLimit = std::chrono::seconds(3);
constexpr int kBatch = 200;

enum class Variant { kPthreadpoolSpin, kPthreadpoolYield, kRcupoolSpin,
                     kRcupoolYield, kNoDispatch };

struct Work {
  std::vector<size_t> out;
};

void Store(void *ctx, size_t i) { static_cast<Work *>(ctx)->out[i] = i + 1; }

// A pool of `threads` threads dispatched to as `v` says (kNoDispatch: none,
// and its dispatch does nothing).
class Target {
 public:
  Target(Variant v, size_t threads) : threads_(threads) {
    work_.out.assign(threads, 0);
    if (v == Variant::kNoDispatch) {
      threads_ = 0;
      ok_ = true;
    } else if (v == Variant::kPthreadpoolSpin || v == Variant::kPthreadpoolYield) {
      tp_ = pthreadpool_create(threads);
      flags_ = v == Variant::kPthreadpoolYield ? PTHREADPOOL_FLAG_YIELD_WORKERS
                                               : 0;
      ok_ = tp_ != nullptr;
    } else {
      rcupool_options_t opts{};
      opts.threads = threads;
      opts.idle = v == Variant::kRcupoolYield ? RCUPOOL_IDLE_YIELD
                                              : RCUPOOL_IDLE_SPIN;
      ok_ = rcupool_create(&opts, &m_) == 0;
    }
  }
  ~Target() {
    if (tp_ != nullptr) pthreadpool_destroy(tp_);
    if (m_ != nullptr) rcupool_destroy(m_);
  }
  Target(const Target &) = delete;
  Target &operator=(const Target &) = delete;

  bool ok() const { return ok_; }
  void Dispatch() {
    if (tp_ != nullptr)
      pthreadpool_parallelize_1d(tp_, Store, &work_, threads_, flags_);
    else if (m_ != nullptr)
      rcupool_parallelize_1d(m_, Store, &work_, threads_, 0);
  }
  bool OutputsRight() const {
    for (size_t i = 0; i < threads_; i++)
      if (work_.out[i] != i + 1) return false;
    return true;
  }

 private:
  size_t threads_;
  Work work_;
  pthreadpool_t tp_ = nullptr;
  uint32_t flags_ = 0;
  rcupool_t *m_ = nullptr;
  bool ok_ = false;
};

double CpuSeconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
double ProcessCpuSeconds() { return CpuSeconds(CLOCK_PROCESS_CPUTIME_ID); }
double CallerCpuSeconds() { return CpuSeconds(CLOCK_THREAD_CPUTIME_ID); }

// What one measurement gives: the row's figure, and two more that only
// some rows report.
struct Sample {
  double value = 0;
  double extra = 0;
  double others = 0;
};

// Sleeps until a slice of kQuietSlice passes in which the process burns
// less than kQuietCpuSeconds (every worker asleep), at most kQuietLimit.
void WaitUntilQuiet() {
  auto limit = std::chrono::steady_clock::now() + kQuietLimit;
  for (;;) {
    double before = ProcessCpuSeconds();
    std::this_thread::sleep_for(kQuietSlice);
    if (ProcessCpuSeconds() - before < kQuietCpuSeconds ||
        std::chrono::steady_clock::now() > limit)
      return;
  }
}

// One tiny dispatch, then the CPU the process burns in the next window
// (value), until it is quiet again (extra), and in the window on threads
// other than the caller (others: value less the caller's own sleep).
Sample IdleCpuAfterDispatch(Target &t) {
  t.Dispatch();
  double before = ProcessCpuSeconds();
  double caller_before = CallerCpuSeconds();
  std::this_thread::sleep_for(kWindow);
  double caller = CallerCpuSeconds() - caller_before;
  double window = ProcessCpuSeconds();
  WaitUntilQuiet();
  return Sample{window - before, ProcessCpuSeconds() - before,
                window - before - caller};
}

// The CPU the process burns from just before one tiny dispatch to the end
// of the window after it: what a pool that finishes a call before its
// workers have gone back to sleep moves out of the dispatch into the
// window is counted once, wherever it falls.
Sample CycleCpuOfDispatch(Target &t) {
  double before = ProcessCpuSeconds();
  t.Dispatch();
  std::this_thread::sleep_for(kWindow);
  double window = ProcessCpuSeconds();
  WaitUntilQuiet();
  return Sample{window - before, 0, 0};
}

// The wall time of one tiny dispatch: kBatch back to back, averaged.
Sample BackToBackBatch(Target &t) {
  WaitUntilQuiet();
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < kBatch; k++) t.Dispatch();
  return Sample{std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0)
                        .count() /
                    kBatch,
                0};
}

// Runs measure(row) and measure(baseline) once per iteration, the order
// alternating; the iteration time is the row's. Returns false when a pool
// could not be created (the row is skipped).
template <typename Measure>
bool Paired(benchmark::State &state, Variant v, Sample *row_sum,
            Sample *base_sum, Measure measure) {
  const size_t threads = static_cast<size_t>(state.range(0));
  Target row(v, threads), base(Variant::kPthreadpoolSpin, threads);
  if (!row.ok() || !base.ok()) {
    state.SkipWithError("cannot create the pools");
    return false;
  }
  WaitUntilQuiet();  // the census's spin, if any
  bool base_first = false;
  *row_sum = *base_sum = Sample{};
  for (auto _ : state) {
    Sample r, b;
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == base_first)
        b = measure(base);
      else
        r = measure(row);
    }
    base_first = !base_first;
    state.SetIterationTime(r.value);
    row_sum->value += r.value;
    row_sum->extra += r.extra;
    row_sum->others += r.others;
    base_sum->value += b.value;
    base_sum->extra += b.extra;
    base_sum->others += b.others;
  }
  if (!row.OutputsRight() || !base.OutputsRight()) {
    state.SkipWithError("a task's output is wrong");
    return false;
  }
  state.counters["pool_threads"] = static_cast<double>(threads);
  state.counters["over_pthreadpool"] =
      base_sum->value > 0 ? row_sum->value / base_sum->value : 0;
  return true;
}

void BM_IdleCpu(benchmark::State &state, Variant v) {
  Sample row, base;
  if (!Paired(state, v, &row, &base, IdleCpuAfterDispatch)) return;
  const double n = static_cast<double>(state.iterations());
  state.counters["idle_cpu_ms"] = row.value * 1e3 / n;
  state.counters["baseline_idle_cpu_ms"] = base.value * 1e3 / n;
  state.counters["idle_cpu_total_ms"] = row.extra * 1e3 / n;
  state.counters["baseline_idle_cpu_total_ms"] = base.extra * 1e3 / n;
  state.counters["idle_cpu_others_ms"] = row.others * 1e3 / n;
  state.counters["baseline_idle_cpu_others_ms"] = base.others * 1e3 / n;
}

// A row whose one figure is the measure's value: `counter` (in units of
// `scale` per second) for the row, and baseline_`counter` beside it.
template <typename Measure>
void OneFigureRow(benchmark::State &state, Variant v, Measure measure,
                  const std::string &counter, double scale) {
  Sample row, base;
  if (!Paired(state, v, &row, &base, measure)) return;
  const double n = static_cast<double>(state.iterations());
  state.counters[counter] = row.value * scale / n;
  state.counters["baseline_" + counter] = base.value * scale / n;
}

void BM_CycleCpu(benchmark::State &state, Variant v) {
  OneFigureRow(state, v, CycleCpuOfDispatch, "cycle_cpu_ms", 1e3);
}

void BM_BackToBack(benchmark::State &state, Variant v) {
  OneFigureRow(state, v, BackToBackBatch, "dispatch_us", 1e6);
}

// 2 threads and one per CPU.
void Widths(benchmark::internal::Benchmark *b) {
  b->Arg(2);
  if (rcupool_bench::MaxThreads() != 2) b->Arg(rcupool_bench::MaxThreads());
}

#define IDLE_ROWS(fn, iterations)                                          \
  BENCHMARK_CAPTURE(fn, pthreadpool_spin, Variant::kPthreadpoolSpin)       \
      ->Apply(Widths)->UseManualTime()->Iterations(iterations);            \
  BENCHMARK_CAPTURE(fn, pthreadpool_yield, Variant::kPthreadpoolYield)     \
      ->Apply(Widths)->UseManualTime()->Iterations(iterations);            \
  BENCHMARK_CAPTURE(fn, rcupool_spin, Variant::kRcupoolSpin)               \
      ->Apply(Widths)->UseManualTime()->Iterations(iterations);            \
  BENCHMARK_CAPTURE(fn, rcupool_yield, Variant::kRcupoolYield)             \
      ->Apply(Widths)->UseManualTime()->Iterations(iterations)

IDLE_ROWS(BM_IdleCpu, 6);
BENCHMARK_CAPTURE(BM_IdleCpu, no_dispatch, Variant::kNoDispatch)
    ->Apply(Widths)->UseManualTime()->Iterations(6);
IDLE_ROWS(BM_CycleCpu, 6);
BENCHMARK_CAPTURE(BM_CycleCpu, no_dispatch, Variant::kNoDispatch)
    ->Apply(Widths)->UseManualTime()->Iterations(6);
IDLE_ROWS(BM_BackToBack, 6);

}  // namespace
