/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/follow.h: a default count following the CPU
 * limits while the process runs.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_FOLLOW_H
#define RCUPOOL_FOLLOW_H

#include <rcupool/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Following the CPU limits. A manager whose count is the default (created
 * with threads 0, and never reset to a chosen count since, or reset to 0
 * again) follows the calling threads' affinity mask, the cgroup CPU quota
 * (v1 and v2, every level) and the CPUs online while the process runs: a
 * parallel call on it (rcupool_parallelize_1d() outside a scope) that
 * starts at least RCUPOOL_FOLLOW_PERIOD_MS after the last check looks at
 * them again, and when the default count changed resets the manager to
 * it, after its own work is done (an ordinary reset: loaded methods keep
 * their pool and see rcupool_pin_is_current() false). Nothing else looks:
 * no timer, no thread; the read side, pin and unpin never do.
 * rcupool_follow_now() checks at once. Each change is logged at info level
 * ("default size 2 -> 1: affinity mask 2 CPUs -> 1 CPU") and counted (stats:
 * follows). A count the application chose (rcupool_reset(m, n), n > 0, or
 * created with threads > 0, or RCUPOOL_NUM_THREADS) never changes.
 */
typedef enum rcupool_follow {
  /* The library's choice: on (RCUPOOL_FOLLOW=0 turns it off for the
   * default manager). */
  RCUPOOL_FOLLOW_DEFAULT = 0,
  RCUPOOL_FOLLOW_ON = 1,
  RCUPOOL_FOLLOW_OFF = 2,
} rcupool_follow_t;
#define RCUPOOL_FOLLOW_PERIOD_MS 1000u

/*
 * Checks the CPU limits now (see rcupool_follow_t) and, when m follows and
 * its default count changed, resets m to it. For a process that only pins
 * (a parallel call checks by itself), and for tests.
 * Returns: 1 when it reset m, 0 when nothing changed or m does not follow,
 *   -EINVAL when m is NULL, or a reset's error (logged; the current pool
 *   stays).
 * Threads: any thread that may call rcupool_reset().
 * Blocks: reads the mask and a few small files; when the count changed, as
 *   rcupool_reset().
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_follow_now(rcupool_t *m);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_FOLLOW_H */
