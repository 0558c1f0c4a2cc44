// SPDX-License-Identifier: LGPL-2.1-or-later
// Placement and following the limits, side by side in one run.
//
//   BM_PlacedDispatch/<work>   a 2-thread pool (one worker and the
//       calling thread) while a competitor process, bound to CPU 1, spins
//       at the same priority (it stands in for a slow core: whatever runs
//       on CPU 1 gets about half of it), three placements of the worker,
//       paired in each iteration:
//         away:  bound to CPU 0 (placement "0"; the manual time)
//         on:    bound to CPU 1, the competitor's (placement "1")
//         none:  not bound (the OS decides; the default)
//       The calling thread is not bound (rcupool never binds it). work:
//       0 tiny (2 items of one store), 1 (2 items of ~200 us of arithmetic,
//       calibrated at start). Counters: away_us, on_us, none_us per
//       dispatch; on_over_away, none_over_away.
//   BM_FollowCost/<yield>              the limits check against a tiny
//       dispatch (rcupool_parallelize_1d of 2 items of one store, outside
//       a scope: the path that runs the check) on a manager of the
//       default count (2 here), paired in each iteration: batches of 64
//       dispatches on a manager that follows and on one that does not,
//       and 64 checks alone (rcupl_follow_maybe when no check is due,
//       through one call: a little more than the dispatch pays inline).
//       yield 0: idle policy spin (the cheapest dispatch), 1: yield (the
//       library's default).
//
// Needs CPUs 0 and 1 in the mask (skips otherwise). Run with repetitions
// and random interleaving (docs/placement.md has the command and a run).
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>

#include "rcupool_private/testing.h"
#include "benchmarks/spin.h"

namespace {

using rcupool_bench::SpinTask;
using Work = rcupool_bench::SpinWork;

// About 200 us a task.
void Calibrate() {
  rcupool_bench::SpinSteps() = rcupool_bench::CalibrateSpinSteps(200e3, 2e6);
}

bool HaveCpus01() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_ISSET(0, &set) &&
         CPU_ISSET(1, &set);
}

// A process spinning on CPU 1 for the life of this one.
class Competitor {
 public:
  Competitor() {
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the benchmark
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(1, &set);
      sched_setaffinity(0, sizeof set, &set);
      volatile uint64_t x = 0;
      for (;;) x = x + 1;
    }
  }
  ~Competitor() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

 private:
  pid_t pid_ = -1;
};

double NowNs() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Paired: the three placements are three pools of one manager, pinned
// together (a pool's identity is (width, placement)); each iteration times
// a batch of dispatches on each, in an order that rotates, so the ratios
// compare batches taken a few milliseconds apart under the same load.
void BM_PlacedDispatch(benchmark::State &state) {
  if (!HaveCpus01()) {
    state.SkipWithError("needs CPUs 0 and 1 in the affinity mask");
    return;
  }
  static const char *const where[3] = {"0", "1", "none"};
  Competitor competitor;
  rcupool_options_t o{};
  o.threads = 1;  // the library's idle policy (yield)
  rcupool_t *m = nullptr;
  if (rcupool_create(&o, &m) != 0) {
    state.SkipWithError("create");
    return;
  }
  rcupool_pin_t pins[3] = {};
  for (int k = 0; k < 3; k++) {
    rcupool_placement_t pl{};
    rcupool_placement_parse(where[k], &pl);
    if (rcupool_pin_placed(m, 2, &pl, &pins[k]) != 0) {
      state.SkipWithError("pin_placed");
      for (int j = 0; j < k; j++) rcupool_unpin(&pins[j]);
      rcupool_destroy(m);
      return;
    }
  }
  const bool spin = state.range(0) == 1;
  const int batch = spin ? 4 : 64;
  Work w{std::vector<uint64_t>(2), spin};
  double total[3] = {0, 0, 0};
  int first = 0;
  for (auto _ : state) {
    double t[3];
    for (int j = 0; j < 3; j++) {
      int k = (first + j) % 3;
      rcupool_scope_enter(&pins[k]);
      double t0 = NowNs();
      for (int i = 0; i < batch; i++) rcupool_parallelize_1d(m, SpinTask, &w, 2, 0);
      t[k] = NowNs() - t0;
      rcupool_scope_exit();
      benchmark::DoNotOptimize(w.out.data());
    }
    for (int k = 0; k < 3; k++) total[k] += t[k];
    first = (first + 1) % 3;
    state.SetIterationTime(t[0] / batch * 1e-9);
  }
  const double n = static_cast<double>(state.iterations()) * batch;
  state.counters["away_us"] = total[0] / n / 1e3;
  state.counters["on_us"] = total[1] / n / 1e3;
  state.counters["none_us"] = total[2] / n / 1e3;
  state.counters["on_over_away"] = total[1] / total[0];
  state.counters["none_over_away"] = total[2] / total[0];
  for (int k = 0; k < 3; k++) rcupool_unpin(&pins[k]);
  rcupool_destroy(m);
}
BENCHMARK(BM_PlacedDispatch)->ArgName("work")->Arg(0)->Arg(1)->UseManualTime();

