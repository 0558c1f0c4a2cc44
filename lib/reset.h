/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/reset.c's API inside the library: a fork child's settle.
 */
#ifndef RCUPOOL_LIB_RESET_H
#define RCUPOOL_LIB_RESET_H

#include "manager_internal.h"
#include "rcupool/rcupool.h"

/* In a fork child, gives the default manager a pool of its size on the
 * first call that needs one (parallelize outside a scope, pin; a reset
 * settles by itself): RESET-5, FORK-5. Elsewhere one acquire load. Never
 * call with m's locks held. */
void rcupl_reset_settle_fork(rcupool_t *m);
static inline void rcupl_fork_settle(rcupool_t *m) {
  if (__builtin_expect(__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE), 0))
    rcupl_reset_settle_fork(m);
}

/* A reset to ds->threads made by following the limits (lib/follow.c):
 * under m->writer, does nothing when the count was chosen meanwhile
 * (FOLLOW-1) or the current pool already has that size; records ds as the
 * limits last seen; counts and logs the change. Returns 1 when it reset,
 * 0 when not, or the reset's error. Call without m's locks. */
int rcupl_reset_follow(rcupool_t *m, const struct rcupl_default_size *ds);

#endif /* RCUPOOL_LIB_RESET_H */
