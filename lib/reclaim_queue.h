/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only (no .c of its own): the reclaim thread's queue
 * state, defined in lib/reclaim.c and shared with lib/reclaim_fork.c (the
 * fork handlers' part, RECLAIM_FORK-1 and -2, which takes the queue over
 * in a child). No other file includes it.
 */
#ifndef RCUPOOL_LIB_RECLAIM_QUEUE_H
#define RCUPOOL_LIB_RECLAIM_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "reclaim_work.h"

/* Keeps the stores before it ahead of those after it in the memory a fork
 * copies while this thread runs (RECLAIM_FORK-2): a dmb on arm64. Not under
 * ThreadSanitizer, which models neither fences (gcc warns) nor that copy. */
#if defined(RCUPL_TSAN)
#define RCUPL_FORK_COPY_FENCE() ((void)0)
#else
#define RCUPL_FORK_COPY_FENCE() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif

enum { RCUPL_IDLE = 0, RCUPL_GP = 1, RCUPL_CALLBACKS = 2 };

struct rcupl_reclaim_queue {
  pthread_mutex_t mu;
  pthread_cond_t wake;    /* the thread waits for work, or for a fork;
                             CLOCK_MONOTONIC once wake_monotonic (LOCK-3) */
  pthread_cond_t done_cv; /* barriers and fork prepare wait for progress */
  struct rcupl_work *head;
  struct rcupl_work **tail;
  struct rcupl_work *batch; /* in flight (phase GP) */
  uint64_t queued;
  uint64_t done;
  /* RECLAIM-7: pools this batch unlinked and stopped, whose memory waits
   * for one more grace period; linked through free_work.next. The
   * thread's alone (a fork never sees phase CALLBACKS). */
  struct rcupl_work *unlinked;
  /* RECLAIM_FORK-2: where the thread is in a CALLBACKS batch, for a child
   * forked without waiting it out. Two slots; `pos` (atomic) names the one
   * that is whole. The thread writes the other, then flips pos; an item
   * marks the slot in use committed, with its change, under a lock fork's
   * prepare holds (its manager's, or rq.mu: RECLAIM_FORK-2). */
  struct rcupl_batch_pos {
    struct rcupl_work *started; /* the item running, or NULL */
    struct rcupl_work *rest;    /* items not started yet */
    uint64_t rest_count;
    bool committed; /* started made its change (under m->lock or rq.mu) */
  } slot[2];
  unsigned pos;
  uint64_t batch_count;
  int phase;
  bool running;
  bool ready; /* the thread has started and waits for work (RECLAIM_FORK-1) */
  /* RECLAIM-9: the thread (joinable) while running, and the stop asked
   * by rcupl_reclaim_stop(). */
  pthread_t thread;
  bool stopping;
  /* wake was set to CLOCK_MONOTONIC (LOCK-3): at the first start, before
   * the thread, wake's only waiter, exists; a fork child's is again. */
  bool wake_monotonic;
  /* WARM-4: when the next warm pass is due (rcupl_now_ns clock), 0: none. */
  uint64_t warm_due;
  /* RECLAIM_FORK-1: forks between their hold and their parent handler (glibc
   * runs the handlers of forks on different threads concurrently: one
   * fork's parent handler must not release another's hold). */
  unsigned forks_pending;
};

/* The one queue, defined in reclaim.c. Its C name stays rq, the name the
 * invariants, lib/fork.c and tests/model give it; its link name carries the
 * library's prefix, since a static link of the library exposes it. */
extern struct rcupl_reclaim_queue rq __asm__("rcupl_reclaim_queue");

/* RECLAIM_FORK-2: publishes the position before an item starts. */
static inline void rcupl_reclaim_note_position(struct rcupl_work *started,
                                               struct rcupl_work *rest,
                                               uint64_t rest_count) {
  unsigned next = 1u - __atomic_load_n(&rq.pos, __ATOMIC_RELAXED);
  rq.slot[next].started = started;
  rq.slot[next].rest = rest;
  rq.slot[next].rest_count = rest_count;
  rq.slot[next].committed = false;
  __atomic_store_n(&rq.pos, next, __ATOMIC_RELEASE);
}

/* Called by an item under its manager's lock or rq.mu, with its change
 * (RECLAIM_FORK-2). */
static inline void rcupl_reclaim_commit(void) {
  unsigned cur = __atomic_load_n(&rq.pos, __ATOMIC_RELAXED);
  __atomic_store_n(&rq.slot[cur].committed, true, __ATOMIC_RELEASE);
}

#endif /* RCUPOOL_LIB_RECLAIM_QUEUE_H */
