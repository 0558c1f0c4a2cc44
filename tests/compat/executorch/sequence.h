/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The reset sequence of the reported crash, in ExecuTorch's terms, shared
// by backend_test and backend_control: a method loaded on 2 threads, then
// _unsafe_reset_threadpool(16), (4), and 20 resets alternating 8 and 3,
// with one execution after each reset.
#ifndef RCUPOOL_TESTS_COMPAT_EXECUTORCH_SEQUENCE_H
#define RCUPOOL_TESTS_COMPAT_EXECUTORCH_SEQUENCE_H

#include <stdint.h>

#include <vector>

namespace et_sample {

constexpr uint32_t kLoadThreads = 2;

inline std::vector<uint32_t> ResetSequence() {
  std::vector<uint32_t> counts = {16, 4};
  for (int i = 0; i < 20; i++) counts.push_back(i % 2 == 0 ? 8 : 3);
  return counts;
}

}  // namespace et_sample

#endif  // RCUPOOL_TESTS_COMPAT_EXECUTORCH_SEQUENCE_H
