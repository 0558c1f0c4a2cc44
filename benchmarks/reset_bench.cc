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
//                                    worker census, lib/worker.c
//                                    WORKER-1), paired with a plain
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
//                                    back, each timed reset started right
//                                    after the reader entered a section,
//                                    so a reset that waited for it would
//                                    take about 100 ms (p50_ms, compared
//                                    with that 100 ms); the counter
//                                    inside_same_section is the share of
//                                    resets that returned while the reader
//                                    was still inside the section it held
//                                    when they began; no_reader: none
//   BM_Reset_KeptSizeUnderReader/<reader>
//                                    the same for a reuse (pins keep both
//                                    sizes), so only the publish is timed
//   BM_Reclaim_ResetToFreed          from rcupool_reset returning to the
//                                    retired (never pinned) pool being freed
//   BM_Reclaim_LastUnpinToFreed      from the last unpin of a kept pool
//                                    returning to its free, on a manager
//                                    that keeps it warm for kLingerMs
//                                    (warm_pools default): the linger,
//                                    then the reclaim; the counter
//                                    over_linger_ms is p50_ms - kLingerMs
//   BM_Reclaim_BareCallRcu           liburcu alone: call_rcu to its callback
//                                    (the floor the two above sit on)
//
// Where a new pool's start goes (lib/pool.c, rcupl_pool_create): replicas of
// its two parts beyond pthreadpool_create, each timed beside a plain
// pthreadpool_create(n) (paired_create.h), as BM_Reset_NewSize is:
//   BM_Start_Probes/<n>              the probe threads alone (LIMITS-2): n-1
//                                    threads started, all alive at once,
//                                    released and joined (counter
//                                    probes_over_create)
//   BM_Start_ProbesThenCreate/<n>    the probes, then pthreadpool_create(n)
//                                    (probes_create_over_create)
//   BM_Start_CreateThenCensus/<n>    pthreadpool_create(n), then the worker
//                                    census (WORKER-1): one
//                                    pthreadpool_parallelize_1d of n items
//                                    under the default idle policy (yield),
//                                    each item naming its thread and
//                                    waiting until all n have started
//                                    (create_census_over_create)
//   BM_Start_Replica/<n>             all three in rcupl_pool_create's order:
//                                    what BM_Reset_NewSize/<n> should cost
//                                    besides the manager's own bookkeeping
//                                    (replica_over_create)
//
// Warm widths are off (RCUPOOL_WARM_NONE) on every manager here but
// BM_Reclaim_LastUnpinToFreed's: with them
// on, the pool a reset retires or a pin
// lets go stays warm for its width, and the next reset to it is a reuse.
//
// Times are measured per reset (manual time) so that the untimed work
// between iterations (waiting for frees) does not count. The reclaim rows
// report each sample's latency; their median and p99 over the run are the
// p50_ms and p99_ms counters. A free is seen by polling rcupool_get_stats()
// every ~20 us (pools_freed), the resolution of those rows.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
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

