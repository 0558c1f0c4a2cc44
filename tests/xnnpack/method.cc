// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tests/xnnpack/method.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rcupool_test {

Case::Case(size_t batch, size_t in, size_t hidden, size_t out, uint32_t seed) {
  if (mlp_create(batch, in, hidden, out, seed, &model) != 0) return;
  input.resize(mlp_input_size(model));
  reference.resize(mlp_output_size(model));
  mlp_fill_input(model, seed + 1, input.data());
  mlp_reference(model, input.data(), reference.data());
}

Case::~Case() { mlp_destroy(model); }

Method::Method(rcupool_t *m, const Case &c) : case_(c) {
  if (c.model == nullptr || xnn_initialize(nullptr) != xnn_status_success)
    return;
  output_.resize(mlp_output_size(c.model));
  if (mlp_subgraph(c.model, &sg_) != 0) return;
  if (rcupool_xnn_runtime_create(m, sg_, 0, &rt_) != 0) return;
  ok_ = Setup() == 0;
}

Method::Method(rcupool_t *m, const Case &c, size_t width) : case_(c) {
  if (c.model == nullptr || xnn_initialize(nullptr) != xnn_status_success)
    return;
  output_.resize(mlp_output_size(c.model));
  if (mlp_subgraph(c.model, &sg_) != 0) return;
  if (rcupool_xnn_runtime_create_sized(m, width, sg_, 0, &rt_) != 0) return;
  ok_ = Setup() == 0;
}

Method::~Method() {
  Destroy();
  if (sg_ != nullptr) xnn_delete_subgraph(sg_);
}

void Method::Destroy() {
  rcupool_xnn_runtime_destroy(rt_);
  rt_ = nullptr;
}

int Method::Setup() {
  const xnn_external_value values[2] = {
      {MLP_INPUT_ID, const_cast<float *>(case_.input.data())},
      {MLP_OUTPUT_ID, output_.data()}};
  return rcupool_xnn_runtime_setup(rt_, 2, values);
}

double Method::Run() {
  std::fill(output_.begin(), output_.end(),
            std::numeric_limits<float>::quiet_NaN());
  if (rcupool_xnn_runtime_invoke(rt_) != 0)
    return std::numeric_limits<double>::infinity();
  return mlp_relative_error(output_.data(), case_.reference.data(),
                            output_.size());
}

int Method::Refresh() {
  bool was_stale = rcupool_xnn_runtime_is_stale(rt_);
  int err = rcupool_xnn_runtime_refresh(rt_, sg_);
  if (err != 0 || !was_stale) return err;
  return Setup();
}

}  // namespace rcupool_test
