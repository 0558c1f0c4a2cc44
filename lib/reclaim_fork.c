/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reclaim thread's part of fork(), called by lib/fork.c's handlers
 * only: a fork waits out a batch in CALLBACKS (but for RECLAIM_FORK-2's bp
 * case), and the child queues again what its parent's thread left
 * unfinished. The queue is reclaim.c's (lib/reclaim_queue.h); the
 * grace-period gate's fork calls stay beside the gate there (GRACE-1).
 *
 * Invariants kept here (the reclaim thread's others are lib/reclaim.c's,
 * and BARRIER-1 is lib/barrier.c's):
 *   RECLAIM_FORK-1. phase (under rq.mu) is IDLE, GP (a batch is off the queue
 *       and its grace period has not ended: no callback of it has run) or
 *       CALLBACKS (the batch's callbacks run, then RECLAIM-7's grace period
 *       and frees). The thread moves GP -> CALLBACKS only under rq.mu and
 *       only while no fork is pending; fork's prepare first marks a fork
 *       pending and waits out a CALLBACKS batch (which joins idle workers
 *       and waits for a grace period: no user code), before it takes any
 *       lock the application's threads could need (and first waits for a
 *       reclaim thread still starting to be ready: a thread mid-start may
 *       be inside an allocator whose lock the child would inherit). So a
 *       fork finds the
 *       queue IDLE or in GP (the child queues a GP batch again: its grace
 *       period never ended there), except the bp case of RECLAIM_FORK-2.
 *   RECLAIM_FORK-2. The one fork that finds a batch in CALLBACKS is a bp fork
 *       whose liburcu-bp locks another handler took first (FORK-2, step 1):
 *       the batch may be blocked on them, so prepare does not wait. Before
 *       each item the thread publishes its position whole (two slots, a
 *       flip); each item makes its change and marks the position committed
 *       under a lock prepare holds: a retire or free callback under its
 *       manager's lock, rcupl_free_memory_cb under rq.mu. So what a fork
 *       copies is either before the item's change or after its commit,
 *       and the position published before it (program order, then the
 *       lock's release and prepare's acquire) is in the copy whenever the
 *       change is: no order of stores on a weakly ordered CPU (arm64) can
 *       show the change without its commit or its position. The child
 *       queues again the items not started and the started one unless
 *       committed, and queues the memory of the pools the batch stopped as
 *       items of their own (rcupl_free_memory_cb: a grandchild runs it
 *       again only if its free has not begun, never frees twice). What an
 *       item does after its commit, outside the lock (a pool's stop and
 *       its push on `unlinked`), a grandchild at worst leaks.
 */
#include <pthread.h>
#include <stdbool.h>

#include "lock.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "reclaim_fork.h"
#include "reclaim_queue.h"
#include "reclaim_work.h"
#include "tsan.h"

/* A fork child's item for the memory of a pool its parent's batch had
 * stopped (RECLAIM_FORK-2). The commit and the free under rq.mu, which
 * fork's prepare takes (step 4) even when it does not wait for the batch:
 * a grandchild is forked before both (it runs the item again: the memory
 * is not freed yet) or after both (committed: it does not), never between,
 * whatever order the stores of the free reach memory in. */
static void rcupl_free_memory_cb(struct rcupl_work *w) {
  RCUPL_TSAN_GP_ACQUIRE();
  rcupl_mutex_lock(&rq.mu);
  rcupl_reclaim_commit();
  rcupl_pool_free(caa_container_of(w, struct rcupl_pool, free_work));
  rcupl_mutex_unlock(&rq.mu);
}

void rcupl_reclaim_fork_hold(bool wait) {
  rcupl_mutex_lock(&rq.mu);
  rq.forks_pending++;
  /* A thread that is still starting may be inside the C library's (or a
   * sanitizer's) allocator: a child would inherit that lock held. */
  while (rq.running && !rq.ready) rcupl_cond_wait(&rq.done_cv, &rq.mu);
  while (wait && rq.phase == RCUPL_CALLBACKS)
    rcupl_cond_wait(&rq.done_cv, &rq.mu);
  rcupl_mutex_unlock(&rq.mu);
}

