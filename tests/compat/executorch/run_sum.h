/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A parallel sum through ThreadPool::run(), with no test framework: the
// test extensions (extension.cc) run it too, and they link no GoogleTest.
#ifndef RCUPOOL_TESTS_COMPAT_EXECUTORCH_RUN_SUM_H
#define RCUPOOL_TESTS_COMPAT_EXECUTORCH_RUN_SUM_H

#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include <executorch/extension/threadpool/threadpool.h>

namespace et_test {

// run() over [0, range) adding 3i+1, each index counted: true when every
// index ran exactly once.
inline bool RunSumIsRight(size_t range) {
  std::atomic<uint64_t> total{0}, calls{0};
  ::executorch::extension::threadpool::get_threadpool()->run(
      [&](size_t i) {
        total.fetch_add(3 * i + 1, std::memory_order_relaxed);
        calls.fetch_add(1, std::memory_order_relaxed);
      },
      range);
  uint64_t n = range;
  return calls.load() == n && total.load() == 3 * (n * (n - 1) / 2) + n;
}

}  // namespace et_test

#endif  // RCUPOOL_TESTS_COMPAT_EXECUTORCH_RUN_SUM_H
