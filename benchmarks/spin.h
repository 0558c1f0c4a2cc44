/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A task of a chosen length for the benchmarks that need work in their
// tasks (dispatch_bench, placement_bench): Spin() runs `steps` steps of a
// linear congruential generator (no memory traffic, nothing to elide), and
// CalibrateSpinSteps() finds how many steps take `target_ns` here, from a
// run of at least `measure_ns`.
#ifndef RCUPOOL_BENCHMARKS_SPIN_H
#define RCUPOOL_BENCHMARKS_SPIN_H

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rcupool_bench {

inline uint64_t Spin(uint64_t seed, uint64_t steps) {
  uint64_t x = seed | 1;
  for (uint64_t s = 0; s < steps; s++)
    x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}

inline uint64_t CalibrateSpinSteps(double target_ns, double measure_ns) {
  uint64_t steps = 1 << 12;
  for (;;) {
    auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(Spin(1, steps));
    double ns = std::chrono::duration<double, std::nano>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
    if (ns > measure_ns || steps > (uint64_t{1} << 40))
      return static_cast<uint64_t>(steps * target_ns / ns);
    steps *= 2;
  }
}

// The work of a dispatch benchmark (dispatch_bench, views_bench): task i
// stores Spin(i, steps) when spin (tasks of a chosen length), i * 3 + 1
// otherwise (a store); OutputsRight() checks every task ran.
struct DispatchWork {
  std::vector<uint64_t> out;
  bool spin;
  const uint64_t *steps;  // the calibrated steps, read as each task runs
};

inline uint64_t DispatchExpected(const DispatchWork &w, size_t i) {
  return w.spin ? Spin(i, *w.steps) : i * 3 + 1;
}

inline void DispatchTask(void *ctx, size_t i) {
  auto *w = static_cast<DispatchWork *>(ctx);
  w->out[i] = DispatchExpected(*w, i);
}

inline bool DispatchOutputsRight(const DispatchWork &w) {
  for (size_t i = 0; i < w.out.size(); i++)
    if (w.out[i] != DispatchExpected(w, i)) return false;
  return true;
}

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_SPIN_H
