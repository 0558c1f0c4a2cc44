/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/worker.c's API, the census of a new pool's workers.
 */
#ifndef RCUPOOL_LIB_WORKER_H
#define RCUPOOL_LIB_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include <pthreadpool.h>

struct rcupl_pool;
struct rcupl_cpuset;

/* Records p's worker threads as workers of an rcupool pool, names them,
 * and binds them to `cpus` (NULL: not placed; strict: one CPU each) with
 * `bind` (lib/placement.c's, given by pool.c, so that this file does not
 * reach up into placement and its log) and sets p->bind_failures
 * (PLACE-3). Called once by rcupl_pool_create on a new pool, on the
 * creating thread. */
typedef bool (*rcupl_worker_bind_fn)(const struct rcupl_cpuset *cpus,
                                     bool strict, size_t k);
void rcupl_worker_census(struct rcupl_pool *p, const struct rcupl_cpuset *cpus,
                         bool strict, rcupl_worker_bind_fn bind);

#endif /* RCUPOOL_LIB_WORKER_H */
