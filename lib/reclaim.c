/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reclamation: rcupool's own reclaim thread, the grace-period callbacks,
 * and frees handed over by unpins, dispatches and destroy. The barrier that
 * waits for them is lib/barrier.c; the thread's part of fork() is
 * lib/reclaim_fork.c; the queue's state, which the three share, is
 * lib/reclaim_queue.h.
 *
 * One reclaim thread per copy of the library, started on the first need
 * (a queued item or a barrier), never in a constructor or a fork handler.
 * It takes the whole queue as a batch, runs one synchronize_rcu for it,
 * then runs the batch's callbacks, and, when a callback unlinked a pool, a
 * second synchronize_rcu before it frees that memory (RECLAIM-7). liburcu's call_rcu is not used, so none
 * of its process-global fork hooks and none of its batching delay apply.
 *
 * Invariants kept here (RECLAIM_FORK-1 and -2, the fork handlers' part, are
 * lib/reclaim_fork.c's; BARRIER-1, the barrier's, is lib/barrier.c's):
 *   RECLAIM-1. A retire callback runs after a grace period that began
 *       after the pool stopped being current (it is queued after the
 *       publish of its successor, and a batch's synchronize_rcu starts
 *       after the batch was taken off the queue), so no reader of that time
 *       can still see the pool when the callback drops the retire
 *       reference.
 *   RECLAIM-2. The callback drops its reference under m->lock, so
 *       retires_pending and refs move together for rcupool_get_stats() and
 *       for destroy's pin count. If it drops the last reference it unlinks
 *       and stops the pool (its memory goes as RECLAIM-7 says); otherwise
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
 *   RECLAIM-7. A pool's memory outlives its unlink from m->pools by a
 *       grace period: a sized pin walks that list inside a read-side
 *       section without m->lock (pin.c, SIZED-1) and may stand on the node
 *       as it is unlinked. The callback that unlinks a pool stops it (its
 *       threads are joined at once) and puts it on `unlinked`; once the
 *       batch's callbacks have run, the thread waits one more grace period,
 *       which began after every unlink of the batch, and frees that memory,
 *       all before the batch counts as done (so a barrier still returns
 *       only after the frees, RECLAIM-6). Only batches that unlinked a pool
 *       pay for it.
 *   RECLAIM-8. A call that waits for the reclaim thread (barrier,
 *       destroy) starts it first, before it changes anything; when it
 *       cannot be started the call returns -EAGAIN (logged) and nothing
 *       was changed. The thread, once started, runs until
 *       rcupool_finalize() stops it (RECLAIM-9), so no wait spins: each
 *       is a condition wait on progress.
 *   RECLAIM-9. A stop (rcupl_reclaim_stop) waits until the queue is empty
 *       and idle, asks the thread to return, and joins it; `running` stays
 *       true until the join, so no second thread starts meanwhile, and
 *       work queued meanwhile starts a new thread right after the join.
 *       A warm pass due later waits for the next start (any queued item,
 *       kick, barrier or destroy starts the thread again).
 * */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "context.h"
#include "fault.h"
#include "grace.h"
#include "lock.h"
#include "log_internal.h"
#include "manager_state.h"
#include "names.h"
#include "plural.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "reclaim_queue.h"
#include "reclaim_work.h"
#include "registry.h"
#include "tsan.h"

struct rcupl_reclaim_queue rq = {.mu = PTHREAD_MUTEX_INITIALIZER,
                                 .wake = PTHREAD_COND_INITIALIZER,
                                 .done_cv = PTHREAD_COND_INITIALIZER,
                                 .phase = RCUPL_IDLE};

static int rcupl_reclaim_start_locked(void);

/* WARM-4: the pass the thread runs (lib/warm.c's, set at load). */
static uint64_t (*rcupl_reclaim_pass)(void);

void rcupl_reclaim_set_pass(uint64_t (*pass)(void)) {
  __atomic_store_n(&rcupl_reclaim_pass, pass, __ATOMIC_RELEASE);
}

/* RECLAIM-7: frees the memory of the pools on `unlinked`. */
static void rcupl_reclaim_free_unlinked(void) {
  struct rcupl_work *w;
  while ((w = __atomic_load_n(&rq.unlinked, __ATOMIC_RELAXED)) != NULL) {
    /* Off the list before it is freed: a child never finds a freed one.
     * A bp fork may copy memory while this runs (RECLAIM_FORK-2); the fence
     * keeps the unlink before every store of the free in what the child
     * sees (on arm64 a dmb: stores may reach memory out of order). */
    __atomic_store_n(&rq.unlinked, w->next, __ATOMIC_RELAXED);
    RCUPL_FORK_COPY_FENCE();
    rcupl_pool_free(caa_container_of(w, struct rcupl_pool, free_work));
  }
}

/* Waits, rq.mu held, until work is queued (true) or the warm pass is due
 * (false). Without a due pass the wait has no end but work. */
static bool rcupl_reclaim_wait_work_locked(void) {
  while (rq.head == NULL && !rq.stopping) {
    if (rq.warm_due == 0) {
      rcupl_cond_wait(&rq.wake, &rq.mu);
      continue;
    }
    uint64_t now = rcupl_now_ns();
    if (now >= rq.warm_due) return false;
    rcupl_cond_wait_ns(&rq.wake, &rq.mu, rq.warm_due - now);
  }
  return true;
}

/* WARM-4: the pass over every manager, with rq.mu dropped around it (it
 * takes managers_mu and each m->lock, which fork's prepare takes after
 * rq.mu); the next due time it returns is kept unless a kick meanwhile
 * asked for an earlier one. Entered and left with rq.mu held. */
static void rcupl_reclaim_warm_pass_unlocked(void) {
  rq.warm_due = 0;
  rcupl_mutex_unlock(&rq.mu);
  uint64_t (*pass)(void) =
      __atomic_load_n(&rcupl_reclaim_pass, __ATOMIC_ACQUIRE);
  uint64_t due = pass != NULL ? pass() : 0;
  rcupl_mutex_lock(&rq.mu);
  if (due != 0 && (rq.warm_due == 0 || due < rq.warm_due)) rq.warm_due = due;
}

/* Ends a change of the queue made under rq.mu: unless !start, starts the
 * thread if it is absent and wakes it; releases rq.mu; then logs a start
 * that failed (`waiting`: what waits for the next try). */
static void rcupl_reclaim_wake_unlock(bool start, const char *waiting) {
  int err = start ? rcupl_reclaim_start_locked() : 0;
  if (start) rcupl_cond_signal(&rq.wake);
  rcupl_mutex_unlock(&rq.mu);
  if (err != 0)
    rcupl_log(RCUPOOL_LOG_ERROR,
              "reclaim: cannot start the reclaim thread (%d); %s wait for the "
              "next try",
              err, waiting);
}

void rcupl_reclaim_warm_kick(uint64_t due) {
  if (due == 0) due = rcupl_now_ns();
  rcupl_mutex_lock(&rq.mu);
  if (rq.warm_due == 0 || due < rq.warm_due) rq.warm_due = due;
  rcupl_reclaim_wake_unlock(true, "warm pools");
}

static void *rcupl_reclaim_main(void *unused) {
  rcupl_thread_set_name("rcupool-reclaim");
  (void)unused;
  rcupl_context_mark_reclaim_thread();
  rcupl_mutex_lock(&rq.mu);
  rq.ready = true;
  rcupl_cond_broadcast(&rq.done_cv);
  for (;;) {
    bool work = rcupl_reclaim_wait_work_locked();
    if (rq.stopping && rq.head == NULL) break; /* RECLAIM-9 */
    if (!work) {
      rcupl_reclaim_warm_pass_unlocked(); /* WARM-4: due, no work queued */
      continue;
    }
    struct rcupl_work *batch = rq.head;
    uint64_t n = 0;
    for (struct rcupl_work *w = batch; w != NULL; w = w->next) n++;
    rq.head = NULL;
    rq.tail = &rq.head;
    rq.batch = batch;
    rq.phase = RCUPL_GP;
    rcupl_mutex_unlock(&rq.mu);

    rcupl_grace_synchronize();

    rcupl_mutex_lock(&rq.mu);
    while (rq.forks_pending != 0) rcupl_cond_wait(&rq.wake, &rq.mu); /* -7 */
    rq.phase = RCUPL_CALLBACKS;
    rq.batch = NULL;
    rq.batch_count = n;
    rcupl_mutex_unlock(&rq.mu);
    uint64_t left = n;
    while (batch != NULL) {
      struct rcupl_work *w = batch;
      batch = w->next;
      rcupl_reclaim_note_position(w, batch, --left);
      w->fn(w);
    }
    rcupl_reclaim_note_position(NULL, NULL, 0);
    if (rq.unlinked != NULL) {
      rcupl_grace_synchronize(); /* RECLAIM-7 */
      rcupl_reclaim_free_unlinked();
    }
    rcupl_mutex_lock(&rq.mu);
    rq.done += n;
    rq.phase = RCUPL_IDLE;
    rcupl_cond_broadcast(&rq.done_cv);
    rcupl_reclaim_warm_pass_unlocked(); /* WARM-4: after each batch */
  }
  rcupl_mutex_unlock(&rq.mu);
  return NULL;
}

/* Starts the thread if it is absent. Called with rq.mu held. Returns 0 or
 * the error of pthread_create (the queue then waits for the next try). */
static int rcupl_reclaim_start_locked(void) {
  if (rq.running) return 0;
  if (!rq.wake_monotonic) {
    /* No thread waits on wake yet, and every signal of it is made under
     * rq.mu, which this thread holds (LOCK-3). */
    rcupl_cond_destroy(&rq.wake);
    rcupl_cond_init_monotonic(&rq.wake);
    rq.wake_monotonic = true;
  }
  /* Joinable: rcupl_reclaim_stop() joins it (RECLAIM-9); never joined
   * otherwise, as it runs until the process exits. */
  int err = rcupl_fault(RCUPL_FAULT_RECLAIM_THREAD)
                ? EAGAIN
                : pthread_create(&rq.thread, NULL, rcupl_reclaim_main, NULL);
  if (err == 0) rq.running = true;
  return err;
}

static void rcupl_reclaim_push(struct rcupl_work *w, bool start) {
  RCUPL_TSAN_GP_RELEASE();
  w->next = NULL;
  rcupl_mutex_lock(&rq.mu);
  rcupl_hold_point(RCUPL_HOLD_RECLAIM_QUEUE);
  if (rq.tail == NULL) rq.tail = &rq.head;
  *rq.tail = w;
  rq.tail = &w->next;
  rq.queued++;
  rcupl_reclaim_wake_unlock(start, "frees");
}

/* Stops a pool its callback has unlinked; its memory goes once the
 * batch's extra grace period is over (RECLAIM-7). Its free_work is idle:
 * never used (a retire's last put) or the item now running, whose next
 * the thread has already read. */
static void rcupl_stop_and_defer_free(rcupool_t *m, struct rcupl_pool *p,
                                      const char *why) {
  rcupl_log(RCUPOOL_LOG_DEBUG,
            "manager %p: free pool %p (%zu %s) on thread %ld: %s", (void *)m,
            (void *)p, p->threads, rcupl_threads_noun(p->threads),
            (long)syscall(SYS_gettid), why);
  rcupl_pool_stop(p);
  p->free_work.next = rq.unlinked;
  /* Release: a bp fork's child that finds the pool on the list also finds
   * its next link (RECLAIM_FORK-2; no lock orders the two here). */
  __atomic_store_n(&rq.unlinked, &p->free_work, __ATOMIC_RELEASE);
}

static void rcupl_retire_cb(struct rcupl_work *w) {
  RCUPL_TSAN_GP_ACQUIRE();
  struct rcupl_retire *rec = caa_container_of(w, struct rcupl_retire, work);
  struct rcupl_pool *p = rec->pool;
  rcupool_t *m = p->manager;
  rcupl_pool_check(p, "retire callback");

  rcupl_mutex_lock(&m->lock);
  rcupl_reclaim_commit();
  /* Counted while this callback's own reference is still pending. */
  size_t pins = rcupl_pool_pins_locked(p);
  p->retires_pending--;
  /* Last retire, not current again: its shards become one count (POOL-8). */
  if (p->retires_pending == 0 && p != m->current) rcupl_pool_gather_locked(p);
  /* No reader of the time it was current is left: it turns warm now
   * unless a pin holds it (WARM-3, the linger starts at the last use). */
  rcupl_pool_stamp_use_precise(p);
  bool last = rcupl_pool_put(p);
  /* During rcupool_destroy() current is NULL and nothing is kept. */
  bool kept = !last && m->current != NULL && p != m->current &&
              p->retires_pending == 0 && pins > 0;
  /* Read under the lock: once it is dropped, the
   * last holder (an unpin's free, or rcupool_destroy()) may free p. */
  const size_t threads = p->threads;
  if (last) {
    rcupl_pools_del_locked(p);
    m->pools_freed++;
  }
  rcupl_mutex_unlock(&m->lock);
  free(rec);

  if (last)
    rcupl_stop_and_defer_free(m, p, "grace period over, no pins");
  else if (kept)
    rcupl_log(RCUPOOL_LOG_INFO, "manager %p: pool %p (%zu %s) kept: %zu %s",
              (void *)m, (void *)p, threads, rcupl_threads_noun(threads), pins,
              rcupl_plural(pins, "pin", "pins"));
}

struct rcupl_pool *rcupl_reclaim_retire_pool(const struct rcupl_work *w) {
  if (w->fn != rcupl_retire_cb) return NULL;
  return caa_container_of(w, struct rcupl_retire, work)->pool;
}

void rcupl_reclaim_retire(struct rcupl_retire *rec) {
  rec->work.fn = rcupl_retire_cb;
  rcupl_reclaim_push(&rec->work, true);
}

static void rcupl_free_cb(struct rcupl_work *w) {
  RCUPL_TSAN_GP_ACQUIRE();
  struct rcupl_pool *p = caa_container_of(w, struct rcupl_pool, free_work);
  rcupool_t *m = p->manager;
  rcupl_mutex_lock(&m->lock);
  rcupl_reclaim_commit();
  rcupl_pools_del_locked(p);
  m->pools_freed++;
  rcupl_mutex_unlock(&m->lock);
  rcupl_stop_and_defer_free(m, p, p->free_why);
}

void rcupl_reclaim_free_later(struct rcupl_pool *p, const char *why) {
  p->free_why = why;
  p->free_work.fn = rcupl_free_cb;
  rcupl_reclaim_push(&p->free_work, true);
}

void rcupl_reclaim_free_later_quiet(struct rcupl_pool *p, const char *why) {
  p->free_why = why;
  p->free_work.fn = rcupl_free_cb;
  rcupl_reclaim_push(&p->free_work, false);
}

void rcupl_reclaim_stop(void) {
  rcupl_mutex_lock(&rq.mu);
  if (!rq.running || rq.stopping) {
    rcupl_mutex_unlock(&rq.mu);
    return;
  }
  /* Until the queue is empty and idle, and the thread has started. */
  while (rq.head != NULL || rq.phase != RCUPL_IDLE || !rq.ready) {
    rcupl_cond_signal(&rq.wake);
    rcupl_cond_wait(&rq.done_cv, &rq.mu);
  }
  rq.stopping = true;
  pthread_t t = rq.thread;
  rcupl_cond_broadcast(&rq.wake);
  rcupl_mutex_unlock(&rq.mu);
  pthread_join(t, NULL);
  rcupl_mutex_lock(&rq.mu);
  rq.stopping = false;
  rq.running = false;
  rq.ready = false;
  /* Work queued while it stopped starts a new thread now. */
  int err = rq.head != NULL ? rcupl_reclaim_start_locked() : 0;
  rcupl_cond_broadcast(&rq.done_cv);
  rcupl_mutex_unlock(&rq.mu);
  if (err != 0)
    rcupl_log(RCUPOOL_LOG_ERROR,
              "reclaim: cannot start the reclaim thread (%d); frees wait for "
              "the next try",
              err);
}

int rcupl_reclaim_ensure_thread(void) {
  rcupl_mutex_lock(&rq.mu);
  int err = rcupl_reclaim_start_locked();
  rcupl_mutex_unlock(&rq.mu);
  return err != 0 ? -EAGAIN : 0;
}

/* Waits until every item queued before the call has run (RECLAIM-6), or
 * returns -EAGAIN when the thread is absent and cannot be started
 * (RECLAIM-8). */
int rcupl_reclaim_wait_queued(void) {
  int err = 0;
  rcupl_mutex_lock(&rq.mu);
  uint64_t ticket = rq.queued;
  while (rq.done < ticket) {
    if (rcupl_reclaim_start_locked() != 0) {
      err = -EAGAIN;
      break;
    }
    rcupl_cond_signal(&rq.wake);
    rcupl_cond_wait(&rq.done_cv, &rq.mu);
  }
  rcupl_mutex_unlock(&rq.mu);
  return err;
}
