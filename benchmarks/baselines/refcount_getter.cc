// SPDX-License-Identifier: LGPL-2.1-or-later
// Baseline: an atomic reference count on the pool object (see baselines.h).
#include "benchmarks/baselines/baselines.h"

namespace rcupool_bench {
namespace {
CountedPool *Instance() {
  static CountedPool *p =
      new CountedPool{pthreadpool_create(kGetterPoolThreads), {0}};
  return p;
}
}  // namespace

CountedPool *RefcountAcquire() {
  CountedPool *p = Instance();
  p->refs.fetch_add(1, std::memory_order_acquire);
  return p;
}

void RefcountRelease(CountedPool *p) {
  p->refs.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace rcupool_bench
