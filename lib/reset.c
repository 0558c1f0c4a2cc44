/*
 * The writer side: rcupool_reset() publishes a pool and retires the old one.
 *
 * Invariants kept here:
 *   W1. A reset never waits for readers or pins: the old pool's current
 *       reference becomes a retire reference, dropped by a grace-period
 *       callback (reclaim.c).
 *   W2. At most one pool per thread count is alive outside a grace period:
 *       a reset to n reuses a live pool of n threads if one exists (taking
 *       its new current reference with rp_pool_tryget(), never from zero),
 *       and creates a pool only otherwise. A pool whose refs already reached
 *       zero is dying; a new pool of its size may coexist with it until the
 *       reclaim thread frees it. A pool orphaned by fork() (no workers in
 *       this process) is never reused.
 *   W3. Every failure happens before anything is published: the retire
 *       record is allocated and the new pool started first, so an error
 *       leaves the current pool current and working.
 *   W4. generation grows by one per publish and is stored in the pool
 *       before the pool pointer is published (release), so a reader that
 *       sees the pool sees its generation.
 *   W5. A reuse takes its reference (rp_pool_tryget) and publishes in one
 *       hold of m->lock. A pool found this way may be one that
 *       rcupool_pin_sized() started and that was never current (generation
 *       0, refs = its pins): from that hold on it is current, with a
 *       generation, and rcupool_get_stats() never sees it half-moved (its
 *       extra reference counted as a pin, or current and never current).
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

/* Finds a live pool of `threads` threads other than the current one (a
 * retired one, or one started by rcupool_pin_sized()) and takes a reference
 * on it. Called with m->lock held. */
static struct rp_pool *rp_find_reusable_locked(rcupool_t *m, size_t threads) {
  struct rp_pool *p;
  rp_for_each_pool(p, m) {
    if (p != m->current && p->threads == threads && !p->fork_orphan &&
        rp_pool_tryget(p))
      return p;
  }
  return NULL;
}

int rcupool_reset(rcupool_t *m, size_t threads) {
  if (m == NULL) return -EINVAL;
  if (threads > RCUPOOL_MAX_THREADS) {
    rp_log(RCUPOOL_LOG_ERROR, "reset: %zu threads is above the maximum %d",
           threads, RCUPOOL_MAX_THREADS);
    return -EINVAL;
  }
  /* The default count: fixed at create, or the mask and quota of now
   * (read before the writer lock: it reads files). */
  if (threads == 0)
    threads = m->default_threads != 0 ? m->default_threads
                                      : rp_cpus_thread_count();
  pthread_mutex_lock(&m->writer);

  /* Only this function (under writer) changes m->current. */
  struct rp_pool *old = m->current;
  if (old->threads == threads && !old->fork_orphan) {
    if (__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE)) {
      /* A fork child's spare already has the size asked for: it is the
       * settled pool, and the count reported from now on is its own
       * (FORK-5; until now current_threads held the size to settle at). */
      pthread_mutex_lock(&m->lock);
      __atomic_store_n(&m->current_threads, threads, __ATOMIC_RELAXED);
      __atomic_store_n(&m->fork_stale, false, __ATOMIC_RELEASE);
      pthread_mutex_unlock(&m->lock);
    }
    pthread_mutex_unlock(&m->writer);
    return 0;
  }

  struct rp_retire *rec = NULL;
  if (!rp_fault(RP_FAULT_ALLOC)) rec = malloc(sizeof(*rec));
  if (rec == NULL) {
    pthread_mutex_unlock(&m->writer);
    rp_log(RCUPOOL_LOG_ERROR, "reset to %zu threads: out of memory", threads);
    return -ENOMEM;
  }

  /* A reuse is found and published within one hold of m->lock (W5), so the
   * pool's new current reference and its new state appear together. */
  pthread_mutex_lock(&m->lock);
  struct rp_pool *next = rp_find_reusable_locked(m, threads);
  bool reused = next != NULL;
  bool was_never_current = reused && next->generation == 0;
  if (reused) {
    m->reuses++;
  } else {
    pthread_mutex_unlock(&m->lock);
    /* Slow (threads start): no m->lock held, so stats, pins and the reclaim
     * thread carry on meanwhile. */
    int err = rp_pool_create(m, threads, &next);
    if (err != 0) {
      free(rec);
      pthread_mutex_unlock(&m->writer);
      rp_log(RCUPOOL_LOG_ERROR,
             "reset to %zu threads failed (%d); pool %p (%zu threads) stays "
             "current",
             threads, err, (void *)old, old->threads);
      return err;
    }
    pthread_mutex_lock(&m->lock);
    cds_list_add(&next->node, &m->pools);
    m->pools_created++;
  }
  uint64_t gen = m->generation + 1;
  __atomic_store_n(&next->generation, gen, __ATOMIC_RELAXED);
  __atomic_store_n(&m->current, next, __ATOMIC_RELEASE);
  __atomic_store_n(&m->generation, gen, __ATOMIC_RELAXED);
  __atomic_store_n(&m->current_threads, next->threads, __ATOMIC_RELAXED);
  m->resets++;
  old->retires_pending++;
  rec->pool = old;
  __atomic_store_n(&m->fork_stale, false, __ATOMIC_RELEASE);
  const size_t old_threads = old->threads, next_threads = next->threads;
  pthread_mutex_unlock(&m->lock);

  rp_reclaim_retire(rec);
  pthread_mutex_unlock(&m->writer);
  /* Logged with no lock held (LOG-3 in log.c); the pointers are only
   * printed. */
  rp_log(RCUPOOL_LOG_DEBUG, "manager %p: %s pool %p (%zu threads) gen %llu",
         (void *)m,
         was_never_current ? "reuse sized" : reused ? "reuse" : "publish",
         (void *)next, next_threads, (unsigned long long)gen);
  rp_log(RCUPOOL_LOG_DEBUG, "manager %p: retire pool %p (%zu threads)",
         (void *)m, (void *)old, old_threads);
  return 0;
}
