/*
 * Reclamation: rcupool's own reclaim thread, the grace-period callbacks,
 * frees handed over by unpins, dispatches and destroy, and the barrier.
 *
 * One reclaim thread per copy of the library, started on the first need
 * (a queued item or a barrier), never in a constructor or a fork handler.
 * It takes the whole queue as a batch, runs one synchronize_rcu for it,
 * then runs the batch's callbacks. liburcu's call_rcu is not used, so none
 * of its process-global fork hooks and none of its batching delay apply.
 *
 * Invariants kept here:
 *   RECLAIM-1. A retire callback runs after a grace period that began
 *       after the pool stopped being current (it is queued after the
 *       publish of its successor, and a batch's synchronize_rcu starts
 *       after the batch was taken off the queue), so no reader of that time
 *       can still see the pool when the callback drops the retire
 *       reference.
 *   RECLAIM-2. The callback drops its reference under m->lock, so
 *       retires_pending and refs move together for rcupool_get_stats() and
 *       for destroy's pin count. If it drops the last reference it unlinks
 *       and stops the pool (its memory goes as RECLAIM-9 says); otherwise
 *       the pool is kept for its pins (logged at info level once its last
 *       retire callback has run and it is not current again).
 *   RECLAIM-3. A pool freed by a hand-over (unpin, dispatch, destroy) is
 *       not current, has no retire pending and no pin, and cannot be reused
 *       or pinned (refs is zero): the callback only unlinks and stops it.
 *   RECLAIM-4. After its last access to m (the unlock of m->lock) a
 *       callback touches p only if its own put was the last (it then owns
 *       p); otherwise it touches nothing of p, which another holder may
 *       free at once. So rcupool_destroy() may free m as soon as the pool
 *       list is empty and the queue is drained past its items. (A reset may
 *       reuse p between the callback's put and its unlock; tests/model
 *       checks this interleaving.)
 *   RECLAIM-5. Pools are freed on the reclaim thread only: every free is a
 *       queued item (README guarantee 5).
 *   RECLAIM-6. Tickets: `queued` counts items ever queued, `done` items
 *       whose callback returned, both under rq.mu. A barrier that saw
 *       queued = t returns once done >= t: every item queued before it has
 *       run.
 *   RECLAIM-7. phase (under rq.mu) is IDLE, GP (a batch is off the queue
 *       and its grace period has not ended: no callback of it has run) or
 *       CALLBACKS (the batch's callbacks run, then RECLAIM-9's grace period
 *       and frees). The thread moves GP -> CALLBACKS -> IDLE only under
 *       rq.mu, so a fork, whose prepare holds rq.mu, sees it frozen: the
 *       child queues a GP batch again. Prepare waits a CALLBACKS batch
 *       out before liburcu-bp's fork hook is taken (a callback may join
 *       worker threads whose exit needs liburcu-bp's registry lock); if
 *       that hook was already taken by someone else, it cannot wait, and
 *       the child queues again the items not yet started (rest) and the
 *       started one unless its callback committed its change (under its
 *       manager's lock, which prepare holds for the default manager), and
 *       queues the frees of the pools the batch stopped (RECLAIM-9) as
 *       items of their own.
 *   RECLAIM-8. A call that waits for the reclaim thread (barrier, destroy)
 *       first asks rp_reclaim_would_wait_for_self(), the one test of "it
 *       would wait for itself": inside a read-side section, inside a task
 *       or on a pool worker, or on the reclaim thread. There it returns
 *       -EDEADLK without waiting.
 *   RECLAIM-9. A pool's memory outlives its unlink from m->pools by a
 *       grace period: a sized pin walks that list inside a read-side
 *       section without m->lock (pin.c, SIZED-1) and may stand on the node
 *       as it is unlinked. The callback that unlinks a pool stops it (its
 *       threads are joined at once) and puts it on `unlinked`; once the
 *       batch's callbacks have run, the thread waits one more grace period,
 *       which began after every unlink of the batch, and frees that memory,
 *       all before the batch counts as done (so a barrier still returns
 *       only after the frees, RECLAIM-6). Only batches that unlinked a pool
 *       pay for it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "internal.h"

enum { RP_IDLE = 0, RP_GP = 1, RP_CALLBACKS = 2 };

static struct {
  pthread_mutex_t mu;
  pthread_cond_t wake;  /* the thread waits for work */
  pthread_cond_t done_cv; /* barriers and fork prepare wait for progress */
  struct rp_work *head;
  struct rp_work **tail;
  struct rp_work *batch; /* in flight (phase GP or CALLBACKS) */
  uint64_t queued;
  uint64_t done;
  uint64_t batch_count;
  /* Phase CALLBACKS: the items not yet started, and how many. Written by
   * the thread before it starts each item; read only by a fork child. */
  struct rp_work *rest;
  uint64_t rest_count;
  /* The item started last, and whether its callback already committed its
   * change under its manager's lock (a fork child re-runs it if not). */
  struct rp_work *started;
  bool committed;
  /* RECLAIM-9: pools this batch unlinked and stopped, whose memory waits
   * for one more grace period; linked through free_work.next. Written by
   * the thread only, with atomic stores, so a fork child finds a whole
   * list. */
  struct rp_work *unlinked;
  int phase;
  bool running;
} rq = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
        PTHREAD_COND_INITIALIZER, NULL, NULL, NULL, 0, 0, 0, NULL, 0, NULL, false,
        NULL, RP_IDLE, false};

