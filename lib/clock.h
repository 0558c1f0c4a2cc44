/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the library's clocks, in ns. CLOCK_MONOTONIC for the warm
 * pass's now and the reclaim thread's due passes (a wall-clock step never
 * ages a pool); its coarse twin on hot paths: the last-use stamp of an
 * unpin counted in refs or on a gathered shard and of a dispatch's end
 * (WARM-3), the follow check (FOLLOW-3).
 * All are reads of the vDSO: any thread, never blocks, no system call.
 *
 * The coarse clock is the monotonic clock as the kernel's timekeeping last
 * updated it, at a scheduler tick: a read at time t returns a value c with
 * c <= t (never ahead of the precise clock, the same timeline) and, while
 * ticks come on time, c > t - r, r its resolution (clock_getres: one tick,
 * 4 ms at 250 Hz). On a kvm-clock machine a coarse read costs a fifth of
 * a precise one (benchmarks/RESULTS.md, "The last-use stamp on the coarse
 * clock").
 */
#ifndef RCUPOOL_LIB_CLOCK_H
#define RCUPOOL_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t rcupl_clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC now. */
static inline uint64_t rcupl_now_ns(void) {
  return rcupl_clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_MONOTONIC_COARSE now: the same clock at the resolution of a
 * scheduler tick, for a check that only needs to know whether a period
 * has passed, and for a stamp on a hot path. */
static inline uint64_t rcupl_coarse_now_ns(void) {
  return rcupl_clock_ns(CLOCK_MONOTONIC_COARSE);
}

/* How far a coarse reading may lag the precise clock: two of its
 * resolutions (one for the tick it is truncated to, one for a tick that
 * comes late), 20 ms if the resolution cannot be read. A coarse reading
 * c taken at t is then within (t - rcupl_coarse_lag_ns(), t]. */
static inline uint64_t rcupl_coarse_lag_ns(void) {
  struct timespec res;
  if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) != 0)
    return UINT64_C(20000000);
  return 2 *
         ((uint64_t)res.tv_sec * UINT64_C(1000000000) + (uint64_t)res.tv_nsec);
}

#endif /* RCUPOOL_LIB_CLOCK_H */
