/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A loaded "method" for the XNNPACK integration tests: the sample model's
// subgraph (kept for refresh), an rcupool XNNPACK runtime, its input and its
// output, checked against the double-precision reference.
#ifndef RCUPOOL_TESTS_XNNPACK_METHOD_H
#define RCUPOOL_TESTS_XNNPACK_METHOD_H

#include <memory>
#include <vector>

#include <rcupool/rcupool.h>
#include <rcupool/xnnpack.h>

#include "tools/model/mlp.h"

namespace rcupool_test {

// Largest accepted error of an output, relative to the output's scale.
constexpr double kMaxRelativeError = 1e-4;

// A model, an input and the reference output, shared by many methods.
struct Case {
  Case(size_t batch, size_t in, size_t hidden, size_t out, uint32_t seed);
  ~Case();
  mlp_t *model = nullptr;
  std::vector<float> input;
  std::vector<double> reference;
};

class Method {
 public:
  // Builds the subgraph, creates the runtime on m's current pool and sets
  // it up. ok() tells whether every step succeeded.
  Method(rcupool_t *m, const Case &c);
  // The same on a sized pin of `width` threads
  // (rcupool_xnn_runtime_create_sized).
  Method(rcupool_t *m, const Case &c, size_t width);
  ~Method();
  Method(const Method &) = delete;
  Method &operator=(const Method &) = delete;

  bool ok() const { return ok_; }
  rcupool_xnn_runtime_t *runtime() const { return rt_; }
  const rcupool_pin_t *pin() const { return rcupool_xnn_runtime_get_pin(rt_); }
  size_t threads() const { return rcupool_pin_threads(pin()); }
  pthreadpool_t pool() const { return rcupool_pin_pthreadpool(pin()); }

  // Poisons the output with NaN, invokes, and returns the relative error
  // (+infinity when the invoke failed or left a NaN).
  double Run();
  // Refreshes with the kept subgraph and sets up again. Returns the errno.
  int Refresh();
  // Destroys the runtime now (the destructor then does nothing more).
  void Destroy();

  const std::vector<float> &output() const { return output_; }

 private:
  int Setup();
  const Case &case_;
  xnn_subgraph_t sg_ = nullptr;
  rcupool_xnn_runtime_t *rt_ = nullptr;
  std::vector<float> output_;
  bool ok_ = false;
};

}  // namespace rcupool_test

#endif  // RCUPOOL_TESTS_XNNPACK_METHOD_H
