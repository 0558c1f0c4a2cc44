/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
//   <ratio_counter>    the median over the run's iterations of each one's
//                      rcupool step time / pthreadpool_create time (the
//                      ratio report.py shows)
//   <ratio_counter>_of_sums  the same over the run's summed times
// A thread start here sometimes waits for the next scheduler tick (about
// 4 ms, against 30-40 us without one) and one such wait in twenty
// iterations outweighs the rest of the sums. The median of per-iteration
// ratios compares the two sides of each pair and lets a tick that hit one
// side of one pair count once; the ratio of sums stays beside it.
#ifndef RCUPOOL_BENCHMARKS_PAIRED_CREATE_H
#define RCUPOOL_BENCHMARKS_PAIRED_CREATE_H

#include <algorithm>
#include <chrono>
#include <vector>

#include <string>

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
  std::vector<double> ratios;
  bool create_first = true;
  for (auto _ : state) {
    double this_step = 0, this_create = 0;
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
        this_create = std::chrono::duration<double>(c1 - c0).count();
        create_s += this_create;
      } else {
        double s = step();
        if (s < 0) {
          state.SkipWithError(what);
          return false;
        }
        state.SetIterationTime(s);
        step_s += s;
        this_step = s;
      }
    }
    create_first = !create_first;
    ratios.push_back(this_step / this_create);
  }
  std::sort(ratios.begin(), ratios.end());
  const size_t k = ratios.size();
  state.counters["paired_create_us"] = create_s * 1e6 / state.iterations();
  state.counters[ratio_counter] =
      k % 2 ? ratios[k / 2] : (ratios[k / 2 - 1] + ratios[k / 2]) / 2;
  state.counters[std::string(ratio_counter) + "_of_sums"] = step_s / create_s;
  return true;
}

}  // namespace rcupool_bench

#endif  // RCUPOOL_BENCHMARKS_PAIRED_CREATE_H
