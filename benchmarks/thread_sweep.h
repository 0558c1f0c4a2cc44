// The thread counts of the benchmarks where the number of calling threads
// is the point (read_bench, sized_bench): every count from 1 to the CPUs of
// the machine (std::thread::hardware_concurrency()), and at least 2 so that
// the contended rows exist on any machine. dispatch_bench sizes its pool
// with it (one thread per CPU, as rcupool_default() does).
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
