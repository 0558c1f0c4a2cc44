/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: a set of threads that pthreadpool_create_v2() pools (views)
 * borrow for their parallel calls (lib/exec_set.c), one set per manager
 * and placement (lib/executor.c). Only with a pthreadpool that has the
 * executor API (RCUPL_HAVE_EXECUTOR).
 */
#ifndef RCUPOOL_LIB_EXEC_SET_H
#define RCUPOOL_LIB_EXEC_SET_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "rcupool/rcupool.h"

#ifdef PTHREADPOOL_FLAG_DONT_SPIN_WORKERS /* the executor API's flag */
#define RCUPL_HAVE_EXECUTOR 1
#else
#define RCUPL_HAVE_EXECUTOR 0
#endif

#if RCUPL_HAVE_EXECUTOR

struct rcupl_exec_set;

/* One thread of a set. state is its futex word (exec_set.c, EXEC_SET-1). */
struct rcupl_exec_slot {
  _Alignas(64) uint32_t state;
  void (*fn)(void *); /* the task handed over; NULL: drain the queue */
  void *arg;
  struct rcupl_exec_set *set;
  unsigned index;   /* 0-based: the worker number its binding uses */
  bool bind_failed; /* written before the thread reports started */
  bool exiting;     /* atomic: trimmed, stop once idle (EXEC_SET-4) */
  bool unjoined;    /* under grow_lock: stopped or stopping, not joined */
  pthread_t tid;
  /* The yield policy's spin, only while it pays (EXEC_SET-5): claimed_tick
   * is written by the claimer of a sleeping thread before its GIVEN
   * store, the others are the thread's own. Coarse clock readings. */
  bool spin_next;        /* spin before the next sleep */
  uint64_t slept_tick;   /* when the thread last went to sleep */
  uint64_t claimed_tick; /* when a claimer took it asleep */
};

struct rcupl_exec_task {
  void (*fn)(void *);
  void *arg;
  struct rcupl_exec_task *next;
};

struct rcupl_exec_set {
  struct pthreadpool_executor api; /* what pthreadpool_create_v2() gets */
  rcupool_t *m;
  rcupool_placement_t placement; /* normalised (PLACE-1) */
  struct rcupl_cpuset cpus;      /* where its threads bind, if bind */
  bool bind;
  pthread_mutex_t grow_lock; /* growth */
  pthread_mutex_t lock;      /* the queue (never held while growing) */
  size_t threads;            /* atomic: slots started (EXEC_SET-2) */
  size_t queued;             /* atomic: tasks on the queue (EXEC_SET-1) */
  struct rcupl_exec_task *head, *tail, *spare;
  struct rcupl_exec_set *next; /* lib/executor.c's list */
  /* Under grow_lock: views alive by width, and the threads the set keeps
   * whatever they are (EXEC_SET-4). */
  size_t views[RCUPOOL_MAX_THREADS + 1];
  size_t floor;
  size_t high; /* slots ever started (each joined or unjoined) */
  struct rcupl_exec_slot slots[RCUPOOL_MAX_THREADS];
};

/* Initialises e (zeroed by its caller) for m's pools placed by pl. */
void rcupl_exec_set_init(struct rcupl_exec_set *e, rcupool_t *m,
                         const rcupool_placement_t *pl,
                         const struct rcupl_cpuset *cpus);

/* Starts threads until e has `want` (at most RCUPOOL_MAX_THREADS), each
 * bound and started before it counts. 0, or -EAGAIN when a thread could
 * not start (e keeps those that did). Blocks: starts threads, under
 * e->grow_lock. Any thread but one of e's own. */
int rcupl_exec_set_grow(struct rcupl_exec_set *e, size_t want);

/* How many of e's first n threads could not be bound (PLACE-3). */
size_t rcupl_exec_set_bind_failures(struct rcupl_exec_set *e, size_t n);

/* A view of `width` threads is about to be made on e (counted, then the
 * set grown to width - 1: 0, or -EAGAIN uncounted) / has been destroyed:
 * the set keeps the threads of its widest view alive (EXEC_SET-4),
 * joining the others. Blocks: joins threads (the reclaim thread, which destroys
 * pools). */
int rcupl_exec_set_view_made(struct rcupl_exec_set *e, size_t width);
void rcupl_exec_set_view_gone(struct rcupl_exec_set *e, size_t width);

/* e keeps at least `threads` threads from now on (rcupool_executor()). */
void rcupl_exec_set_keep(struct rcupl_exec_set *e, size_t threads);

/* Stops and joins e's threads and frees its queue's nodes: only once no
 * pool made on e is left (no task can come). */
void rcupl_exec_set_stop(struct rcupl_exec_set *e);

/* In a fork child (its only thread): e's threads do not exist here. */
void rcupl_exec_set_fork_child(struct rcupl_exec_set *e);

#endif /* RCUPL_HAVE_EXECUTOR */

#endif /* RCUPOOL_LIB_EXEC_SET_H */
