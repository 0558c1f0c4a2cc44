/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool's opt-in inline read side (<rcupool/inline.h>), in a C caller,
 * batched like the bare liburcu section (read_bare_urcu.c) so the two rows
 * differ only in what the section does.
 */
#include "benchmarks/read_inline.h"

#include <rcupool/inline.h>

void rcupool_inline_reads(rcupool_t *m, size_t n) {
  for (size_t i = 0; i < n; i++) {
    rcupool_read_lock_inline();
    pthreadpool_t tp = rcupool_current_inline(m);
    /* Keep the load, as benchmark::DoNotOptimize does. */
    __asm__ volatile("" : : "r,m"(tp) : "memory");
    rcupool_read_unlock_inline();
  }
}
