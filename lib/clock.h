/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/clock.c's API inside the library.
 */
#ifndef RCUPOOL_LIB_CLOCK_H
#define RCUPOOL_LIB_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in ns. Any thread; never blocks. */
uint64_t rcupl_now_ns(void);

#endif /* RCUPOOL_LIB_CLOCK_H */
