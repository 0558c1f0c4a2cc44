/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/worker.c's API, the census of a new pool's workers.
 */
#ifndef RCUPOOL_LIB_WORKER_H
#define RCUPOOL_LIB_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

struct rcupl_cpuset;

/* Records the worker threads of tp, a new pool of `threads` threads, as
 * workers of an rcupool pool, names them, and binds them to `cpus` (NULL:
 * not placed; strict: one CPU each) with `bind` (lib/placement.c's, given
 * by pool.c, so that this file does not reach up into placement and its
 * log); `flags`: the manager's idle flags (IDLE-2). Returns the number of
 * workers not seen bound (the pool's bind_failures, PLACE-3; 0 when not
 * placed). Called once by rcupl_pool_create on a new pool, on the
 * creating thread. */
typedef bool (*rcupl_worker_bind_fn)(const struct rcupl_cpuset *cpus,
                                     bool strict, size_t k);
size_t rcupl_worker_census(pthreadpool_t tp, size_t threads, uint32_t flags,
                           const struct rcupl_cpuset *cpus, bool strict,
                           rcupl_worker_bind_fn bind);

#endif /* RCUPOOL_LIB_WORKER_H */
