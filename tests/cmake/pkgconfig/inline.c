/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inlined read side (liburcu-bp's fast path in this object):
 *   cc inline.c $(pkg-config --cflags --libs rcupool)
 * Prints "inline ok" and exits 0 only when it reads the current pool. */
#include <stdio.h>

#include <pthreadpool.h>
#include <rcupool/inline.h>

int main(void) {
  rcupool_t *m = rcupool_default();
  if (m == NULL || rcupool_reset(m, 2) != 0) return fprintf(stderr, "reset\n"), 1;
  for (size_t n = 1; n <= 3; n++) {
    if (rcupool_reset(m, n) != 0) return fprintf(stderr, "reset %zu\n", n), 1;
    rcupool_read_lock_inline();
    pthreadpool_t inl = rcupool_current_inline(m);
    rcupool_read_lock();
    pthreadpool_t call = rcupool_current(m); /* nested, the out-of-line way */
    rcupool_read_unlock();
    size_t threads = pthreadpool_get_threads_count(inl);
    rcupool_read_unlock_inline();
    if (inl == NULL || inl != call || threads != n)
      return fprintf(stderr, "wrong at %zu: %p %p %zu\n", n, (void *)inl,
                     (void *)call, threads), 1;
  }
#if defined(RCUPOOL_INLINE_OUT_OF_LINE)
  printf("inline ok (out of line: this flavour or build)\n");
#else
  printf("inline ok (inlined urcu-bp)\n");
#endif
  return 0;
}
