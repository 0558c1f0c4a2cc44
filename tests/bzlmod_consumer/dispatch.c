/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A loaded method's pattern on librcupool.so.0: pin a 2-thread pool, let
 * the current pool go to 1 thread, then dispatch inside the pin's scope.
 * The call runs on the pinned pool (its pthreadpool reports 2 threads)
 * and computes the whole sum. Prints one line; exits 0 only when all
 * holds. */
#include <stdatomic.h>
#include <stdio.h>

#include <rcupool/rcupool.h>

static void add(void *sum, size_t i) { atomic_fetch_add((atomic_long *)sum, (long)i); }

int main(void) {
  rcupool_t *m = rcupool_default();
  rcupool_pin_t pin = {0};
  if (m == NULL || rcupool_reset(m, 2) != 0 || rcupool_pin(m, &pin) != 0) return 1;
  if (rcupool_reset(m, 1) != 0) return 1;
  atomic_long sum = 0;
  rcupool_scope_enter(&pin);
  int err = rcupool_parallelize_1d(m, add, &sum, 1000, 0);
  rcupool_scope_exit();
  size_t pool_threads = pthreadpool_get_threads_count(rcupool_pin_pthreadpool(&pin));
  printf("sum %ld on the pinned pool of %zu threads (pthreadpool: %zu; current: %zu)\n",
         atomic_load(&sum), rcupool_pin_threads(&pin), pool_threads, rcupool_threads(m));
  int ok = err == 0 && atomic_load(&sum) == 499500 && rcupool_pin_threads(&pin) == 2 &&
           pool_threads == 2 && rcupool_threads(m) == 1 && !rcupool_pin_is_current(&pin);
  rcupool_unpin(&pin);
  return ok ? 0 : 1;
}
