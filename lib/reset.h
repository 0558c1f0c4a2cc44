/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/reset.c's API inside the library: a fork child's settle.
 */
#ifndef RCUPOOL_LIB_RESET_H
#define RCUPOOL_LIB_RESET_H

#include "manager_state.h"
#include "rcupool/rcupool.h"

/* In a fork child, gives a stale manager (the default one, or one whose
 * current pool is an orphan, FORK-8) a pool of its size on the first call
 * that needs one (parallelize outside a scope, a pin, sized or not; a
 * reset settles by itself): RESET-5, FORK-5. Elsewhere one acquire load.
 * Never call with m's locks held. */
void rcupl_reset_settle_fork(rcupool_t *m);
static inline void rcupl_fork_settle(rcupool_t *m) {
  if (__builtin_expect(__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE), 0))
    rcupl_reset_settle_fork(m);
}

/* rcupool_reset() to `threads` (resolved, non-zero), entered with
 * m->writer held, which it releases (on every path). chosen: m->chosen
 * from a success on (RESET-6; unchanged on error). settling: called to
 * settle a stale fork child. Returns 0 or a negative errno. For reset.c
 * and for lib/follow.c's reset that follows the limits. */
int rcupl_reset_writer_held(rcupool_t *m, size_t threads, bool chosen,
                            bool settling);

#endif /* RCUPOOL_LIB_RESET_H */
