// SPDX-License-Identifier: LGPL-2.1-or-later
// ExecuTorch's thread-pool API from the stand-in, built with nothing but a
// C++ compiler and pkg-config:
//   c++ executorch.cc $(pkg-config --cflags --libs rcupool-executorch)
// run() through the current pool, a reset while a PinnedPthreadpool holds
// the old pool, a UseNThreadsThreadPoolGuard of width 1 and the old alias.
// Prints "executorch ok" and exits 0 only when every check holds.
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <atomic>
#include <cstdio>

namespace tp = ::executorch::extension::threadpool;

static size_t sum_of_run(tp::ThreadPool *pool, size_t n) {
  std::atomic<size_t> total{0};
  pool->run([&](size_t i) { total.fetch_add(i + 1); }, n);
  return total.load();
}

int main() {
  tp::ThreadPool *pool = tp::get_threadpool();
  if (pool == nullptr || !pool->_unsafe_reset_threadpool(2))
    return std::fprintf(stderr, "reset to 2\n"), 1;
  tp::PinnedPthreadpool pinned = tp::get_pinned_pthreadpool();
  if (!pool->_unsafe_reset_threadpool(3)) return std::fprintf(stderr, "reset to 3\n"), 1;
  bool ok = sum_of_run(pool, 100) == 5050 && pool->get_thread_count() == 3 &&
            pinned.thread_count() == 2 && !pinned.is_current();
  {
    tp::UseNThreadsThreadPoolGuard one(1);
    ok = ok && one.active() && pool->get_thread_count() == 1 &&
         sum_of_run(pool, 100) == 5050;
  }
  ok = ok && torch::executorch::threadpool::get_threadpool() == pool;
  if (!ok) return std::fprintf(stderr, "wrong\n"), 1;
  std::printf("executorch ok: %zu threads, a pin kept %zu\n",
              pool->get_thread_count(), pinned.thread_count());
  return 0;
}
