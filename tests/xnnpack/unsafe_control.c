/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The control of unsafe_control_test: the reset sequence of the reported
 * crash on the sample model at the report's size (both from
 * tools/reported_case.h: 256 -> 512 -> 256, batch 64, loaded on 2 threads,
 * then resets to 16, to 4, and 20 resets alternating 8 and 3).
 *
 *   unsafe_control          raw XNNPACK on a raw pthreadpool that each
 *                           reset destroys and replaces (expected to hang,
 *                           crash, or be reported by ASan)
 *   unsafe_control --safe   the same through rcupool (expected: exit 0)
 *
 * Exit status 0 when every invoke returned correct outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rcupool/xnnpack.h>

#include "tools/model/mlp.h"
#include "tools/reported_case.h"

/* Invokes the method once after loading and once after each reset;
 * returns 1 on any failed call or wrong output. Buffers sized by the
 * model (mlp_input_size, mlp_output_size). */
static int invoke_through_resets(rcupool_t *m, rcupool_xnn_runtime_t *rt,
                                 float *y, const double *ref, size_t n_out) {
  int wrong = 0;
  for (int i = -1; i < REPORTED_RESETS; i++) {
    if (i >= 0 && rcupool_reset(m, reported_resets[i]) != 0) wrong = 1;
    memset(y, 0, n_out * sizeof *y);
    if (rcupool_xnn_runtime_invoke(rt) != 0 ||
        mlp_relative_error(y, ref, n_out) >= 1e-4)
      wrong = 1;
  }
  return wrong;
}

static int run_safe(const mlp_t *model) {
  rcupool_options_t opts = {.threads = REPORTED_FIRST_THREADS};
  rcupool_t *m = NULL;
  if (rcupool_create(&opts, &m) != 0) return 1;
  const size_t n_in = mlp_input_size(model), n_out = mlp_output_size(model);
  float *x = calloc(n_in, sizeof *x), *y = calloc(n_out, sizeof *y);
  double *ref = calloc(n_out, sizeof *ref);
  xnn_subgraph_t sg = NULL;
  rcupool_xnn_runtime_t *rt = NULL;
  int wrong = 1;
  if (x != NULL && y != NULL && ref != NULL &&
      xnn_initialize(NULL) == xnn_status_success &&
      mlp_subgraph(model, &sg) == 0 &&
      rcupool_xnn_runtime_create(m, sg, 0, &rt) == 0) {
    mlp_fill_input(model, 1, x);
    mlp_reference(model, x, ref);
    const struct xnn_external_value v[2] = {{MLP_INPUT_ID, x},
                                            {MLP_OUTPUT_ID, y}};
    wrong = rcupool_xnn_runtime_setup(rt, 2, v) != 0;
    wrong |= invoke_through_resets(m, rt, y, ref, n_out);
  }
  rcupool_xnn_runtime_destroy(rt);
  if (sg != NULL) xnn_delete_subgraph(sg);
  if (rcupool_destroy(m) != 0) wrong = 1;
  free(x);
  free(y);
  free(ref);
  fprintf(stderr, "safe: %d invokes, %s\n", REPORTED_RESETS + 1,
          wrong ? "WRONG outputs" : "all outputs correct");
  return wrong;
}

int main(int argc, char **argv) {
  int safe = argc == 2 && strcmp(argv[1], "--safe") == 0;
  if (argc > 1 && !safe) {
    fprintf(stderr, "usage: unsafe_control [--safe]\n");
    return 2;
  }
  mlp_t *model = NULL;
  if (reported_model_create(&model) != 0) return 1;
  int rc = safe ? run_safe(model)
                : mlp_run_unsafe_resets(model, REPORTED_FIRST_THREADS,
                                        reported_resets, REPORTED_RESETS);
  mlp_destroy(model);
  return rc;
}
