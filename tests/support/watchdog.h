/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A bound on a step that must not hang: the step runs on a thread of its
// own and, if it has not returned within the limit, the test program
// prints what hung and every thread's name and kernel wait channel, then
// aborts (a hang is a failure, never a test that waits for ever). The
// step's thread cannot be cleaned up after a hang, hence the abort.
#ifndef RCUPOOL_TESTS_SUPPORT_WATCHDOG_H
#define RCUPOOL_TESTS_SUPPORT_WATCHDOG_H

#include <dirent.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <utility>

namespace rcupool_test {

// Prints each thread of /proc/self/task: id, name, wait channel.
inline void PrintThreadsWaits() {
  DIR *d = opendir("/proc/self/task");
  if (d == nullptr) return;
  while (struct dirent *e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string base = std::string("/proc/self/task/") + e->d_name;
    std::string comm, wchan;
    std::getline(std::ifstream(base + "/comm"), comm);
    std::getline(std::ifstream(base + "/wchan"), wchan);
    std::fprintf(stderr, "  thread %s %-16s waits in %s\n", e->d_name,
                 comm.c_str(), wchan.c_str());
  }
  closedir(d);
}

// Runs f() on a thread of its own; aborts the program, saying `what` hung,
// unless it returns within `limit`.
template <class F>
void FinishesWithin(std::chrono::seconds limit, const char *what, F f) {
  std::packaged_task<void()> task(std::move(f));
  std::future<void> done = task.get_future();
  std::thread t(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "HANG: %s did not return within %lld s\n", what,
                 static_cast<long long>(limit.count()));
    PrintThreadsWaits();
    std::fflush(stderr);
    std::abort();
  }
  t.join();
}

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_SUPPORT_WATCHDOG_H
