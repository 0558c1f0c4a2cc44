/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writer side: rcupool_reset() publishes a pool and retires the old
 * one; a fork child's default manager is settled here.
 *
 * Invariants kept here:
 *   RESET-1. A reset never waits for readers or pins: the old pool keeps
 *       the manager's reference (it turns warm, lib/warm.c) and gains a
 *       retire reference, dropped by a grace-period callback (reclaim.c).
 *   RESET-2. At most one pool per thread count is alive outside a grace
 *       period: a reset to n reuses a managed pool of n threads if one
 *       exists (warm, retiring, kept or started by a sized pin: the
 *       manager's reference becomes the current one, nothing is taken),
 *       and creates a pool only otherwise. A pool whose refs already
 *       reached zero is dying; a new pool of its size may coexist with it
 *       until the reclaim thread frees it. A pool orphaned by fork() (no
 *       workers in this process) is never reused.
 *   RESET-3. Every failure happens before anything is published: the
 *       retire record is allocated and the new pool started first, so an
 *       error leaves the current pool current and working.
 *   RESET-4. A reuse finds its pool and publishes it in one hold of
 *       m->lock. A pool found this way may be one that
 *       rcupool_pin_sized() started and that was never current (generation
 *       0, refs = its pins): from that hold on it is current, with a
 *       generation, and rcupool_get_stats() never sees it half-moved (its
 *       extra reference counted as a pin, or current and never current).
 *       The publish itself is manager.c's (MANAGER-5).
 *   RESET-5. m->fork_stale is cleared here only, under m->writer and
 *       m->lock, by rcupl_reset_settled_locked(): by every reset that leaves
 *       a pool current (a fork child's spare of the size asked for counts,
 *       and from then on reports its own size), and by a settle whose
 *       reset failed (FORK-5: the spare stays current until a reset
 *       succeeds). A settle finds the manager stale under m->writer, or
 *       does nothing: of racing first calls in a child, one settles.
 *   RESET-6. m->chosen (FOLLOW-1) is what the last reset that succeeded
 *       said: stored under m->writer on each success path, never on a
 *       failure, so a failed reset leaves the manager following as it
 *       did ("on error the current pool is unchanged", and so is the
 *       rest). A follow reset stores false (it runs only when not
 *       chosen), a settle the value it found.
 */
#include <errno.h>
#include <stdlib.h>

#include "fault.h"
#include "limits_internal.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_internal.h"
#include "placement.h"
#include "plural.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "reclaim_work.h"
#include "registry.h"
#include "reset.h"
#include "warm.h"

/* Finds a managed pool of `threads` threads and m's placement (PLACE-1)
 * other than the current one (a
 * warm or retired one, or one started by rcupool_pin_sized()). It takes no
 * reference: under m->lock a managed pool cannot reach zero (WARM-2), and
 * the manager's reference becomes the current one. Called with m->lock
 * held. */
static struct rcupl_pool *rcupl_find_reusable_locked(rcupool_t *m,
                                                     size_t threads) {
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    if (p != m->current && p->managed && p->threads == threads &&
        rcupl_placement_equal(&p->placement, &m->placement) && !p->fork_orphan)
      return p;
  }
  return NULL;
}

/* Clears m->fork_stale (RESET-5). Called with m->writer and m->lock held.
 * Returns whether the manager was stale. */
static bool rcupl_reset_settled_locked(rcupool_t *m) {
  return __atomic_exchange_n(&m->fork_stale, false, __ATOMIC_ACQ_REL);
}

/* A failed reset releases m->writer; a failed settle first clears
 * fork_stale (RESET-5). */
static void rcupl_reset_failed(rcupool_t *m, bool settling) {
  if (settling) {
    rcupl_mutex_lock(&m->lock);
    rcupl_reset_settled_locked(m);
    rcupl_mutex_unlock(&m->lock);
  }
  rcupl_mutex_unlock(&m->writer);
}

/* rcupool_reset() to `threads` (already resolved, non-zero), entered with
 * m->writer held, which it releases. settling: called to settle a stale
 * fork child (rcupl_reset_settle_fork). m->chosen becomes `chosen` when it
 * succeeds, under m->writer (RESET-6). */