/* Called by a callback under its manager's lock, with its state change. */
static void rp_reclaim_commit(void) {
  __atomic_store_n(&rq.committed, true, __ATOMIC_RELEASE);
}

static __thread int on_reclaim_thread;

bool rp_reclaim_would_wait_for_self(void) {
  return rp_read_ongoing() || rp_in_task() || on_reclaim_thread != 0;
}

/* RECLAIM-9: frees the memory of the pools on `unlinked`, each taken off
 * the list before it is freed (a fork child never finds a freed one). */
static void rp_reclaim_free_unlinked(void) {
  struct rp_work *w;
  while ((w = __atomic_load_n(&rq.unlinked, __ATOMIC_RELAXED)) != NULL) {
    __atomic_store_n(&rq.unlinked, w->next, __ATOMIC_RELAXED);
    rp_pool_free(caa_container_of(w, struct rp_pool, free_work));
  }
}

static void *rp_reclaim_main(void *unused) {
  (void)unused;
  on_reclaim_thread = 1;
  pthread_mutex_lock(&rq.mu);
  for (;;) {
    while (rq.head == NULL) pthread_cond_wait(&rq.wake, &rq.mu);
    struct rp_work *batch = rq.head;
    uint64_t n = 0;
    for (struct rp_work *w = batch; w != NULL; w = w->next) n++;
    rq.head = NULL;
    rq.tail = &rq.head;
    rq.batch = batch;
    rq.batch_count = n;
    rq.phase = RP_GP;
    pthread_mutex_unlock(&rq.mu);

    rp_synchronize_rcu();
    RP_TSAN_GP_ACQUIRE();

    pthread_mutex_lock(&rq.mu);
    rq.phase = RP_CALLBACKS;
    rq.batch = NULL;
    pthread_mutex_unlock(&rq.mu);
    uint64_t left = n;
    while (batch != NULL) {
      struct rp_work *w = batch;
      batch = w->next;
      left--;
      __atomic_store_n(&rq.rest_count, left, __ATOMIC_RELAXED);
      __atomic_store_n(&rq.committed, false, __ATOMIC_RELAXED);
      __atomic_store_n(&rq.started, w, __ATOMIC_RELAXED);
      __atomic_store_n(&rq.rest, batch, __ATOMIC_RELEASE);
      w->fn(w);
    }
    if (__atomic_load_n(&rq.unlinked, __ATOMIC_RELAXED) != NULL) {
      rp_synchronize_rcu(); /* RECLAIM-9 */
      RP_TSAN_GP_ACQUIRE();
      rp_reclaim_free_unlinked();
    }
    pthread_mutex_lock(&rq.mu);
    rq.done += n;
    rq.phase = RP_IDLE;
    pthread_cond_broadcast(&rq.done_cv);
  }
  return NULL;
}

/* Starts the thread if it is absent. Called with rq.mu held. Returns 0 or
 * the error of pthread_create (the queue then waits for the next try). */
static int rp_reclaim_start_locked(void) {
  if (rq.running) return 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  int err = pthread_create(&t, &attr, rp_reclaim_main, NULL);
  pthread_attr_destroy(&attr);
  if (err == 0) rq.running = true;
  return err;
}

