// SPDX-License-Identifier: LGPL-2.1-or-later
// Baseline: a pthread_rwlock-guarded singleton getter (see baselines.h).
#include <pthread.h>

#include "benchmarks/baselines/baselines.h"

namespace rcupool_bench {
namespace {
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
pthreadpool_t pool;  // written under the write lock
}  // namespace

pthreadpool_t RwlockGetterGet() {
  pthread_rwlock_rdlock(&rw);
  pthreadpool_t p = pool;
  pthread_rwlock_unlock(&rw);
  if (p != nullptr) return p;
  pthread_rwlock_wrlock(&rw);
  if (pool == nullptr) pool = pthreadpool_create(kGetterPoolThreads);
  p = pool;
  pthread_rwlock_unlock(&rw);
  return p;
}

}  // namespace rcupool_bench
