/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's clock: CLOCK_MONOTONIC in ns, for warm pools' ages and the
 * reclaim thread's due passes (a wall-clock step never ages a pool).
 */
#include <stdint.h>
#include <time.h>

#include "clock.h"

uint64_t rcupl_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}
