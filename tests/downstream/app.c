/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdio.h>

#include "scaled_sum.h"

int main(void) {
  uint64_t s = 0;
  int err = scaled_sum(2, 1000, &s);
  if (err != 0) return fprintf(stderr, "scaled_sum: %d\n", err), 1;
  printf("2 * (0 + 1 + ... + 999) = %" PRIu64 "\n", s);
  return 0;
}
