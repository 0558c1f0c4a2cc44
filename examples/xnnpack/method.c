/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An XNNPACK method through rcupool's backend: y = relu(x W^T) with x 4x8
 * and W 2x8 (every weight 1), loaded on a pinned pool, run, re-planned
 * after a reset, unloaded. The method's own kernel (relu) runs in the
 * runtime's scope, on the same pool as its XNNPACK partitions. */
#include <math.h>
#include <stdio.h>

#include <rcupool/xnnpack.h>

enum { ROWS = 4, IN = 8, OUT = 2 };
static float x[ROWS * IN], w[OUT * IN], y[ROWS * OUT];

static void relu(void *out, size_t i) {
  float *v = out;
  if (v[i] < 0) v[i] = 0;
}

static xnn_subgraph_t define(void) {
  xnn_subgraph_t sg;
  const size_t xd[2] = {ROWS, IN}, wd[2] = {OUT, IN}, yd[2] = {ROWS, OUT};
  uint32_t xi, wi, yi;
  if (xnn_create_subgraph(2, 0, &sg) != xnn_status_success) return NULL;
  if (xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, xd, NULL, 0,
                              XNN_VALUE_FLAG_EXTERNAL_INPUT, &xi) ||
      xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, wd, w,
                              XNN_INVALID_VALUE_ID, 0, &wi) ||
      xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, yd, NULL, 1,
                              XNN_VALUE_FLAG_EXTERNAL_OUTPUT, &yi) ||
      xnn_define_fully_connected(sg, -INFINITY, INFINITY, xi, wi,
                                 XNN_INVALID_VALUE_ID, yi, 0)) {
    xnn_delete_subgraph(sg);
    return NULL;
  }
  return sg;
}

static int run(rcupool_t *m, xnn_subgraph_t subgraph,
               const struct xnn_external_value *values) {
  pthreadpool_task_1d_t my_kernel = relu;
  float *ctx = y;
  size_t n = ROWS * OUT;
  int err;
  /* docs/xnnpack.md shows the lines from here to the destroy. */
  rcupool_xnn_runtime_t *rt;
  err = rcupool_xnn_runtime_create(m, subgraph, 0, &rt);     /* pins the current pool */
  if (err != 0) return err;
  err = rcupool_xnn_runtime_setup(rt, 2, values);
  for (int i = 0; err == 0 && i < 2; i++) {
    /* every run */
    rcupool_scope_enter(rcupool_xnn_runtime_get_pin(rt));
    err = rcupool_xnn_runtime_invoke(rt);                      /* partitions on that pool */
    if (err == 0)
      err = rcupool_parallelize_1d(m, my_kernel, ctx, n, 0);   /* the method's own kernel: same pool */
    rcupool_scope_exit();
    if (err == 0 && i == 0) err = rcupool_reset(m, 1);        /* any thread, at any time */
    /* between runs, at a point the holder chooses */
    if (err == 0 && rcupool_xnn_runtime_is_stale(rt)) {        /* a reset happened */
      err = rcupool_xnn_runtime_refresh(rt, subgraph);         /* re-plan on the current pool */
      if (err == 0) err = rcupool_xnn_runtime_setup(rt, 2, values);
    }
  }
  /* unload */
  rcupool_xnn_runtime_destroy(rt);                             /* delete, then unpin */
  return err;
}

int main(void) {
  for (size_t i = 0; i < ROWS * IN; i++) x[i] = (float)i - 12.0f;
  for (size_t i = 0; i < OUT * IN; i++) w[i] = 1.0f;
  rcupool_t *m = rcupool_default();
  if (m == NULL || xnn_initialize(NULL) != xnn_status_success) return 1;
  if (rcupool_reset(m, 2) != 0) return 1;
  xnn_subgraph_t subgraph = define();  /* kept for refresh */
  if (subgraph == NULL) return 1;
  struct xnn_external_value values[2] = {{0, x}, {1, y}};
  int err = run(m, subgraph, values);
  xnn_delete_subgraph(subgraph);
  for (size_t r = 0; r < ROWS; r++) {  /* row r: sum of 8 inputs, then relu */
    float want = 0;
    for (size_t i = 0; i < IN; i++) want += x[r * IN + i];
    if (want < 0) want = 0;
    if (y[r * OUT] != want || y[r * OUT + 1] != want) err = err ? err : -1;
  }
  printf("method ran on rcupool: y[0] = %g, y[%d] = %g, err %d\n", y[0],
         ROWS * OUT - 1, y[ROWS * OUT - 1], err);
  return err != 0;
}
