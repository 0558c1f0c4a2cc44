// SPDX-License-Identifier: LGPL-2.1-or-later
// A process that reports the size of its default pool, for cpus_test.cc,
// which starts it under `taskset`. Prints one line of key=value pairs:
//   threads     rcupool_get_stats().threads of rcupool_default()
//   os_threads  the pool's threads as /proc/self/task sees them: the
//               threads it added to the process, plus the caller
// With --narrow it then pins the default pool, narrows its own affinity to
// the first CPU of its mask, calls rcupool_reset(m, 0), and adds
//   narrowed     the current thread count after that reset
//   pin_threads  the pin's thread count, and pin_ok=1 if work on the pinned
//                pool still computes right
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <thread>

#include "tests/support/support.h"

using rcupool_test::OsThreadCount;
using rcupool_test::WaitForOsThreadCount;

int main(int argc, char **argv) {
  const bool narrow = argc > 1 && strcmp(argv[1], "--narrow") == 0;
  // ThreadSanitizer starts a background thread of its own when the process
  // creates its first thread: start one and join it before counting, so that
  // `before` holds every thread that is not the pool's.
  const size_t at_start = OsThreadCount();
  std::thread([] {}).join();
#if defined(__SANITIZE_THREAD__)
  const size_t sanitizer_threads = 1;
#else
  const size_t sanitizer_threads = 0;
#endif
  const size_t before = WaitForOsThreadCount(at_start + sanitizer_threads);
  rcupool_t *m = rcupool_default();
  if (m == nullptr) return 2;
  rcupool_stats_t s;
  if (rcupool_get_stats(m, &s) != 0) return 2;
  // pthreadpool_create(n) starts n - 1 workers; the caller is the n-th.
  const size_t after = WaitForOsThreadCount(before + s.threads - 1);
  printf("threads=%zu os_threads=%zu", s.threads, after - before + 1);
  if (narrow) {
    rcupool_pin_t pin{};
    if (rcupool_pin(m, &pin) != 0) return 2;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 2;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) first++;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) return 2;
    if (rcupool_reset(m, 0) != 0) return 2;
    const bool ok = rcupool_test::ParallelSumIsRight(
        rcupool_pin_pthreadpool(&pin), 1000);
    printf(" narrowed=%zu pin_threads=%zu pin_ok=%d", rcupool_threads(m),
           rcupool_pin_threads(&pin), ok ? 1 : 0);
    rcupool_unpin(&pin);
  }
  printf("\n");
  return 0;
}
