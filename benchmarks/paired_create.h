// One timing scheme for the rows that compare starting a pool through
// rcupool with pthreadpool_create(n) (reset_bench, sized_bench).
//
// Thread start-up on a shared machine drifts by tens of percent within
// seconds, so each iteration times the rcupool step AND a
// pthreadpool_create(n) (its destroy untimed), side by side, and which of
// the two goes first alternates, so that each is as often the one that
// follows the teardown of the other's threads. The iteration time (manual
// time) is the rcupool step's; the counters are
//   paired_create_us   mean pthreadpool_create(n) of the run, in us
//   <ratio_counter>    rcupool step time / pthreadpool_create time, summed
//                      over the run (the ratio report.py shows)
#ifndef RCUPOOL_BENCHMARKS_PAIRED_CREATE_H
#define RCUPOOL_BENCHMARKS_PAIRED_CREATE_H

#include <chrono>

#include <benchmark/benchmark.h>
#include <pthreadpool.h>

namespace rcupool_bench {

// `step()` does the timed rcupool work, then what must not be timed (undo
// it and wait for the pool to be freed), and returns the seconds of the
// timed part, or a negative number when the step failed (the row is then
// skipped with `what`). Returns false when the row was skipped.
template <typename Step>
bool PairedWithCreate(benchmark::State &state, size_t n, const char *what,
                      const char *ratio_counter, Step step) {
  using Clock = std::chrono::steady_clock;
  double step_s = 0, create_s = 0;
  bool create_first = true;
  for (auto _ : state) {
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == create_first) {
        auto c0 = Clock::now();
        pthreadpool_t tp = pthreadpool_create(n);
        auto c1 = Clock::now();
        if (tp == nullptr) {
          state.SkipWithError("pthreadpool_create failed");
          return false;
        }
        pthreadpool_destroy(tp);
        create_s += std::chrono::duration<double>(c1 - c0).count();
      } else {
        double s = step();
        if (s < 0) {
          state.SkipWithError(what);
          return false;
        }
        state.SetIterationTime(s);
        step_s += s;
      }
    }
    create_first = !create_first;
  }
  state.counters["paired_create_us"] = create_s * 1e6 / state.iterations();
  state.counters[ratio_counter] = step_s / create_s;
  return true;
}

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_PAIRED_CREATE_H
