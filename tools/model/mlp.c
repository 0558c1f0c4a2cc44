/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sample model of mlp.h.
 *
 * Invariants kept here:
 *   MLP-1. The weights are immutable after mlp_create() and outlive every
 *          subgraph built from them (the caller destroys subgraphs first),
 *          as XNNPACK requires of static tensor data.
 *   MLP-2. The reference is computed in double from the same float weights
 *          and inputs, in a fixed order, independent of any thread count.
 */
#include "tools/model/mlp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <rcupool/xnnpack.h>

struct mlp {
  size_t batch, in, hidden, out;
  float *w1, *b1, *w2, *b2;
};

/* xorshift32: small, deterministic, identical in every process. */
static uint32_t next_u32(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

static float next_unit(uint32_t *s) {  /* in [-1, 1) */
  return (float)((double)next_u32(s) / 2147483648.0 - 1.0);
}

static void fill(float *v, size_t n, float scale, uint32_t *s) {
  for (size_t i = 0; i < n; i++) v[i] = next_unit(s) * scale;
}

int mlp_create(size_t batch, size_t in, size_t hidden, size_t out,
               uint32_t seed, mlp_t **model) {
  if (batch == 0 || in == 0 || hidden == 0 || out == 0 || model == NULL)
    return -EINVAL;
  mlp_t *m = calloc(1, sizeof *m);
  if (m == NULL) return -ENOMEM;
  m->batch = batch;
  m->in = in;
  m->hidden = hidden;
  m->out = out;
  m->w1 = malloc(sizeof(float) * hidden * in);
  m->b1 = malloc(sizeof(float) * hidden);
  m->w2 = malloc(sizeof(float) * out * hidden);
  m->b2 = malloc(sizeof(float) * out);
  if (!m->w1 || !m->b1 || !m->w2 || !m->b2) {
    mlp_destroy(m);
    return -ENOMEM;
  }
  uint32_t s = seed * 2654435761u + 1;
  fill(m->w1, hidden * in, (float)(1.0 / sqrt((double)in)), &s);
  fill(m->b1, hidden, 0.1f, &s);
  fill(m->w2, out * hidden, (float)(1.0 / sqrt((double)hidden)), &s);
  fill(m->b2, out, 0.1f, &s);
  *model = m;
  return 0;
}

void mlp_destroy(mlp_t *m) {
  if (m == NULL) return;
  free(m->w1);
  free(m->b1);
  free(m->w2);
  free(m->b2);
  free(m);
}

size_t mlp_input_size(const mlp_t *m) { return m->batch * m->in; }
size_t mlp_output_size(const mlp_t *m) { return m->batch * m->out; }
size_t mlp_batch(const mlp_t *m) { return m->batch; }
size_t mlp_outputs_per_row(const mlp_t *m) { return m->out; }

#define MLP_CHECK(call)                                 \
  do {                                                  \
    enum xnn_status st_ = (call);                       \
    if (st_ != xnn_status_success) {                    \
      xnn_delete_subgraph(sg);                          \
      return rcupool_xnn_errno(st_);                    \
    }                                                   \
  } while (0)

int mlp_subgraph(const mlp_t *m, xnn_subgraph_t *out) {
  xnn_subgraph_t sg = NULL;
  enum xnn_status st = xnn_create_subgraph(2, 0, &sg);
  if (st != xnn_status_success) return rcupool_xnn_errno(st);
  const size_t x_dims[2] = {m->batch, m->in};
  const size_t w1_dims[2] = {m->hidden, m->in};
  const size_t b1_dims[1] = {m->hidden};
  const size_t h_dims[2] = {m->batch, m->hidden};
  const size_t w2_dims[2] = {m->out, m->hidden};
  const size_t b2_dims[1] = {m->out};
  const size_t y_dims[2] = {m->batch, m->out};
  uint32_t x, w1, b1, h, w2, b2, y;
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, x_dims, NULL,
                                    MLP_INPUT_ID, XNN_VALUE_FLAG_EXTERNAL_INPUT,
                                    &x));
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, w1_dims, m->w1,
                                    XNN_INVALID_VALUE_ID, 0, &w1));
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 1, b1_dims, m->b1,
                                    XNN_INVALID_VALUE_ID, 0, &b1));
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, h_dims, NULL,
                                    XNN_INVALID_VALUE_ID, 0, &h));
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, w2_dims, m->w2,
                                    XNN_INVALID_VALUE_ID, 0, &w2));
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 1, b2_dims, m->b2,
                                    XNN_INVALID_VALUE_ID, 0, &b2));
  MLP_CHECK(xnn_define_tensor_value(sg, xnn_datatype_fp32, 2, y_dims, NULL,
                                    MLP_OUTPUT_ID,
                                    XNN_VALUE_FLAG_EXTERNAL_OUTPUT, &y));
  MLP_CHECK(xnn_define_fully_connected(sg, 0.0f, INFINITY, x, w1, b1, h, 0));
  MLP_CHECK(xnn_define_fully_connected(sg, -INFINITY, INFINITY, h, w2, b2, y,
                                       0));
  *out = sg;
  return 0;
}

void mlp_fill_input(const mlp_t *m, uint32_t seed, float *x) {
  uint32_t s = seed * 2246822519u + 7;
  fill(x, mlp_input_size(m), 1.0f, &s);
}

void mlp_reference(const mlp_t *m, const float *x, double *y) {
  double *h = malloc(sizeof(double) * m->hidden);
  if (h == NULL) abort();
  for (size_t b = 0; b < m->batch; b++) {
    const float *xb = x + b * m->in;
    for (size_t j = 0; j < m->hidden; j++) {
      double acc = m->b1[j];
      const float *w = m->w1 + j * m->in;
      for (size_t k = 0; k < m->in; k++) acc += (double)w[k] * xb[k];
      h[j] = acc > 0.0 ? acc : 0.0;
    }
    for (size_t o = 0; o < m->out; o++) {
      double acc = m->b2[o];
      const float *w = m->w2 + o * m->hidden;
      for (size_t j = 0; j < m->hidden; j++) acc += (double)w[j] * h[j];
      y[b * m->out + o] = acc;
    }
  }
  free(h);
}

double mlp_relative_error(const float *y, const double *ref, size_t n) {
  double worst = 0.0, scale = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)y[i] - ref[i]);
    if (isnan(d)) return INFINITY;
    if (d > worst) worst = d;
    if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
  }
  return scale > 0.0 ? worst / scale : worst;
}
