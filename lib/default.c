/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process-wide manager. Its default size comes from cpus.c; its life
 * across fork() is lib/fork.c's.
 *
 * Invariants kept here:
 *   DEFAULT-1. At most one default manager exists per process: it is created
 *       under default_lock and published once; it is never destroyed.
 *   DEFAULT-2. A failed first creation leaves no manager and no threads
 *       behind; a later call tries again.
 *   DEFAULT-3. The fork handlers are registered with this file's part of them
 *       (rcupl_fork_register, fork.h; once per copy of the library, at load)
 *       before the first manager is created, and the
 *       prepare handler takes default_lock first: a fork never catches the
 *       first creation half-way, the child never inherits default_lock held by
 *       another thread, and the manager pointer cannot change between prepare
 *       and the parent/child handler.
 *   DEFAULT-4. What the first creation logs reaches the hook after
 *       default_lock is released (log.c, LOG-1).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"
#include "fork.h"
#include "lock.h"
#include "log_internal.h"
#include "manager_internal.h"
#include "rcupool/rcupool.h"
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
    /* 0 (no valid RCUPOOL_NUM_THREADS): the manager computes its default
     * count (cpus.c) now and again at every rcupool_reset(m, 0). */
    size_t threads = rcupl_cpus_env_thread_count();
    rcupool_options_t opts = {.threads = threads};
    int err = rcupool_create(&opts, &m);
    if (err != 0) {
      m = NULL;
      rcupl_log(RCUPOOL_LOG_ERROR, "default: cannot create the manager (%d)",
                err);
    } else {
      m->is_default = true;
      __atomic_store_n(&default_manager, m, __ATOMIC_RELEASE);
      rcupl_log(RCUPOOL_LOG_DEBUG, "default: manager %p with %zu threads (%s)",
                (void *)m, rcupool_threads(m), RCUPL_URCU_FLAVOR_NAME);
    }
  }
  rcupl_mutex_unlock(&default_lock);
  rcupl_log_deliver();
  return m;
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
