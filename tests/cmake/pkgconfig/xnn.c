/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An XNNPACK method run through rcupool's shared backend:
 *   cc xnn.c $(pkg-config --cflags --libs rcupool-xnnpack) -lm
 * Loads on a 2-thread pool, resets to 3 (the method keeps its pool), runs,
 * refreshes onto the current pool, runs again. Prints "xnn ok". */
#include <stdio.h>

#include "tiny_model.h"

int main(void) {
  static tiny_t t;
  rcupool_t *m = rcupool_default();
  if (m == NULL || rcupool_reset(m, 2) != 0) return fprintf(stderr, "reset\n"), 1;
  tiny_fill(&t);
  int err = tiny_load(&t, m);
  if (err != 0) return fprintf(stderr, "load: %d\n", err), 1;
  if (rcupool_reset(m, 3) != 0) return fprintf(stderr, "reset 3\n"), 1;
  int stale = rcupool_xnn_runtime_is_stale(t.rt);
  size_t kept = rcupool_pin_threads(rcupool_xnn_runtime_get_pin(t.rt));
  if ((err = tiny_run(&t)) != 0) return fprintf(stderr, "run: %d\n", err), 1;
  if ((err = rcupool_xnn_runtime_refresh(t.rt, t.sg)) != 0)
    return fprintf(stderr, "refresh: %d\n", err), 1;
  struct xnn_external_value v[2] = {{0, t.x}, {1, t.y}};
  if ((err = rcupool_xnn_runtime_setup(t.rt, 2, v)) != 0) return fprintf(stderr, "setup\n"), 1;
  size_t now = rcupool_pin_threads(rcupool_xnn_runtime_get_pin(t.rt));
  if ((err = tiny_run(&t)) != 0) return fprintf(stderr, "run 2: %d\n", err), 1;
  tiny_unload(&t);
  if (!stale || kept != 2 || now != 3 || rcupool_barrier(m) != 0)
    return fprintf(stderr, "wrong: stale %d kept %zu now %zu\n", stale, kept, now), 1;
  printf("xnn ok: ran on 2 threads, then refreshed onto 3\n");
  return 0;
}
