// fork()+exec of /bin/true from a process that holds a pool of n threads:
// with rcupool's default manager at n threads, against the same process
// holding n plain idle threads and no rcupool manager (the baseline rows
// run first, before the default manager exists). The ratio is the cost the
// fork handlers add (issue 10: at most 1.3x).
//
// Run without random interleaving: the default manager, once created,
// stays for the life of the process.
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "rcupool/rcupool.h"

namespace {

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
  ForkExecTrue(state);
}

}  // namespace

BENCHMARK(BM_ForkExec_IdleThreadsNoRcupool)->Arg(2)->Arg(32)->UseRealTime();
BENCHMARK(BM_ForkExec_RcupoolDefault)->Arg(2)->Arg(32)->UseRealTime();
