/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/barrier.c's API, the drain that rcupool_barrier() and
 * destroy wait with, and the check that such a wait would not wait for
 * the calling thread itself.
 */
#ifndef RCUPOOL_LIB_BARRIER_H
#define RCUPOOL_LIB_BARRIER_H

#include <stdbool.h>

#include "rcupool/rcupool.h"

/* Waits until every item queued before the call has run, then, unless m
 * is NULL, until no pool of m is waiting for a free already decided (a
 * hand-over still in flight on another thread). -EAGAIN when the reclaim
 * thread is absent and cannot be started (RECLAIM-8), else 0. */
int rcupl_reclaim_drain(rcupool_t *m);

/* True where a call that waits for the reclaim thread (barrier, destroy)
 * would wait for itself: inside a read-side section (the grace period
 * waits for it), inside a task or on any worker of an rcupool pool (a free
 * joins that pool's workers), or on the reclaim thread. Such a call
 * returns -EDEADLK (BARRIER-1). */
bool rcupl_reclaim_would_wait_for_self(void);

#endif /* RCUPOOL_LIB_BARRIER_H */
