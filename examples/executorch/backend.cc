// SPDX-License-Identifier: LGPL-2.1-or-later
// A backend's method on ExecuTorch's thread-pool API (rcupool's stand-in):
// it pins the pool at load and runs every execute inside a guard on it, so
// a reset from any thread never frees the pool under the method.
#include <atomic>
#include <cstdio>

#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

namespace tp = ::executorch::extension::threadpool;

struct Method {
  tp::PinnedPthreadpool pool;  // at load; hand pool.get() to XNNPACK
  size_t planned_threads = 0;  // per-thread buffers are sized for this
};

static bool load(Method &method) {
  method.pool = tp::get_pinned_pthreadpool();  // not get_pthreadpool()
  method.planned_threads = method.pool.thread_count();
  return bool(method.pool);
}

static long execute(const Method &method) {
  tp::UsePinnedThreadPoolGuard guard(method.pool);  // run() uses its pool
  std::atomic<long> sum{0};
  tp::get_threadpool()->run([&](size_t i) { sum += long(i); }, 1000);
  return sum.load();
}

int main() {
  tp::ThreadPool *pool = tp::get_threadpool();
  if (pool == nullptr || !pool->_unsafe_reset_threadpool(2)) return 1;
  Method method;
  if (!load(method)) return 1;
  if (!pool->_unsafe_reset_threadpool(3)) return 1;  // safe: the method keeps 2
  long sum = execute(method);
  if (!method.pool.is_current()) {
    // A reset happened: reload at a point of the backend's choice.
  }
  size_t width;
  {
    tp::UseNThreadsThreadPoolGuard one(1);  // this thread's calls: 1 thread
    width = pool->get_thread_count();
  }
  std::printf("sum %ld on %zu threads (current: %zu, in the guard: %zu)\n",
              sum, method.planned_threads, pool->get_thread_count(), width);
  return sum == 499500 && method.planned_threads == 2 && width == 1 ? 0 : 1;
}  // ~PinnedPthreadpool unpins; the 2-thread pool stays warm, then goes
