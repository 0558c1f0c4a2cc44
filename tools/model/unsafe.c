/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unsafe reset, kept as a control: what a runtime without rcupool does
 * when the thread count changes. Run it only in a child process.
 *
 * Invariants kept here: none on purpose. The runtime keeps the first
 * pthreadpool_t; every "reset" destroys that pool and creates another, so
 * each later invoke runs on freed memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>

#include "tools/model/mlp.h"

static int run_once(xnn_runtime_t rt, const mlp_t *m, const float *y,
                    const double *ref, const char *what) {
  fprintf(stderr, "unsafe: %s: invoking\n", what);
  fflush(stderr);
  enum xnn_status st = xnn_invoke_runtime(rt);
  double err = mlp_relative_error(y, ref, mlp_output_size(m));
  fprintf(stderr, "unsafe: %s: invoke returned %d, relative error %.3g\n",
          what, (int)st, err);
  fflush(stderr);
  return st == xnn_status_success && err < 1e-4 ? 0 : 1;
}

int mlp_run_unsafe_resets(const mlp_t *m, size_t first_threads,
                          const size_t *counts, size_t n_counts) {
  if (xnn_initialize(NULL) != xnn_status_success) return 1;
  float *x = malloc(sizeof(float) * mlp_input_size(m));
  float *y = malloc(sizeof(float) * mlp_output_size(m));
  double *ref = malloc(sizeof(double) * mlp_output_size(m));
  xnn_subgraph_t sg = NULL;
  if (x == NULL || y == NULL || ref == NULL || mlp_subgraph(m, &sg) != 0)
    return 1;
  mlp_fill_input(m, 1, x);
  mlp_reference(m, x, ref);

  pthreadpool_t pool = pthreadpool_create(first_threads);
  xnn_runtime_t rt = NULL;
  if (pool == NULL ||
      xnn_create_runtime_v2(sg, pool, 0, &rt) != xnn_status_success)
    return 1;
  const struct xnn_external_value values[2] = {{MLP_INPUT_ID, x},
                                               {MLP_OUTPUT_ID, y}};
  if (xnn_setup_runtime(rt, 2, values) != xnn_status_success) return 1;
  char what[64];
  snprintf(what, sizeof what, "load on %zu threads", first_threads);
  int wrong = run_once(rt, m, y, ref, what);

  for (size_t i = 0; i < n_counts; i++) {
    /* The reset of a runtime without rcupool: replace the pool (the new
     * one first, so that it never takes the old one's freed block, and the
     * runtime's pointer is to freed memory, not by chance to the new pool). */
    pthreadpool_t next = pthreadpool_create(counts[i]);
    pthreadpool_destroy(pool);
    pool = next;
    memset(y, 0, sizeof(float) * mlp_output_size(m));
    snprintf(what, sizeof what, "after reset %zu to %zu threads", i + 1,
             counts[i]);
    wrong |= run_once(rt, m, y, ref, what);
  }
  xnn_delete_runtime(rt);
  pthreadpool_destroy(pool);
  xnn_delete_subgraph(sg);
  free(x);
  free(y);
  free(ref);
  return wrong;
}
