/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the item of the reclaim thread's queue, which a
 * pool embeds for its own free (lib/pool.h) and the reclaim thread runs
 * (lib/reclaim.c). Apart from reclaim.h so that the pool, below the
 * reclaim thread, names it without calling up into it.
 */
#ifndef RCUPOOL_LIB_RECLAIM_WORK_H
#define RCUPOOL_LIB_RECLAIM_WORK_H

/* A unit of work for rcupool's reclaim thread (lib/reclaim.c): run after a
 * grace period that began after it was queued. Intrusive: no allocation. */
struct rcupl_work {
  struct rcupl_work *next;
  void (*fn)(struct rcupl_work *w);
};

#endif /* RCUPOOL_LIB_RECLAIM_WORK_H */
