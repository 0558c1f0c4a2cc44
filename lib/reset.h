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

#endif /* RCUPOOL_LIB_RESET_H */
