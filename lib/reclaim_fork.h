/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/reclaim_fork.c's API, the reclaim queue's fork handlers
 * (RECLAIM_FORK-1, -2).
 */
#ifndef RCUPOOL_LIB_RECLAIM_FORK_H
#define RCUPOOL_LIB_RECLAIM_FORK_H

#include <stdbool.h>

struct rcupl_pool;

/* fork (lib/fork.c, RECLAIM_FORK-1, -2, GRACE-1): hold marks a fork
 * pending and, if `wait`, waits out a running callback batch (no lock held
 * after); prepare takes the queue lock; parent clears the pending fork and
 * releases it; child re-initialises the queue's condition variables, marks
 * the thread absent (it starts again on the next need) and queues again a
 * batch whose grace period had not ended. */
void rcupl_reclaim_fork_hold(bool wait);
void rcupl_reclaim_fork_prepare(void);
void rcupl_reclaim_fork_parent(void);
void rcupl_reclaim_fork_child(void);
/* Child handler only: queues a free of p without waking or starting
 * anything, only if it is not queued already (the hand-over of a pool
 * whose refs reached zero was cut by fork). */
void rcupl_reclaim_fork_child_adopt(struct rcupl_pool *p);
/* Child handler only, after rcupl_reclaim_fork_child: the retire items of
 * p in the queue. A reset whose thread does not exist here may have
 * counted a retire (retires_pending, refs) and not queued it yet (FORK-7). */
unsigned rcupl_reclaim_fork_child_retires_queued(const struct rcupl_pool *p);

#endif /* RCUPOOL_LIB_RECLAIM_FORK_H */
