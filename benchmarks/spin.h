/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A task of a chosen length for the benchmarks that need work in their
// tasks (dispatch_bench, placement_bench): Spin() runs `steps` steps of a
// linear congruential generator (no memory traffic, nothing to elide), and
// CalibrateSpinSteps() finds how many steps take `target_ns` here, from a
// run of at least `measure_ns`. SpinWork and SpinTask are the work both
// dispatch: one output a task, a store (tiny tasks) or a Spin() of
// spin_steps, which each program calibrates once at start-up.
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

// Steps of one spinning task: set once by the program, before any task.
inline uint64_t &SpinSteps() {
  static uint64_t steps = 1000;
  return steps;
}

// The outputs of one dispatch's tasks: a store each, or a Spin() each.
struct SpinWork {
  std::vector<uint64_t> out;
  bool spin;
};

// What task i stores.
inline uint64_t SpinOutput(const SpinWork &w, size_t i) {
  return w.spin ? Spin(i + 1, SpinSteps()) : i * 3 + 1;
}

// The task of a pthreadpool or rcupool 1d call whose ctx is a SpinWork.
inline void SpinTask(void *ctx, size_t i) {
  auto *w = static_cast<SpinWork *>(ctx);
  w->out[i] = SpinOutput(*w, i);
}

// Every task ran and stored its output.
inline bool SpinOutputsRight(const SpinWork &w) {
  for (size_t i = 0; i < w.out.size(); i++)
    if (w.out[i] != SpinOutput(w, i)) return false;
  return true;
}

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_SPIN_H
