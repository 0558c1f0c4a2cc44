/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A small ExecuTorch-style XNNPACK backend for the stand-in's tests, built
// on the tests' sample model (tools/model/mlp.h: a two-layer perceptron
// with a double-precision reference).
//
// It does what ExecuTorch's XNNPACK delegate does with the thread pool: at
// load it takes a pthreadpool_t from the thread-pool API and creates an
// XNNPACK runtime on it; every execution invokes that runtime, which keeps
// using the pool it was created with. The one change a backend makes for
// rcupool is PoolAtLoad::kPinned: take get_pinned_pthreadpool() instead of
// get_pthreadpool(), keep the handle as long as the runtime, and enter a
// UsePinnedThreadPoolGuard around each execution. kRaw is the unchanged
// backend: the hazard, run only in a child process.
#ifndef RCUPOOL_TESTS_COMPAT_EXECUTORCH_SAMPLE_BACKEND_H
#define RCUPOOL_TESTS_COMPAT_EXECUTORCH_SAMPLE_BACKEND_H

#include <memory>
#include <vector>

#include <executorch/extension/threadpool/threadpool.h>
#include <xnnpack.h>

#include "tools/model/mlp.h"

namespace et_sample {

// Largest accepted error of an output, relative to the output's scale.
constexpr double kMaxRelativeError = 1e-4;

enum class PoolAtLoad {
  kPinned,  // get_pinned_pthreadpool(): the pool lives as long as the method
  kRaw,     // get_pthreadpool(): valid only until the next reset (hazard)
};

// A model with its input and reference output (shared by many methods).
struct Model {
  Model(size_t batch, size_t in, size_t hidden, size_t out, uint32_t seed);
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  mlp_t *mlp = nullptr;
  std::vector<float> input;
  std::vector<double> reference;
};

// One loaded method. Destroying it unloads: deletes the runtime, then
// releases the pool.
class Method {
 public:
  // Returns nullptr when a step of loading failed (logged to stderr).
  static std::unique_ptr<Method> Load(const Model &model, PoolAtLoad how);
  ~Method();
  Method(const Method &) = delete;
  Method &operator=(const Method &) = delete;

  // Poisons the output with NaN, invokes the runtime, then checks every row
  // against the reference with ThreadPool::run() (the method's own kernel,
  // on the same pool when pinned). Returns the error relative to the
  // output's scale: +infinity when the invoke failed, an output was NaN,
  // or a row was not checked exactly once.
  double Execute();

  // The pool the runtime was created on and the thread count it planned
  // for (the handle's, or get_thread_count() at load when raw).
  pthreadpool_t pool() const { return pool_; }
  size_t planned_threads() const { return planned_threads_; }
  const executorch::extension::threadpool::PinnedPthreadpool &pinned() const {
    return pinned_;
  }

 private:
  explicit Method(const Model &model) : model_(model) {}
  const Model &model_;
  PoolAtLoad how_ = PoolAtLoad::kPinned;
  // Declared before the runtime: destroyed after it (unload order).
  executorch::extension::threadpool::PinnedPthreadpool pinned_;
  pthreadpool_t pool_ = nullptr;
  size_t planned_threads_ = 0;
  xnn_subgraph_t subgraph_ = nullptr;
  xnn_runtime_t runtime_ = nullptr;
  std::vector<float> output_;
};

}  // namespace et_sample

#endif  // RCUPOOL_TESTS_COMPAT_EXECUTORCH_SAMPLE_BACKEND_H
