// SPDX-License-Identifier: LGPL-2.1-or-later
// The backend: one XNNPACK invoke through rcupool's runtime (pinned pool,
// run inside the pin's scope) against xnn_invoke_runtime on a runtime
// created directly on the very same pthreadpool_t (the manager's current
// pool, one thread per CPU and at least 2: thread_sweep.h; the counter
// pool_threads says the width).
//
//   BM_XnnInvoke_Raw       xnn_create_runtime_v2 on the pinned pool, then
//                          xnn_invoke_runtime per iteration
//   BM_XnnInvoke_Rcupool   rcupool_xnn_runtime_create, then
//                          rcupool_xnn_runtime_invoke per iteration
//
// The model: three fully-connected layers of 256x256 on a batch of 64
// (pseudo-random weights). Each benchmark checks its output against a
// double-precision reference computed once. The manager's idle policy is
// RCUPOOL_IDLE_SPIN, so both runtimes get the same flags (0): this
// compares the backend with raw XNNPACK, not the policies (idle_bench).
#include <cmath>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>
#include <rcupool/rcupool.h>
#include <rcupool/xnnpack.h>
#include <xnnpack.h>

#include "benchmarks/thread_sweep.h"

namespace {

constexpr size_t kBatch = 64;
constexpr size_t kWidth = 256;
constexpr size_t kLayers = 3;
constexpr uint32_t kInputId = 0;
constexpr uint32_t kOutputId = 1;

struct Model {
  std::vector<float> weights[kLayers];  // [out][in]
  std::vector<float> biases[kLayers];
  std::vector<float> input;
  std::vector<double> reference;
};

float Uniform(uint32_t *state) {  // in [-1, 1)
  *state = *state * 1664525u + 1013904223u;
  return static_cast<float>(*state >> 8) / 8388608.0f - 1.0f;
}

const Model &TheModel() {
  static const Model *model = [] {
    auto *m = new Model;
    uint32_t s = 12345;
    float scale = 1.0f / std::sqrt(static_cast<float>(kWidth));
    for (size_t l = 0; l < kLayers; l++) {
      m->weights[l].resize(kWidth * kWidth);
      m->biases[l].resize(kWidth);
      for (float &w : m->weights[l]) w = Uniform(&s) * scale;
      for (float &b : m->biases[l]) b = Uniform(&s) * 0.1f;
    }
    m->input.resize(kBatch * kWidth);
    for (float &x : m->input) x = Uniform(&s);
    std::vector<double> cur(m->input.begin(), m->input.end());
    for (size_t l = 0; l < kLayers; l++) {
      std::vector<double> next(kBatch * kWidth);
      for (size_t b = 0; b < kBatch; b++)
        for (size_t o = 0; o < kWidth; o++) {
          double acc = m->biases[l][o];
          for (size_t i = 0; i < kWidth; i++)
            acc += double{m->weights[l][o * kWidth + i]} * cur[b * kWidth + i];
          next[b * kWidth + o] = acc;
        }
      cur.swap(next);
    }
    m->reference = cur;
    return m;
  }();
  return *model;
}

// Builds the subgraph; the model's arrays must outlive it.
xnn_subgraph_t Subgraph(const Model &m) {
  xnn_subgraph_t sg = nullptr;
  if (xnn_create_subgraph(2, 0, &sg) != xnn_status_success) return nullptr;
  const size_t act_dims[2] = {kBatch, kWidth};
  const size_t w_dims[2] = {kWidth, kWidth};
  const size_t b_dims[1] = {kWidth};
  uint32_t in = 0;
  bool ok = xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, act_dims,
                                    nullptr, kInputId,
                                    XNN_VALUE_FLAG_EXTERNAL_INPUT,
                                    &in) == xnn_status_success;
  for (size_t l = 0; ok && l < kLayers; l++) {
    uint32_t w = 0, b = 0, out = 0;
    bool last = l + 1 == kLayers;
    ok = xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, w_dims,
                                 m.weights[l].data(), XNN_INVALID_VALUE_ID, 0,
                                 &w) == xnn_status_success &&
         xnn_define_tensor_value(sg, xnn_datatype_fp32, 1, b_dims,
                                 m.biases[l].data(), XNN_INVALID_VALUE_ID, 0,
                                 &b) == xnn_status_success &&
         xnn_define_tensor_value(
             sg, xnn_datatype_fp32, 2, act_dims, nullptr,
             last ? kOutputId : XNN_INVALID_VALUE_ID,
             last ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : 0,
             &out) == xnn_status_success &&
         xnn_define_fully_connected(sg, -INFINITY, INFINITY, in, w, b, out,
                                    0) == xnn_status_success;
    in = out;
  }
  if (!ok) {
    xnn_delete_subgraph(sg);
    return nullptr;
  }
  return sg;
}

