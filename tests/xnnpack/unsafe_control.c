/*
 * The control of unsafe_control_test: the reset sequence of the reported
 * crash on the sample model (256 -> 512 -> 256, batch 64), loaded on 2
 * threads, then resets to 16, to 4, and 20 resets alternating 8 and 3
 * (the sequence of invoke_test).
 *
 *   unsafe_control          raw XNNPACK on a raw pthreadpool that each
 *                           reset destroys and replaces (expected to hang,
 *                           crash, or be reported by ASan)
 *   unsafe_control --safe   the same through rcupool (expected: exit 0)
 *
 * Exit status 0 when every invoke returned correct outputs.
 */
#include <stdio.h>
#include <string.h>

#include <rcupool/xnnpack.h>

#include "lib/xnnpack/mlp.h"

enum { kResets = 22 };

static int run_safe(const mlp_t *model, const size_t *counts) {
  rcupool_options_t opts = {.threads = 2};
  rcupool_t *m = NULL;
  if (rcupool_create(&opts, &m) != 0) return 1;
  xnn_subgraph_t sg = NULL;
  rcupool_xnn_runtime_t *rt = NULL;
  static float x[64 * 256], y[64 * 256];
  static double ref[64 * 256];
  mlp_fill_input(model, 1, x);
  mlp_reference(model, x, ref);
  if (xnn_initialize(NULL) != xnn_status_success || mlp_subgraph(model, &sg) ||
      rcupool_xnn_runtime_create(m, sg, 0, &rt))
    return 1;
  const struct xnn_external_value v[2] = {{MLP_INPUT_ID, x},
                                          {MLP_OUTPUT_ID, y}};
  int wrong = rcupool_xnn_runtime_setup(rt, 2, v) != 0;
  for (int i = -1; i < kResets; i++) {
    if (i >= 0 && rcupool_reset(m, counts[i]) != 0) wrong = 1;
    memset(y, 0, sizeof y);
    if (rcupool_xnn_runtime_invoke(rt) != 0 ||
        mlp_relative_error(y, ref, 64 * 256) >= 1e-4)
      wrong = 1;
  }
  rcupool_xnn_runtime_destroy(rt);
  xnn_delete_subgraph(sg);
  if (rcupool_destroy(m) != 0) wrong = 1;
  fprintf(stderr, "safe: %d invokes, %s\n", kResets + 1,
          wrong ? "WRONG outputs" : "all outputs correct");
  return wrong;
}

int main(int argc, char **argv) {
  int safe = argc == 2 && strcmp(argv[1], "--safe") == 0;
  if (argc > 1 && !safe) {
    fprintf(stderr, "usage: unsafe_control [--safe]\n");
    return 2;
  }
  size_t counts[kResets] = {16, 4};
  for (int i = 2; i < kResets; i++) counts[i] = i % 2 == 0 ? 8 : 3;
  mlp_t *model = NULL;
  if (mlp_create(64, 256, 512, 256, 11, &model) != 0) return 1;
  int rc = safe ? run_safe(model, counts)
                : mlp_run_unsafe_resets(model, 2, counts, kResets);
  mlp_destroy(model);
  return rc;
}
