// SPDX-License-Identifier: LGPL-2.1-or-later
// The read path and pins, 1 to ncpu threads (thread_sweep.h), against the
// alternatives.
//
// Every benchmark does one "get the pool, look at it, let go" per iteration
// and reports wall time per iteration per thread (UseRealTime), so the
// rows of 2 threads and more show what contention costs each reader.
//
//   BM_Read_Rcupool            rcupool_read_lock + rcupool_current + unlock
//   BM_Read_RcupoolLockCurrent rcupool_read_lock_current + unlock: the
//                              same section in two calls
//   BM_Read_RcupoolInline      the same through <rcupool/inline.h> (opt-in)
//   BM_Read_BareUrcu           liburcu's inlined section of the same flavour
//                              (read_bare_urcu.c, in C): the limit
//   BM_Read_BareUrcuThreeCalls the same section split into three calls
//                              that are not inlined (diagnostic)
//   BM_Read_TwoEmptyCallsShared two calls into a shared object with
//                              nothing in them (calls/calls.h): the floor
//                              of any section opened and closed through a
//                              .so, as lock_current + unlock are
//   BM_Read_PlainAcquireLoad   one acquire load: no protection at all
//   BM_Read_MutexGetter        a mutex-guarded singleton getter
//   BM_Read_RwlockGetter       the same with a pthread_rwlock
//   BM_Read_AtomicRefcount     fetch_add + load + fetch_sub on the pool
//   BM_Read_AtomicRefcountShared  the same get + put behind two calls into
//                              a shared object (calls/calls.h), as a pin
//                              and an unpin through librcupool.so.0 are
//   BM_Read_SharedPtrAtomicLoad  std::atomic_load of a shared_ptr + drop
//   BM_Read_PerThreadCounter   fetch_add + load + fetch_sub on a counter of
//                              the calling thread's own (no shared line):
//                              the floor of pin + unpin at 2+ threads
//   BM_Pin_Rcupool             rcupool_pin + rcupool_unpin (the pin row is
//                              compared with BM_Read_AtomicRefcount)
//   BM_Guard_Rcupool/<size>    the per-call width guard: rcupool_pin_sized
//                              + scope enter + scope exit + unpin, of the
//                              current size or of a live size that is not
//                              current (a sized pin elsewhere keeps it)
#include <atomic>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>

#include "benchmarks/baselines/baselines.h"
#include "benchmarks/calls/calls.h"
#include "benchmarks/read_bare_urcu.h"
#include "benchmarks/read_inline.h"
#include "benchmarks/thread_sweep.h"

namespace rcupool_bench {
namespace {

rcupool_t *Manager() {
  static rcupool_t *m = [] {
    rcupool_t *d = rcupool_default();
    if (d != nullptr) rcupool_reset(d, kGetterPoolThreads);
    return d;
  }();
  return m;
}

void BM_Read_Rcupool(benchmark::State &state) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_default failed");
  for (auto _ : state) {
    rcupool_read_lock();
    pthreadpool_t p = rcupool_current(m);
    benchmark::DoNotOptimize(p);
    rcupool_read_unlock();
  }
}

void BM_Read_RcupoolLockCurrent(benchmark::State &state) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_default failed");
  for (auto _ : state) {
    pthreadpool_t p = rcupool_read_lock_current(m);
    benchmark::DoNotOptimize(p);
    rcupool_read_unlock();
  }
}

// The opt-in inline read side (<rcupool/inline.h>), from C, batched like
// the bare section below.
void BM_Read_RcupoolInline(benchmark::State &state) {
  constexpr size_t kBatch = 1000;
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_default failed");
  while (state.KeepRunningBatch(kBatch)) rcupool_inline_reads(m, kBatch);
}

// Set before main() (the getter's lock is statically initialised).
pthreadpool_t plain_slot = MutexGetterGet();

void BM_Read_PlainAcquireLoad(benchmark::State &state) {
  for (auto _ : state) {
    pthreadpool_t p = __atomic_load_n(&plain_slot, __ATOMIC_ACQUIRE);
    benchmark::DoNotOptimize(p);
  }
}

// Published before main() (the getter's lock is statically initialised).
const bool bare_published = (bare_urcu_publish(MutexGetterGet()), true);

// The sections run in batches inside read_bare_urcu.c, so that liburcu's
// fast path is inlined into C code; the batch loop costs what the
// benchmark's own loop costs.
void BM_Read_BareUrcu(benchmark::State &state) {
  constexpr size_t kBatch = 1000;
  bare_urcu_thread_begin();
  while (state.KeepRunningBatch(kBatch)) bare_urcu_reads(kBatch);
  bare_urcu_thread_end();
}

// Diagnostic: the bare section behind three out-of-line calls, to show how
// much of rcupool's read cost is the call shape rather than its protocol.
void BM_Read_BareUrcuThreeCalls(benchmark::State &state) {
  constexpr size_t kBatch = 1000;
  bare_urcu_thread_begin();
  while (state.KeepRunningBatch(kBatch)) bare_urcu_reads_three_calls(kBatch);
  bare_urcu_thread_end();
}

