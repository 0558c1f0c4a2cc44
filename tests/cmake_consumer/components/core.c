/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A core-only user of rcupool: links rcupool::rcupool and nothing of the
 * XNNPACK backend. Prints "core ok" and exits 0 when a reset to 2 threads
 * and a parallel call over it work. */
#include <stdatomic.h>
#include <stdio.h>

#include <rcupool/rcupool.h>

static atomic_size_t total;

static void add(void *ctx, size_t i) {
  (void)ctx;
  atomic_fetch_add(&total, i + 1);
}

int main(void) {
  rcupool_t *m = rcupool_default();
  if (m == NULL || rcupool_reset(m, 2) != 0) return fprintf(stderr, "reset\n"), 1;
  if (rcupool_parallelize_1d(m, add, NULL, 100, 0) != 0)
    return fprintf(stderr, "parallelize_1d\n"), 1;
  if (atomic_load(&total) != 5050 || rcupool_threads(m) != 2)
    return fprintf(stderr, "total %zu, threads %zu\n", atomic_load(&total),
                   rcupool_threads(m)), 1;
  printf("core ok: 2 threads\n");
  return 0;
}
