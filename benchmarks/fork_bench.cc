// SPDX-License-Identifier: LGPL-2.1-or-later
// fork()+exec of /bin/true from a process that holds a pool of n threads:
// with rcupool's default manager at n threads, against the same process
// holding n plain idle threads and no rcupool manager (the baseline rows
// run first, before the default manager exists). The ratio is the cost the
// fork handlers add (issue 10: at most 1.3x).
//
// Run without random interleaving: the default manager, once created,
// stays for the life of the process.
//
// Before timing, the rcupool row waits until the pool's workers sleep:
// after every job (here: the pool's start-up census) pthreadpool's workers
// spin-wait about a million iterations before they block, and with 32
// workers on 2 cores that spinning lasts about a second of wall time and
// steals the CPU from the forks being timed (perf: 40% of the samples were
// that spin). The baseline's idle threads block at once.
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "rcupool/rcupool.h"

namespace {

// Number of this process's threads other than the caller that are running
// (state R in /proc/self/task/*/stat).
int OtherRunningThreads() {
  DIR *d = opendir("/proc/self/task");
  if (d == nullptr) return 0;
  int running = 0;
  const long self = static_cast<long>(gettid());
  while (struct dirent *e = readdir(d)) {
    if (e->d_name[0] == '.' || atol(e->d_name) == self) continue;
    char path[sizeof "/proc/self/task//stat" + sizeof e->d_name];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
    FILE *f = fopen(path, "r");
    if (f == nullptr) continue;
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    if (paren != nullptr && paren[1] == ' ' && paren[2] == 'R') running++;
  }
  closedir(d);
  return running;
}

// Waits (at most 10 s) until no other thread of the process runs.
void WaitUntilOtherThreadsSleep() {
  for (int i = 0; i < 1000 && OtherRunningThreads() > 0; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void ForkExecTrue(benchmark::State &state) {
  for (auto _ : state) {
    pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/true", "true", (char *)nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      state.SkipWithError("child failed");
  }
}

// Baseline: n-1 idle threads (what a pool of n holds), no rcupool manager.
void BM_ForkExec_IdleThreadsNoRcupool(benchmark::State &state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::vector<std::thread> idle;
  for (size_t i = 1; i < n; i++)
    idle.emplace_back([&] {
      std::unique_lock<std::mutex> g(mu);
      cv.wait(g, [&] { return stop; });
    });
  WaitUntilOtherThreadsSleep();
  ForkExecTrue(state);
  {
    std::lock_guard<std::mutex> g(mu);
    stop = true;
  }
  cv.notify_all();
  for (auto &t : idle) t.join();
}

void BM_ForkExec_RcupoolDefault(benchmark::State &state) {
  rcupool_t *m = rcupool_default();
  if (m == nullptr || rcupool_reset(m, state.range(0)) != 0) {
    state.SkipWithError("rcupool_default/reset failed");
    return;
  }
  rcupool_barrier(m);
  WaitUntilOtherThreadsSleep();
  ForkExecTrue(state);
}

}  // namespace

BENCHMARK(BM_ForkExec_IdleThreadsNoRcupool)->Arg(2)->Arg(32)->UseRealTime();
BENCHMARK(BM_ForkExec_RcupoolDefault)->Arg(2)->Arg(32)->UseRealTime();
