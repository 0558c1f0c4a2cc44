/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/idle.h: a manager's idle policy: what its
 * pools' workers do between jobs.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_IDLE_H
#define RCUPOOL_IDLE_H

#include <rcupool/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What a pool's worker threads do after a job until the next one comes (the
 * manager's idle policy). pthreadpool's workers spin (busy-wait) for a while
 * before they sleep, so a job that follows soon finds them awake, and the
 * CPU they spin on is lost to every other thread; yielding workers go to
 * sleep at once. benchmarks/README.md ("Idle workers") has both sides measured.
 */
typedef enum rcupool_idle {
  /* The library's choice: RCUPOOL_IDLE_YIELD. */
  RCUPOOL_IDLE_DEFAULT = 0,
  /* Spin after each job, then sleep: pthreadpool's own behaviour. */
  RCUPOOL_IDLE_SPIN = 1,
  /* Sleep right after each job: PTHREADPOOL_FLAG_YIELD_WORKERS on every
   * pthreadpool call rcupool makes, XNN_FLAG_YIELD_WORKERS on the runtimes
   * of its XNNPACK backend (which yield after their last operator only). */
  RCUPOOL_IDLE_YIELD = 2,
} rcupool_idle_t;

/* Environment variable read by rcupool_default() for its idle policy:
 * "spin" or "yield" (docs/environment.md). */
#define RCUPOOL_ENV_IDLE "RCUPOOL_IDLE"

/*
 * Sets m's idle policy (rcupool_idle_t); RCUPOOL_IDLE_DEFAULT restores the
 * library's. The default manager is created implicitly: this is how its
 * policy is chosen. The policy applies to every pthreadpool call that
 * starts after this returns: rcupool_parallelize_1d() on m (in a scope or
 * not, so also the ExecuTorch stand-in's run()) and the worker census of
 * m's new pools; and to the XNNPACK backend's runtimes created or refreshed
 * after it (XNNPACK fixes a runtime's flags at creation, so a runtime keeps
 * the policy it was made with). A pthreadpool_parallelize_*() the caller
 * makes directly on a pinned pool passes its own flags.
 * Returns: 0, or -EINVAL when m is NULL or idle is not a value of
 *   rcupool_idle_t (the policy is unchanged).
 * Threads: any.
 * Blocks: no (one atomic store).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API int rcupool_set_idle(rcupool_t *m, rcupool_idle_t idle);

/*
 * m's idle policy.
 * Returns: RCUPOOL_IDLE_SPIN or RCUPOOL_IDLE_YIELD (never DEFAULT, which
 *   stands for one of them); RCUPOOL_IDLE_DEFAULT if m is NULL.
 * Threads: any.
 * Blocks: no (one atomic load).
 * Lifetime: no pointers kept.
 */
RCUPOOL_API rcupool_idle_t rcupool_idle(rcupool_t *m);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_IDLE_H */
