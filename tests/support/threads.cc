// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/support/threads.h"

#include <dirent.h>

#include <chrono>
#include <fstream>
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

std::string OsThreadName(pid_t tid) {
  std::ifstream f("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(f, name);
  return name;
}

std::map<pid_t, std::string> OsThreadNames() {
  std::map<pid_t, std::string> out;
  DIR *d = opendir("/proc/self/task");
  if (d == nullptr) return out;
  while (struct dirent *e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    pid_t tid = static_cast<pid_t>(std::stol(e->d_name));
    out[tid] = OsThreadName(tid);
  }
  closedir(d);
  return out;
}

}  // namespace rcupool_test
