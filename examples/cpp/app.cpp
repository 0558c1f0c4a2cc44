// SPDX-License-Identifier: LGPL-2.1-or-later
#include <atomic>
#include <cstdio>

#include <rcupool/rcupool.hpp>

int main() {
  rcupool::Manager m = rcupool::Manager::process();
  if (!m || m.reset(2) != 0) return 1;
  rcupool::Pin method;                  // a loaded method pins the pool
  if (rcupool::Pin::current(m, method) != 0) return 1;
  if (m.reset(4) != 0) return 1;        // the method keeps its 2 threads
  std::atomic<long> sum{0};
  {
    rcupool::Scope scope(method);       // its parallel work runs on its pool
    if (rcupool::parallelize_1d(m, [&](std::size_t i) { sum += long(i); },
                                1000) != 0)
      return 1;
  }
  std::printf("sum %ld on %zu threads (current: %zu)\n", sum.load(),
              method.threads(), m.threads());
  {
    rcupool::Width width(m, 3);         // this call on 3 threads (a sized pin
    if (!width) return 1;               // and its scope); a failed pin never
                                        // aborts: width.error() says why
    if (rcupool::parallelize_1d(m, [&](std::size_t) {}, 10) != 0) return 1;
    std::printf("width %zu (current: %zu)\n", width.threads(), m.threads());
  }
  int rc = rcupool::with_threads(m, 1, [&] { sum -= 499500; });  // f() on 1
  return rc == 0 && sum == 0 && method.threads() == 2 ? 0 : 1;
}  // ~Pin unpins; the 2-thread pool is freed on rcupool's reclaim thread
