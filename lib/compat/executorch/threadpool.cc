// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ExecuTorch's ThreadPool and its free functions on rcupool's process-wide
 * manager (threadpool.h).
 *
 * Invariants kept here:
 *   ETTP-1. There is one ThreadPool per process, a view of rcupool_default():
 *       it holds no pool of its own, so a reset, a destroy or a guard never
 *       leaves it pointing at a freed pool.
 *   ETTP-2. Every answer follows the calling thread's context (context.h):
 *       no_pool first, then the innermost guard's pin, then the current
 *       pool; get_pthreadpool(), get_pinned_pthreadpool(), get_thread_count()
 *       and run() never disagree about which pool that is.
 *   ETTP-3. The current pool is read only inside an rcupool read-side
 *       section, or by rcupool_parallelize_1d(), which reads it inside a
 *       section and holds a dispatch reference, not a section, while the
 *       tasks run; no lock of ours is taken on any path.
 *   ETTP-4. The default count is ExecuTorch's own: every logical processor
 *       of the affinity mask (RCUPOOL_DEFAULT_RULE_PROCESSORS), or its
 *       performance cores when this file is built with
 *       EXECUTORCH_THREADPOOL_USE_PERFORMANCE_CORES, as ExecuTorch's
 *       threadpool.cpp is. The rule is set on the default manager once,
 *       by the first call of this API that reaches the manager
 *       (rcupool_et::Manager(), context.cc),
 *       before any pool of that call is read; a count that was chosen
 *       (RCUPOOL_NUM_THREADS, a reset to n > 0) is left as it is.
 */
#include <executorch/extension/threadpool/threadpool.h>

#include <cstdlib>

#include "lib/compat/executorch/context.h"

namespace executorch {
namespace extension {
namespace threadpool {

size_t ThreadPool::get_thread_count() const {
  const rcupool_et::Context &c = rcupool_et::ThisThread();
  if (c.no_pool) return 1;
  if (c.pin != nullptr) return rcupool_pin_threads(c.pin);
  return rcupool_threads(manager_);
}

bool ThreadPool::_unsafe_reset_threadpool(uint32_t num_threads) {
  return rcupool_reset(manager_, num_threads) == 0;
}

void ThreadPool::_unsafe_destroy_threadpool() {
  int err = trim();
  if (err < 0)
    rcupool_log(RCUPOOL_LOG_WARN,
                "executorch threadpool: _unsafe_destroy_threadpool() called "
                "where it would wait for itself (in a task or a read-side "
                "section): %d; nothing freed",
                err);
}

int ThreadPool::trim() { return rcupool_trim(manager_); }

void ThreadPool::run_task(void (*task)(void *, size_t), void *ctx,
                          size_t range) {
  if (rcupool_et::ThisThread().no_pool) {
    for (size_t i = 0; i < range; i++) task(ctx, i);
    return;
  }
  // Inside a guard, the guard's rcupool scope selects its pool (ETCTX-3).
  rcupool_parallelize_1d(manager_, task, ctx, range, 0);
}

ThreadPool *get_threadpool() {
  rcupool_t *m = rcupool_et::Manager();
  if (m == nullptr) {
    // Out of memory (a lack of threads still gives a manager, MANAGER-6):
    // ExecuTorch's callers dereference the result unchecked.
    rcupool_log(RCUPOOL_LOG_ERROR,
                "executorch threadpool: get_threadpool(): no process-wide "
                "manager (out of memory); aborting");
    std::abort();
  }
  // rcupool_default() returns the same manager for the process's life.
  static ThreadPool pool(m);
  return &pool;
}

pthreadpool_t get_pthreadpool() {
  const rcupool_et::Context &c = rcupool_et::ThisThread();
  if (c.no_pool) return nullptr;
  if (c.pin != nullptr) return rcupool_pin_pthreadpool(c.pin);
  rcupool_t *m = rcupool_et::Manager();
  if (m == nullptr) return nullptr;
  rcupool_read_lock();
  pthreadpool_t tp = rcupool_current(m);
  rcupool_read_unlock();
  return tp;
}

PinnedPthreadpool get_pinned_pthreadpool() {
  PinnedPthreadpool handle;
  const rcupool_et::Context &c = rcupool_et::ThisThread();
  if (c.no_pool) return handle;
  rcupool_t *m = rcupool_et::Manager();
  if (m == nullptr) return handle;
  // Inside a guard: a pin of the guard's size, which is the guard's own
  // pool (rcupool keeps at most one live pool per size).
  int err = c.pin != nullptr ? ::rcupool::Pin::sized(
                                   m, rcupool_pin_threads(c.pin), handle.pin_)
                             : ::rcupool::Pin::current(m, handle.pin_);
  if (err != 0)
    rcupool_log(RCUPOOL_LOG_WARN,
                "executorch threadpool: get_pinned_pthreadpool() could not "
                "pin a pool (%d); returning an empty handle",
                err);
  return handle;
}

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch
