/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small sample model for rcupool's tests and demo (not part of the
 * library): a two-layer perceptron, fully-connected + ReLU then
 * fully-connected, as an XNNPACK subgraph, with a naive double-precision
 * reference to check every output against.
 *
 *   hidden = max(0, W1 x + b1)     W1: [hidden, in]
 *   y      = W2 hidden + b2        W2: [out, hidden]
 *
 * Weights are pseudo-random from a seed, so two processes agree on them.
 */
#ifndef RCUPOOL_TOOLS_MODEL_MLP_H
#define RCUPOOL_TOOLS_MODEL_MLP_H

#include <stddef.h>
#include <stdint.h>

#include <xnnpack.h>

#ifdef __cplusplus
extern "C" {
#endif

/* External value ids of the subgraph. */
#define MLP_INPUT_ID 0
#define MLP_OUTPUT_ID 1

typedef struct mlp mlp_t;

/* Creates the weights. Returns 0, -EINVAL (a zero size) or -ENOMEM. */
int mlp_create(size_t batch, size_t in, size_t hidden, size_t out,
               uint32_t seed, mlp_t **model);
void mlp_destroy(mlp_t *model);

size_t mlp_input_size(const mlp_t *model);   /* batch * in floats */
size_t mlp_output_size(const mlp_t *model);  /* batch * out floats */
size_t mlp_batch(const mlp_t *model);
size_t mlp_outputs_per_row(const mlp_t *model);

/* Defines the model in a new subgraph (xnn_initialize() first). The
 * subgraph points at the model's weights: destroy it before the model.
 * Returns 0 or the negative errno of the failing XNNPACK call. */
int mlp_subgraph(const mlp_t *model, xnn_subgraph_t *out);

/* Fills x (mlp_input_size floats) with values in [-1, 1) from seed. */
void mlp_fill_input(const mlp_t *model, uint32_t seed, float *x);

/* The reference output in double precision (mlp_output_size doubles). */
void mlp_reference(const mlp_t *model, const float *x, double *y);

/* max_i |y[i] - ref[i]| / max_i |ref[i]|: the error relative to the
 * output's scale. NaN in y gives +infinity. */
double mlp_relative_error(const float *y, const double *ref, size_t n);

/*
 * The unsafe way, for the control of tests and demo: raw XNNPACK on a raw
 * pthreadpool that is destroyed and replaced by a new one at every "reset",
 * while the runtime created on the first pool keeps its pointer. Runs the
 * model once on a pool of first_threads, then for each count of `counts`:
 * destroys the pool, creates one of that count, invokes the runtime (on the
 * freed pool) and checks the outputs. Progress goes to stderr, flushed.
 * Returns 0 when every invoke returned with correct outputs (the failure
 * did not show), 1 on a wrong output or failed call. Usually it never
 * returns: it hangs or is killed by a sanitizer or a signal.
 */
int mlp_run_unsafe_resets(const mlp_t *model, size_t first_threads,
                          const size_t *counts, size_t n_counts);

#ifdef __cplusplus
}
#endif

#endif /* RCUPOOL_TOOLS_MODEL_MLP_H */
