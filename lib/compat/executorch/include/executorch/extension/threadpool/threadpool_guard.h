/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Thread-local guards of ExecuTorch's thread-pool API, served by rcupool
 * (see threadpool.h).
 *
 * Each guard changes, for the calling thread only and until it is
 * destroyed, which pool get_pthreadpool(), get_pinned_pthreadpool(),
 * ThreadPool::get_thread_count() and ThreadPool::run() refer to. Guards
 * nest; the innermost one decides, and destroying it restores what was in
 * force before. Guards are RAII objects for one thread: create and destroy
 * each on the same thread, in LIFO order (as block scopes do). They are
 * neither copyable nor movable.
 */
#ifndef EXECUTORCH_EXTENSION_THREADPOOL_THREADPOOL_GUARD_H
#define EXECUTORCH_EXTENSION_THREADPOOL_THREADPOOL_GUARD_H

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "executorch threadpool_guard.h needs C++11 or later (-std=c++11)"
#endif

#include <stddef.h>

#include <executorch/extension/threadpool/threadpool.h>

namespace executorch {
namespace extension {
namespace threadpool {

/*
 * While alive: get_pthreadpool() returns nullptr on this thread,
 * get_pinned_pthreadpool() an empty handle, get_thread_count() 1, and run()
 * calls fn on the calling thread. Other threads are not affected. Never
 * blocks.
 */
struct RCUPOOL_ET_API NoThreadPoolGuard {
  /*
   * is_enabled(): whether this thread is in "no pool" mode (a
   * NoThreadPoolGuard, or set_enabled(true), is the innermost setting in
   * force). set_enabled(): sets this thread's mode directly; the enclosing
   * guard's destructor restores the mode it found.
   * Returns: the mode; nothing.
   * Threads: any; each answers for the calling thread.
   * Blocks: no.
   * Lifetime: no pointers kept.
   */
  static bool is_enabled();
  static void set_enabled(bool enabled);

  NoThreadPoolGuard() : previous_(is_enabled()) { set_enabled(true); }
  ~NoThreadPoolGuard() { set_enabled(previous_); }
  NoThreadPoolGuard(const NoThreadPoolGuard &) = delete;
  NoThreadPoolGuard &operator=(const NoThreadPoolGuard &) = delete;

 private:
  const bool previous_;
};

/*
 * While alive, this thread's parallel work runs on a pool of exactly
 * num_threads threads (0: the default count), whatever the process-wide
 * current pool is: run(), get_pthreadpool() (valid until the guard ends),
 * get_pinned_pthreadpool() (which then pins this same pool),
 * get_thread_count() (num_threads, so per-thread buffers sized at load
 * inside the guard fit the pool the work runs on), and every
 * rcupool_parallelize_1d() on the default manager (the guard enters an
 * rcupool scope).
 *
 * The pool is pinned with rcupool_pin_sized(): the current pool when it
 * has that size, else the live pool of that size (a warm one included),
 * else a new one. Once the last guard or pin on it ends, the pool stays
 * warm, so the next guard of that size starts no thread, and is freed
 * when unused for the manager's warm_ms, beyond its warm_pools, or at
 * ThreadPool::trim() (threadpool.h). It never changes the
 * process-wide current pool, and resets by other threads (or this one) do
 * not affect the guard. Inside a NoThreadPoolGuard it turns threads back
 * on for its own scope (innermost wins).
 *
 * When the pool cannot be had (num_threads > RCUPOOL_MAX_THREADS, threads
 * that cannot start), the failure is logged and the guard changes nothing:
 * active() is false. Blocks while a new pool's threads start. At most
 * RCUPOOL_SCOPE_MAX_DEPTH (16) of these and UsePinnedThreadPoolGuard may be
 * nested on one thread (rcupool aborts beyond).
 */
class RCUPOOL_ET_API UseNThreadsThreadPoolGuard {
 public:
  explicit UseNThreadsThreadPoolGuard(size_t num_threads);
  ~UseNThreadsThreadPoolGuard();
  UseNThreadsThreadPoolGuard(const UseNThreadsThreadPoolGuard &) = delete;
  UseNThreadsThreadPoolGuard &operator=(const UseNThreadsThreadPoolGuard &) =
      delete;

  /*
   * active(): false when the guard could not pin its pool and changes
   * nothing. pthreadpool(), thread_count(): the guard's pool and its size.
   * Returns: those; nullptr and 0 when not active.
   * Threads: any.
   * Blocks: no.
   * Lifetime: the pool until the guard is destroyed.
   */
  bool active() const { return active_; }
  pthreadpool_t pthreadpool() const { return rcupool_pin_pthreadpool(&pin_); }
  size_t thread_count() const { return rcupool_pin_threads(&pin_); }

 private:
  rcupool_pin_t pin_{};
  const rcupool_pin_t *previous_pin_ = nullptr;
  bool previous_no_pool_ = false;
  bool active_ = false;
};

/*
 * While alive, this thread's parallel work runs on the pool a
 * PinnedPthreadpool holds: what a backend enters around each execution of
 * a method it loaded on that pool, so the method's run() kernels use the
 * same pool as its XNNPACK partitions, with the thread count it planned
 * for. An empty handle (taken under a NoThreadPoolGuard) acts as a
 * NoThreadPoolGuard. The handle must outlive the guard and not be moved
 * while it is alive. Never blocks. Same nesting limit as above.
 */
class RCUPOOL_ET_API UsePinnedThreadPoolGuard {
 public:
  explicit UsePinnedThreadPoolGuard(const PinnedPthreadpool &pool);
  ~UsePinnedThreadPoolGuard();
  UsePinnedThreadPoolGuard(const UsePinnedThreadPoolGuard &) = delete;
  UsePinnedThreadPoolGuard &operator=(const UsePinnedThreadPoolGuard &) =
      delete;

 private:
  const rcupool_pin_t *previous_pin_ = nullptr;
  bool previous_no_pool_ = false;
  bool entered_ = false;  // an rcupool scope was entered
};

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

/* Its old name, torch::executorch::threadpool::NoThreadPoolGuard, is
 * declared with the others in threadpool.h. */

#endif  // EXECUTORCH_EXTENSION_THREADPOOL_THREADPOOL_GUARD_H
