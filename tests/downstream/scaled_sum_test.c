/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The downstream project's test: its library gives the closed-form sum on
 * every pool size a user may reset to, and rcupool's public API is usable
 * through @rcupool//:rcupool alone. Exits non-zero on the first failure. */
#include <inttypes.h>
#include <stdio.h>

#include <rcupool/rcupool.h>

#include "scaled_sum.h"

#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
              #cond);                                                  \
      return 1;                                                        \
    }                                                                  \
  } while (0)

int main(void) {
  rcupool_t *m = rcupool_default();
  CHECK(m != NULL);
  for (size_t threads = 1; threads <= 4; threads++) {
    CHECK(rcupool_reset(m, threads) == 0);
    CHECK(rcupool_threads(m) == threads);
    for (size_t n = 0; n <= 5000; n += 1250) {
      uint64_t s = 1;
      CHECK(scaled_sum(3, n, &s) == 0);
      uint64_t want = n == 0 ? 0 : 3 * ((uint64_t)n * (n - 1) / 2);
      if (s != want) {
        fprintf(stderr, "threads %zu n %zu: %" PRIu64 " != %" PRIu64 "\n",
                threads, n, s, want);
        return 1;
      }
    }
  }
  CHECK(rcupool_barrier(m) == 0);
  /* The retired pools of 1..3 threads are warm (kept for their widths). */
  CHECK(rcupool_trim(m) >= 0);
  rcupool_stats_t st;
  CHECK(rcupool_get_stats(m, &st) == 0);
  CHECK(st.pools_alive == 1 && st.threads == 4);
  printf("downstream ok\n");
  return 0;
}