static void rp_reclaim_push(struct rp_work *w, bool start) {
  RP_TSAN_GP_RELEASE();
  w->next = NULL;
  pthread_mutex_lock(&rq.mu);
  if (rq.tail == NULL) rq.tail = &rq.head;
  *rq.tail = w;
  rq.tail = &w->next;
  rq.queued++;
  int err = start ? rp_reclaim_start_locked() : 0;
  if (start) pthread_cond_signal(&rq.wake);
  pthread_mutex_unlock(&rq.mu);
  if (err != 0)
    rp_log(RCUPOOL_LOG_ERROR,
           "reclaim: cannot start the reclaim thread (%d); frees wait for "
           "the next try",
           err);
}

/* Stops a pool its callback has unlinked; its memory goes once the
 * batch's extra grace period is over (RECLAIM-9). Its free_work is idle:
 * never used (a retire's last put) or the item now running, whose next
 * the thread has already read. */
static void rp_free_unlinked(rcupool_t *m, struct rp_pool *p,
                             const char *why) {
  rp_log(RCUPOOL_LOG_DEBUG, "manager %p: free pool %p (%zu threads): %s",
         (void *)m, (void *)p, p->threads, why);
  rp_pool_stop(p);
  p->free_work.next = __atomic_load_n(&rq.unlinked, __ATOMIC_RELAXED);
  __atomic_store_n(&rq.unlinked, &p->free_work, __ATOMIC_RELAXED);
}

static void rp_retire_cb(struct rp_work *w) {
  RP_TSAN_GP_ACQUIRE();
  struct rp_retire *rec = caa_container_of(w, struct rp_retire, work);
  struct rp_pool *p = rec->pool;
  rcupool_t *m = p->manager;
  rp_pool_check(p, "retire callback");

  pthread_mutex_lock(&m->lock);
  rp_reclaim_commit();
  /* Counted while this callback's own reference is still pending. */
  size_t pins = rp_pool_pins_locked(p);
  p->retires_pending--;
  bool last = rp_pool_put(p);
  /* During rcupool_destroy() current is NULL and nothing is kept. */
  bool kept = !last && m->current != NULL && p != m->current &&
              p->retires_pending == 0 && pins > 0;
  /* Read under the lock: once it is dropped, the
   * last holder (an unpin's free, or rcupool_destroy()) may free p. */
  const size_t threads = p->threads;
  if (last) {
    rp_pools_del_locked(p);
    m->pools_freed++;
  }
  pthread_mutex_unlock(&m->lock);
  free(rec);

  if (last)
    rp_free_unlinked(m, p, "grace period over, no pins");
  else if (kept)
    rp_log(RCUPOOL_LOG_INFO, "manager %p: pool %p (%zu threads) kept: %zu pins",
           (void *)m, (void *)p, threads, pins);
}

void rp_reclaim_retire(struct rp_retire *rec) {
  rec->work.fn = rp_retire_cb;
  rp_reclaim_push(&rec->work, true);
}

static void rp_free_cb(struct rp_work *w) {
  RP_TSAN_GP_ACQUIRE();
  struct rp_pool *p = caa_container_of(w, struct rp_pool, free_work);
  rcupool_t *m = p->manager;
  pthread_mutex_lock(&m->lock);
  rp_reclaim_commit();
  rp_pools_del_locked(p);
  m->pools_freed++;
  pthread_mutex_unlock(&m->lock);
  rp_free_unlinked(m, p, "last pin released");
}

/* A fork child's queue item for the memory of a pool unlinked and stopped
 * in the parent (RECLAIM-9, rp_reclaim_fork_child). */
static void rp_free_memory_cb(struct rp_work *w) {
  RP_TSAN_GP_ACQUIRE();
  rp_pool_free(caa_container_of(w, struct rp_pool, free_work));
}

void rp_reclaim_free_later(struct rp_pool *p) {
  p->free_work.fn = rp_free_cb;
  rp_reclaim_push(&p->free_work, true);
}

void rp_reclaim_free_later_quiet(struct rp_pool *p) {
  p->free_work.fn = rp_free_cb;
  rp_reclaim_push(&p->free_work, false);
}

