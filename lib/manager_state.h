/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: a manager's state (struct rcupool_manager), the
 * shared type of the units that work on it. lib/manager.c creates,
 * publishes and destroys; read, reset, pin, parallel, follow, idle, warm,
 * barrier, managers, reclaim and fork read and edit the fields their
 * comments give them, under the locks below. No function lives here, so a unit that
 * only reads a manager's fields depends on this type, not on manager.c
 * (lib/manager_internal.h is manager.c's interface). Its list of pools is
 * lib/registry.h's.
 *
 * Locks (order: writer before lock)
 *   writer  serialises rcupool_reset(), rcupool_destroy(), the pool starts
 *           of rcupool_pin_sized() and the settle of a fork child's
 *           manager; held while a new pool's threads start; the default
 *           manager's is taken by fork's prepare handler (lib/fork.c,
 *           FORK-2), a private manager's re-initialised in the child
 *           (FORK-7). Never taken by readers, unpins or the reclaim thread.
 *   lock    protects the pool list, every pool's bookkeeping fields and the
 *           manager's counters. Held only for short, non-blocking work.
 *   Readers, unpin and rcupool_pin() take no lock (a pin in a fork child
 *   before the manager is settled settles it first, under writer).
 */
#ifndef RCUPOOL_LIB_MANAGER_STATE_H
#define RCUPOOL_LIB_MANAGER_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpus.h"
#include "rcupool/rcupool.h"

#include <urcu/list.h>

struct rcupl_pool;

struct rcupool_manager {
  /* RCU-published: stored with release under writer and lock, loaded with
   * acquire by readers. Never NULL between create and destroy. */
  struct rcupl_pool *current;
  uint64_t generation;    /* atomic; written under lock */
  size_t current_threads; /* atomic; written under lock */

  pthread_mutex_t writer;
  pthread_mutex_t lock;

  /* Under lock. */
  struct cds_list_head pools; /* current + retired pools not yet freed:
                                 lib/registry.h */
  uint64_t resets;
  uint64_t reuses;
  uint64_t pools_created;
  uint64_t pools_freed;
  /* Atomic: pool starts that failed for want of threads (pool.c). */
  uint64_t start_failures;

  /* Immutable after create. The count of rcupool_reset(m, 0); 0: computed
   * by rcupl_cpus_thread_count() at each such reset (mask and quota of then). */
  size_t default_threads;
  /* What the default count counts (RCUPOOL_DEFAULT_RULE_*). Atomic,
   * relaxed: written by create and rcupool_set_default_rule(), read by
   * each computation of the default count. */
  int default_rule;
  /* Set once by rcupool_default() before it publishes the manager. */
  bool is_default;
  /* Immutable after create, normalised: the placement of every pool
   * reset and rcupool_pin_sized() start (PLACE-1), so the current pool
   * always has it. */
  rcupool_placement_t placement;

  /* Following the CPU limits (lib/follow.c). follow: immutable after
   * create (on, and default_threads 0). chosen: the count was chosen by
   * a reset(m, n > 0) that succeeded (RESET-6); written under writer,
   * read atomically (relaxed).
   * follow_due_ns: when the next check is due (CLOCK_MONOTONIC_COARSE);
   * atomic, claimed by compare-and-swap. follow_last: the limits the last
   * check saw, under writer. follows: under lock. */
  bool follow;
  bool chosen;
  uint64_t follow_due_ns;
  struct rcupl_default_size follow_last;
  uint64_t follows;
  /* The idle policy as the flags every pthreadpool call made for m adds to
   * its own: PTHREADPOOL_FLAG_YIELD_WORKERS or 0 (lib/idle.c). Atomic,
   * relaxed: written by create and rcupool_set_idle(), read once by each
   * call as it starts (rcupl_idle_flags_of). */
  uint32_t idle_flags;
  /* Warm widths (lib/warm.c): how long a warm pool lives unused, in ns,
   * and how many warm pools at most. Atomic, relaxed: written by create
   * and rcupool_set_warm(), read by each expiry pass. */
  uint64_t warm_ns;
  uint32_t warm_max;

  /* Default manager only (lib/fork.c). fork_stale: set by the fork child
   * handler, which publishes `spare` (a 1-thread pool made in the parent)
   * as current; cleared only in reset.c (RESET-5): by any reset that
   * leaves a pool current (the settle's, of current_threads, included) and
   * by a settle that failed. Atomic. spare: under writer in the parent; consumed by the child
   * handler. */
  bool fork_stale;
  struct rcupl_pool *spare;

  /* On managers.c's list of every manager (MANAGERS-1). */
  struct cds_list_head all;
};

/* The layout rcupool/inline.h reads (see there). */
_Static_assert(offsetof(struct rcupool_manager, current) == 0,
               "inline.h layout");

#endif /* RCUPOOL_LIB_MANAGER_STATE_H */