rcupool_t *FollowManager(bool follow, rcupool_idle_t idle) {
  rcupool_options_t o{};
  o.idle = idle;
  o.follow = follow ? RCUPOOL_FOLLOW_ON : RCUPOOL_FOLLOW_OFF;
  rcupool_t *m = nullptr;
  return rcupool_create(&o, &m) == 0 ? m : nullptr;
}


// Paired: each iteration times a batch of tiny dispatches on a manager that
// follows and on one that does not (same width, the default count, same
// idle policy; which goes first alternates), and a batch of the check
// alone. Counters: per dispatch with and without the check, the check
// alone, and check / dispatch. Manual time: a dispatch with the check.
void BM_FollowCost(benchmark::State &state) {
  const rcupool_idle_t idle =
      state.range(0) == 0 ? RCUPOOL_IDLE_SPIN : RCUPOOL_IDLE_YIELD;
  rcupool_t *on = FollowManager(true, idle), *off = FollowManager(false, idle);
  if (on == nullptr || off == nullptr) {
    state.SkipWithError("create");
    return;
  }
  constexpr int kBatch = 64;
  Work w{std::vector<uint64_t>(2), false};
  double on_ns = 0, off_ns = 0, check_ns = 0;
  bool on_first = true;
  for (auto _ : state) {
    double t[2];
    for (int k = 0; k < 2; k++) {
      rcupool_t *m = (k == 0) == on_first ? on : off;
      double t0 = NowNs();
      for (int i = 0; i < kBatch; i++) rcupool_parallelize_1d(m, SpinTask, &w, 2, 0);
      t[(k == 0) == on_first ? 0 : 1] = NowNs() - t0;
    }
    double c0 = NowNs();
    for (int i = 0; i < kBatch; i++) rcupl_follow_maybe_for_bench(on);
    check_ns += NowNs() - c0;
    on_ns += t[0];
    off_ns += t[1];
    on_first = !on_first;
    state.SetIterationTime(t[0] / kBatch * 1e-9);
  }
  const double n = static_cast<double>(state.iterations()) * kBatch;
  state.counters["with_check_ns"] = on_ns / n;
  state.counters["without_check_ns"] = off_ns / n;
  state.counters["check_ns"] = check_ns / n;
  state.counters["check_over_dispatch_pct"] = 100.0 * check_ns / off_ns;
  state.counters["pool_threads"] = static_cast<double>(rcupool_threads(on));
  rcupool_destroy(on);
  rcupool_destroy(off);
}
BENCHMARK(BM_FollowCost)->ArgName("yield")->Arg(0)->Arg(1)->UseManualTime();

}  // namespace

int main(int argc, char **argv) {
  Calibrate();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
