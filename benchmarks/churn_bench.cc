// SPDX-License-Identifier: LGPL-2.1-or-later
// The churn: for n in 1..16, reset to n threads, load a method (it takes the
// pool), run it once, drop it. Run under three policies:
//
//   BM_Churn/rcupool           pin / scope + rcupool_parallelize_1d / unpin
//   BM_Churn/keep_forever      keep every pool ever handed out (baselines/)
//   BM_Churn/destroy_on_reset  destroy on reset (baselines/; safe here only
//                              because every method is dropped before the
//                              next reset)
//
// Counters: OS threads of the process (/proc/self/task) and pools alive at
// the start, at the peak and at the end (after a 100 ms tail and, for
// rcupool, rcupool_barrier()). A sampler thread, counted in every figure,
// records threads and pools every millisecond; with --timeline_out=FILE the
// last run of each policy is written there for gnuplot (benchmarks/churn.gp):
// one block per policy, in policy order, columns "ms threads pools".

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>

#include "benchmarks/baselines/baselines.h"
#include "benchmarks/own_flag.h"
#include "tools/os_threads.h"

namespace rcupool_bench {
namespace {

constexpr size_t kMaxThreads = 16;
constexpr size_t kRange = 4096;
const char *const kPolicyNames[] = {"rcupool", "keep-forever",
                                    "destroy-on-reset"};

struct Sample {
  double ms;
  size_t threads;
  size_t pools;
};

// Samples threads and pools every millisecond on its own thread.
class Sampler {
 public:
  explicit Sampler(std::function<size_t()> pools)
      : pools_(std::move(pools)), t0_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        Take();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  ~Sampler() { Stop(); }
  void Stop() {
    if (thread_.joinable()) {
      stop_.store(true);
      thread_.join();
    }
  }
  // Also called by the churn itself at each step, so no step is missed.
  void Take() {
    Sample s{std::chrono::duration<double, std::milli>(
                 std::chrono::steady_clock::now() - t0_)
                 .count(),
             os_thread_count(), pools_()};
    std::lock_guard<std::mutex> g(mu_);
    samples_.push_back(s);
  }
  std::vector<Sample> samples() {
    std::lock_guard<std::mutex> g(mu_);
    return samples_;
  }

 private:
  std::function<size_t()> pools_;
  std::chrono::steady_clock::time_point t0_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Sample> samples_;
  std::thread thread_;
};

// One policy behind the steps of the churn.
class Churner {
 public:
  virtual ~Churner() = default;
  virtual int Reset(size_t threads) = 0;
  virtual void Load() = 0;
  virtual bool Run() = 0;  // true when every task ran once
  virtual void Drop() = 0;
  virtual size_t Pools() = 0;
  virtual void Settle() {}
};

struct SumCtx {
  std::atomic<uint64_t> sum{0};
};
void AddIndex(void *ctx, size_t i) {
  static_cast<SumCtx *>(ctx)->sum.fetch_add(i, std::memory_order_relaxed);
}
constexpr uint64_t kWantSum = uint64_t{kRange} * (kRange - 1) / 2;

class RcupoolChurner final : public Churner {
 public:
  RcupoolChurner() {
    rcupool_options_t opts{};
    opts.threads = 1;
    rcupool_create(&opts, &m_);
  }
  ~RcupoolChurner() override { rcupool_destroy(m_); }
  bool ok() const { return m_ != nullptr; }
  int Reset(size_t n) override { return rcupool_reset(m_, n); }
  void Load() override { rcupool_pin(m_, &pin_); }
  bool Run() override {
    SumCtx c;
    rcupool_scope_enter(&pin_);
    rcupool_parallelize_1d(m_, AddIndex, &c, kRange, 0);
    rcupool_scope_exit();
    return c.sum.load() == kWantSum;
  }
  void Drop() override { rcupool_unpin(&pin_); }
  size_t Pools() override {
    rcupool_stats_t s{};
    rcupool_get_stats(m_, &s);
    return s.pools_alive;
  }
  // Warm pools would stay for warm_ms: the end figure is the current
  // pool alone, as before warm widths.
  void Settle() override { rcupool_trim(m_); }

