/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The thread counts of the benchmarks where the number of calling threads
// is the point (read_bench, sized_bench): every count from 1 to the CPUs of
// the machine (std::thread::hardware_concurrency()), and at least 2 so that
// the contended rows exist on any machine. dispatch_bench and xnn_bench
// size their pool with it: one thread per CPU (rcupool_default() counts
// performance cores instead, so it may pick fewer on a machine with SMT).
//
//   BENCHMARK(BM_X)->DenseThreadRange(1, rcupool_bench::MaxThreads())
#ifndef RCUPOOL_BENCHMARKS_THREAD_SWEEP_H
#define RCUPOOL_BENCHMARKS_THREAD_SWEEP_H

#include <algorithm>
#include <thread>

namespace rcupool_bench {

inline int MaxThreads() {
  return static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
}

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_THREAD_SWEEP_H
