/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plain C program built against an installed rcupool with
 *   cc hello.c $(pkg-config --cflags --libs rcupool)
 * It resets the process-wide pool, runs a parallel sum on it (inside a
 * pinned method's scope, and outside), and checks the result. Prints
 * "rcupool ok" and exits 0 only when everything is right. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <rcupool/rcupool.h>

struct sum {
  atomic_uint_fast64_t total;
  atomic_uint_fast64_t calls;
};

static void add(void *ctx, size_t i) {
  struct sum *s = ctx;
  atomic_fetch_add(&s->total, 3 * (uint64_t)i + 1);
  atomic_fetch_add(&s->calls, 1);
}

static int sum_is_right(rcupool_t *m, size_t n) {
  struct sum s;
  atomic_init(&s.total, 0);
  atomic_init(&s.calls, 0);
  if (rcupool_parallelize_1d(m, add, &s, n, 0) != 0) return 0;
  return atomic_load(&s.total) == 3 * (n * (n - 1) / 2) + n &&
         atomic_load(&s.calls) == n;
}

int main(void) {
  rcupool_t *m = rcupool_default();
  if (m == NULL) return fprintf(stderr, "no default manager\n"), 1;
  if (rcupool_reset(m, 2) != 0 || rcupool_threads(m) != 2)
    return fprintf(stderr, "reset to 2 failed\n"), 1;
  rcupool_pin_t pin = {0};
  if (rcupool_pin(m, &pin) != 0) return fprintf(stderr, "pin failed\n"), 1;
  if (rcupool_reset(m, 1) != 0) return fprintf(stderr, "reset to 1 failed\n"), 1;
  rcupool_scope_enter(&pin);
  int in_scope = sum_is_right(m, 10000);
  rcupool_scope_exit();
  int pinned_threads = (int)rcupool_pin_threads(&pin);
  int stale = !rcupool_pin_is_current(&pin);
  rcupool_unpin(&pin);
  int current = sum_is_right(m, 10000);
  if (!in_scope || !current || pinned_threads != 2 || !stale ||
      rcupool_barrier(m) != 0)
    return fprintf(stderr, "wrong: scope %d current %d pinned %d stale %d\n",
                   in_scope, current, pinned_threads, stale), 1;
  printf("rcupool ok: version %d.%d.%d, %zu threads\n", RCUPOOL_VERSION_MAJOR,
         RCUPOOL_VERSION_MINOR, RCUPOOL_VERSION_PATCH, rcupool_threads(m));
  return 0;
}
