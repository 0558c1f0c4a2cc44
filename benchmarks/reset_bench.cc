// SPDX-License-Identifier: LGPL-2.1-or-later
// Reset and reclaim.
//
//   BM_Create_Pthreadpool/<n>        pthreadpool_create(n) alone (the
//                                    destroy is outside the timed region)
//   BM_Reset_NewSize/<n>             rcupool_reset from 1 to n threads, a
//                                    size with no live pool: creates one;
//                                    timed beside pthreadpool_create(n)
//                                    (paired_create.h), the counter
//                                    reset_over_create is the paired ratio
//   BM_Create_PthreadpoolAndDispatch/<n>
//                                    pthreadpool_create(n) then one
//                                    pthreadpool_parallelize_1d of n items
//                                    on it (the shape of a new pool's
//                                    worker census, lib/parallel.c
//                                    PARALLEL-4), paired with a plain
//                                    pthreadpool_create(n) as the reset
//                                    is: what one dispatch after the
//                                    create costs on this machine
//                                    (counter dispatch_over_create)
//   BM_Reset_BackToKeptSize/<n>      rcupool_reset back to n while a pin
//                                    keeps the n-thread pool: a reuse
//   BM_Reset_NewSizeUnderReader/<reader>
//                                    rcupool_reset 1 -> 2 (a create) with
//                                    long_reader: another thread inside
//                                    100 ms read-side sections back to
//                                    back; no_reader: none
//   BM_Reset_KeptSizeUnderReader/<reader>
//                                    the same for a reuse (pins keep both
//                                    sizes), so only the publish is timed
//   BM_Reclaim_ResetToFreed          from rcupool_reset returning to the
//                                    retired (never pinned) pool being freed
//   BM_Reclaim_LastUnpinToFreed      from the last unpin of a kept pool
//                                    returning to its free
//   BM_Reclaim_BareCallRcu           liburcu alone: call_rcu to its callback
//                                    (the floor the two above sit on)
//
// Times are measured per reset (manual time) so that the untimed work
// between iterations (waiting for frees) does not count. The reclaim rows
// report each sample's latency; their median and p99 over the run are the
// p50_ms and p99_ms counters. A free is seen by polling rcupool_get_stats()
// every ~20 us (pools_freed), the resolution of those rows.
#include <errno.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <pthreadpool.h>
#include <rcupool/rcupool.h>
#include <urcu-bp.h>

#include "benchmarks/paired_create.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

uint64_t Iterations(const benchmark::State &state) {
  return static_cast<uint64_t>(state.iterations());
}

rcupool_t *Create(size_t threads) {
  rcupool_options_t opts{};
  opts.threads = threads;
  rcupool_t *m = nullptr;
  return rcupool_create(&opts, &m) == 0 ? m : nullptr;
}

rcupool_stats_t Stats(rcupool_t *m) {
  rcupool_stats_t s{};
  rcupool_get_stats(m, &s);
  return s;
}

