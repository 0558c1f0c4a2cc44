/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/barrier.h: the barrier: wait until every pool of
 * a manager that can be freed has been freed.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_BARRIER_H
#define RCUPOOL_BARRIER_H

#include <rcupool/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Waits until every pool of m that can be freed has been freed: every pool
 * that is not current, whose grace period has elapsed, that holds no pin
 * and that m does not keep warm (rcupool_set_warm(): a warm pool goes once
 * unused for warm_ms, beyond warm_pools, or at rcupool_trim()). Pools still
 * pinned stay alive. Meant for tests, shutdown and dlclose.
 *
 * Returns: 0, or -EINVAL (m NULL), or -EDEADLK where it would wait for
 *   itself: inside a read-side section, inside a task of
 *   rcupool_parallelize_1d() (of any manager), or on any worker thread of
 *   an rcupool pool (whatever it runs). Not detected, as for
 *   rcupool_destroy(): a task pthreadpool runs on the thread that called
 *   pthreadpool_parallelize_*() directly. -EAGAIN when the library's
 *   reclaim thread is not running and cannot be started (a thread limit):
 *   it returns at once (logged) instead of waiting; the frees wait for a
 *   later call.
 * Threads: any thread but those above.
 * Blocks: yes (until the reclaim thread has run every item queued before
 *   the call: a grace period, and for a batch that frees a pool a second
 *   one and the joins of its workers; while the thread runs, never a busy
 *   wait).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_barrier(rcupool_t *m);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_BARRIER_H */
