// SPDX-License-Identifier: LGPL-2.1-or-later
// ExecuTorch's thread-pool API from an installed rcupool, found with
// find_package(rcupool CONFIG) and linked as rcupool::executorch_threadpool:
// a reset while a backend holds a pinned pool, run() through it and through
// the current pool, and a UseNThreadsThreadPoolGuard of width 1.
// Prints "executorch consumer ok" and exits 0 only when every check holds.
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <atomic>
#include <cstdio>

namespace tp = ::executorch::extension::threadpool;

namespace {

int failures = 0;
void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "FAIL: %s\n", what);
    failures++;
  }
}

size_t sum_of_run(tp::ThreadPool *pool, size_t n) {
  std::atomic<size_t> total{0};
  pool->run([&](size_t i) { total.fetch_add(i + 1); }, n);
  return total.load();
}

}  // namespace

int main() {
  tp::ThreadPool *pool = tp::get_threadpool();
  check(pool != nullptr, "get_threadpool");
  check(pool->_unsafe_reset_threadpool(2), "reset to 2");
  check(pool->get_thread_count() == 2, "two threads");
  check(sum_of_run(pool, 100) == 5050, "run on the current pool");
  {
    tp::UseNThreadsThreadPoolGuard one(1);
    check(pool->get_thread_count() == 1, "guard of width 1");
    check(sum_of_run(pool, 100) == 5050, "run inside the guard");
    check(pool->_unsafe_reset_threadpool(3), "reset inside the guard");
    check(pool->get_thread_count() == 1, "the guard keeps its width");
  }
  check(pool->get_thread_count() == 3, "the reset applies after the guard");
  check(sum_of_run(pool, 100) == 5050, "run after the guard");
  if (failures != 0) return 1;
  std::printf("executorch consumer ok\n");
  return 0;
}
