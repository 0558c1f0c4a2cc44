/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: the library's clocks, in ns. CLOCK_MONOTONIC for warm pools'
 * last use and ages and the reclaim thread's due passes (a wall-clock
 * step never ages a pool); its coarse twin for a check on a hot path.
 * Both are reads of the vDSO: any thread, never blocks, no system call.
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
 * has passed. */
static inline uint64_t rcupl_coarse_now_ns(void) {
  return rcupl_clock_ns(CLOCK_MONOTONIC_COARSE);
}

#endif /* RCUPOOL_LIB_CLOCK_H */
