/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/reclaim.c's API, the reclaim thread: its unit of work,
 * the retire record, grace-period callbacks and freeing. Its fork
 * handlers are lib/reclaim_fork.h's, the drain lib/barrier.h's.
 */
#ifndef RCUPOOL_LIB_RECLAIM_H
#define RCUPOOL_LIB_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "rcupool/rcupool.h"
#include "reclaim_work.h"

struct rcupl_pool;

/* A retire in flight: one per reset, so a pool reused and retired again
 * within one grace period has one callback queued per retire. */
struct rcupl_retire {
  struct rcupl_work work;
  struct rcupl_pool *pool;
};

/* Queues the retire callback of rec (call after publishing a new pool). */
void rcupl_reclaim_retire(struct rcupl_retire *rec);

/* Hands a pool whose refs reached zero to the reclaim thread. Never blocks
 * for long, never frees on the calling thread. `why` (a string literal:
 * "last pin released", "trim", ...) is the cause the free's debug record
 * gives (p->free_why). */
void rcupl_reclaim_free_later(struct rcupl_pool *p, const char *why);

/* Starts the reclaim thread if it is absent: 0, or -EAGAIN (RECLAIM-8). */
int rcupl_reclaim_ensure_thread(void);

/* Stops the reclaim thread and joins it once the queue is empty
 * (RECLAIM-9): for rcupool_finalize(). Not from the reclaim thread. */
void rcupl_reclaim_stop(void);

/* The grace periods the thread waits for, and their gate, are lib/grace.h's;
 * the queue's fork handlers lib/reclaim_fork.h's. */
/* Child handler only: queues a free without waking or starting anything
 * (lib/reclaim_fork.c's adopt queues it only if it is not queued already). */
void rcupl_reclaim_free_later_quiet(struct rcupl_pool *p, const char *why);
/* The retire item's pool, or NULL when w is another kind of item. */
struct rcupl_pool *rcupl_reclaim_retire_pool(const struct rcupl_work *w);

/* Wakes the reclaim thread for a warm pass (lib/warm.c) at `due`
 * (rcupl_now_ns() clock; 0: now), starting it if absent. Never call with a
 * manager's lock held (FORK-2's order puts rq.mu first). */
void rcupl_reclaim_warm_kick(uint64_t due);
/* The pass the reclaim thread runs after each batch and when the time the
 * last pass returned comes (0: none due); lib/warm.c registers its own at
 * load (WARM-4). Until one is set the thread runs none. */
void rcupl_reclaim_set_pass(uint64_t (*pass)(void));

/* rcupl_reclaim_drain()'s wait (barrier.c): until every item queued before
 * the call has run (RECLAIM-6); reclaim.c says more. */
int rcupl_reclaim_wait_queued(void);

#endif /* RCUPOOL_LIB_RECLAIM_H */
