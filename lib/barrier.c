/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The barrier: rcupool_barrier() waits for the reclaim thread
 * (lib/reclaim.c) to run what was queued before it and to free the pools
 * already decided; rcupool_trim() is a barrier that lets every warm pool
 * go (lib/warm.c's pass) and waits for their frees; rcupool_destroy()
 * drains the same way (rcupl_reclaim_drain()).
 *
 * Invariants kept here (the reclaim thread's others are lib/reclaim.c's
 * and lib/reclaim_fork.c's):
 *   BARRIER-1. A call that waits for the reclaim thread (barrier, destroy)
 *       first asks rcupl_reclaim_would_wait_for_self(), the one test of "it
 *       would wait for itself": inside a read-side section, inside a task
 *       or on a pool worker, or on the reclaim thread. There it returns
 *       -EDEADLK without waiting.
 *   BARRIER-2. rcupool_trim() returns the pools m freed between its start
 *       and its end (pools_freed, read under m->lock before its first wait
 *       and after its last): those its waits let go as well as those its
 *       own pass released, whichever pass (its waits', the reclaim
 *       thread's, its own) came first. A free that another thread caused
 *       meanwhile, and that its waits waited for, counts too.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "barrier.h"
#include "context.h"
#include "executor.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_state.h"
#include "plural.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "read_internal.h"
#include "reclaim.h"
#include "registry.h"
#include "warm.h"

bool rcupl_reclaim_would_wait_for_self(void) {
  return rcupl_read_ongoing() || rcupl_in_task() || rcupl_on_reclaim_thread();
}

static bool rcupl_has_dying_pool(rcupool_t *m) {
  bool dying = false;
  rcupl_mutex_lock(&m->lock);
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    if (rcupl_pool_refs(p) == 0) {
      dying = true;
      break;
    }
  }
  rcupl_mutex_unlock(&m->lock);
  return dying;
}

int rcupl_reclaim_drain(rcupool_t *m) {
  /* Items queued before this call run within the first wait. A pool at
   * refs zero whose hand-over is still in flight on another thread is
   * queued shortly: wait for it too. The look comes before the wait: a
   * pool seen dying then may be queued after that wait's ticket, and its
   * callback may unlink it before a look after the wait, which would then
   * miss a free still running (tests/model, STRICT_TRIM); the next round's
   * wait covers it. */
  int err;
  bool dying;
  do {
    dying = m != NULL && rcupl_has_dying_pool(m);
    err = rcupl_reclaim_wait_queued();
  } while (err == 0 && dying);
  return err;
}

/* rcupool_barrier() without its argument check and its delivery: the
 * drain, m's warm pass, the drain again (WARM-4). */
static int rcupl_barrier(rcupool_t *m) {
  int err = 0;
  if (rcupl_reclaim_would_wait_for_self()) {
    rcupl_log(RCUPOOL_LOG_ERROR,
              "barrier: called inside a read-side section, a task or on the "
              "reclaim thread; it would wait for itself");
    err = -EDEADLK;
  } else if ((err = rcupl_reclaim_drain(m)) != 0 ||
             (rcupl_warm_pass(m, false), (err = rcupl_reclaim_drain(m)) != 0)) {
    /* WARM-4: the pass frees what m no longer keeps warm; the second
     * drain also covers pools the reclaim thread's own pass released
     * (dying, not yet queued: rcupl_reclaim_drain waits for those too). */
    rcupl_log(RCUPOOL_LOG_ERROR,
              "barrier: cannot start the reclaim thread; frees wait (%d)", err);
  }
  return err;
}

int rcupool_barrier(rcupool_t *m) {
  if (m == NULL) return -EINVAL;
  int err = rcupl_barrier(m);
  rcupl_log_deliver();
  return err;
}

static uint64_t rcupl_pools_freed(rcupool_t *m) {
  rcupl_mutex_lock(&m->lock);
  const uint64_t n = m->pools_freed;
  rcupl_mutex_unlock(&m->lock);
  return n;
}

int rcupool_trim(rcupool_t *m) {
  if (m == NULL) return -EINVAL;
  /* BARRIER-2: what it released is what m freed while it ran, its waits'
   * frees included (a pool its first wait turns warm may go by that
   * wait's pass, or the reclaim thread's, before its own pass looks). */
  const uint64_t freed = rcupl_pools_freed(m);
  /* Retires queued before the call end first, so a pool retired just now
   * is warm by the pass; then the released pools' frees are waited for. */
  int err = rcupl_barrier(m);
  rcupl_log_deliver();
  if (err != 0) return err;
  rcupl_warm_pass(m, true);
  err = rcupl_barrier(m);
  rcupl_log_deliver();
  if (err != 0) return err;
  rcupl_executor_let_go(m); /* EXEC_SET-7: after the views' destroys */
  const uint64_t n = rcupl_pools_freed(m) - freed;
  if (n != 0)
    rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: trim freed %llu %s", (void *)m,
              (unsigned long long)n, rcupl_plural(n, "pool", "pools"));
  rcupl_log_deliver();
  return n > INT_MAX ? INT_MAX : (int)n;
}
