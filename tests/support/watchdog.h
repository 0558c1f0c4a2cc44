/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Bounds on steps that must not hang. A hang is a failure, never a test
// that waits for ever: past its limit the test program prints what hung,
// then every thread's name, kernel wait channel and kernel stack (from
// /proc), then every thread's user stack (gdb, where installed), and
// aborts. A step that hung cannot be cleaned up after, hence the abort.
//
//   FinishesWithin(limit, what, f): runs f() on a thread of its own.
//   Watchdog dog(limit, report): aborts unless dog is destroyed within
//       limit; report() first says where the test's own threads were.
#ifndef RCUPOOL_TESTS_SUPPORT_WATCHDOG_H
#define RCUPOOL_TESTS_SUPPORT_WATCHDOG_H

#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

namespace rcupool_test {

inline std::string WatchdogReadFile(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Prints each thread of /proc/self/task: id, name, wait channel and kernel
// stack (readable by root only; empty otherwise); then, when gdb is
// installed, every thread's user stack.
inline void PrintThreadsStacks() {
  if (DIR *d = opendir("/proc/self/task")) {
    while (struct dirent *e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::string base = std::string("/proc/self/task/") + e->d_name;
      std::string comm, wchan;
      std::getline(std::ifstream(base + "/comm"), comm);
      std::getline(std::ifstream(base + "/wchan"), wchan);
      std::fprintf(stderr, "  thread %s %-16s waits in %s\n%s", e->d_name,
                   comm.c_str(), wchan.c_str(),
                   WatchdogReadFile(base + "/stack").c_str());
    }
    closedir(d);
  }
  std::fflush(stderr);
  const std::string gdb =
      "command -v gdb >/dev/null && timeout 120 gdb -p " +
      std::to_string(getpid()) +
      " -batch -ex 'thread apply all bt' </dev/null >&2 2>/dev/null";
  if (std::system(gdb.c_str()) != 0)
    std::fprintf(stderr, "watchdog: no stacks from gdb (not installed, or "
                         "failed)\n");
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
    PrintThreadsStacks();
    std::fflush(stderr);
    std::abort();
  }
  t.join();
}

// Aborts the program unless destroyed within `limit`; before the stacks,
// report() prints what the test's threads were doing.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, std::function<void()> report)
      : report_(std::move(report)), t_([this, limit] {
          std::unique_lock<std::mutex> g(mu_);
          if (cv_.wait_for(g, limit, [this] { return done_; })) return;
          std::fprintf(stderr, "HANG: not done within %lld s\n",
                       static_cast<long long>(limit.count()));
          report_();
          PrintThreadsStacks();
          std::fprintf(stderr, "watchdog: aborting\n");
          std::fflush(stderr);
          std::abort();
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> g(mu_);
      done_ = true;
    }
    cv_.notify_all();
    t_.join();
  }
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

 private:
  std::function<void()> report_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread t_;  // last: starts once the members above exist
};

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_SUPPORT_WATCHDOG_H
