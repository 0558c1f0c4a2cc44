/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reported case: the sample model (tools/model/mlp.h) at the size of
 * the crash report, and the report's reset sequence. The demo (its method,
 * and its --unsafe child) and tests/xnnpack/unsafe_control replay it from
 * this one definition.
 *
 *   model   fully-connected 256 -> 512 (ReLU) -> 256, batch 64, seed 11
 *   resets  the method is loaded on 2 threads, then the pool is reset to
 *           16, to 4, and 20 times alternating 8 and 3
 */
#ifndef RCUPOOL_TOOLS_REPORTED_CASE_H
#define RCUPOOL_TOOLS_REPORTED_CASE_H

#include <stddef.h>

#include "tools/model/mlp.h"

enum {
  REPORTED_BATCH = 64,
  REPORTED_IN = 256,
  REPORTED_HIDDEN = 512,
  REPORTED_OUT = 256,
  REPORTED_SEED = 11,
  REPORTED_FIRST_THREADS = 2, /* the pool the method is loaded on */
  REPORTED_RESETS = 22,       /* entries of reported_resets */
};

/* The thread count of each reset, in order. */
static const size_t reported_resets[REPORTED_RESETS] = {
    16, 4, 8, 3, 8, 3, 8, 3, 8, 3, 8, 3, 8, 3, 8, 3, 8, 3, 8, 3, 8, 3};

/* Creates the reported model (mlp_create: 0, -EINVAL or -ENOMEM). */
static inline int reported_model_create(mlp_t **model) {
  return mlp_create(REPORTED_BATCH, REPORTED_IN, REPORTED_HIDDEN,
                    REPORTED_OUT, REPORTED_SEED, model);
}

#endif /* RCUPOOL_TOOLS_REPORTED_CASE_H */