rcupool_t *Create(size_t threads, uint32_t warm_pools = RCUPOOL_WARM_NONE,
                  uint32_t warm_ms = 0) {
  rcupool_options_t opts{};
  opts.threads = threads;
  opts.warm_pools = warm_pools;
  opts.warm_ms = warm_ms;
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

void ReportPercentiles(benchmark::State &state, std::vector<double> ms);

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
  // Waits until the reader is inside a section that began after `after`
  // sections ended; returns the number of sections ended before it.
  uint64_t WaitNewSection(uint64_t after) const {
    for (;;) {
      uint64_t n = sections_.load();
      if (n > after && inside_.load()) return n;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  void Run() {
    while (!stop_.load()) {
      rcupool_read_lock();
      benchmark::DoNotOptimize(rcupool_current(m_));
      inside_.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      // Not inside from here: count the section before it ends, so a
      // reset that began inside it and returns after sees the count move.
      inside_.store(false);
      sections_.fetch_add(1);
      rcupool_read_unlock();
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
  std::vector<double> ms;
  uint64_t inside_same = 0;
  {
    std::unique_ptr<LongReader> reader;
    if (with_reader) reader = std::make_unique<LongReader>(m);
    uint64_t created = Stats(m).pools_created, ended = 0;
    for (auto _ : state) {
      // Untimed: start the reset just after the reader entered a section
      // (the barrier below ends with the section it waited for).
      if (reader) ended = reader->WaitNewSection(ended);
      auto t0 = Clock::now();
      int err = rcupool_reset(m, 2);
      auto t1 = Clock::now();
      state.SetIterationTime(Seconds(t0, t1));
      ms.push_back(Seconds(t0, t1) * 1e3);
      if (reader && reader->sections() == ended) inside_same++;
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
    if (reader) {
      state.counters["reader_sections"] = reader->sections();
      state.counters["inside_same_section"] =
          static_cast<double>(inside_same) / Iterations(state);
    }
  }
  ReportPercentiles(state, ms);
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
void ReclaimRow(benchmark::State &state, Sample sample,
                uint32_t warm_pools = RCUPOOL_WARM_NONE, uint32_t warm_ms = 0) {
  rcupool_t *m = Create(1, warm_pools, warm_ms);
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

// How long BM_Reclaim_LastUnpinToFreed's manager keeps an unpinned pool
// warm before it goes: the row measures that linger plus the reclaim.
constexpr uint32_t kLingerMs = 50;

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
  }, 0 /* warm_pools: the default */, kLingerMs);
  state.counters["linger_ms"] = kLingerMs;
  if (state.counters.count("p50_ms"))
    state.counters["over_linger_ms"] = state.counters["p50_ms"] - kLingerMs;
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

// The probe threads of rcupl_limits_threads_can_start (lib/limits.c,
// LIMITS-2), as it starts them: `workers` threads with default attributes,
// all alive at once (each waits for `go`), then released and joined.
struct Probe {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
  bool go = false;
};

void *ProbeMain(void *arg) {
  Probe *pr = static_cast<Probe *>(arg);
  pthread_mutex_lock(&pr->mu);
  while (!pr->go) pthread_cond_wait(&pr->cv, &pr->mu);
  pthread_mutex_unlock(&pr->mu);
  return nullptr;
}

bool Probes(size_t workers) {
  std::vector<pthread_t> t(workers);
  Probe pr;
  size_t started = 0;
  while (started < workers &&
         pthread_create(&t[started], nullptr, ProbeMain, &pr) == 0)
    started++;
  pthread_mutex_lock(&pr.mu);
  pr.go = true;
  pthread_cond_broadcast(&pr.cv);
  pthread_mutex_unlock(&pr.mu);
  for (size_t i = 0; i < started; i++) pthread_join(t[i], nullptr);
  return started == workers;
}

// The worker census of rcupl_worker_census (lib/worker.c, WORKER-1): one item
// per thread; every thread but the creator names itself; each item waits
// (yielding) until all have started or 2 s passed.
struct Census {
  pthread_t creator;
  size_t threads;
  std::atomic<size_t> arrived{0};
  Clock::time_point deadline;
};

void CensusTask(void *arg, size_t i) {
  Census *c = static_cast<Census *>(arg);
  if (!pthread_equal(pthread_self(), c->creator)) {
    char name[16];
    snprintf(name, sizeof(name), "rcupool-w%zu/%zu", i, c->threads);
    pthread_setname_np(pthread_self(), name);
  }
  c->arrived.fetch_add(1, std::memory_order_acq_rel);
  while (c->arrived.load(std::memory_order_acquire) < c->threads &&
         Clock::now() < c->deadline)
    sched_yield();
}

void RunCensus(pthreadpool_t tp, size_t n) {
  if (n <= 1) return;
  Census c;
  c.creator = pthread_self();
  c.threads = n;
  c.deadline = Clock::now() + std::chrono::seconds(2);
  // The default idle policy (RCUPOOL_IDLE_YIELD) reaches the census.
  pthreadpool_parallelize_1d(tp, CensusTask, &c, n,
                             PTHREADPOOL_FLAG_YIELD_WORKERS);
}

// A start replica row: the parts asked for, timed, beside a
// pthreadpool_create(n).
void StartRow(benchmark::State &state, bool probes, bool create, bool census,
              const char *ratio_counter) {
  size_t n = state.range(0);
  rcupool_bench::PairedWithCreate(
      state, n, "a thread could not start", ratio_counter, [&] {
        auto t0 = Clock::now();
        if (probes && !Probes(n - 1)) return -1.0;
        pthreadpool_t tp = nullptr;
        if (create && (tp = pthreadpool_create(n)) == nullptr) return -1.0;
        if (census) RunCensus(tp, n);
        auto t1 = Clock::now();
        if (tp != nullptr) pthreadpool_destroy(tp);
        return Seconds(t0, t1);
      });
}

void BM_Start_Probes(benchmark::State &state) {
  StartRow(state, true, false, false, "probes_over_create");
}
void BM_Start_ProbesThenCreate(benchmark::State &state) {
  StartRow(state, true, true, false, "probes_create_over_create");
}
void BM_Start_CreateThenCensus(benchmark::State &state) {
  StartRow(state, false, true, true, "create_census_over_create");
}
void BM_Start_Replica(benchmark::State &state) {
  StartRow(state, true, true, true, "replica_over_create");
}

// Iteration counts are fixed where every iteration waits for a free or
// starts threads, so that the whole program stays within a few minutes.
BENCHMARK(BM_Create_Pthreadpool)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reset_NewSize)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Create_PthreadpoolAndDispatch)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Start_Probes)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Start_ProbesThenCreate)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Start_CreateThenCensus)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Start_Replica)->Arg(2)->Arg(4)->Arg(8)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reset_BackToKeptSize)->Arg(2)->Arg(4)->Arg(8)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_NewSizeUnderReader, no_reader, false)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_NewSizeUnderReader, long_reader, true)->Iterations(20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_KeptSizeUnderReader, no_reader, false)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Reset_KeptSizeUnderReader, long_reader, true)->Iterations(2000)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Reclaim_ResetToFreed)->Iterations(40)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reclaim_LastUnpinToFreed)->Iterations(40)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reclaim_BareCallRcu)->Iterations(40)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
