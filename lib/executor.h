/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/executor.c's API, the manager's sets of threads that
 * pthreadpool_create_v2() pools (views) borrow.
 */
#ifndef RCUPOOL_LIB_EXECUTOR_H
#define RCUPOOL_LIB_EXECUTOR_H

#include <pthreadpool.h>
#include <stddef.h>

#include "cpuset.h"
#include "rcupool/rcupool.h"

/* Makes *tp, a view of `threads` (> 1) threads over m's set for pl (bound
 * to cpus, or NULL: not bound), growing the set first (EXECUTOR-2), and
 * sets *bind_failures to the set's threads it borrows whose binding did
 * not hold, and *view to its context (for rcupl_executor_view_destroy()).
 * 0, -ENOMEM, -EAGAIN (a thread could not start), or -ENOTSUP with a
 * pthreadpool without the executor API. Call without manager locks. */
int rcupl_executor_view(rcupool_t *m, size_t threads,
                        const rcupool_placement_t *pl,
                        const struct rcupl_cpuset *cpus, pthreadpool_t *tp,
                        size_t *bind_failures, void **view);

/* Destroys tp, the view of `threads` threads whose context is `view`,
 * without waiting for a thread of its set to come free (EXECUTOR-3), and
 * lets the set trim. On the reclaim thread (pool.c's stop), once no call
 * of the view can run. */
void rcupl_executor_view_destroy(void *view, pthreadpool_t tp, size_t threads);

/* Lets go of what m's sets keep for other libraries' pools and trims them
 * to their widest views (rcupool_trim(); EXEC_SET-7). Joins idle threads,
 * never waits for a task. */
void rcupl_executor_let_go(rcupool_t *m);

/* fork()'s prepare (after everything that may wait) and parent handlers:
 * sets_lock and every set's queue lock (EXEC_SET-8). */
void rcupl_executor_fork_prepare(void);
void rcupl_executor_fork_parent(void);

/* m's set for placement none, kept at `keep` threads at least from now
 * on and grown to them: what rcupool_executor() hands out. 0, -ENOMEM,
 * -EAGAIN, or -ENOTSUP without the executor API. */
struct pthreadpool_executor;
int rcupl_executor_none(rcupool_t *m, size_t keep,
                        struct pthreadpool_executor **executor, void **context);

/* In a fork child, from fork.c's child handler (FORK-4): every set is
 * emptied of the threads that stayed in the parent (EXECUTOR-1). */
void rcupl_executor_fork_child(void);

/* Joins and frees m's sets: rcupool_destroy() calls it once no pool of m
 * is left. */
void rcupl_executor_forget(rcupool_t *m);

#endif /* RCUPOOL_LIB_EXECUTOR_H */
