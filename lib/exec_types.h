/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the executor set's types, shared by lib/exec_set.c (claims and
 * schedule()), lib/exec_thread.c (its threads) and lib/exec_size.c
 * (growth and trim); the invariants are lib/exec_set.c's.
 */
#ifndef RCUPOOL_LIB_EXEC_TYPES_H
#define RCUPOOL_LIB_EXEC_TYPES_H

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

/* A slot's states (its state word, EXEC_SET-1), plus RCUPL_EXEC_EXIT. */
enum { IDLE, SLEEP, CLAIMED, GIVEN, RUN, STARTING, STOP };
#define RCUPL_EXEC_EXIT 0x100u /* a trim asks the thread to stop */
#define RCUPL_EXEC_LOW(x) ((x) & ~RCUPL_EXEC_EXIT)

struct rcupl_exec_set;

/* What a pool's tasks come through (pthreadpool_create_v2's executor
 * context): one per view rcupool makes, so the reclaim thread can find a
 * view's queued tasks (EXEC_SET-6), and the set's `foreign` one for the
 * pools other libraries make on rcupool_executor() (EXEC_SET-7). */
struct rcupl_exec_ctx {
  struct rcupl_exec_set *set;
  bool foreign;
};

/* One thread of a set. state is its futex word (exec_set.c, EXEC_SET-1):
 * a state below, plus RCUPL_EXEC_EXIT once a trim asks it to stop
 * (EXEC_SET-4). */
struct rcupl_exec_slot {
  _Alignas(64) uint32_t state;
  void (*fn)(void *); /* the task handed over; NULL: drain the queue */
  void *arg;
  struct rcupl_exec_set *set;
  unsigned index;   /* 0-based: the worker number its binding uses */
  bool bind_failed; /* written before the thread reports started */
  bool unjoined;    /* under grow_lock: left running outside the set */
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
  const struct rcupl_exec_ctx *ctx; /* whose task (EXEC_SET-6) */
  struct rcupl_exec_task *next;
};

struct rcupl_exec_set {
  struct pthreadpool_executor api; /* what pthreadpool_create_v2() gets */
  struct rcupl_exec_ctx foreign;   /* other libraries' context */
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
  uint64_t let_go_round;       /* under sets_lock: the last let-go's */
  /* Under grow_lock: views alive by width, the threads the set keeps for
   * other libraries' pools until a trim lets them go (EXEC_SET-7), and
   * slots ever started (each joined, live or unjoined). */
  size_t views[RCUPOOL_MAX_THREADS + 1];
  size_t floor;
  size_t high;
  /* Written under grow_lock, read atomically by schedule(): the threads
   * the widest of other libraries' pools was sized from (EXEC_SET-7). */
  size_t foreign_need;
  struct rcupl_exec_slot slots[RCUPOOL_MAX_THREADS];
};

#endif /* RCUPL_HAVE_EXECUTOR */

#endif /* RCUPOOL_LIB_EXEC_TYPES_H */
