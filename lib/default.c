/*
 * The process-wide manager and its life across fork(). Its default size
 * comes from cpus.c.
 *
 * Invariants kept here:
 *   D1. At most one default manager exists per process: it is created under
 *       default_lock and published once; it is never destroyed.
 *   D2. A failed first creation leaves no manager and no threads behind; a
 *       later call tries again.
 *   D3. fork() is bracketed so that the child inherits the default manager
 *       in a consistent state: the prepare handler takes the manager's
 *       writer, then pauses liburcu's call_rcu thread (so no callback holds
 *       a manager lock), then takes the manager's lock; parent and child
 *       release them. The order writer -> liburcu's call_rcu mutex -> lock
 *       is the one reset and destroy use.
 *   D4. In the child every inherited pool is an orphan (its workers did not
 *       survive fork): it is never used for dispatch through the manager
 *       again and never joined; the child gets a fresh current pool of the
 *       same size before fork() returns.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static rcupool_t *default_manager; /* published once with release */

/* --- fork ----------------------------------------------------------------- */

static void rp_fork_prepare(void) {
  /* writer first: a reset holds it while call_rcu() may take liburcu's
   * call_rcu mutex (the first call_rcu of a process creates the reclaim
   * thread under it), and rp_call_rcu_before_fork() holds that mutex. */
  rcupool_t *m = __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
  if (m != NULL) pthread_mutex_lock(&m->writer);
  rp_rcu_reader_ready();
  rp_call_rcu_before_fork();
  rp_rcu_fork_prepare();
  if (m != NULL) pthread_mutex_lock(&m->lock);
}

static void rp_fork_parent(void) {
  rcupool_t *m = __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
  if (m != NULL) {
    pthread_mutex_unlock(&m->lock);
    pthread_mutex_unlock(&m->writer);
  }
  rp_rcu_fork_parent();
  rp_call_rcu_after_fork_parent();
}

static void rp_fork_child(void) {
  rp_rcu_fork_child();
  rp_call_rcu_after_fork_child();
  rcupool_t *m = __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
  if (m == NULL) return;
  int err = rp_manager_after_fork_child(m);
  pthread_mutex_unlock(&m->lock);
  pthread_mutex_unlock(&m->writer);
  if (err != 0)
    rp_log(RCUPOOL_LOG_ERROR,
           "fork child: cannot start a new pool (%d); parallel work of the "
           "default manager runs on the calling thread only",
           err);
}

/* Called in the child with m->writer and m->lock held and no other thread. */
int rp_manager_after_fork_child(rcupool_t *m) {
  struct rp_pool *p;
  rp_for_each_pool(p, m) p->fork_orphan = true;

  struct rp_pool *old = m->current;
  struct rp_pool *next;
  /* pthreadpool_create(1) starts no thread and cannot fail for lack of
   * them: it is the fallback that keeps the manager usable. */
  int err = rp_pool_create(m, old->threads, &next);
  if (err != 0 && rp_pool_create(m, 1, &next) != 0) return err;
  cds_list_add(&next->node, &m->pools);
  m->pools_created++;
  m->resets++;
  uint64_t gen = m->generation + 1;
  next->generation = gen;
  m->generation = gen;
  m->current_threads = next->threads;
  __atomic_store_n(&m->current, next, __ATOMIC_RELEASE);
  /* No reader of the parent's threads exists here: the old current
   * reference can go at once. */
  if (rp_pool_put(old)) {
    cds_list_del(&old->node);
    m->pools_freed++;
    rp_pool_free(old);
  }
  rp_log(RCUPOOL_LOG_DEBUG, "fork child: manager %p: publish pool %p gen %llu",
         (void *)m, (void *)next, (unsigned long long)gen);
  return err;
}

/* --- the default manager ------------------------------------------------- */

rcupool_t *rcupool_default(void) {
  rcupool_t *m = __atomic_load_n(&default_manager, __ATOMIC_ACQUIRE);
  if (__builtin_expect(m != NULL, 1)) return m;

  pthread_mutex_lock(&default_lock);
  m = default_manager;
  if (m == NULL) {
    static bool atfork_done;
    if (!atfork_done) {
      if (pthread_atfork(rp_fork_prepare, rp_fork_parent, rp_fork_child) !=
          0) {
        pthread_mutex_unlock(&default_lock);
        rp_log(RCUPOOL_LOG_ERROR, "default: pthread_atfork failed");
        return NULL;
      }
      atfork_done = true;
    }
    size_t threads = rp_cpus_env_thread_count();
    rcupool_options_t opts = {.threads = threads};
    int err = rcupool_create(&opts, &m);
    if (err != 0) {
      m = NULL;
      rp_log(RCUPOOL_LOG_ERROR, "default: cannot create the manager (%d)",
             err);
    } else {
      m->is_default = true;
      __atomic_store_n(&default_manager, m, __ATOMIC_RELEASE);
      rp_log(RCUPOOL_LOG_DEBUG, "default: manager %p with %zu threads (%s)",
             (void *)m, rcupool_threads(m), RP_URCU_FLAVOR_NAME);
    }
  }
  pthread_mutex_unlock(&default_lock);
  return m;
}
