// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-thread context of the ExecuTorch stand-in and the guards that
 * set it (threadpool_guard.h).
 *
 * Invariants kept here:
 *   ETCTX-1. Each thread's Context lives in this object only (thread_local,
 *       hidden): every extension of a process that uses the stand-in reads
 *       and writes the same per-thread context.
 *   ETCTX-2. A guard restores exactly the (no_pool, pin) pair it found, so
 *       nested guards destroyed in LIFO order leave the thread as it was.
 *   ETCTX-3. Context::pin is non-null only while an rcupool scope of that
 *       same pin is entered on this thread: guards enter the scope before
 *       publishing the pin and withdraw the pin before leaving the scope,
 *       so run() (rcupool_parallelize_1d) and get_pthreadpool() agree.
 *   ETCTX-4. A UseNThreadsThreadPoolGuard that could not pin its pool
 *       changes nothing and undoes nothing.
 */
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <errno.h>

#include "lib/compat/executorch/context.h"

namespace rcupool_et {

Context &ThisThread() {
  static thread_local Context context;
  return context;
}

namespace {

#ifdef EXECUTORCH_THREADPOOL_USE_PERFORMANCE_CORES
constexpr int kDefaultRule = RCUPOOL_DEFAULT_RULE_CORES;
#else
constexpr int kDefaultRule = RCUPOOL_DEFAULT_RULE_PROCESSORS;
#endif

int ApplyDefaultRule(rcupool_t *m) {
  if (rcupool_default_rule(m) == kDefaultRule) return 0;
  int err = rcupool_set_default_rule(m, kDefaultRule);
  if (err != 0)
    rcupool_log(RCUPOOL_LOG_WARN,
                "executorch threadpool: cannot count the default as "
                "ExecuTorch does (%d); the current pool stays",
                err);
  return err;
}

}  // namespace

rcupool_t *Manager() {
  rcupool_t *m = rcupool_default();
  if (m == nullptr) return nullptr;
  // Once per process (a thread-safe static); later calls only read it.
  static const int applied = ApplyDefaultRule(m);
  (void)applied;
  return m;
}

}  // namespace rcupool_et

namespace executorch {
namespace extension {
namespace threadpool {

bool NoThreadPoolGuard::is_enabled() {
  return rcupool_et::ThisThread().no_pool;
}

void NoThreadPoolGuard::set_enabled(bool enabled) {
  rcupool_et::ThisThread().no_pool = enabled;
}

UseNThreadsThreadPoolGuard::UseNThreadsThreadPoolGuard(size_t num_threads) {
  rcupool_t *m = rcupool_et::Manager();
  int err = m != nullptr ? rcupool_pin_sized(m, num_threads, &pin_) : -ENOMEM;
  if (err != 0) {
    rcupool_log(RCUPOOL_LOG_WARN,
                "executorch threadpool: UseNThreadsThreadPoolGuard(%zu) could "
                "not pin a pool (%d); the guard has no effect",
                num_threads, err);
    return;
  }
  rcupool_et::Context &c = rcupool_et::ThisThread();
  previous_pin_ = c.pin;
  previous_no_pool_ = c.no_pool;
  rcupool_scope_enter(&pin_);
  c.pin = &pin_;
  c.no_pool = false;
  active_ = true;
}

UseNThreadsThreadPoolGuard::~UseNThreadsThreadPoolGuard() {
  if (!active_) return;
  rcupool_et::Context &c = rcupool_et::ThisThread();
  c.pin = previous_pin_;
  c.no_pool = previous_no_pool_;
  rcupool_scope_exit();
  rcupool_unpin(&pin_);
}

UsePinnedThreadPoolGuard::UsePinnedThreadPoolGuard(
    const PinnedPthreadpool &pool) {
  rcupool_et::Context &c = rcupool_et::ThisThread();
  previous_pin_ = c.pin;
  previous_no_pool_ = c.no_pool;
  if (pool.get() == nullptr) {
    // An empty handle: the backend loaded without a pool; run inline.
    c.no_pool = true;
    return;
  }
  rcupool_scope_enter(pool.pin());
  entered_ = true;
  c.pin = pool.pin();
  c.no_pool = false;
}

UsePinnedThreadPoolGuard::~UsePinnedThreadPoolGuard() {
  rcupool_et::Context &c = rcupool_et::ThisThread();
  c.pin = previous_pin_;
  c.no_pool = previous_no_pool_;
  if (entered_) rcupool_scope_exit();
}

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch
