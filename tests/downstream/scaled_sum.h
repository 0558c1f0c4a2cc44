/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A downstream library: a parallel sum on the process-wide rcupool. */
#ifndef DOWNSTREAM_SCALED_SUM_H
#define DOWNSTREAM_SCALED_SUM_H

#include <stddef.h>
#include <stdint.h>

/* Sum of k * i over [0, n), computed in parallel on rcupool_default().
 * Returns 0 and stores the sum, or a negative errno value. */
int scaled_sum(uint64_t k, size_t n, uint64_t *out);

#endif
