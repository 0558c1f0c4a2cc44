/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The alternatives rcupool is measured against, written from their described
// behaviour. Each keeps one process-wide pool the way a runtime would, and
// each lives in its own file:
//
//   mutex_getter.cc      a mutex-guarded singleton getter (lock, create on
//                        first use, load, unlock), as ML runtimes guard their
//                        pool today; the pointer is used after the unlock.
//   rwlock_getter.cc     the same with a pthread_rwlock taken for reading.
//   refcount_getter.cc   an atomic reference count on the pool object: the
//                        reader increments, uses, decrements.
//   shared_ptr_getter.cc std::atomic_load of a std::shared_ptr (a copy per
//                        read, dropped at the end of the use).
//   pool_policies.cc     two reset policies for the churn: "keep every pool
//                        ever handed out" (a sticky flag per pool) and
//                        "destroy on reset" (only safe with no holder).
//
// The limits (a plain acquire load, a bare liburcu read-side section) are
// inline in the benchmark files, since inlining is what makes them limits.
#ifndef RCUPOOL_BENCHMARKS_BASELINES_H
#define RCUPOOL_BENCHMARKS_BASELINES_H

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include <pthreadpool.h>

namespace rcupool_bench {

// Thread count of the pools the read-side getters create on first use.
constexpr size_t kGetterPoolThreads = 2;

// Mutex-guarded singleton. Any thread. Blocks on the mutex.
pthreadpool_t MutexGetterGet();

// rwlock-guarded singleton (readers share the lock). Any thread.
pthreadpool_t RwlockGetterGet();

// A pool with an atomic count of its users. Acquire returns the process-wide
// one with its count raised; Release lowers it. Nothing ever frees it here:
// the count is the cost being measured.
struct CountedPool {
  pthreadpool_t tp;
  std::atomic<size_t> refs;
};
CountedPool *RefcountAcquire();
void RefcountRelease(CountedPool *p);

// The process-wide pool behind a std::shared_ptr, read with std::atomic_load.
struct SharedPool {
  explicit SharedPool(size_t threads);
  ~SharedPool();
  pthreadpool_t tp;
};
std::shared_ptr<SharedPool> SharedPtrGet();

// A reset policy as seen by a runtime: Reset() changes the thread count,
// Load() is a method being loaded (it takes the pool and keeps using it),
// Drop() is that method being destroyed.
class PoolPolicy {
 public:
  virtual ~PoolPolicy() = default;
  virtual int Reset(size_t threads) = 0;
  virtual pthreadpool_t Load() = 0;
  virtual void Drop(pthreadpool_t pool) = 0;
  // Pools this policy holds right now.
  virtual size_t PoolsAlive() = 0;
};

// Every pool that was handed out by Load() is flagged sticky; a reset keeps
// a sticky pool forever (until the policy object is destroyed, standing in
// for process exit) and destroys only pools nobody was given.
std::unique_ptr<PoolPolicy> MakeKeepForeverPolicy(size_t threads);

// A reset destroys the current pool and creates the new one. Correct only
// when no method holds the old pool; a held pool is used after free.
std::unique_ptr<PoolPolicy> MakeDestroyOnResetPolicy(size_t threads);

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_BASELINES_H
