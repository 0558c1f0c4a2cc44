/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Uses the current pool with pthreadpool itself, as a runtime does with the
 * pthreadpool_t that rcupool hands out:
 *   cc pool.c $(pkg-config --cflags --libs rcupool)
 * Prints "pool ok" and exits 0 only when the sums are right. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <pthreadpool.h>
#include <rcupool/rcupool.h>

static atomic_uint_fast64_t total;

static void add(void *ctx, size_t i) {
  (void)ctx;
  atomic_fetch_add(&total, 3 * (uint64_t)i + 1);
}

static int sum_on(pthreadpool_t tp, size_t n) {
  atomic_store(&total, 0);
  pthreadpool_parallelize_1d(tp, add, NULL, n, 0);
  return atomic_load(&total) == 3 * (n * (n - 1) / 2) + n;
}

int main(void) {
  rcupool_t *m = rcupool_default();
  if (m == NULL || rcupool_reset(m, 2) != 0) return fprintf(stderr, "reset\n"), 1;
  rcupool_read_lock();
  pthreadpool_t tp = rcupool_current(m);
  int in_section = sum_on(tp, 10000) && pthreadpool_get_threads_count(tp) == 2;
  rcupool_read_unlock();

  rcupool_pin_t pin = {0};
  if (rcupool_pin(m, &pin) != 0) return fprintf(stderr, "pin\n"), 1;
  if (rcupool_reset(m, 3) != 0) return fprintf(stderr, "reset 3\n"), 1;
  /* The pinned pool keeps working after the reset: its holder uses it. */
  int pinned = sum_on(rcupool_pin_pthreadpool(&pin), 10000) &&
               pthreadpool_get_threads_count(rcupool_pin_pthreadpool(&pin)) == 2;
  rcupool_unpin(&pin);
  if (!in_section || !pinned || rcupool_barrier(m) != 0)
    return fprintf(stderr, "wrong: section %d pinned %d\n", in_section, pinned), 1;
  printf("pool ok: %zu threads now\n", rcupool_threads(m));
  return 0;
}
