/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plain C program built for aarch64 against an arm64 install through
 * pkg-config (docs/building.md, "Cross-compiling for aarch64") and run
 * under qemu-aarch64 by tests/aarch64/run.sh. It gets a pool, pins it,
 * resets under the pin, runs parallel work in the pin's scope and with
 * pthreadpool itself on the pin's pool (pkg-config's flags link
 * pthreadpool), and uses a warm width guard (a sized pin at a width used
 * a moment ago starts no pool). Each step is checked through the
 * library's own stats; prints "aarch64 guard ok" and exits 0 only when
 * every check holds. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include <pthreadpool.h>
#include <rcupool/rcupool.h>

static int failures;

#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "guard.c:%d: failed: %s\n", __LINE__, #cond); \
      failures++;                                                   \
    }                                                               \
  } while (0)

static void add(void *ctx, size_t i) {
  atomic_fetch_add((atomic_uint_fast64_t *)ctx, (uint64_t)i + 1);
}

/* The sum of 1..n through pthreadpool on a pool rcupool handed out. */
static int pthreadpool_sum_is_right(pthreadpool_t tp, size_t n) {
  atomic_uint_fast64_t sum;
  atomic_init(&sum, 0);
  pthreadpool_parallelize_1d(tp, add, &sum, n, 0);
  return atomic_load(&sum) == (uint64_t)n * (n + 1) / 2;
}

/* The sum of 1..n through rcupool_parallelize_1d: right or not. */
static int sum_is_right(rcupool_t *m, size_t n) {
  atomic_uint_fast64_t sum;
  atomic_init(&sum, 0);
  if (rcupool_parallelize_1d(m, add, &sum, n, 0) != 0) return 0;
  return atomic_load(&sum) == (uint64_t)n * (n + 1) / 2;
}

static rcupool_stats_t stats(rcupool_t *m) {
  rcupool_stats_t s;
  CHECK(rcupool_get_stats(m, &s) == 0);
  return s;
}

int main(void) {
  rcupool_options_t opts = {0};
  opts.threads = 2;
  rcupool_t *m = NULL;
  if (rcupool_create(&opts, &m) != 0) return fprintf(stderr, "create\n"), 1;

  /* A pool. */
  CHECK(rcupool_threads(m) == 2);
  CHECK(sum_is_right(m, 10000));
  CHECK(stats(m).pools_alive == 1);

  /* A pin, then a reset under it: the pin keeps its 2-thread pool. */
  rcupool_pin_t method = {0};
  CHECK(rcupool_pin(m, &method) == 0);
  uint64_t gen = rcupool_pin_generation(&method);
  CHECK(rcupool_pin_is_current(&method));
  CHECK(rcupool_reset(m, 3) == 0);
  CHECK(rcupool_threads(m) == 3);
  CHECK(rcupool_generation(m) > gen);
  CHECK(!rcupool_pin_is_current(&method));
  CHECK(rcupool_pin_threads(&method) == 2);
  rcupool_scope_enter(&method);
  CHECK(sum_is_right(m, 10000));
  rcupool_scope_exit();
  rcupool_stats_t s = stats(m);
  CHECK(s.pools_alive == 2 && s.pins == 1 && s.pools_created == 2);
  pthreadpool_t two = rcupool_pin_pthreadpool(&method);
  CHECK(pthreadpool_get_threads_count(two) == 2);
  CHECK(pthreadpool_sum_is_right(two, 10000));
  rcupool_unpin(&method);

  /* A warm width guard: width 2 was used a moment ago, so the sized pin
   * finds that pool (no pool started) and the current one stays. */
  rcupool_pin_t guard = {0};
  CHECK(rcupool_pin_sized(m, 2, &guard) == 0);
  CHECK(rcupool_pin_threads(&guard) == 2);
  CHECK(rcupool_pin_pthreadpool(&guard) == two);
  rcupool_scope_enter(&guard);
  CHECK(sum_is_right(m, 5000));
  rcupool_scope_exit();
  rcupool_unpin(&guard);
  s = stats(m);
  CHECK(s.pools_created == 2);
  CHECK(s.threads == 3 && rcupool_threads(m) == 3);
  /* A new width starts one pool; the same guard again reuses it. */
  CHECK(rcupool_pin_sized(m, 1, &guard) == 0);
  CHECK(rcupool_pin_threads(&guard) == 1);
  rcupool_unpin(&guard);
  CHECK(rcupool_pin_sized(m, 1, &guard) == 0);
  rcupool_unpin(&guard);
  CHECK(stats(m).pools_created == 3);

  /* Trim frees every warm pool; only the current one stays. */
  CHECK(rcupool_trim(m) >= 0);
  CHECK(rcupool_barrier(m) == 0);
  s = stats(m);
  CHECK(s.pools_alive == 1 && s.pins == 0 && s.pools_freed == 2);
  CHECK(rcupool_destroy(m) == 0);
  if (failures != 0) return fprintf(stderr, "%d checks failed\n", failures), 1;
  printf("aarch64 guard ok\n");
  return 0;
}