void rp_reclaim_fork_child_adopt(struct rp_pool *p) {
  /* Child handler, after rp_reclaim_fork_child: the queue holds all that
   * is left to run. A pool at refs zero whose free is not queued lost its
   * hand-over to a thread that does not exist here. */
  for (struct rp_work *w = rq.head; w != NULL; w = w->next)
    if (w == &p->free_work) return;
  rp_reclaim_free_later_quiet(p);
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

/* Waits until every item queued before the call has run (RECLAIM-6). */
static void rp_reclaim_wait_queued(void) {
  pthread_mutex_lock(&rq.mu);
  uint64_t ticket = rq.queued;
  if (rq.done < ticket) {
    int err = rp_reclaim_start_locked();
    if (err != 0) {
      pthread_mutex_unlock(&rq.mu);
      rp_log(RCUPOOL_LOG_ERROR,
             "barrier: cannot start the reclaim thread (%d); retrying", err);
      pthread_mutex_lock(&rq.mu);
    }
    pthread_cond_signal(&rq.wake);
  }
  while (rq.done < ticket) {
    if (!rq.running && rp_reclaim_start_locked() == 0)
      pthread_cond_signal(&rq.wake);
    if (rq.running) {
      pthread_cond_wait(&rq.done_cv, &rq.mu);
    } else {
      pthread_mutex_unlock(&rq.mu);
      sched_yield();
      pthread_mutex_lock(&rq.mu);
    }
  }
  pthread_mutex_unlock(&rq.mu);
}

void rp_reclaim_drain(rcupool_t *m) {
  /* Items queued before this call run within the first wait. A pool at
   * refs zero whose hand-over is still in flight on another thread is
   * queued shortly: wait for it too. */
  do {
    rp_reclaim_wait_queued();
  } while (m != NULL && rp_has_dying_pool(m));
}

int rcupool_barrier(rcupool_t *m) {
  if (m == NULL) return -EINVAL;
  if (rp_reclaim_would_wait_for_self()) {
    rp_log(RCUPOOL_LOG_ERROR,
           "barrier: called inside a read-side section, a task or on the "
           "reclaim thread; it would wait for itself");
    return -EDEADLK;
  }
  rp_reclaim_drain(m);
  return 0;
}

/* --- fork (called by lib/fork.c's handlers only) ------------------------- */

void rp_reclaim_fork_wait(bool wait_gp) {
  pthread_mutex_lock(&rq.mu);
  while (rq.phase == RP_CALLBACKS || (wait_gp && rq.phase != RP_IDLE))
    pthread_cond_wait(&rq.done_cv, &rq.mu);
  pthread_mutex_unlock(&rq.mu);
}

void rp_reclaim_fork_prepare(void) { pthread_mutex_lock(&rq.mu); }

void rp_reclaim_fork_parent(void) { pthread_mutex_unlock(&rq.mu); }

/* Child handler: puts the chain `first` (linked by next, non-empty) in
 * front of the queue. */
static void rp_reclaim_requeue_first(struct rp_work *first) {
  struct rp_work *last = first;
  while (last->next != NULL) last = last->next;
  last->next = rq.head;
  if (rq.head == NULL) rq.tail = &last->next;
  rq.head = first;
}

void rp_reclaim_fork_child(void) {
  /* The thread and every waiter are gone; rq.mu was taken by this thread
   * in prepare and is released at the end. */
  pthread_cond_init(&rq.wake, NULL);
  pthread_cond_init(&rq.done_cv, NULL);
  rq.running = false;
  if (rq.phase == RP_GP && rq.batch != NULL) {
    /* Its grace period never ended in the parent's view of this child:
     * run it again, first (its items were counted in `queued` already). */
    rp_reclaim_requeue_first(rq.batch);
  }
  if (rq.phase == RP_CALLBACKS) {
    /* The thread was running this batch (prepare could not wait for it:
     * liburcu-bp's locks were already held, FORK-3). The item it had
     * started counts as done (its pool, if it was freeing one, stays
     * allocated in the child); the items not started run again. */
    struct rp_work *rest = rq.rest;
    uint64_t rest_count = rq.rest_count;
    if (!rq.committed && rq.started != NULL) {
      /* Started but not committed (prepare holds the default manager's
       * lock, so it cannot be half-way through its locked part): run it
       * again. */
      rq.started->next = rest;
      rest = rq.started;
      rest_count++;
    }
    rq.done += rq.batch_count - rest_count;
    if (rest != NULL) rp_reclaim_requeue_first(rest);
  }
  /* Pools the batch stopped whose memory was waiting for its extra grace
   * period: queued first, as items of their own. */
  if (rq.unlinked != NULL) {
    for (struct rp_work *w = rq.unlinked; w != NULL; w = w->next) {
      w->fn = rp_free_memory_cb;
      rq.queued++;
    }
    rp_reclaim_requeue_first(rq.unlinked);
    rq.unlinked = NULL;
  }
  rq.batch = NULL;
  rq.rest = NULL;
  rq.started = NULL;
  rq.phase = RP_IDLE;
  pthread_mutex_unlock(&rq.mu);
}
