/*
 * Reclamation: grace-period callbacks, frees handed over by unpins, and the
 * barrier. Everything here that frees runs on liburcu's call_rcu thread,
 * the library's one reclaim thread.
 *
 * Invariants kept here:
 *   C1. A retire callback runs after a grace period that began after the
 *       pool stopped being current (it is queued after the publish of its
 *       successor), so no reader of that time can still see the pool when
 *       the callback drops the retire reference.
 *   C2. The callback drops its reference under m->lock, so retires_pending
 *       and refs move together for rcupool_get_stats() and for destroy's pin
 *       count. If it drops the last reference it frees the pool; otherwise
 *       the pool is kept for its pins (logged at info level once its last
 *       retire callback has run and it is not current again).
 *   C3. A pool freed by an unpin's hand-over is already unreachable (not
 *       current, no retire pending, no pin) and cannot be reused (refs is
 *       zero): the callback only unlinks and frees it.
 *   C4. After its last access to m (the unlock of m->lock) a callback
 *       touches p only if its own put was the last (it then owns p);
 *       otherwise it touches nothing of p, which another holder may free
 *       at once. So rcupool_destroy() may free m as soon as the pool list
 *       is empty. (A reset may reuse p between the callback's put and its
 *       unlock; tests/model checks this interleaving.)
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

static __thread int in_callback;

bool rp_reclaim_in_callback(void) { return in_callback != 0; }

static void rp_free_unlinked(rcupool_t *m, struct rp_pool *p,
                             const char *why) {
  rp_log(RCUPOOL_LOG_DEBUG, "manager %p: free pool %p (%zu threads): %s",
         (void *)m, (void *)p, p->threads, why);
  rp_pool_free(p);
}

static void rp_retire_cb(struct rcu_head *head) {
  RP_TSAN_GP_ACQUIRE();
  in_callback++;
  struct rp_retire *rec = caa_container_of(head, struct rp_retire, head);
  struct rp_pool *p = rec->pool;
  rcupool_t *m = p->manager;
  free(rec);
  rp_pool_check(p, "retire callback");

  pthread_mutex_lock(&m->lock);
  p->retires_pending--;
  size_t pins = rp_pool_refs(p) - 1 - p->retires_pending -
                (p == m->current ? 1 : 0);
  bool last = rp_pool_put(p);
  /* During rcupool_destroy() current is NULL and nothing is kept. */
  bool kept = !last && m->current != NULL && p != m->current &&
              p->retires_pending == 0;
  /* Read under the lock: once it is dropped, the
   * last holder (an unpin's free, or rcupool_destroy()) may free p. */
  const size_t threads = p->threads;
  if (last) {
    cds_list_del(&p->node);
    m->pools_freed++;
  }
  pthread_mutex_unlock(&m->lock);

  if (last)
    rp_free_unlinked(m, p, "grace period over, no pins");
  else if (kept)
    rp_log(RCUPOOL_LOG_INFO, "manager %p: pool %p (%zu threads) kept: %zu pins",
           (void *)m, (void *)p, threads, pins);
  in_callback--;
}

void rp_reclaim_retire(struct rp_retire *rec) {
  RP_TSAN_GP_RELEASE();
  rp_rcu_reader_ready();
  rp_call_rcu(&rec->head, rp_retire_cb);
}

static void rp_free_cb(struct rcu_head *head) {
  RP_TSAN_GP_ACQUIRE();
  in_callback++;
  struct rp_pool *p = caa_container_of(head, struct rp_pool, free_head);
  rcupool_t *m = p->manager;
  pthread_mutex_lock(&m->lock);
  cds_list_del(&p->node);
  m->pools_freed++;
  pthread_mutex_unlock(&m->lock);
  rp_free_unlinked(m, p, "last pin released");
  in_callback--;
}

void rp_reclaim_free_later(struct rp_pool *p) {
  RP_TSAN_GP_RELEASE();
  rp_rcu_reader_ready();
  rp_call_rcu(&p->free_head, rp_free_cb);
}

static bool rp_has_dying_pool(rcupool_t *m) {
  bool dying = false;
  pthread_mutex_lock(&m->lock);
  struct rp_pool *p;
  rp_for_each_pool(p, m) {
    if (rp_pool_refs(p) == 0) {
      dying = true;
      break;
    }
  }
  pthread_mutex_unlock(&m->lock);
  return dying;
}

void rp_reclaim_drain(rcupool_t *m) {
  /* Callbacks queued before this call run within the first barrier. A pool
   * at refs zero whose hand-over is still in flight on another thread is
   * queued shortly: wait for it too. */
  rp_rcu_reader_ready();
  do {
    rp_rcu_barrier();
  } while (rp_has_dying_pool(m));
}

int rcupool_barrier(rcupool_t *m) {
  if (m == NULL) return -EINVAL;
  if (rp_read_ongoing() || rp_in_task() || rp_reclaim_in_callback()) {
    rp_log(RCUPOOL_LOG_ERROR,
           "barrier: called inside a read-side section, a task or a "
           "callback; it would wait for itself");
    return -EDEADLK;
  }
  rp_reclaim_drain(m);
  return 0;
}
