/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/worker.c's API, task depth and the workers of rcupool's pools.
 */
#ifndef RCUPOOL_LIB_WORKER_H
#define RCUPOOL_LIB_WORKER_H

#include <stdbool.h>
#include <stddef.h>

#include <pthreadpool.h>

struct rcupl_pool;
struct rcupl_cpuset;

/* True on a thread that is running a task dispatched by rcupool, or that is
 * a worker thread of any rcupool pool (whoever dispatched its task). */
bool rcupl_in_task(void);

/* task(ctx, i) for every i in [begin, end), on the calling thread, which
 * is in a task meanwhile (WORKER-1). */
void rcupl_task_run(pthreadpool_task_1d_t task, void *ctx, size_t begin,
                    size_t end);

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

/* The reclaim thread marks itself once, as it starts (lib/reclaim.c); true
 * on that thread only (WORKER-3). */
void rcupl_worker_mark_reclaim_thread(void);

/* A thread of an executor's set (lib/exec_set.c) marks itself as it
 * starts: it is a worker of every view that borrows it (WORKER-1). */
void rcupl_worker_mark_set_thread(void);
bool rcupl_worker_on_reclaim_thread(void);

#endif /* RCUPOOL_LIB_WORKER_H */
