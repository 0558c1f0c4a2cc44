/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * churn: the sequence that breaks "keep every pool ever handed out".
 *
 * For n in 1..16 on the process-wide manager: reset to n, pin the pool (a
 * model's method is loaded), run one parallel job on it, unpin (the method
 * is dropped). Prints per step the generation, the sizes of the pools
 * alive, the pins and the OS threads of the process; then waits for
 * reclamation and gives a one-line verdict. Exit status 0 when the process
 * ends with one pool and only its threads plus the library's constant.
 *
 *   bazel run //tools:churn [-- --max-threads N]
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rcupool/rcupool.h>

#include "tools/os_threads.h"

static void add_index(void *ctx, size_t i) {
  atomic_fetch_add_explicit((_Atomic size_t *)ctx, i, memory_order_relaxed);
}

static void print_state(rcupool_t *m, const char *what) {
  rcupool_stats_t s;
  rcupool_get_stats(m, &s);
  printf("%-12s gen %3llu  current %2zu  pools alive %2zu (threads %3zu)  "
         "kept %2zu  pins %zu  os threads %3zu\n",
         what, (unsigned long long)s.generation, s.threads, s.pools_alive,
         s.threads_alive, s.pools_kept, s.pins, os_thread_count());
}

static const char kUsage[] =
    "usage: churn [--max-threads N]\n"
    "  --max-threads N  reset to 1, 2, ..., N threads (1..%d, default 16)\n"
    "  -h, --help       this text\n";

int main(int argc, char **argv) {
  size_t max = 16;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      printf(kUsage, RCUPOOL_MAX_THREADS);
      return 0;
    } else if (strcmp(argv[i], "--max-threads") == 0 && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > RCUPOOL_MAX_THREADS) {
        fprintf(stderr, "churn: --max-threads takes 1..%d\n",
                RCUPOOL_MAX_THREADS);
        return 2;
      }
      max = (size_t)v;
    } else {
      fprintf(stderr, "churn: unknown argument: %s\n", argv[i]);
      fprintf(stderr, kUsage, RCUPOOL_MAX_THREADS);
      return 2;
    }
  }

  rcupool_t *m = rcupool_default();
  if (m == NULL) return 1;
  /* Baseline: a 1-thread pool (no worker) and the reclaim thread started. */
  rcupool_reset(m, 2);
  rcupool_reset(m, 1);
  rcupool_barrier(m);
  size_t baseline = os_thread_count();
  print_state(m, "start");

  size_t peak = baseline;
  int wrong = 0;
  for (size_t n = 1; n <= max; n++) {
    char what[32];
    int err = rcupool_reset(m, n);
    if (err != 0) {
      fprintf(stderr, "churn: reset to %zu: %s\n", n, strerror(-err));
      return 1;
    }
    rcupool_pin_t pin = {0};
    rcupool_pin(m, &pin);
    _Atomic size_t sum = 0;
    rcupool_scope_enter(&pin);
    rcupool_parallelize_1d(m, add_index, (void *)&sum, 1000, 0);
    rcupool_scope_exit();
    if (sum != 1000 * 999 / 2) wrong++;
    snprintf(what, sizeof what, "reset %zu", n);
    size_t now = os_thread_count();
    if (now > peak) peak = now;
    print_state(m, what);
    rcupool_unpin(&pin);
  }
  rcupool_barrier(m);
  print_state(m, "reclaimed");

  rcupool_stats_t s;
  rcupool_get_stats(m, &s);
  size_t final = os_thread_count();
  size_t expected = baseline + s.threads - 1;
  int ok = wrong == 0 && s.pools_alive == 1 && final == expected;
  printf("%s: %zu resets, %llu pools created, %llu freed, 1 pool alive "
         "expected / %zu seen; os threads %zu at start, peak %zu, final %zu "
         "(expected %zu = start + current pool's %zu workers); "
         "wrong results %d\n",
         ok ? "PASS" : "FAIL", max, (unsigned long long)s.pools_created,
         (unsigned long long)s.pools_freed, s.pools_alive, baseline, peak,
         final, expected, s.threads - 1, wrong);
  return ok ? 0 : 1;
}
