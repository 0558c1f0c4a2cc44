// SPDX-License-Identifier: LGPL-2.1-or-later
// Baseline: std::atomic_load of a std::shared_ptr (see baselines.h).
#include "benchmarks/baselines/baselines.h"

namespace rcupool_bench {

SharedPool::SharedPool(size_t threads) : tp(pthreadpool_create(threads)) {}
SharedPool::~SharedPool() { pthreadpool_destroy(tp); }

namespace {
std::shared_ptr<SharedPool> &Slot() {
  static std::shared_ptr<SharedPool> *slot =
      new std::shared_ptr<SharedPool>(
          std::make_shared<SharedPool>(kGetterPoolThreads));
  return *slot;
}
}  // namespace

std::shared_ptr<SharedPool> SharedPtrGet() {
  return std::atomic_load_explicit(&Slot(), std::memory_order_acquire);
}

}  // namespace rcupool_bench
