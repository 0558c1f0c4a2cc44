/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/read.c's API inside the library, and the inlined read of the
 * current pool.
 */
#ifndef RCUPOOL_LIB_READ_INTERNAL_H
#define RCUPOOL_LIB_READ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manager_state.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "tsan.h"
#include "urcu_flavor.h"

/* True inside a read-side section of the calling thread. */
bool rcupl_read_ongoing(void);

/* rcupool_read_lock()/unlock() for the library's own use: direct calls,
 * never through the PLT of the shared library. */
void rcupl_read_lock(void);
void rcupl_read_unlock(void);

/* Inside one read-side section, inlined into the caller: the current pool
 * of m with a pin counted on this CPU's shard (pin.c, PIN-1; pool.h) and
 * its generation in *gen; when threads is not 0 and the current pool has
 * another size, NULL and nothing taken. A gathered shard is fatal: a pool
 * reached from a section as current is sharded (POOL-8). */
static inline struct rcupl_pool *rcupl_read_get_current(rcupool_t *m,
                                                        size_t threads,
                                                        uint64_t *gen) {
  rcupl_rcu_read_lock();
  struct rcupl_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  if (threads != 0 && p->threads != threads) {
    p = NULL;
  } else {
    rcupl_pool_pin_here(p);
    *gen = __atomic_load_n(&p->generation, __ATOMIC_RELAXED);
  }
  RCUPL_TSAN_GP_RELEASE();
  rcupl_rcu_read_unlock();
  return p;
}

#endif /* RCUPOOL_LIB_READ_INTERNAL_H */
