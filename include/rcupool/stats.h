/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool/stats.h: a snapshot of a manager's state.
 *
 * Part of <rcupool/rcupool.h>, which includes it: include that.
 */
#ifndef RCUPOOL_STATS_H
#define RCUPOOL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <rcupool/common.h>
#include <rcupool/manager.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rcupool_stats {
  uint64_t generation; /* as rcupool_generation() */
  size_t threads;      /* current pool's thread count */
  size_t pools_alive;  /* current pool + every other pool not yet freed
                            (retired, or started by rcupool_pin_sized()) */
  size_t pools_kept;   /* retired pools past their grace period, pinned */
  size_t pins;         /* pins held on all pools of the manager */
  uint64_t resets;     /* resets that changed the current pool */
  uint64_t reuses;     /* of which made a live pool current (warm, retiring,
                          kept, or a sized pin's) instead of starting one */
  uint64_t pools_created;
  uint64_t pools_freed;
  size_t frees_pending; /* grace-period callbacks and frees not yet run */
  size_t threads_alive; /* sum of the thread counts of pools_alive */
  /* Appended fields (those above keep their offsets). */
  size_t pools_never_current; /* alive, pinned, never current: started by
                                 rcupool_pin_sized() (widths in use besides
                                 the current one and the kept ones) */
  uint64_t log_dropped;       /* process-wide: log records lost to a full queue
                            (the hook is told how many at its next call) */
  size_t pools_idle;          /* warm: alive, not current, no pin, no retire
                            pending; held by the manager for their width */
  size_t threads_idle;        /* sum of the thread counts of pools_idle */
  uint64_t start_failures;    /* pool starts refused for want of threads
                            (a limit such as RLIMIT_NPROC): by a reset, a
                            sized pin, or the default manager's first pool,
                            which then has 1 thread (rcupool_default()) */
  uint64_t follows;           /* resets made by following the CPU limits
                           (rcupool_follow_t) */
  size_t bind_failures;       /* workers of the pools alive whose placement
                           could not be applied (rcupool/placement.h) */
} rcupool_stats_t;

/*
 * A snapshot of m's state, consistent at one instant for the manager's own
 * bookkeeping (pins may move while it is taken).
 * Returns: 0 and fills *out, or -EINVAL when m or out is NULL.
 * Threads: any.
 * Blocks: no longer than the manager's internal lock is held (a walk of
 *   its pools) and the log queue's lock.
 * Lifetime: no pointers kept; *out is a copy.
 */
RCUPOOL_API int rcupool_get_stats(rcupool_t *m, rcupool_stats_t *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RCUPOOL_STATS_H */