void BM_Read_TwoEmptyCallsShared(benchmark::State &state) {
  rcupool_t *m = Manager();
  for (auto _ : state) {
    void *p = bench_calls_first(m);
    benchmark::DoNotOptimize(p);
    bench_calls_second();
  }
}

void BM_Read_MutexGetter(benchmark::State &state) {
  for (auto _ : state) {
    pthreadpool_t p = MutexGetterGet();
    benchmark::DoNotOptimize(p);
  }
}

void BM_Read_RwlockGetter(benchmark::State &state) {
  for (auto _ : state) {
    pthreadpool_t p = RwlockGetterGet();
    benchmark::DoNotOptimize(p);
  }
}

void BM_Read_AtomicRefcount(benchmark::State &state) {
  for (auto _ : state) {
    CountedPool *p = RefcountAcquire();
    benchmark::DoNotOptimize(p->tp);
    RefcountRelease(p);
  }
}

// The floor of a pin count nobody shares: each thread adds to and
// subtracts from a counter of its own, on its own cache line, with the
// same atomic operations as the refcount above (and as a pin's shard).
void BM_Read_PerThreadCounter(benchmark::State &state) {
  struct alignas(64) Counter {
    std::atomic<long> n{0};
    pthreadpool_t tp = nullptr;
  };
  static Counter counters[64];
  Counter &mine = counters[state.thread_index() % 64];
  for (auto _ : state) {
    mine.n.fetch_add(1, std::memory_order_relaxed);
    benchmark::DoNotOptimize(mine.tp);
    mine.n.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void BM_Read_AtomicRefcountShared(benchmark::State &state) {
  for (auto _ : state) {
    void *p = bench_calls_refcount_get();
    benchmark::DoNotOptimize(p);
    bench_calls_refcount_put(p);
  }
}

void BM_Read_SharedPtrAtomicLoad(benchmark::State &state) {
  for (auto _ : state) {
    std::shared_ptr<SharedPool> p = SharedPtrGet();
    benchmark::DoNotOptimize(p->tp);
  }
}

void BM_Pin_Rcupool(benchmark::State &state) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_default failed");
  rcupool_pin_t pin = {};
  for (auto _ : state) {
    rcupool_pin(m, &pin);
    benchmark::DoNotOptimize(pin);
    rcupool_unpin(&pin);
  }
  // An honest loop: the last pin really held the current pool.
  rcupool_pin(m, &pin);
  bool ok = rcupool_pin_is_current(&pin);
  rcupool_unpin(&pin);
  if (!ok) state.SkipWithError("pin did not hold the current pool");
}

enum GuardSize { kCurrentSize, kLiveSize };

void BM_Guard_Rcupool(benchmark::State &state, GuardSize which) {
  rcupool_t *m = Manager();
  if (m == nullptr) return state.SkipWithError("rcupool_default failed");
  size_t threads = kGetterPoolThreads;
  static rcupool_pin_t keeper = {};  // keeps the live size alive
  static bool kept = false;           // for the whole program
  if (which == kLiveSize) {
    threads = kGetterPoolThreads + 1;
    if (state.thread_index() == 0 && !kept) {
      if (rcupool_pin_sized(m, threads, &keeper) != 0)
        return state.SkipWithError("sized pin failed");
      kept = true;
    }
  }
  rcupool_pin_t pin = {};
  for (auto _ : state) {
    if (rcupool_pin_sized(m, threads, &pin) != 0)
      return state.SkipWithError("sized pin failed");
    rcupool_scope_enter(&pin);
    benchmark::DoNotOptimize(pin);
    rcupool_scope_exit();
    rcupool_unpin(&pin);
  }
  if (rcupool_pin_sized(m, threads, &pin) != 0 ||
      rcupool_pin_threads(&pin) != threads)
    state.SkipWithError("the guard did not hold a pool of its size");
  rcupool_unpin(&pin);
}

#define READ_BENCH(fn) \
  BENCHMARK(fn)->DenseThreadRange(1, MaxThreads())->UseRealTime()
READ_BENCH(BM_Read_Rcupool);
READ_BENCH(BM_Read_RcupoolLockCurrent);
READ_BENCH(BM_Read_RcupoolInline);
READ_BENCH(BM_Read_BareUrcu);
READ_BENCH(BM_Read_BareUrcuThreeCalls);
READ_BENCH(BM_Read_TwoEmptyCallsShared);
READ_BENCH(BM_Read_PlainAcquireLoad);
READ_BENCH(BM_Read_MutexGetter);
READ_BENCH(BM_Read_RwlockGetter);
READ_BENCH(BM_Read_AtomicRefcount);
READ_BENCH(BM_Read_AtomicRefcountShared);
READ_BENCH(BM_Read_PerThreadCounter);
READ_BENCH(BM_Read_SharedPtrAtomicLoad);
READ_BENCH(BM_Pin_Rcupool);
BENCHMARK_CAPTURE(BM_Guard_Rcupool, current_size, kCurrentSize)
    ->DenseThreadRange(1, MaxThreads())
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Guard_Rcupool, live_size, kLiveSize)
    ->DenseThreadRange(1, MaxThreads())
    ->UseRealTime();

}  // namespace
}  // namespace rcupool_bench