 private:
  rcupool_t *m_ = nullptr;
  rcupool_pin_t pin_ = {};
};

class BaselineChurner final : public Churner {
 public:
  explicit BaselineChurner(std::unique_ptr<PoolPolicy> p)
      : policy_(std::move(p)) {}
  int Reset(size_t n) override { return policy_->Reset(n); }
  void Load() override { held_ = policy_->Load(); }
  bool Run() override {
    SumCtx c;
    pthreadpool_parallelize_1d(held_, AddIndex, &c, kRange, 0);
    return c.sum.load() == kWantSum;
  }
  void Drop() override {
    policy_->Drop(held_);
    held_ = nullptr;
  }
  size_t Pools() override { return policy_->PoolsAlive(); }

 private:
  std::unique_ptr<PoolPolicy> policy_;
  pthreadpool_t held_ = nullptr;
};

std::mutex timelines_mu;
std::map<int, std::vector<Sample>> timelines;

enum Policy { kRcupool, kKeepForever, kDestroyOnReset };

void BM_Churn(benchmark::State &state, Policy policy) {
  std::unique_ptr<Churner> c;
  if (policy == kRcupool) {
    auto r = std::make_unique<RcupoolChurner>();
    if (!r->ok()) return state.SkipWithError("rcupool_create failed");
    c = std::move(r);
  } else {
    c = std::make_unique<BaselineChurner>(
        policy == kKeepForever ? MakeKeepForeverPolicy(1) : MakeDestroyOnResetPolicy(1));
  }
  for (auto _ : state) {
    Sampler sampler([&c] { return c->Pools(); });
    size_t start_threads = os_thread_count();
    size_t start_pools = c->Pools();
    int wrong = 0;
    for (size_t n = 1; n <= kMaxThreads; n++) {
      if (c->Reset(n) != 0) return state.SkipWithError("reset failed");
      c->Load();
      if (!c->Run()) wrong++;
      sampler.Take();
      c->Drop();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c->Settle();
    sampler.Take();
    size_t end_threads = os_thread_count();  // the sampler still counted, as at start
    sampler.Stop();
    std::vector<Sample> samples = sampler.samples();
    size_t peak_threads = 0, peak_pools = 0;
    for (const Sample &s : samples) {
      peak_threads = std::max(peak_threads, s.threads);
      peak_pools = std::max(peak_pools, s.pools);
    }
    state.counters["threads_start"] = start_threads;
    state.counters["threads_peak"] = peak_threads;
    state.counters["threads_end"] = end_threads;
    state.counters["threads_extra_end"] =
        static_cast<double>(end_threads) - static_cast<double>(start_threads);
    state.counters["pools_start"] = start_pools;
    state.counters["pools_peak"] = peak_pools;
    state.counters["pools_end"] = c->Pools();
    // The current pool (16 threads) has 15 workers; its caller is the 16th.
    state.counters["current_pool_workers"] = kMaxThreads - 1;
    if (wrong != 0) state.SkipWithError("a run's result was wrong");
    std::lock_guard<std::mutex> g(timelines_mu);
    timelines[policy] = std::move(samples);
  }
  state.SetLabel(kPolicyNames[policy]);
}
BENCHMARK_CAPTURE(BM_Churn, rcupool, kRcupool)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Churn, keep_forever, kKeepForever)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Churn, destroy_on_reset, kDestroyOnReset)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

bool WriteTimelines(const char *path) {
  FILE *f = fopen(path, "w");
  if (f == nullptr) return false;
  std::lock_guard<std::mutex> g(timelines_mu);
  for (const auto &t : timelines) {
    fprintf(f, "# %s\n# ms threads pools\n", kPolicyNames[t.first]);
    for (const Sample &s : t.second)
      fprintf(f, "%.3f %zu %zu\n", s.ms, s.threads, s.pools);
    fprintf(f, "\n\n");
  }
  return fclose(f) == 0;
}

}  // namespace
}  // namespace rcupool_bench

int main(int argc, char **argv) {
  const char *timeline =
      rcupool_bench::TakeFlag(&argc, argv, "--timeline_out=");
  // Start rcupool's reclaim thread (one per copy of the library, which
  // lives until exit) before any policy runs, so that every policy's start
  // count includes it whatever the order of the runs.
  {
    rcupool_options_t opts{};
    opts.threads = 1;
    rcupool_t *m = nullptr;
    if (rcupool_create(&opts, &m) != 0) return 1;
    rcupool_reset(m, 2);
    rcupool_barrier(m);
    rcupool_destroy(m);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (timeline != nullptr &&
      !rcupool_bench::WriteTimelines(timeline)) {
    std::perror(timeline);
    return 1;
  }
  return 0;
}
