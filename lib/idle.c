/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The idle policy: whether a pool's workers spin or sleep after a job.
 *
 * Invariants kept here:
 *   IDLE-1. m->idle_flags is RCUPL_IDLE_YIELD_FLAGS or 0, never
 *       anything else (with a pthreadpool that has the executor API the
 *       yield flags add PTHREADPOOL_FLAG_DONT_SPIN_WORKERS: a view's
 *       borrowed threads go back to their set at the end of each call,
 *       where they sleep after a short spin, lib/exec_set.c, EXEC_SET-3):
 *       the only writers are rcupl_manager_init() (manager.c) and
 *       rcupool_set_idle(), both with a value from rcupl_idle_flags().
 *   IDLE-2. Every pthreadpool call rcupool makes for m ORs
 *       rcupl_idle_flags_of(m), loaded once as the call starts, into its own
 *       flags (parallel.c: rcupool_parallelize_1d(); worker.c: the census);
 *       a policy never removes a flag the caller passed. The XNNPACK backend
 *       reads rcupool_idle() once per runtime it creates
 *       (lib/xnnpack/runtime.c).
 *   IDLE-3. The policy is a hint to pthreadpool, not a lifetime fact:
 *       relaxed loads and stores suffice, and a call that read the old
 *       policy just before a change may still use it.
 */
#include <errno.h>

#include "idle.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_state.h"
#include "rcupool/rcupool.h"

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS
#define RCUPL_IDLE_YIELD_FLAGS \
  (PTHREADPOOL_FLAG_YIELD_WORKERS | PTHREADPOOL_FLAG_DONT_SPIN_WORKERS)
#else
#define RCUPL_IDLE_YIELD_FLAGS PTHREADPOOL_FLAG_YIELD_WORKERS
#endif

/* The library's default: yield (benchmarks/README.md, "Idle workers", has why). */
#define RCUPL_IDLE_LIBRARY_DEFAULT RCUPOOL_IDLE_YIELD

bool rcupl_idle_flags(rcupool_idle_t idle, uint32_t *flags) {
  if (idle == RCUPOOL_IDLE_DEFAULT) idle = RCUPL_IDLE_LIBRARY_DEFAULT;
  switch (idle) {
    case RCUPOOL_IDLE_SPIN:
      *flags = 0;
      return true;
    case RCUPOOL_IDLE_YIELD:
      *flags = RCUPL_IDLE_YIELD_FLAGS;
      return true;
    default:
      return false;
  }
}

int rcupool_set_idle(rcupool_t *m, rcupool_idle_t idle) {
  if (m == NULL) return -EINVAL;
  uint32_t flags;
  if (!rcupl_idle_flags(idle, &flags)) {
    rcupl_log(RCUPOOL_LOG_ERROR, "set_idle: %d is not an idle policy",
              (int)idle);
    rcupl_log_deliver();
    return -EINVAL;
  }
  __atomic_store_n(&m->idle_flags, flags, __ATOMIC_RELAXED);
  rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: idle policy %s", (void *)m,
            flags != 0 ? "yield" : "spin");
  rcupl_log_deliver();
  return 0;
}

rcupool_idle_t rcupool_idle(rcupool_t *m) {
  if (m == NULL) return RCUPOOL_IDLE_DEFAULT;
  return rcupl_idle_flags_of(m) != 0 ? RCUPOOL_IDLE_YIELD : RCUPOOL_IDLE_SPIN;
}
