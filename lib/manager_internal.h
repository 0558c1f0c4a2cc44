/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/manager.c's API inside the library: the default count,
 * the default manager's create, the publish step and pool creation
 * counted against the manager. The manager's struct and its locks are
 * lib/manager_state.h's.
 */
#ifndef RCUPOOL_LIB_MANAGER_INTERNAL_H
#define RCUPOOL_LIB_MANAGER_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manager_state.h"
#include "pool.h"
#include "rcupool/rcupool.h"

/* The count 0 stands for in rcupool_reset() and rcupool_pin_sized(): the
 * one m was created with, else the default computed now (mask and quota
 * of the calling thread: may read files, so call without m's locks). */
size_t rcupl_manager_default_threads(const rcupool_t *m);

/* rcupool_create() for rcupool_default(): when the first pool cannot start
 * its threads (-EAGAIN), the manager starts on a pool of 1 thread, which
 * starts none (the caller runs the work), warns, and keeps its default
 * count for later resets to 0. */
int rcupl_manager_create_default(const rcupool_options_t *opts,
                                 rcupool_t **out);

/* Publishes p as m's current pool (MANAGER-5): the next generation, stored
 * in p before p is published (release), then m->generation and
 * m->current_threads (`threads`: p->threads, except in a fork child, where
 * it stays the size the manager will settle at); a pool not yet on
 * m->pools (`is_new`) is listed and counted as created; a publish that
 * replaces a pool counts as a reset. The caller keeps the old pool's
 * reference (reset.c retires it, fork.c drops it). Call with m->lock held
 * and m->writer held (or, in the fork child handler, as the only thread).
 * Returns the new generation. */
uint64_t rcupl_manager_publish_locked(rcupool_t *m, struct rcupl_pool *p,
                                      bool is_new, size_t threads);

/* rcupl_pool_create() (pool.h) for m: a pool that cannot start its
 * threads (-EAGAIN) is counted in m's start_failures (MANAGER-6). Any
 * thread that may create a pool of m. */
static inline int rcupl_manager_pool_create(rcupool_t *m, size_t threads,
                                            const rcupool_placement_t *pl,
                                            const char *call,
                                            struct rcupl_pool **out) {
  int err = rcupl_pool_create(m, threads, pl, call, out);
  if (err == -EAGAIN)
    __atomic_fetch_add(&m->start_failures, 1, __ATOMIC_RELAXED);
  return err;
}

#endif /* RCUPOOL_LIB_MANAGER_INTERNAL_H */