bool OutputRight(const std::vector<float> &y) {
  const Model &m = TheModel();
  double worst = 0, scale = 0;
  for (size_t i = 0; i < y.size(); i++) {
    worst = std::max(worst, std::fabs(y[i] - m.reference[i]));
    scale = std::max(scale, std::fabs(m.reference[i]));
  }
  return worst <= 1e-4 * scale;
}

rcupool_t *Manager() {
  static rcupool_t *m = [] {
    rcupool_options_t opts{};
    opts.threads = static_cast<size_t>(rcupool_bench::MaxThreads());
    opts.idle = RCUPOOL_IDLE_SPIN;
    rcupool_t *created = nullptr;
    if (xnn_initialize(nullptr) != xnn_status_success) return created;
    return rcupool_create(&opts, &created) == 0 ? created : nullptr;
  }();
  return m;
}

void BM_XnnInvoke_Raw(benchmark::State &state) {
  rcupool_t *m = Manager();
  xnn_subgraph_t sg = m != nullptr ? Subgraph(TheModel()) : nullptr;
  if (sg == nullptr) return state.SkipWithError("set-up failed");
  rcupool_pin_t pin = {};
  rcupool_pin(m, &pin);
  xnn_runtime_t rt = nullptr;
  std::vector<float> y(kBatch * kWidth);
  const xnn_external_value values[2] = {
      {kInputId, const_cast<float *>(TheModel().input.data())},
      {kOutputId, y.data()}};
  bool ok = xnn_create_runtime_v2(sg, rcupool_pin_pthreadpool(&pin), 0,
                                  &rt) == xnn_status_success &&
            xnn_setup_runtime(rt, 2, values) == xnn_status_success;
  for (auto _ : state) {
    if (!ok) break;
    ok = xnn_invoke_runtime(rt) == xnn_status_success;
  }
  state.counters["pool_threads"] = rcupool_bench::MaxThreads();
  if (!ok) state.SkipWithError("an XNNPACK call failed");
  else if (!OutputRight(y)) state.SkipWithError("wrong output");
  xnn_delete_runtime(rt);
  rcupool_unpin(&pin);
  xnn_delete_subgraph(sg);
}

void BM_XnnInvoke_Rcupool(benchmark::State &state) {
  rcupool_t *m = Manager();
  xnn_subgraph_t sg = m != nullptr ? Subgraph(TheModel()) : nullptr;
  if (sg == nullptr) return state.SkipWithError("set-up failed");
  rcupool_xnn_runtime_t *rt = nullptr;
  std::vector<float> y(kBatch * kWidth);
  const xnn_external_value values[2] = {
      {kInputId, const_cast<float *>(TheModel().input.data())},
      {kOutputId, y.data()}};
  bool ok = rcupool_xnn_runtime_create(m, sg, 0, &rt) == 0 &&
            rcupool_xnn_runtime_setup(rt, 2, values) == 0;
  for (auto _ : state) {
    if (!ok) break;
    ok = rcupool_xnn_runtime_invoke(rt) == 0;
  }
  state.counters["pool_threads"] = rcupool_bench::MaxThreads();
  if (!ok) state.SkipWithError("an rcupool_xnn call failed");
  else if (!OutputRight(y)) state.SkipWithError("wrong output");
  rcupool_xnn_runtime_destroy(rt);
  xnn_delete_subgraph(sg);
}

BENCHMARK(BM_XnnInvoke_Raw)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_XnnInvoke_Rcupool)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