int rcupl_reset_writer_held(rcupool_t *m, size_t threads, bool chosen,
                            bool settling) {
  /* m->current changes only under writer (MANAGER-5), so old stays. */
  struct rcupl_pool *old = m->current;
  if (old->threads == threads && !old->fork_orphan) {
    __atomic_store_n(&m->chosen, chosen, __ATOMIC_RELAXED); /* RESET-6 */
    /* Nothing to publish. A fork child's spare of the size asked for is
     * the settled pool, and reports its own size from now on (until now
     * current_threads held the size to settle at). */
    if (__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE)) {
      rcupl_mutex_lock(&m->lock);
      __atomic_store_n(&m->current_threads, threads, __ATOMIC_RELAXED);
      rcupl_reset_settled_locked(m);
      rcupl_mutex_unlock(&m->lock);
    }
    rcupl_mutex_unlock(&m->writer);
    return 0;
  }

  struct rcupl_retire *rec = NULL;
  if (!rcupl_fault(RCUPL_FAULT_ALLOC)) rec = malloc(sizeof(*rec));
  if (rec == NULL) {
    rcupl_reset_failed(m, settling);
    rcupl_log(RCUPOOL_LOG_ERROR, "reset to %zu %s: out of memory", threads,
              rcupl_threads_noun(threads));
    return -ENOMEM;
  }

  /* A reuse is found and published within one hold of m->lock (RESET-4),
   * so the pool's new current reference and its new state appear
   * together. */
  rcupl_mutex_lock(&m->lock);
  struct rcupl_pool *next = rcupl_find_reusable_locked(m, threads);
  bool reused = next != NULL;
  bool was_never_current = reused && next->generation == 0;
  if (reused) {
    m->reuses++;
  } else {
    rcupl_mutex_unlock(&m->lock);
    /* Slow (threads start): no m->lock held, so stats, pins and the reclaim
     * thread carry on meanwhile. */
    int err =
        rcupl_manager_pool_create(m, threads, &m->placement, "reset", &next);
    if (err != 0) {
      free(rec);
      rcupl_reset_failed(m, settling);
      rcupl_log(RCUPOOL_LOG_ERROR,
                "reset to %zu %s failed (%d); pool %p (%zu %s) stays current",
                threads, rcupl_threads_noun(threads), err, (void *)old,
                old->threads, rcupl_threads_noun(old->threads));
      return err;
    }
    rcupl_mutex_lock(&m->lock);
  }
  uint64_t gen = rcupl_manager_publish_locked(m, next, !reused, next->threads);
  /* The old pool stays managed (warm once its retire has run, WARM-1) and
   * gains a retire reference; it holds the manager's, so this is not from
   * zero. */
  __atomic_fetch_add(&old->refs, 1, __ATOMIC_RELAXED);
  old->retires_pending++;
  rec->pool = old;
  rcupl_reset_settled_locked(m);
  /* WARM-5: the retired pool joins those m holds off current. */
  struct rcupl_work *let_go = NULL;
  rcupl_warm_limit_locked(m, &let_go);
  const size_t old_threads = old->threads, next_threads = next->threads;
  rcupl_mutex_unlock(&m->lock);

  rcupl_hold_point(RCUPL_HOLD_RESET_RETIRE); /* tests: a fork here, FORK-7 */
  rcupl_reclaim_retire(rec);
  __atomic_store_n(&m->chosen, chosen, __ATOMIC_RELAXED); /* RESET-6 */
  rcupl_mutex_unlock(&m->writer);
  rcupl_warm_free(let_go);
  /* Logged after the locks are released; the pointers are only
   * printed. */
  rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: %s pool %p (%zu %s) gen %llu",
            (void *)m,
            was_never_current ? "reuse sized"
            : reused          ? "reuse"
                              : "publish",
            (void *)next, next_threads, rcupl_threads_noun(next_threads),
            (unsigned long long)gen);
  rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: retire pool %p (%zu %s)", (void *)m,
            (void *)old, old_threads, rcupl_threads_noun(old_threads));
  return 0;
}

static int rcupl_reset(rcupool_t *m, size_t threads) {
  if (m == NULL) return -EINVAL;
  if (rcupl_limits_check_threads("reset", threads) != 0) return -EINVAL;
  /* A count the application chose stops following (FOLLOW-1). */
  const bool chosen = threads != 0 || m->default_threads != 0;
  /* Read before the writer lock: it may read files. */
  if (threads == 0) threads = rcupl_manager_default_threads(m);
  rcupl_mutex_lock(&m->writer);
  return rcupl_reset_writer_held(m, threads, chosen, false);
}

int rcupool_reset(rcupool_t *m, size_t threads) {
  int err = rcupl_reset(m, threads);
  rcupl_log_deliver();
  return err;
}

void rcupl_reset_settle_fork(rcupool_t *m) {
  rcupl_mutex_lock(&m->writer);
  if (!__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE)) {
    rcupl_mutex_unlock(&m->writer); /* settled meanwhile */
    return;
  }
  /* While stale, current_threads holds the size to settle at (FORK-4). */
  size_t want = __atomic_load_n(&m->current_threads, __ATOMIC_RELAXED);
  int err = rcupl_reset_writer_held(
      m, want, __atomic_load_n(&m->chosen, __ATOMIC_RELAXED), true);
  if (err == 0)
    rcupl_log(RCUPOOL_LOG_DEBUG, "fork child: manager %p settled at %zu %s",
              (void *)m, want, rcupl_threads_noun(want));
  else /* the spare stays current (FORK-5); a later reset tries again */
    rcupl_log(RCUPOOL_LOG_ERROR,
              "fork child: cannot start a pool of %zu %s (%d); parallel "
              "work of manager %p runs on the calling thread until a reset "
              "succeeds",
              want, rcupl_threads_noun(want), err, (void *)m);
}
