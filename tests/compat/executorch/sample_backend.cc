// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/compat/executorch/sample_backend.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>

#include <executorch/extension/threadpool/threadpool_guard.h>

namespace et_sample {

namespace et = ::executorch::extension::threadpool;

Model::Model(size_t batch, size_t in, size_t hidden, size_t out,
             uint32_t seed) {
  if (mlp_create(batch, in, hidden, out, seed, &mlp) != 0) return;
  input.resize(mlp_input_size(mlp));
  reference.resize(mlp_output_size(mlp));
  mlp_fill_input(mlp, seed + 1, input.data());
  mlp_reference(mlp, input.data(), reference.data());
}

Model::~Model() { mlp_destroy(mlp); }

std::unique_ptr<Method> Method::Load(const Model &model, PoolAtLoad how) {
  if (model.mlp == nullptr) return nullptr;
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "sample backend: xnn_initialize failed\n");
    return nullptr;
  }
  std::unique_ptr<Method> m(new Method(model));
  m->how_ = how;
  if (how == PoolAtLoad::kPinned) {
    // The backend's one change: a pin that lives as long as the runtime.
    m->pinned_ = et::get_pinned_pthreadpool();
    m->pool_ = m->pinned_.get();
    m->planned_threads_ = m->pinned_.thread_count();
  } else {
    // Unchanged ExecuTorch backend: the raw pointer, kept across calls.
    m->pool_ = et::get_pthreadpool();
    m->planned_threads_ = et::get_threadpool()->get_thread_count();
  }
  m->output_.resize(mlp_output_size(model.mlp));
  if (mlp_subgraph(model.mlp, &m->subgraph_) != 0 ||
      xnn_create_runtime_v2(m->subgraph_, m->pool_, 0, &m->runtime_) !=
          xnn_status_success) {
    std::fprintf(stderr, "sample backend: could not create the runtime\n");
    return nullptr;
  }
  const xnn_external_value values[2] = {
      {MLP_INPUT_ID, const_cast<float *>(model.input.data())},
      {MLP_OUTPUT_ID, m->output_.data()}};
  if (xnn_setup_runtime(m->runtime_, 2, values) != xnn_status_success) {
    std::fprintf(stderr, "sample backend: xnn_setup_runtime failed\n");
    return nullptr;
  }
  return m;
}

Method::~Method() {
  if (runtime_ != nullptr) xnn_delete_runtime(runtime_);
  if (subgraph_ != nullptr) xnn_delete_subgraph(subgraph_);
  // pinned_ is released after this body: the runtime is gone first.
}

namespace {

// The method's own kernel: per-row maximum error, one task per row.
struct RowCheck {
  const float *y;
  const double *ref;
  size_t cols;
  std::vector<double> *row_error;
  std::atomic<size_t> *calls;
  void operator()(size_t row) const {
    double worst = 0;
    for (size_t c = 0; c < cols; c++) {
      double v = y[row * cols + c];
      double e = std::isnan(v) ? std::numeric_limits<double>::infinity()
                               : std::fabs(v - ref[row * cols + c]);
      worst = std::max(worst, e);
    }
    (*row_error)[row] = worst;
    calls->fetch_add(1, std::memory_order_relaxed);
  }
};

}  // namespace

double Method::Execute() {
  const double kFailed = std::numeric_limits<double>::infinity();
  std::fill(output_.begin(), output_.end(),
            std::numeric_limits<float>::quiet_NaN());
  std::unique_ptr<et::UsePinnedThreadPoolGuard> scope;
  if (how_ == PoolAtLoad::kPinned)
    scope.reset(new et::UsePinnedThreadPoolGuard(pinned_));
  if (xnn_invoke_runtime(runtime_) != xnn_status_success) return kFailed;

  const size_t rows = mlp_batch(model_.mlp);
  std::vector<double> row_error(rows, kFailed);
  std::atomic<size_t> calls{0};
  RowCheck check{output_.data(), model_.reference.data(),
                 mlp_outputs_per_row(model_.mlp), &row_error, &calls};
  et::get_threadpool()->run(check, rows);
  if (calls.load() != rows) return kFailed;
  double scale = 0;
  for (double r : model_.reference) scale = std::max(scale, std::fabs(r));
  double worst = *std::max_element(row_error.begin(), row_error.end());
  return scale > 0 ? worst / scale : worst;
}

}  // namespace et_sample
