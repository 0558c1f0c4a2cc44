// SPDX-License-Identifier: LGPL-2.1-or-later
// ExecuTorch's thread-pool API (the stand-in,
// @rcupool//lib/compat/executorch:threadpool) from a downstream workspace,
// built with Bazel's default C++ standard like raii_test: run() of a
// lambda and of a function, a reset while a PinnedPthreadpool holds the old
// pool, and the guards. Exits non-zero on the first failure.
#include <executorch/extension/threadpool/threadpool.h>
#include <executorch/extension/threadpool/threadpool_guard.h>

#include <atomic>
#include <cstdio>

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,       \
                   __LINE__, #cond);                                     \
      return 1;                                                          \
    }                                                                    \
  } while (0)

namespace tp = ::executorch::extension::threadpool;

namespace {

std::atomic<size_t> calls(0);
void count(size_t) { calls++; }

}  // namespace

int main() {
  tp::ThreadPool *pool = tp::get_threadpool();
  CHECK(pool != nullptr);
  CHECK(pool->_unsafe_reset_threadpool(2));
  tp::PinnedPthreadpool pinned = tp::get_pinned_pthreadpool();
  CHECK(pool->_unsafe_reset_threadpool(3));
  CHECK(pinned.thread_count() == 2 && !pinned.is_current());
  std::atomic<size_t> total(0);
  pool->run([&total](size_t i) { total += i + 1; }, 100);
  CHECK(total.load() == 5050);
  pool->run(count, 10);  // a function named directly
  CHECK(calls.load() == 10);
  {
    tp::UsePinnedThreadPoolGuard guard(pinned);
    CHECK(pool->get_thread_count() == 2);
  }
  {
    tp::NoThreadPoolGuard none;
    CHECK(tp::get_pthreadpool() == nullptr && pool->get_thread_count() == 1);
  }
  CHECK(pool->get_thread_count() == 3);
  std::printf("executorch ok\n");
  return 0;
}
