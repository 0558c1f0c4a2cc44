/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application on librcupool.so.0 under valgrind: resets, a parallel
 * sum, a sized pin and a retire leave workers, warm pools and the reclaim
 * thread alive. With an argument "finalize" it calls rcupool_finalize()
 * before it returns. Prints "at_exit ok" and exits 0 when the sums are
 * right (tests/valgrind/supp_test.sh). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rcupool/rcupool.h>

static void add(void *ctx, size_t i) { atomic_fetch_add((atomic_size_t *)ctx, i + 1); }

static int sum_is_right(rcupool_t *m) {
  atomic_size_t total;
  atomic_init(&total, 0);
  return rcupool_parallelize_1d(m, add, &total, 100, 0) == 0 &&
         atomic_load(&total) == 5050;
}

int main(int argc, char **argv) {
  rcupool_t *m = rcupool_default();
  if (m == NULL || rcupool_reset(m, 3) != 0 || !sum_is_right(m))
    return fprintf(stderr, "3 threads\n"), 1;
  rcupool_pin_t pin = {0};
  if (rcupool_pin_sized(m, 2, &pin) != 0) return fprintf(stderr, "pin\n"), 1;
  rcupool_unpin(&pin);
  if (rcupool_reset(m, 4) != 0 || !sum_is_right(m))
    return fprintf(stderr, "4 threads\n"), 1;
  if (argc > 1 && strcmp(argv[1], "finalize") == 0 && rcupool_finalize() != 0)
    return fprintf(stderr, "finalize\n"), 1;
  printf("at_exit ok\n");
  return 0;
}
