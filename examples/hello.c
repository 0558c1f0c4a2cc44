/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdatomic.h>
#include <stdio.h>

#include <rcupool/rcupool.h>

static void add(void *sum, size_t i) { atomic_fetch_add((atomic_long *)sum, (long)i); }

int main(void) {
  rcupool_t *m = rcupool_default();       /* the process-wide manager */
  rcupool_pin_t method = {0};             /* a loaded method pins its pool */
  if (rcupool_reset(m, 2) != 0 || rcupool_pin(m, &method) != 0) return 1;
  if (rcupool_reset(m, 1) != 0) return 1; /* never waits; the method keeps 2 threads */
  atomic_long sum = 0;
  rcupool_scope_enter(&method);           /* its parallel work runs on its pool */
  int err = rcupool_parallelize_1d(m, add, &sum, 1000, 0);
  rcupool_scope_exit();
  printf("sum %ld on %zu threads (current: %zu)\n", atomic_load(&sum),
         rcupool_pin_threads(&method), rcupool_threads(m));
  rcupool_unpin(&method);                 /* warm for its width, then freed */
  return err != 0 || atomic_load(&sum) != 499500;
}
