/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/warm.h: warm widths: the pools a manager keeps
 * off current for the next pin, scope or reset of their width, and trim.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_WARM_H
#define RCUPOOL_WARM_H

#include <stdint.h>

#include <rcupool/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RCUPOOL_WARM_MS_DEFAULT 1000u
#define RCUPOOL_WARM_POOLS_DEFAULT 8u
#define RCUPOOL_WARM_NONE UINT32_MAX
/* The longest warm_ms accepted: one hour. */
#define RCUPOOL_WARM_MS_MAX 3600000u
/* Environment variables read by rcupool_default() for its warm widths:
 * milliseconds in 1..RCUPOOL_WARM_MS_MAX, and a pool count (0: none)
 * (docs/environment.md). */
#define RCUPOOL_ENV_WARM_MS "RCUPOOL_WARM_MS"
#define RCUPOOL_ENV_WARM_POOLS "RCUPOOL_WARM_POOLS"

/*
 * Sets how long m keeps a warm pool (a pool that is not current and holds
 * no pin, kept for the next pin, scope or reset of its width) and how many
 * it keeps: warm_ms and warm_pools as in rcupool_options_t (0: the
 * default; warm_pools RCUPOOL_WARM_NONE: none). The default manager is
 * created implicitly: this is how its warm widths are chosen. Pools warm
 * now are judged by the new values at the next expiry pass (the reclaim
 * thread's, woken by this call, or a barrier's).
 * Returns: 0, or -EINVAL when m is NULL or warm_ms > RCUPOOL_WARM_MS_MAX
 *   (nothing is changed).
 * Threads: any.
 * Blocks: no (two atomic stores; wakes the reclaim thread, starting it if
 *   absent).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_set_warm(rcupool_t *m, uint32_t warm_ms,
                                 uint32_t warm_pools);

/*
 * Frees m's warm pools now, for a process that knows it goes quiet: waits
 * for the retires already queued (as rcupool_barrier()), releases every
 * pool that is not current and holds no pin, and waits until their threads
 * are joined. The current pool, a pool held by a pin and a pool a parallel
 * call is running on are never freed by it. With a pthreadpool that has
 * the executor API it also lets go of the threads kept for other
 * libraries' pools on rcupool_executor() (rcupool/executor.h): idle ones
 * are joined, and a live pool of theirs starts them again at its next
 * call; it never waits for a task.
 * Returns: the number of pools it released (0 or more): every pool of m
 *   freed while it ran, a retired pool its first wait lets go included
 *   (under warm_pools RCUPOOL_WARM_NONE that wait frees it), or -EINVAL (m
 *   NULL), -EDEADLK or -EAGAIN as rcupool_barrier().
 * Threads: as rcupool_barrier().
 * Blocks: yes, as rcupool_barrier(), twice.
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_trim(rcupool_t *m);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_WARM_H */
