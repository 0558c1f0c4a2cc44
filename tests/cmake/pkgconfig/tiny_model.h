/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A tiny XNNPACK method for the pkg-config programs: y = x W^T + b with
 * x 8x16, W 4x16, b 4, and its double-precision reference. */
#ifndef TINY_MODEL_H
#define TINY_MODEL_H

#include <math.h>
#include <stddef.h>

#include <rcupool/xnnpack.h>

enum { TINY_BATCH = 8, TINY_IN = 16, TINY_OUT = 4 };

typedef struct tiny {
  float w[TINY_OUT * TINY_IN], b[TINY_OUT];
  float x[TINY_BATCH * TINY_IN], y[TINY_BATCH * TINY_OUT];
  xnn_subgraph_t sg;
  rcupool_xnn_runtime_t *rt;
} tiny_t;

static inline void tiny_fill(tiny_t *t) {
  for (size_t i = 0; i < TINY_OUT * TINY_IN; i++) t->w[i] = (float)((i * 7) % 11) / 11.0f - 0.5f;
  for (size_t i = 0; i < TINY_OUT; i++) t->b[i] = (float)i / 4.0f;
  for (size_t i = 0; i < TINY_BATCH * TINY_IN; i++) t->x[i] = (float)((i * 5) % 13) / 13.0f;
}

/* Builds the subgraph and creates the runtime through rcupool (pinning the
 * manager's current pool). 0 or a negative errno. */
static inline int tiny_load(tiny_t *t, rcupool_t *m) {
  if (xnn_initialize(NULL) != xnn_status_success) return -1;
  if (xnn_create_subgraph(2, 0, &t->sg) != xnn_status_success) return -1;
  const size_t xd[2] = {TINY_BATCH, TINY_IN}, wd[2] = {TINY_OUT, TINY_IN},
               bd[1] = {TINY_OUT}, yd[2] = {TINY_BATCH, TINY_OUT};
  uint32_t x, w, b, y;
  if (xnn_define_tensor_value(t->sg, xnn_datatype_fp32, 2, xd, NULL, 0,
                              XNN_VALUE_FLAG_EXTERNAL_INPUT, &x) ||
      xnn_define_tensor_value(t->sg, xnn_datatype_fp32, 2, wd, t->w,
                              XNN_INVALID_VALUE_ID, 0, &w) ||
      xnn_define_tensor_value(t->sg, xnn_datatype_fp32, 1, bd, t->b,
                              XNN_INVALID_VALUE_ID, 0, &b) ||
      xnn_define_tensor_value(t->sg, xnn_datatype_fp32, 2, yd, NULL, 1,
                              XNN_VALUE_FLAG_EXTERNAL_OUTPUT, &y) ||
      xnn_define_fully_connected(t->sg, -INFINITY, INFINITY, x, w, b, y, 0))
    return -1;
  int err = rcupool_xnn_runtime_create(m, t->sg, 0, &t->rt);
  if (err != 0) return err;
  struct xnn_external_value v[2] = {{0, t->x}, {1, t->y}};
  return rcupool_xnn_runtime_setup(t->rt, 2, v);
}

/* Invokes the runtime and compares with the reference: 0 when right. */
static inline int tiny_run(tiny_t *t) {
  for (size_t i = 0; i < TINY_BATCH * TINY_OUT; i++) t->y[i] = NAN;
  int err = rcupool_xnn_runtime_invoke(t->rt);
  if (err != 0) return err;
  for (size_t r = 0; r < TINY_BATCH; r++)
    for (size_t o = 0; o < TINY_OUT; o++) {
      double ref = t->b[o];
      for (size_t i = 0; i < TINY_IN; i++)
        ref += (double)t->x[r * TINY_IN + i] * t->w[o * TINY_IN + i];
      if (!(fabs(ref - t->y[r * TINY_OUT + o]) <= 1e-4)) return -1;
    }
  return 0;
}

static inline void tiny_unload(tiny_t *t) {
  rcupool_xnn_runtime_destroy(t->rt);
  t->rt = NULL;
  xnn_delete_subgraph(t->sg);
  t->sg = NULL;
}

#endif