// Polls until pred(stats) holds or 2 s pass; returns the time it held.
template <typename Pred>
bool WaitStats(rcupool_t *m, Pred pred, Clock::time_point *when) {
  auto deadline = Clock::now() + std::chrono::seconds(2);
  for (;;) {
    if (pred(Stats(m))) {
      *when = Clock::now();
      return true;
    }
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void BM_Create_Pthreadpool(benchmark::State &state) {
  size_t n = state.range(0);
  for (auto _ : state) {
    auto t0 = Clock::now();
    pthreadpool_t tp = pthreadpool_create(n);
    auto t1 = Clock::now();
    state.SetIterationTime(Seconds(t0, t1));
    if (tp == nullptr) return state.SkipWithError("pthreadpool_create failed");
    pthreadpool_destroy(tp);
  }
}

void BM_Reset_NewSize(benchmark::State &state) {
  size_t n = state.range(0);
  rcupool_t *m = Create(1);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  uint64_t created = Stats(m).pools_created;
  // Paired with a pthreadpool_create(n) in every iteration (paired_create.h).
  bool ran = rcupool_bench::PairedWithCreate(
      state, n, "reset failed", "reset_over_create", [&] {
        auto t0 = Clock::now();
        int err = rcupool_reset(m, n);
        auto t1 = Clock::now();
        rcupool_reset(m, 1);
        rcupool_barrier(m);  // the n-thread pool is freed (threads joined)
        return err == 0 ? Seconds(t0, t1) : -1.0;
      });
  // Every timed reset created its pool (none was a reuse).
  if (ran && Stats(m).pools_created - created < Iterations(state))
    state.SkipWithError("a timed reset did not create a pool");
  rcupool_destroy(m);
}

void BM_Reset_BackToKeptSize(benchmark::State &state) {
  size_t n = state.range(0);
  rcupool_t *m = Create(n);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  rcupool_pin_t keep = {};
  rcupool_pin(m, &keep);  // a loaded method keeps the n-thread pool
  rcupool_reset(m, 1);
  uint64_t reuses = Stats(m).reuses;
  for (auto _ : state) {
    auto t0 = Clock::now();
    int err = rcupool_reset(m, n);
    auto t1 = Clock::now();
    state.SetIterationTime(Seconds(t0, t1));
    if (err != 0) return state.SkipWithError("reset failed");
    rcupool_reset(m, 1);
  }
  if (Stats(m).reuses - reuses < Iterations(state))
    state.SkipWithError("a timed reset was not a reuse");
  rcupool_unpin(&keep);
  rcupool_destroy(m);
}

// Another thread inside back-to-back 100 ms read-side sections.
class LongReader {
 public:
  explicit LongReader(rcupool_t *m) : m_(m), thread_([this] { Run(); }) {
    while (!inside_.load()) std::this_thread::yield();
  }
  ~LongReader() {
    stop_.store(true);
    thread_.join();
  }
  uint64_t sections() const { return sections_.load(); }

 private:
  void Run() {
    while (!stop_.load()) {
      rcupool_read_lock();
      benchmark::DoNotOptimize(rcupool_current(m_));
      inside_.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      rcupool_read_unlock();
      sections_.fetch_add(1);
    }
  }
  rcupool_t *m_;
  std::atomic<bool> stop_{false}, inside_{false};
  std::atomic<uint64_t> sections_{0};
  std::thread thread_;
};

void BM_Reset_NewSizeUnderReader(benchmark::State &state, bool with_reader) {
  rcupool_t *m = Create(1);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  {
    std::unique_ptr<LongReader> reader;
    if (with_reader) reader = std::make_unique<LongReader>(m);
    uint64_t created = Stats(m).pools_created;
    for (auto _ : state) {
      auto t0 = Clock::now();
      int err = rcupool_reset(m, 2);
      auto t1 = Clock::now();
      state.SetIterationTime(Seconds(t0, t1));
      if (err != 0) return state.SkipWithError("reset failed");
      rcupool_reset(m, 1);
      rcupool_barrier(m);  // waits for the reader's section to end
      // Untimed, both variants: let the wake-ups the barrier's end brings
      // (the reader's next section, the reclaim thread) pass, so the next
      // create does not start threads at the same moment on 2 cores.
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (Stats(m).pools_created - created < Iterations(state))
      state.SkipWithError("a timed reset did not create a pool");
    if (reader) state.counters["reader_sections"] = reader->sections();
  }
  rcupool_destroy(m);
}

void BM_Reset_KeptSizeUnderReader(benchmark::State &state, bool with_reader) {
  rcupool_t *m = Create(2);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  rcupool_pin_t two = {}, one = {};
  rcupool_pin(m, &two);
  rcupool_reset(m, 1);
  rcupool_pin(m, &one);
  {
    std::unique_ptr<LongReader> reader;
    if (with_reader) reader = std::make_unique<LongReader>(m);
    uint64_t reuses = Stats(m).reuses;
    size_t next = 2;
    for (auto _ : state) {
      auto t0 = Clock::now();
      int err = rcupool_reset(m, next);
      auto t1 = Clock::now();
      state.SetIterationTime(Seconds(t0, t1));
      if (err != 0) return state.SkipWithError("reset failed");
      next = 3 - next;
    }
    if (Stats(m).reuses - reuses < Iterations(state))
      state.SkipWithError("a timed reset was not a reuse");
    if (reader) state.counters["reader_sections"] = reader->sections();
  }
  rcupool_unpin(&one);
  rcupool_unpin(&two);
  rcupool_destroy(m);
}

// Reports the run's median and p99 of `ms` as counters.
void ReportPercentiles(benchmark::State &state, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    size_t i = static_cast<size_t>(q * (ms.size() - 1) + 0.5);
    return ms[std::min(i, ms.size() - 1)];
  };
  state.counters["p50_ms"] = at(0.50);
  state.counters["p99_ms"] = at(0.99);
  state.counters["max_ms"] = ms.back();
}

// The time from release() (which makes a pool free-able) returning to the
// next free seen, in ms; negative when no pool was freed within 2 s.
template <typename Release>
double MsUntilNextFree(rcupool_t *m, Release release) {
  uint64_t freed = Stats(m).pools_freed;
  release();
  auto t0 = Clock::now();
  Clock::time_point t1;
  if (!WaitStats(m, [&](const rcupool_stats_t &s) { return s.pools_freed > freed; }, &t1))
    return -1;
  return Seconds(t0, t1) * 1e3;
}

// A reclaim row on a 1-thread manager: each iteration takes one sample,
// sample(m, next, &error) with next alternating 2, 1, ..., which returns a
// latency in ms or sets error.
template <typename Sample>
void ReclaimRow(benchmark::State &state, Sample sample) {
  rcupool_t *m = Create(1);
  if (m == nullptr) return state.SkipWithError("rcupool_create failed");
  std::vector<double> ms;
  size_t next = 2;
  for (auto _ : state) {
    const char *error = nullptr;
    double t = sample(m, next, &error);
    if (error != nullptr) return state.SkipWithError(error);
    state.SetIterationTime(t / 1e3);
    ms.push_back(t);
    next = 3 - next;
  }
  ReportPercentiles(state, ms);
  rcupool_destroy(m);
}

void BM_Reclaim_ResetToFreed(benchmark::State &state) {
  ReclaimRow(state, [](rcupool_t *m, size_t next, const char **error) {
    int err = 0;
    double t = MsUntilNextFree(m, [&] { err = rcupool_reset(m, next); });
    if (err != 0) *error = "reset failed";
    else if (t < 0) *error = "retired pool not freed within 2 s";
    return t;
  });
}

void BM_Reclaim_LastUnpinToFreed(benchmark::State &state) {
  ReclaimRow(state, [](rcupool_t *m, size_t next, const char **error) {
    rcupool_pin_t pin = {};
    rcupool_pin(m, &pin);
    rcupool_reset(m, next);
    // Wait until the pinned pool is kept (its grace period is over) and no
    // other free is pending, so the next free seen is the unpinned pool's.
    Clock::time_point unused;
    if (!WaitStats(m, [](const rcupool_stats_t &s) {
          return s.pools_kept == 1 && s.frees_pending == 0;
        }, &unused)) {
      *error = "pinned pool never kept";
      return -1.0;
    }
    double t = MsUntilNextFree(m, [&] { rcupool_unpin(&pin); });
    if (t < 0) *error = "unpinned pool not freed within 2 s";
    return t;
  });
}

struct Stamp {
  rcu_head head;
  std::atomic<bool> done{false};
  Clock::time_point when;
};

void StampCallback(rcu_head *head) {
  Stamp *s = caa_container_of(head, Stamp, head);
  s->when = Clock::now();
  s->done.store(true, std::memory_order_release);
}

void BM_Reclaim_BareCallRcu(benchmark::State &state) {
  std::vector<double> ms;
  for (auto _ : state) {
    Stamp s;
    auto t0 = Clock::now();
    urcu_bp_call_rcu(&s.head, StampCallback);
    auto deadline = t0 + std::chrono::seconds(2);
    while (!s.done.load(std::memory_order_acquire)) {
      if (Clock::now() > deadline) {
        urcu_bp_barrier();  // s must not go out of scope with a callback queued
        return state.SkipWithError("call_rcu callback not run within 2 s");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    state.SetIterationTime(Seconds(t0, s.when));
    ms.push_back(Seconds(t0, s.when) * 1e3);
  }
  ReportPercentiles(state, ms);
}

void NoTask(void *, size_t) {}

void BM_Create_PthreadpoolAndDispatch(benchmark::State &state) {
  size_t n = state.range(0);
  rcupool_bench::PairedWithCreate(
      state, n, "pthreadpool_create failed", "dispatch_over_create", [&] {
        auto t0 = Clock::now();
        pthreadpool_t tp = pthreadpool_create(n);
        if (tp == nullptr) return -1.0;
        pthreadpool_parallelize_1d(tp, NoTask, nullptr, n, 0);
        auto t1 = Clock::now();
        pthreadpool_destroy(tp);
        return Seconds(t0, t1);
      });
}

// Iteration counts are fixed where every iteration waits for a free or
// starts threads, so that the whole program stays within a few minutes.
BENCHMARK(BM_Create_Pthreadpool)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reset_NewSize)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Create_PthreadpoolAndDispatch)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reset_BackToKeptSize)->Arg(2)->Arg(4)->Arg(8)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_NewSizeUnderReader, no_reader, false)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_NewSizeUnderReader, long_reader, true)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_KeptSizeUnderReader, no_reader, false)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_KeptSizeUnderReader, long_reader, true)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reclaim_ResetToFreed)->Iterations(40)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reclaim_LastUnpinToFreed)->Iterations(40)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reclaim_BareCallRcu)->Iterations(40)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
