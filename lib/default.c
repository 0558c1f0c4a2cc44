/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process-wide manager. Its default size comes from cpus.c; its life
 * across fork() is lib/fork.c's.
 *
 * Invariants kept here:
 *   DEFAULT-1. At most one default manager exists per process: it is created
 *       under default_lock and published once; it is never destroyed.
 *   DEFAULT-2. A failed first creation leaves no manager and no threads
 *       behind; a later call tries again. A lack of threads is not such a
 *       failure: the manager comes up on a 1-thread pool (MANAGER-6), so
 *       rcupool_default() returns NULL only when memory runs out.
 *   DEFAULT-3. The fork handlers are registered with this file's part of them
 *       (rcupl_fork_register, fork.h; once per copy of the library, at load)
 *       before the first manager is created, and the
 *       prepare handler takes default_lock first: a fork never catches the
 *       first creation half-way, the child never inherits default_lock held by
 *       another thread, and the manager pointer cannot change between prepare
 *       and the parent/child handler.
 *   DEFAULT-4. What the first creation logs reaches the hook after
 *       default_lock is released (log.c, LOG-1).
 *   DEFAULT-5. rcupool_finalize() joins the default manager's threads
 *       without destroying it: a reset to 1 thread (no worker), a trim, and
 *       the reclaim thread's stop (RECLAIM-9); with a pin held it changes
 *       nothing (-EBUSY). A pointer to the manager stays valid.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "barrier.h"
#include "cpus.h"
#include "env.h"
#include "fault.h"
#include "fork.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_internal.h"
#include "plural.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "urcu_flavor.h"

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static rcupool_t *default_manager; /* published once with release */

static void rcupl_default_fork_prepare(void);
static void rcupl_default_fork_parent(void);
static void rcupl_default_fork_child(void);
static rcupool_t *rcupl_default_peek(void);

/* The default manager's part of the fork handlers (fork.h). */
static const struct rcupl_fork_default rcupl_default_fork_side = {
    .prepare = rcupl_default_fork_prepare,
    .parent = rcupl_default_fork_parent,
    .child = rcupl_default_fork_child,
    .peek = rcupl_default_peek,
};

/* --- the default manager ------------------------------------------------- */

rcupool_t *rcupool_default(void) {
  rcupool_t *m = __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
  if (__builtin_expect(m != NULL, 1)) return m;

  rcupl_fork_register(&rcupl_default_fork_side);
  rcupl_mutex_lock(&default_lock);
  m = default_manager;
  if (m == NULL) {
    rcupl_hold_point(RCUPL_HOLD_DEFAULT_LOCK);
    /* 0 (no valid RCUPOOL_NUM_THREADS): the manager computes its default
     * count (cpus.c) now and again at every rcupool_reset(m, 0). */
    rcupl_env_apply_log_level(); /* first: what follows may log at info */
    size_t threads = rcupl_cpus_env_thread_count();
    rcupool_options_t opts = {.threads = threads};
    rcupl_env_placement(&opts.placement); /* ignored unless usable */
    rcupl_env_follow(&opts.follow);
    rcupl_env_default_options(&opts); /* RCUPOOL_IDLE, RCUPOOL_WARM_* */
    int err = rcupl_manager_create_default(&opts, &m); /* MANAGER-6 */
    if (err != 0) {
      m = NULL;
      rcupl_log(RCUPOOL_LOG_ERROR, "default: cannot create the manager (%d)",
                err);
    } else {
      m->is_default = true;
      __atomic_store_n(&default_manager, m, __ATOMIC_RELEASE);
      size_t n = rcupool_threads(m);
      rcupl_log(RCUPOOL_LOG_DEBUG, "default: manager %p with %zu %s (%s)",
                (void *)m, n, rcupl_threads_noun(n), RCUPL_URCU_FLAVOR_NAME);
    }
  }
  rcupl_mutex_unlock(&default_lock);
  rcupl_log_deliver();
  return m;
}

int rcupool_finalize(void) {
  /* DEFAULT-5: never destroys the manager (DEFAULT-1); leaves it with a
   * 1-thread pool, which has no worker, and stops the reclaim thread. */
  if (rcupl_reclaim_would_wait_for_self()) {
    rcupl_log(RCUPOOL_LOG_ERROR,
              "finalize: called inside a read-side section, a task or on a "
              "pool's worker; it would wait for itself");
    rcupl_log_deliver();
    return -EDEADLK;
  }
  rcupool_t *m = rcupl_default_peek();
  if (m != NULL) {
    rcupool_stats_t s;
    int err = rcupool_get_stats(m, &s);
    if (err == 0 && s.pins != 0) {
      rcupl_log(RCUPOOL_LOG_WARN, "finalize: %zu %s held; nothing changed",
                s.pins, rcupl_plural(s.pins, "pin", "pins"));
      err = -EBUSY;
    }
    if (err == 0) err = rcupool_reset(m, 1);
    if (err == 0) err = rcupool_trim(m);
    if (err > 0) err = 0; /* the number of pools trim freed */
    if (err == 0 && rcupool_get_stats(m, &s) == 0 && s.pools_alive != 1) {
      rcupl_log(RCUPOOL_LOG_WARN,
                "finalize: %zu %s still alive (a pin taken meanwhile)",
                s.pools_alive, rcupl_plural(s.pools_alive, "pool", "pools"));
      err = -EBUSY;
    }
    if (err != 0) {
      rcupl_log_deliver();
      return err;
    }
  }
  rcupl_reclaim_stop();
  rcupl_log(RCUPOOL_LOG_DEBUG, "finalize: no thread of rcupool's is left");
  rcupl_log_deliver();
  return 0;
}

static rcupool_t *rcupl_default_peek(void) {
  return __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
}

static void rcupl_default_fork_prepare(void) {
  rcupl_mutex_lock(&default_lock);
}

static void rcupl_default_fork_parent(void) {
  rcupl_mutex_unlock(&default_lock);
}

static void rcupl_default_fork_child(void) {
  /* Taken by this very thread in prepare. */
  rcupl_mutex_unlock(&default_lock);
}

/* DEFAULT-3: the side is registered while the library loads, before any
 * thread can call rcupool_default(). */
__attribute__((constructor)) static void rcupl_default_register_fork(void) {
  rcupl_fork_register(&rcupl_default_fork_side);
}
