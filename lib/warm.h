/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: lib/warm.c's API, warm widths.
 */
#ifndef RCUPOOL_LIB_WARM_H
#define RCUPOOL_LIB_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pool.h"
#include "rcupool/rcupool.h"

/* Lets the manager's reference of p go if it is the only one (WARM-2): a
 * compare-and-swap of refs from 1 to 0. On success p is dying and the
 * caller owns it: it hands it to the reclaim thread once it holds no
 * manager lock (rcupl_warm_free). Call with p->manager->lock held, on a
 * managed pool that is not current. */
bool rcupl_warm_release_locked(struct rcupl_pool *p);

/* Chains released pools through free_work.next (caller's list), each with
 * the cause its free will log (`why`, a string literal), and hands them all
 * to the reclaim thread. */
void rcupl_warm_chain(struct rcupl_work **chain, struct rcupl_pool *p,
                      const char *why);
void rcupl_warm_free(struct rcupl_work *chain);

/* WARM-5, the limit: lets the longest unused warm pools of m go until the
 * pools m holds off current (warm, pinned, retiring, dispatched: each turns
 * warm by itself) are at most its warm_pools, or none of them is warm.
 * Called with m->lock held wherever a pool may join them: a pool started
 * for a sized pin, a reset's retire, every pass. The pools let go are
 * chained on *chain, for rcupl_warm_free() once no manager lock is held.
 * Returns how many. */
size_t rcupl_warm_limit_locked(rcupool_t *m, struct rcupl_work **chain);

/* rcupl_warm_limit_locked() under m->lock, then the pools it let go to
 * the reclaim thread: for a dispatch that may have left a pool warm off
 * current (PARALLEL-6). Call with no lock of m held, m not being
 * destroyed. Blocks briefly (m->lock). */
void rcupl_warm_limit_now(rcupool_t *m);

/* The expiry pass over every manager (the reclaim thread's): releases the
 * warm pools unused for their manager's warm_ms and those beyond its
 * warm_pools, and returns when the next pass is due (0: no pool is warm or
 * pinned off current, none is needed). */
uint64_t rcupl_warm_pass_all(void);

/* The same pass over m alone (barrier: all = false) or every warm pool of m
 * (trim: all = true). Returns the number released. No lock held. */
size_t rcupl_warm_pass(rcupool_t *m, bool all);

/* Stores the options' warm values in m (0: defaults). False, nothing
 * stored, when warm_ms > RCUPOOL_WARM_MS_MAX. */
bool rcupl_warm_set(rcupool_t *m, uint32_t warm_ms, uint32_t warm_pools);

#endif /* RCUPOOL_LIB_WARM_H */
