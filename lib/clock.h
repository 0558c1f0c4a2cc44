/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/clock.c's API inside the library.
 */
#ifndef RCUPOOL_LIB_CLOCK_H
#define RCUPOOL_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now, in ns. Any thread; never blocks. */
uint64_t rcupl_now_ns(void);

/* CLOCK_MONOTONIC_COARSE now, in ns: the same clock at the resolution of
 * a scheduler tick, read without a system call (the vDSO), for a check on
 * a hot path that only needs to know whether a period has passed. */
static inline uint64_t rcupl_coarse_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

#endif /* RCUPOOL_LIB_CLOCK_H */