void rcupl_reclaim_fork_prepare(void) { rcupl_mutex_lock(&rq.mu); }

void rcupl_reclaim_fork_parent(void) {
  if (--rq.forks_pending == 0) rcupl_cond_broadcast(&rq.wake);
  rcupl_mutex_unlock(&rq.mu);
}

/* Child handler: puts the chain `first` (linked by next, non-empty) in
 * front of the queue. */
static void rcupl_reclaim_requeue_first(struct rcupl_work *first) {
  struct rcupl_work *last = first;
  while (last->next != NULL) last = last->next;
  last->next = rq.head;
  if (rq.head == NULL) rq.tail = &last->next;
  rq.head = first;
}

void rcupl_reclaim_fork_child(void) {
  /* The thread and every waiter are gone; rq.mu was taken by this thread
   * in prepare and is released at the end. */
  rcupl_cond_init_monotonic(&rq.wake); /* LOCK-3 */
  rq.wake_monotonic = true;
  rcupl_cond_init(&rq.done_cv);
  rq.running = false;
  rq.ready = false;
  rq.stopping = false;  /* a stop of the parent's (RECLAIM-9) */
  rq.forks_pending = 0; /* other threads' forks do not exist here */
  rq.warm_due = 0;      /* the next kick asks again (WARM-4) */
  if (rq.phase == RCUPL_GP && rq.batch != NULL) {
    /* Its grace period never ended in the parent's view of this child:
     * run it again, first (its items were counted in `queued` already). */
    rcupl_reclaim_requeue_first(rq.batch);
  }
  if (rq.phase == RCUPL_CALLBACKS) {
    /* RECLAIM_FORK-2: forked without waiting the batch out. Items not started
     * run again; the started one too unless it committed (its manager's
     * lock, which prepare holds, orders the two). */
    const struct rcupl_batch_pos *at = &rq.slot[rq.pos];
    struct rcupl_work *rest = at->rest;
    uint64_t rest_count = at->rest_count;
    if (at->started != NULL && !at->committed) {
      at->started->next = rest;
      rest = at->started;
      rest_count++;
    }
    rq.done += rq.batch_count - rest_count;
    if (rest != NULL) rcupl_reclaim_requeue_first(rest);
  }
  /* Pools the batch stopped whose memory was waiting for its extra grace
   * period: queued first, as items of their own. */
  if (rq.unlinked != NULL) {
    for (struct rcupl_work *w = rq.unlinked; w != NULL; w = w->next) {
      w->fn = rcupl_free_memory_cb;
      rq.queued++;
    }
    rcupl_reclaim_requeue_first(rq.unlinked);
    rq.unlinked = NULL;
  }
  rq.batch = NULL;
  rq.phase = RCUPL_IDLE;
  rcupl_mutex_unlock(&rq.mu);
}

unsigned rcupl_reclaim_fork_child_retires_queued(const struct rcupl_pool *p) {
  unsigned n = 0;
  for (struct rcupl_work *w = rq.head; w != NULL; w = w->next)
    if (rcupl_reclaim_retire_pool(w) == p) n++;
  return n;
}

void rcupl_reclaim_fork_child_adopt(struct rcupl_pool *p) {
  /* Child handler, after rcupl_reclaim_fork_child: the queue holds all that
   * is left to run. A pool at refs zero whose free is not queued lost its
   * hand-over to a thread that does not exist here. */
  for (struct rcupl_work *w = rq.head; w != NULL; w = w->next)
    if (w == &p->free_work) return;
  rcupl_reclaim_free_later_quiet(
      p, "fork child: its last reference was a parent thread's");
}
