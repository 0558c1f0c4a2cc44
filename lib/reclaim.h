/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: the reclaim thread's API (lib/reclaim.c, lib/reclaim_fork.c,
 * lib/barrier.c): its unit of work, the retire record, grace-period
 * callbacks and freeing.
 */
#ifndef RCUPOOL_LIB_RECLAIM_H
#define RCUPOOL_LIB_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "rcupool/rcupool.h"

struct rcupl_pool;

/* A unit of work for rcupool's reclaim thread (lib/reclaim.c): run after a
 * grace period that began after it was queued. Intrusive: no allocation. */
struct rcupl_work {
  struct rcupl_work *next;
  void (*fn)(struct rcupl_work *w);
};

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

/* Waits until every item queued before the call has run, then, unless m
 * is NULL, until no pool of m is waiting for a free already decided (a
 * hand-over still in flight on another thread). -EAGAIN when the reclaim
 * thread is absent and cannot be started (RECLAIM-8), else 0. */
int rcupl_reclaim_drain(rcupool_t *m);

/* Starts the reclaim thread if it is absent: 0, or -EAGAIN (RECLAIM-8). */
int rcupl_reclaim_ensure_thread(void);

/* Stops the reclaim thread and joins it once the queue is empty
 * (RECLAIM-10): for rcupool_finalize(). Not from the reclaim thread. */
void rcupl_reclaim_stop(void);

/* The library's one way to wait for a grace period (RECLAIM-9). */
void rcupl_reclaim_synchronize(void);

/* True where a call that waits for the reclaim thread (barrier, destroy)
 * would wait for itself: inside a read-side section (the grace period
 * waits for it), inside a task or on any worker of an rcupool pool (a free
 * joins that pool's workers), or on the reclaim thread. Such a call
 * returns -EDEADLK (BARRIER-1). */
bool rcupl_reclaim_would_wait_for_self(void);

/* fork (lib/fork.c, RECLAIM_FORK-1, -2, RECLAIM-9): hold marks a fork pending and,
 * if `wait`, waits out a running callback batch (no lock held after); gate_* take and
 * release the grace-period gate (memb; child(false): bp re-initialises
 * it); prepare takes the queue lock;
 * parent clears the pending fork and releases it; child re-initialises the
 * queue's condition variables, marks the thread absent (it starts again
 * on the next need) and queues again a batch whose grace period had not
 * ended. */
void rcupl_reclaim_fork_hold(bool wait);
void rcupl_reclaim_fork_gate_prepare(void);
void rcupl_reclaim_fork_gate_parent(void);
void rcupl_reclaim_fork_gate_child(bool taken);
void rcupl_reclaim_fork_prepare(void);
void rcupl_reclaim_fork_parent(void);
void rcupl_reclaim_fork_child(void);
/* Child handler only: queues a free without waking or starting anything;
 * adopt queues it only if it is not queued already (the hand-over of a
 * pool whose refs reached zero was cut by fork). */
void rcupl_reclaim_free_later_quiet(struct rcupl_pool *p, const char *why);
void rcupl_reclaim_fork_child_adopt(struct rcupl_pool *p);
/* Child handler only, after rcupl_reclaim_fork_child: the retire items of
 * p in the queue. A reset whose thread does not exist here may have
 * counted a retire (retires_pending, refs) and not queued it yet (FORK-7). */
unsigned rcupl_reclaim_fork_child_retires_queued(const struct rcupl_pool *p);
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

#endif /* RCUPOOL_LIB_RECLAIM_H */
