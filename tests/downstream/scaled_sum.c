/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "scaled_sum.h"

#include <errno.h>
#include <stdatomic.h>

#include <rcupool/rcupool.h>

struct ctx {
  uint64_t k;
  atomic_uint_fast64_t total;
};

static void add(void *arg, size_t i) {
  struct ctx *c = arg;
  atomic_fetch_add_explicit(&c->total, c->k * (uint64_t)i,
                            memory_order_relaxed);
}

int scaled_sum(uint64_t k, size_t n, uint64_t *out) {
  rcupool_t *m = rcupool_default();
  if (m == NULL) return -EAGAIN;
  struct ctx c = {.k = k};
  atomic_init(&c.total, 0);
  int err = rcupool_parallelize_1d(m, add, &c, n, 0);
  if (err != 0) return err;
  *out = atomic_load(&c.total);
  return 0;
}
