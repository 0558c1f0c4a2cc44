// SPDX-License-Identifier: LGPL-2.1-or-later
// One shared pool against two private pools, on a 2-core machine.
//
// Two threads (think: a Python bindings module serving requests and a
// training module, in one process) each run the same parallel workload: a
// fully-connected layer, out[b][o] = sum_k in[b][k] * w[o][k] (batch 32,
// 128 -> 128), one task per output row, through rcupool_parallelize_1d.
//
//   BM_TwoCallers_OneSharedPool     both threads use one manager whose pool
//                                   has one thread per core: what one
//                                   librcupool.so in the process gives;
//   BM_TwoCallers_TwoPrivatePools   each thread uses its own manager with
//                                   one thread per core: what two shared
//                                   objects that each link the static
//                                   library give (two pools, each sized to
//                                   the whole machine).
//   BM_OneCaller_*                  the same with one calling thread, for
//                                   scale.
//
// Time is real time per layer per calling thread (the two callers run
// concurrently). After the run, main() prints the ratio of the two-caller
// times, measured side by side in this one run (medians over repetitions),
// and the same ratio for one caller as a control of the machine's noise.
// Every output is checked.
//
//   bazel run -c opt //benchmarks/shared:shared_pool_bench --
//       --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
//   (one command line)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>

namespace {

constexpr size_t kBatch = 32;
constexpr size_t kIn = 128;
constexpr size_t kOut = 128;

struct Layer {
  std::vector<float> w;  // [kOut][kIn]
  std::vector<double> ref;  // reference output for `in`, [kBatch][kOut]
  std::vector<float> in;  // [kBatch][kIn]
};

const Layer &TheLayer() {
  static const Layer layer = [] {
    Layer l;
    l.w.resize(kOut * kIn);
    l.in.resize(kBatch * kIn);
    uint32_t s = 12345;
    auto next = [&s] {
      s = s * 1664525u + 1013904223u;
      return static_cast<float>(s >> 8) / static_cast<float>(1 << 24) - 0.5f;
    };
    for (float &v : l.w) v = next();
    for (float &v : l.in) v = next();
    l.ref.resize(kBatch * kOut);
    for (size_t b = 0; b < kBatch; b++)
      for (size_t o = 0; o < kOut; o++) {
        double acc = 0;
        for (size_t k = 0; k < kIn; k++)
          acc += double(l.in[b * kIn + k]) * double(l.w[o * kIn + k]);
        l.ref[b * kOut + o] = acc;
      }
    return l;
  }();
  return layer;
}

struct Call {
  const Layer *layer;
  std::vector<float> out = std::vector<float>(kBatch * kOut);
};

// One output row o for the whole batch.
void RowTask(void *ctx, size_t o) {
  auto *c = static_cast<Call *>(ctx);
  const float *w = &c->layer->w[o * kIn];
  for (size_t b = 0; b < kBatch; b++) {
    const float *x = &c->layer->in[b * kIn];
    float acc = 0;
    for (size_t k = 0; k < kIn; k++) acc += x[k] * w[k];
    c->out[b * kOut + o] = acc;
  }
}

bool OutputRight(const Call &c) {
  for (size_t i = 0; i < c.out.size(); i++)
    if (std::fabs(c.out[i] - c.layer->ref[i]) > 1e-3) return false;
  return true;
}

size_t Cores() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

rcupool_t *NewManager() {
  rcupool_options_t opts{};
  opts.threads = Cores();
  rcupool_t *m = nullptr;
  if (rcupool_create(&opts, &m) != 0) {
    std::fprintf(stderr, "rcupool_create failed\n");
    std::abort();
  }
  return m;
}

rcupool_t *SharedManager() {
  static rcupool_t *m = NewManager();
  return m;
}

rcupool_t *PrivateManager(int index) {
  static rcupool_t *m[2] = {NewManager(), NewManager()};
  return m[index];
}

void RunLayers(benchmark::State &state, rcupool_t *m) {
  Call call{&TheLayer()};
  for (auto _ : state) {
    if (rcupool_parallelize_1d(m, RowTask, &call, kOut, 0) != 0) {
      state.SkipWithError("rcupool_parallelize_1d failed");
      break;
    }
    benchmark::DoNotOptimize(call.out.data());
  }
  if (!OutputRight(call)) state.SkipWithError("wrong output");
}

void BM_TwoCallers_OneSharedPool(benchmark::State &state) {
  RunLayers(state, SharedManager());
}

void BM_TwoCallers_TwoPrivatePools(benchmark::State &state) {
  RunLayers(state, PrivateManager(state.thread_index()));
}

void BM_OneCaller_OneSharedPool(benchmark::State &state) {
  RunLayers(state, SharedManager());
}

void BM_OneCaller_TwoPrivatePools(benchmark::State &state) {
  RunLayers(state, PrivateManager(0));
}

BENCHMARK(BM_OneCaller_OneSharedPool)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneCaller_TwoPrivatePools)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoCallers_OneSharedPool)->Threads(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoCallers_TwoPrivatePools)->Threads(2)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Whether a run ended in an error or a skip: Google Benchmark 1.7 (Debian
// 12) says so in error_occurred, 1.8 and later in skipped.
template <typename R>
auto RunFailed(const R &r, int) -> decltype(static_cast<bool>(r.skipped)) {
  return static_cast<bool>(r.skipped);
}
template <typename R>
bool RunFailed(const R &r, long) {
  return r.error_occurred;
}

// Console output, plus the real time per iteration of every run of every
// benchmark, for the ratios (median over repetitions).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs) {
      if (RunFailed(r, 0)) continue;
      const std::string &name = r.run_name.function_name;
      if (r.run_type == Run::RT_Iteration)
        times_[name].push_back(r.GetAdjustedRealTime());
      else if (r.aggregate_name == "median")  // --*_aggregates_only
        medians_[name] = r.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double Median(const std::string &name) const {
    auto m = medians_.find(name);
    if (m != medians_.end()) return m->second;
    auto it = times_.find(name);
    if (it == times_.end() || it->second.empty()) return 0;
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }
  bool FromAggregates() const { return !medians_.empty(); }

 private:
  std::map<std::string, std::vector<double>> times_;
  std::map<std::string, double> medians_;
};

void PrintRatio(const RatioReporter &rep, const char *what,
                const std::string &shared_name,
                const std::string &private_name) {
  double shared = rep.Median(shared_name);
  double priv = rep.Median(private_name);
  if (shared <= 0 || priv <= 0) return;
  std::printf(
      "%s: two private pools / one shared pool = %.2f (%.1f us vs %.1f us "
      "per layer, %s)\n",
      what, priv / shared, priv, shared,
      rep.FromAggregates() ? "medians over repetitions" : "median runs");
}

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TheLayer();
  SharedManager();
  PrivateManager(0);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\n%zu cores, pools of %zu threads each\n", Cores(), Cores());
  PrintRatio(reporter, "two callers", "BM_TwoCallers_OneSharedPool",
             "BM_TwoCallers_TwoPrivatePools");
  // Same work on the same kind of pool: near 1 unless the machine is noisy.
  PrintRatio(reporter, "one caller (control)", "BM_OneCaller_OneSharedPool",
             "BM_OneCaller_TwoPrivatePools");
  benchmark::Shutdown();
  return 0;
}
