/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The size of an executor's set (exec_set.h): growth, trim, what the set
 * keeps for views and for other libraries' pools, its stop and its fork
 * handlers. The threads, claims and queue are lib/exec_set.c's.
 *
 * Invariants kept here (stated in lib/exec_set.c): EXEC_SET-2 (a slot
 * below `threads` is a started thread no trim asked to stop), EXEC_SET-4
 * (no trim or growth waits for a task; one thread a slot: the EXIT bit
 * set by an OR, cleared by an AND, committed by the thread's own CAS),
 * EXEC_SET-1's trim side (never to 0 while a task is queued), EXEC_SET-7
 * (the floor for other libraries' pools, let go by a trim) and EXEC_SET-8
 * (the queue lock held across fork).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "exec_size.h"
#include "exec_thread.h"
#include "exec_types.h"
#include "limits_internal.h"
#include "lock.h"

#if RCUPL_HAVE_EXECUTOR

static size_t rcupl_exec_widest_locked(const struct rcupl_exec_set *e) {
  size_t widest = RCUPOOL_MAX_THREADS;
  while (widest > 1 && e->views[widest] == 0) widest--;
  return widest;
}

/* Joins slot s's thread, which has committed STOP (runs no task). */
static void rcupl_exec_slot_join(struct rcupl_exec_slot *s) {
  pthread_join(s->tid, NULL);
  s->unjoined = false;
}

int rcupl_exec_set_grow(struct rcupl_exec_set *e, size_t want) {
  if (want > RCUPOOL_MAX_THREADS) want = RCUPOOL_MAX_THREADS;
  if (__atomic_load_n(&e->threads, __ATOMIC_ACQUIRE) >= want) return 0;
  int err = 0;
  rcupl_mutex_lock(&e->grow_lock);
  size_t n = e->threads;
  size_t to_start = 0; /* LIMITS-2: a thread limit makes it -EAGAIN */
  for (size_t i = n; i < want; i++)
    if (!e->slots[i].unjoined ||
        RCUPL_EXEC_LOW(__atomic_load_n(&e->slots[i].state, __ATOMIC_ACQUIRE)) ==
            STOP)
      to_start++;
  if (to_start != 0 && !rcupl_limits_threads_can_start(to_start)) err = -EAGAIN;
  for (; err == 0 && n < want; n++) {
    struct rcupl_exec_slot *s = &e->slots[n];
    if (s->unjoined) { /* EXEC_SET-4: left running by a trim */
      uint32_t was =
          __atomic_fetch_and(&s->state, ~RCUPL_EXEC_EXIT, __ATOMIC_SEQ_CST);
      if (RCUPL_EXEC_LOW(was) != STOP) { /* taken back, still running */
        s->unjoined = false;
        __atomic_store_n(&e->threads, n + 1, __ATOMIC_RELEASE); /* -2 */
        continue;
      }
      rcupl_exec_slot_join(s); /* it committed STOP: no task left */
    }
    s->set = e;
    s->index = (unsigned)n;
    s->bind_failed = false;
    __atomic_store_n(&s->state, STARTING, __ATOMIC_RELAXED);
    if (pthread_create(&s->tid, NULL, rcupl_exec_thread, s) != 0) {
      err = -EAGAIN;
      break;
    }
    while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == STARTING)
      sched_yield();
    __atomic_store_n(&e->threads, n + 1, __ATOMIC_RELEASE); /* EXEC_SET-2 */
    if (n + 1 > e->high) e->high = n + 1;
  }
  rcupl_mutex_unlock(&e->grow_lock);
  return err;
}

size_t rcupl_exec_set_bind_failures(struct rcupl_exec_set *e, size_t n) {
  size_t failed = 0;
  for (size_t i = 0; i < n && i < RCUPOOL_MAX_THREADS; i++)
    if (e->slots[i].bind_failed) failed++;
  return failed;
}

/* Lets the threads of slots [target, threads) go, under e->grow_lock, and
 * reaps unjoined slots that have stopped since (EXEC_SET-4). The count
 * drops first, so no claimer picks those slots any more; to 0 only while
 * no task is queued (EXEC_SET-1). Each thread is asked to stop by an OR
 * of RCUPL_EXEC_EXIT: an idle one commits STOP and is joined now; a busy
 * one is left running, unjoined. `wait`: the set's stop, when no task can
 * be left: every thread is joined. */
static void rcupl_exec_set_trim_locked(struct rcupl_exec_set *e, size_t target,
                                       bool wait) {
  size_t n = e->threads;
  if (target < n) {
    __atomic_store_n(&e->threads, target, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* EXEC_SET-1 */
    if (target == 0 && !wait &&
        __atomic_load_n(&e->queued, __ATOMIC_SEQ_CST) != 0) {
      target = 1; /* a queued task keeps slot 0's thread */
      __atomic_store_n(&e->threads, target, __ATOMIC_RELEASE);
    }
  }
  for (size_t i = target; i < e->high; i++) {
    struct rcupl_exec_slot *s = &e->slots[i];
    if (i >= n && !s->unjoined) continue; /* joined already */
    if (i < n) {
      uint32_t was =
          __atomic_fetch_or(&s->state, RCUPL_EXEC_EXIT, __ATOMIC_SEQ_CST);
      rcupl_exec_wake(&s->state);
      uint32_t low = RCUPL_EXEC_LOW(was);
      s->unjoined = !(low == IDLE || low == SLEEP || low == STOP);
      if (!s->unjoined) {
        rcupl_exec_slot_join(s); /* it commits STOP: no task to wait for */
        continue;
      }
    }
    /* Unjoined: joined once it has committed STOP (at the stop, waited). */
    if (wait ||
        RCUPL_EXEC_LOW(__atomic_load_n(&s->state, __ATOMIC_ACQUIRE)) == STOP)
      rcupl_exec_slot_join(s);
  }
}

int rcupl_exec_set_view_made(struct rcupl_exec_set *e, size_t width) {
  /* Counted before the growth, under the lock the trim takes: from here
   * no trim goes below width - 1 (EXEC_SET-4), so the view made next
   * gets its width. */
  rcupl_mutex_lock(&e->grow_lock);
  e->views[width]++;
  rcupl_mutex_unlock(&e->grow_lock);
  int err = rcupl_exec_set_grow(e, width - 1);
  if (err != 0) rcupl_exec_set_view_gone(e, width);
  return err;
}

void rcupl_exec_set_view_gone(struct rcupl_exec_set *e, size_t width) {
  rcupl_mutex_lock(&e->grow_lock);
  if (e->views[width] > 0) e->views[width]--;
  size_t target = rcupl_exec_widest_locked(e) - 1;
  if (target < e->floor) target = e->floor;
  rcupl_exec_set_trim_locked(e, target, false);
  rcupl_mutex_unlock(&e->grow_lock);
}

void rcupl_exec_set_keep(struct rcupl_exec_set *e, size_t threads) {
  rcupl_mutex_lock(&e->grow_lock);
  if (threads > e->floor) e->floor = threads;
  rcupl_mutex_unlock(&e->grow_lock);
}

void rcupl_exec_set_let_go(struct rcupl_exec_set *e) {
  rcupl_mutex_lock(&e->grow_lock);
  e->floor = 0; /* EXEC_SET-7 */
  rcupl_exec_set_trim_locked(e, rcupl_exec_widest_locked(e) - 1, false);
  rcupl_mutex_unlock(&e->grow_lock);
}

void rcupl_exec_set_stop(struct rcupl_exec_set *e) {
  rcupl_mutex_lock(&e->grow_lock);
  rcupl_exec_set_trim_locked(e, 0, true);
  rcupl_mutex_unlock(&e->grow_lock);
  while (e->spare != NULL) {
    struct rcupl_exec_task *t = e->spare;
    e->spare = t->next;
    free(t);
  }
  rcupl_mutex_destroy(&e->lock);
  rcupl_mutex_destroy(&e->grow_lock);
}

void rcupl_exec_set_fork_prepare(struct rcupl_exec_set *e) {
  rcupl_mutex_lock(&e->lock); /* EXEC_SET-8 */
}

void rcupl_exec_set_fork_parent(struct rcupl_exec_set *e) {
  rcupl_mutex_unlock(&e->lock);
}

void rcupl_exec_set_fork_child(struct rcupl_exec_set *e) {
  rcupl_mutex_init(&e->grow_lock); /* a parent thread may have held it */
  while (e->head != NULL) {        /* the parent's pools' tasks; nodes kept */
    struct rcupl_exec_task *t = e->head;
    e->head = t->next;
    t->next = e->spare;
    e->spare = t;
  }
  e->tail = NULL;
  e->queued = 0;
  e->threads = 0;
  memset(e->views, 0, sizeof e->views); /* the parent's views are orphans */
  for (size_t i = 0; i < e->high; i++) e->slots[i].unjoined = false;
  e->high = 0;
  rcupl_mutex_unlock(&e->lock); /* this thread's, since prepare */
}

#endif /* RCUPL_HAVE_EXECUTOR */
