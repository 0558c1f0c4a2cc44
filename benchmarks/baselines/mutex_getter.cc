// SPDX-License-Identifier: LGPL-2.1-or-later
// Baseline: a mutex-guarded singleton getter (see baselines.h).
#include <pthread.h>

#include "benchmarks/baselines/baselines.h"

namespace rcupool_bench {
namespace {
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
pthreadpool_t pool;  // guarded by mu
}  // namespace

pthreadpool_t MutexGetterGet() {
  pthread_mutex_lock(&mu);
  if (pool == nullptr) pool = pthreadpool_create(kGetterPoolThreads);
  pthreadpool_t p = pool;
  pthread_mutex_unlock(&mu);
  return p;
}

}  // namespace rcupool_bench
