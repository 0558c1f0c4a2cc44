/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ExecuTorch's CPU thread-pool API, served by rcupool.
 *
 * A source-compatible stand-in for ExecuTorch's
 * <executorch/extension/threadpool/threadpool.h>: the same names, built on
 * the process-wide manager of librcupool.so.0 (rcupool_default()). It has no
 * dependency on ExecuTorch. The implementation lives in one shared object,
 * librcupool_executorch.so.0, so a process that loads several extensions
 * built on it holds one get_threadpool() and one pool.
 *
 * What changes against the original (docs/executorch.md):
 *   - _unsafe_reset_threadpool() is safe at any time, from any thread: a
 *     reset publishes a new pool and never frees one that is in use.
 *   - get_pthreadpool() is valid only until the next reset (see below);
 *     code that keeps the pool across calls (a backend at load) takes
 *     get_pinned_pthreadpool() instead.
 *   - run() adds no lock of its own (see ThreadPool::run()).
 *   - A pool that nobody holds any more (a UseNThreadsThreadPoolGuard
 *     ended, a backend let its pin go, a reset moved on) stays warm for a
 *     while, so the next guard or reset at its width starts no thread
 *     (rcupool_set_warm() on manager() says how long and how many);
 *     ThreadPool::trim(), rcupool's addition, frees such pools at once, and
 *     _unsafe_destroy_threadpool() does too.
 *
 * Thread-local context. Every call below answers for the calling thread:
 *   - while a NoThreadPoolGuard is alive on it: no pool (nullptr, run()
 *     inline, a thread count of 1);
 *   - inside a UseNThreadsThreadPoolGuard or a UsePinnedThreadPoolGuard
 *     (threadpool_guard.h): that guard's pool;
 *   - otherwise: the process-wide current pool.
 * When guards nest, the innermost one decides.
 *
 * These headers need C++11 or later (ExecuTorch itself needs C++17; a
 * consumer built with Bazel 4.2.3's default -std=c++0x builds too) and stop
 * with an #error naming it below that.
 */
#ifndef EXECUTORCH_EXTENSION_THREADPOOL_THREADPOOL_H
#define EXECUTORCH_EXTENSION_THREADPOOL_THREADPOOL_H

#if !defined(__cplusplus) || __cplusplus < 201103L
#error "executorch threadpool.h needs C++11 or later (-std=c++11)"
#endif

#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include <pthreadpool.h>
#include <rcupool/rcupool.h>
#include <rcupool/rcupool.hpp>

/* Marks what librcupool_executorch.so exports (the rest is hidden). */
#define RCUPOOL_ET_API __attribute__((visibility("default")))

namespace executorch {
namespace extension {
namespace threadpool {

class ThreadPool;
class PinnedPthreadpool;
struct NoThreadPoolGuard;  // threadpool_guard.h
RCUPOOL_ET_API ThreadPool *get_threadpool();
RCUPOOL_ET_API PinnedPthreadpool get_pinned_pthreadpool();

/*
 * The process's thread pool. There is exactly one, returned by
 * get_threadpool(); it is a view of rcupool_default() and lives until the
 * process exits. Not copyable, not movable, not constructible by callers.
 * Every member may be called from any thread at any time.
 */
class RCUPOOL_ET_API ThreadPool final {
 public:
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ThreadPool(ThreadPool &&) = delete;
  ThreadPool &operator=(ThreadPool &&) = delete;

  /*
   * The number of threads run() uses on the calling thread, the caller
   * included: the guard's pool size inside a UseNThreadsThreadPoolGuard or
   * UsePinnedThreadPoolGuard (so buffers sized by it at load fit the pool the
   * work runs on), 1 under a NoThreadPoolGuard (run() is inline there), else
   * the current pool's size.
   * Returns: that count. Outside guards it may be stale as soon as it is
   *   returned (another thread may reset).
   * Threads: any.
   * Blocks: no.
   * Lifetime: no pointers kept.
   */
  size_t get_thread_count() const;

  /*
   * Makes a pool of num_threads threads the process-wide current one
   * (rcupool_reset() on the default manager; 0 means the default count,
   * RCUPOOL_NUM_THREADS or the performance cores). Safe at any time, from
   * any thread, also inside run() tasks and guards: holders of pins and
   * guards keep their pools, readers are never waited for. A guard on the
   * calling thread keeps its own pool until it ends.
   *
   * The name is ExecuTorch's and kept for source compatibility: nothing
   * about it is unsafe here.
   * Returns: true on success; false when num_threads > RCUPOOL_MAX_THREADS
   *   or the new pool could not be started (the current pool is unchanged).
   * Threads: any, also inside run() tasks and guards.
   * Blocks: while the new pool's threads start (as rcupool_reset()).
   * Lifetime: no pointers kept; get_pthreadpool() results from before may
   *   be freed.
   */
  bool _unsafe_reset_threadpool(uint32_t num_threads);

  /*
   * Frees every pool other than the current one that nobody holds any
   * more, the warm ones included (trim()), and waits for that. It never
   * frees a pool in use: the current pool, pools pinned by backends or
   * guards, and pools read by a running parallel call all stay. The
   * ThreadPool and the manager stay valid; later calls work as before (a
   * guard at a width freed here starts its pool again).
   *
   * Returns: nothing.
   * Threads: any except from inside a run() task or an rcupool read-side
   *   section: there it would wait for itself, so it logs a warning and
   *   returns without freeing.
   * Blocks: yes, as rcupool_trim() (grace periods and the joins of the
   *   freed pools' workers).
   * Lifetime: get_pthreadpool() results of retired pools are gone once it
   *   returns.
   */
  void _unsafe_destroy_threadpool();

  /*
   * rcupool's addition, not in ExecuTorch: frees the warm pools now
   * (rcupool_trim() on the default manager), for a process that knows it
   * goes quiet: every pool that is not current and that no guard, pin or
   * running call holds; returns once their worker threads are joined.
   * Without it such a pool goes on its own once unused for the manager's
   * warm_ms (rcupool_set_warm(); 1000 ms by default), or beyond its
   * warm_pools.
   *
   * Returns: the number of pools freed (0 or more), or a negative errno:
   *   -EDEADLK from inside a run() task or an rcupool read-side section
   *   (nothing is freed), -EAGAIN when rcupool's reclaim thread cannot be
   *   started.
   * Threads: any except those above.
   * Blocks: yes, as rcupool_trim().
   * Lifetime: get_pthreadpool() results of the freed pools are gone once it
   *   returns.
   */
  int trim();

  /*
   * Calls fn(i) for every i in [0, range), in parallel, and returns when all
   * calls are done: equivalent to  for (i = 0; i < range; i++) fn(i);
   *
   * fn is anything callable with a size_t: a lambda, a function pointer, a
   * std::function<void(size_t)>, a function reference type. It is called
   * concurrently from several threads.
   *
   * A call of fn that throws (as oneTBB's parallel_for does with its body):
   * the calls not yet started are skipped, the calls already running
   * return, and then run() rethrows the first exception caught on the
   * calling thread; the others are dropped. No exception crosses rcupool's
   * or pthreadpool's frames, so the pool and every guard stay sound (trim()
   * works, nothing stays pinned). Built without exceptions (-fno-exceptions)
   * nothing can throw and run() does no such work.
   *
   * Where it runs (rcupool_parallelize_1d() on the default manager):
   *   - under a NoThreadPoolGuard: inline, on the calling thread;
   *   - inside a UseNThreadsThreadPoolGuard / UsePinnedThreadPoolGuard, or
   *     any rcupool scope of the default manager: on that pool;
   *   - from inside a task of any rcupool pool: inline (nested parallelism);
   *   - else on the current pool, which a concurrent reset cannot free
   *     while the call runs.
   * After the call the pool's workers sleep at once, or spin a while first,
   * as the default manager's idle policy says (rcupool_set_idle() on
   * manager(); RCUPOOL_IDLE_YIELD unless set: benchmarks/README.md, "Idle workers").
   * ExecuTorch's original serializes every run() through one global mutex;
   * this one takes no lock of its own (the pool is read lock-free). Calls
   * on different pools run at the same time; calls that land on the same
   * pthreadpool_t are queued by pthreadpool, which runs one parallel
   * operation per pool at a time.
   *
   * Returns: nothing; throws what fn threw (above).
   * Threads: any.
   * Blocks: until every fn(i) that started has returned.
   * Lifetime: fn is used, by reference, until it returns; nothing is kept.
   */
  template <typename Fn>
  void run(Fn &&fn, size_t range) {
    typedef typename std::remove_reference<Fn>::type Callable;
    run_callable(fn, range, std::is_function<Callable>());
  }

  /*
   * The rcupool manager behind this pool (rcupool_default()).
   * Returns: the manager; never null.
   * Threads: any.
   * Blocks: no.
   * Lifetime: until the process exits.
   */
  rcupool_t *manager() const { return manager_; }

 private:
  friend ThreadPool *get_threadpool();
  explicit ThreadPool(rcupool_t *manager) : manager_(manager) {}
  ~ThreadPool() = default;

  // One run() of a callable: the callable and, where C++ exceptions are on,
  // the first exception a call threw (written by the call that set failed;
  // read by run() after the dispatch, which every call happens before).
  template <typename Callable>
  struct Call {
    Callable *fn;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    std::atomic<bool> failed;
    std::exception_ptr first;
#endif
  };
  template <typename Callable>
  static void call(void *ctx, size_t i) {
    Call<Callable> *c = static_cast<Call<Callable> *>(ctx);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    if (c->failed.load(std::memory_order_relaxed)) return;  // skipped
    try {
      (*c->fn)(i);
    } catch (...) {
      if (!c->failed.exchange(true, std::memory_order_relaxed))
        c->first = std::current_exception();
    }
#else
    (*c->fn)(i);
#endif
  }
  // run() of a function named directly: through a pointer to it.
  template <typename Function>
  void run_callable(Function &fn, size_t range, std::true_type) {
    Function *function = &fn;
    run(function, range);
  }
  // run() of anything else callable: called where it is, by reference.
  template <typename Callable>
  void run_callable(Callable &fn, size_t range, std::false_type) {
    Call<Callable> c;
    c.fn = std::addressof(fn);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    c.failed.store(false, std::memory_order_relaxed);
#endif
    run_task(&ThreadPool::call<Callable>, &c, range);
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    if (c.first) std::rethrow_exception(c.first);
#endif
  }
  void run_task(void (*task)(void *, size_t), void *ctx, size_t range);

  rcupool_t *const manager_;
};

/*
 * The process's ThreadPool, created on first use (with rcupool_default()).
 * Where no thread can start (`ulimit -u`, a pids cgroup) its pool has 1
 * thread and run() runs on the caller, with a warning (rcupool_default()).
 * Returns: the ThreadPool; never nullptr, as ExecuTorch's original (whose
 *   callers do not check). If rcupool_default() cannot be had at all (out
 *   of memory) the process ends with a message.
 * Threads: any.
 * Blocks: the first call, while threads start.
 * Lifetime: the pointer stays valid until the process exits.
 */
RCUPOOL_ET_API ThreadPool *get_threadpool();

/*
 * The pthreadpool_t for this thread (see "Thread-local context"):
 *   - nullptr while a NoThreadPoolGuard is alive on this thread;
 *   - inside a UseNThreadsThreadPoolGuard or UsePinnedThreadPoolGuard: the
 *     guard's pool, valid until that guard ends;
 *   - else the process-wide current pool, valid until the next reset of
 *     the default manager from any thread (_unsafe_reset_threadpool(),
 *     rcupool_reset()): after such a reset it may be freed at any time
 *     (it usually stays warm for a while, but trim(), a barrier or the
 *     warm limit can free it first) under a caller that kept it. Use it only for one call, or where no reset can
 *     happen; to keep it (a backend at load), take get_pinned_pthreadpool().
 * Returns: that pool; nullptr also when the default manager could not be
 *   created.
 * Threads: any.
 * Blocks: no (but the first call may create the manager).
 * Lifetime: as listed above.
 */
RCUPOOL_ET_API pthreadpool_t get_pthreadpool();

/*
 * A pin on one pool: while this handle holds it, the pool is not freed,
 * whatever resets happen (an RAII owner of an rcupool_pin_t). Move-only;
 * an empty handle holds nothing and get() returns nullptr.
 *
 * A backend takes it at load, hands get() to its kernel library (XNNPACK's
 * runtime), keeps the handle as long as it keeps that runtime, and drops it
 * after deleting the runtime. Around each execution it may enter a
 * UsePinnedThreadPoolGuard so that run() calls of the same method use the
 * same pool.
 *
 * Any thread may create, use or destroy a handle; one handle must not be
 * used by two threads at once. Do not move or destroy a handle while a
 * UsePinnedThreadPoolGuard of it is alive.
 */
class RCUPOOL_ET_API PinnedPthreadpool final {
 public:
  PinnedPthreadpool() = default;  // empty
  /* Moves and the unpin at destruction are rcupool::Pin's. */
  PinnedPthreadpool(PinnedPthreadpool &&) noexcept = default;
  PinnedPthreadpool &operator=(PinnedPthreadpool &&) noexcept = default;
  PinnedPthreadpool(const PinnedPthreadpool &) = delete;
  PinnedPthreadpool &operator=(const PinnedPthreadpool &) = delete;

  /*
   * get(): the pinned pool; thread_count(): its thread count; is_current():
   * false once a reset made another pool current (the holder may reload to
   * follow the new size); operator bool: whether the handle holds a pool.
   * Returns: nullptr, 0, false and false when empty.
   * Threads: any.
   * Blocks: no.
   * Lifetime: get() until this handle is reset, destroyed or moved from.
   */
  pthreadpool_t get() const { return pin_.pthreadpool(); }
  size_t thread_count() const { return pin_.threads(); }
  bool is_current() const { return pin_.is_current(); }
  explicit operator bool() const { return get() != nullptr; }

  /*
   * Releases the pin (rcupool_unpin()); the handle becomes empty. The pool
   * is freed later on rcupool's reclaim thread if it is no longer current
   * and nobody else holds it.
   * Returns: nothing.
   * Threads: any; not two at once on one handle.
   * Blocks: no (as rcupool_unpin()).
   * Lifetime: what get() returned is no longer held by this handle.
   */
  void reset() { pin_.reset(); }

  /*
   * The underlying pin, for rcupool_scope_enter() and the getters of
   * <rcupool/rcupool.h>.
   * Returns: its address; never null.
   * Threads: any.
   * Blocks: no.
   * Lifetime: as long as this handle is not moved or destroyed.
   */
  const rcupool_pin_t *pin() const { return pin_.get(); }

 private:
  friend PinnedPthreadpool get_pinned_pthreadpool();
  ::rcupool::Pin pin_;
};

/*
 * Pins the pool get_pthreadpool() would return on this thread: the guard's
 * pool inside a UseNThreadsThreadPoolGuard or UsePinnedThreadPoolGuard, the
 * current pool otherwise. Under a NoThreadPoolGuard, or if the manager or
 * the pin cannot be had (logged), the handle is empty: a backend then runs
 * on the calling thread, as it would with get_pthreadpool()'s nullptr.
 * Returns: the handle, empty in the cases above.
 * Threads: any.
 * Blocks: no, but the first call may create the manager, and the pin
 *   blocks as rcupool_pin() says (a fork child's first pin).
 * Lifetime: the pool until the handle is reset or destroyed.
 */
RCUPOOL_ET_API PinnedPthreadpool get_pinned_pthreadpool();

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

/* The old names, still used by existing callers and tests (the guard's
 * is usable once threadpool_guard.h is included). */
namespace torch {
namespace executorch {
namespace threadpool {
using ::executorch::extension::threadpool::get_pthreadpool;
using ::executorch::extension::threadpool::get_threadpool;
using ::executorch::extension::threadpool::NoThreadPoolGuard;
using ::executorch::extension::threadpool::ThreadPool;
}  // namespace threadpool
}  // namespace executorch
}  // namespace torch

#endif  // EXECUTORCH_EXTENSION_THREADPOOL_THREADPOOL_H
