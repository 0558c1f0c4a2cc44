/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application under a sanitizer, on rcupool's instrumented install
 * (tools/install.sh --sanitize): its own kernel writes one slot per index
 * on the pool's workers, and the main thread reads them all after each
 * rcupool_parallelize_1d() returns, across resets and a pin. With the
 * library instrumented, ThreadSanitizer sees the edges rcupool's
 * annotations draw (no report); built against the plain install it
 * reports the application's own kernel (tests/cmake/sanitize_test.sh runs
 * both). Prints "sanitize ok" and exits 0 when every sum is right. */
#include <stdio.h>

#include <rcupool/rcupool.h>

#define N 1000
static size_t slot[N];

static void kernel(void *ctx, size_t i) {
  (void)ctx;
  slot[i] = 2 * i + 1;
}

int main(void) {
  rcupool_t *m = rcupool_default();
  if (m == NULL) return fprintf(stderr, "no manager\n"), 1;
  for (int r = 0; r < 12; r++) {
    if (rcupool_reset(m, 1 + (size_t)(r % 3)) != 0)
      return fprintf(stderr, "reset\n"), 1;
    rcupool_pin_t pin = {0};
    if (r % 2 == 0 && rcupool_pin(m, &pin) != 0)
      return fprintf(stderr, "pin\n"), 1;
    if (rcupool_parallelize_1d(m, kernel, NULL, N, 0) != 0)
      return fprintf(stderr, "parallelize_1d\n"), 1;
    size_t sum = 0;
    for (size_t i = 0; i < N; i++) sum += slot[i], slot[i] = 0;
    if (sum != (size_t)N * N) return fprintf(stderr, "sum %zu\n", sum), 1;
    rcupool_unpin(&pin);
  }
  if (rcupool_trim(m) < 0) return fprintf(stderr, "trim\n"), 1;
  printf("sanitize ok\n");
  return 0;
}
