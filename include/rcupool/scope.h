/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/scope.h: scopes and parallel work.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_SCOPE_H
#define RCUPOOL_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>

#include <rcupool/common.h>
#include <rcupool/manager.h>
#include <rcupool/pin.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Makes this thread run the parallel work of pin's manager on pin's pool
 * until the matching rcupool_scope_exit(). Nestable (innermost wins) up to
 * RCUPOOL_SCOPE_MAX_DEPTH; per thread; a scope of one manager does not
 * affect calls on another manager. The pin must stay pinned until the scope
 * is left. A NULL or empty pin, or exceeding the depth, is a programming
 * error: "rcupool: FILE:LINE: reason" is written to stderr (no log hook
 * runs) and the process aborts.
 * Returns: nothing.
 * Threads: any; the scope belongs to the calling thread.
 * Blocks: no (a thread-local push).
 * Lifetime: the address pin is kept until the matching
 *   rcupool_scope_exit(): *pin must stay pinned, and not move, until then.
 */
#define RCUPOOL_SCOPE_MAX_DEPTH 16
RCUPOOL_API void rcupool_scope_enter(const rcupool_pin_t *pin);

/*
 * Leaves the innermost scope of this thread. Leaving with no scope entered
 * is logged at warning level and ignored.
 * Returns: nothing.
 * Threads: the thread that entered the scope.
 * Blocks: no (a thread-local pop).
 * Lifetime: the scope's pin may be unpinned or moved once this returns.
 */
RCUPOOL_API void rcupool_scope_exit(void);

/*
 * Runs task(ctx, i) for every i in [0, range), in parallel, and returns when
 * all are done. Equivalent to:  for (i = 0; i < range; i++) task(ctx, i);
 *
 * The pool is the innermost scope's pool if this thread is in a scope of m,
 * else m's current pool. Either way the call takes its own reference on that
 * pool before the first task starts and drops it after the last one ended
 * (it never counts as a pin in rcupool_get_stats()), and holds no read-side
 * section while tasks run: a task may unpin the pin of the scope it was
 * dispatched from, and may fork() (the child should exec or _exit: the
 * pool's other threads do not exist there). Called from inside a task
 * (nested parallelism), the loop runs inline on the calling thread, where
 * "inside a task" is: inside a task of rcupool_parallelize_1d() (of any
 * manager, on any thread), or on a worker thread of an rcupool pool
 * (whatever it runs). Not detected: a task running on the very thread that
 * called pthreadpool_parallelize_*() directly on a pool; calling this on
 * the same pool from there deadlocks in pthreadpool (docs/misuse.md).
 * flags are pthreadpool's PTHREADPOOL_FLAG_*; under m's idle policy
 * RCUPOOL_IDLE_YIELD, PTHREADPOOL_FLAG_YIELD_WORKERS is added to them.
 *
 * Returns: 0, or -EINVAL when m or task is NULL. When the pin of this
 *   thread's scope of m was unpinned before the scope was left, it does
 *   not return: "rcupool: FILE:LINE: reason" is written to stderr and the
 *   process aborts.
 * Threads: any.
 * Blocks: until the tasks are done. Outside a scope, the first call in a
 *   fork child settles the default manager as rcupool_pin() says.
 * Lifetime: task and ctx are used until it returns; no pointers kept.
 */
RCUPOOL_API int rcupool_parallelize_1d(rcupool_t *m, pthreadpool_task_1d_t task,
                                       void *ctx, size_t range, uint32_t flags);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_SCOPE_H */
