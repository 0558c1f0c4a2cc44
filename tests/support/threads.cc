// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/support/threads.h"

#include <chrono>
#include <thread>

#include "tools/os_threads.h"

namespace rcupool_test {

size_t OsThreadCount() { return os_thread_count(); }

size_t WaitForOsThreadCount(size_t expected) {
  size_t n = OsThreadCount();
  for (int i = 0; i < 200 && n != expected; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    n = OsThreadCount();
  }
  return n;
}

size_t SettledOsThreadCount() {
  size_t n = OsThreadCount();
  for (int i = 0, steady = 0; i < 200 && steady < 10; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    size_t now = OsThreadCount();
    steady = now == n ? steady + 1 : 0;
    n = now;
  }
  return n;
}

}  // namespace rcupool_test
