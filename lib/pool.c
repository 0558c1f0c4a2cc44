/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pool object: a pthreadpool_t of a fixed thread count and its
 * reference count (see pool.h for what the references are).
 *
 * Invariants kept here:
 *   POOL-1. tp, threads and manager never change while the pool is alive,
 *       but in a fork child (POOL-6).
 *   POOL-2. refs never goes up from zero: rcupl_pool_tryget() fails on a dying
 *       pool, so exactly one party sees its rcupl_pool_put() return true.
 *   POOL-3. canary is RCUPL_POOL_CANARY from creation until rcupl_pool_free() poisons
 *       it, just before the memory is returned (after rcupl_pool_stop(): the
 *       threads go first, the memory a grace period later, RECLAIM-7).
 *   POOL-4. A pool is created only when its workers were just seen to
 *       start (lib/limits.c, LIMITS-2), so a thread limit makes the start
 *       -EAGAIN rather than a pthreadpool_create() that never returns.
 *   POOL-5. A pool orphaned by fork() is freed without its pthreadpool,
 *       whose workers do not exist in this process (pthreadpool_destroy()
 *       would wait for them for ever). That pthreadpool is not dropped: it
 *       goes on the process's list of orphaned pthreadpools (`orphans`),
 *       kept for the life of the process, so the memory stays accounted
 *       for (a leak checker sees it reachable, a debugger finds it).
 *   POOL-6. An orphan hands out no pthreadpool_t: the fork child handler
 *       (lib/fork.c, FORK-4), the child's only thread then, moves tp to
 *       orphan_tp and leaves tp NULL, so a pin, a current read
 *       (rcupool_current, its inline twin) or a dispatch in the child
 *       that still reaches the orphan gets NULL, on which pthreadpool runs
 *       the work on its caller, never a pthreadpool_t whose workers stayed
 *       in the parent (a call on it would wait for them for ever).
 *   POOL-7. With a pthreadpool that has the executor API, a pool of more
 *       than one thread owns none: it is a pthreadpool_create_v2() view
 *       over its manager's set of threads for its placement
 *       (lib/executor.c, EXECUTOR-2), whose threads are named, marked and
 *       bound when the set starts them (lib/exec_set.c), so no census
 *       runs. Its width is fixed for its life, as an owned pool's.
 *       A view's destroy runs its tasks still queued itself first, so it
 *       waits only for the set's threads already in it, never for one to
 *       come free (EXECUTOR-3). Without that API pools own their threads.
 *   POOL-8. The pin count is sharded exactly while the pool may be seen
 *       current by a section (pool.h): from its publish
 *       (rcupl_pool_shard_locked, before the release store of current)
 *       until a grace period after it stopped being current
 *       (rcupl_pool_gather_locked). Nothing but a gather reads a shard's
 *       value for the count (stats read it as a snapshot), and nothing
 *       but a re-shard drops it, so each pin and unpin is counted once:
 *       in a live shard, which the gather sums, or in refs (a sized
 *       pin's tryget, an unpin that finds its shard gathered; a pin in a
 *       section never finds it so, PIN-1). While sharded, refs
 *       holds RCUPL_SHARDED_BIAS and cannot reach zero; after the gather
 *       refs is the whole count, and the one-freer rule (POOL-2) is as
 *       before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "exec_types.h"
#include "executor.h"
#include "fault.h"
#include "idle.h"
#include "limits_internal.h"
#include "log_internal.h"
#include "placement.h"
#include "plural.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "worker.h"

int rcupl_pool_create(rcupool_t *m, size_t threads,
                      const rcupool_placement_t *pl, const char *call,
                      struct rcupl_pool **out) {
  struct rcupl_cpuset cpus;
  bool bind = false;
  /* PLACE-2. A 1-thread pool has no worker: nothing to place, so nothing
   * is read or logged (fork's prepare handler starts such a pool). */
  if (threads > 1) {
    int perr = rcupl_placement_resolve(pl, call, &cpus, &bind);
    if (perr != 0) return perr;
  }
  if (rcupl_fault(RCUPL_FAULT_ALLOC)) return -ENOMEM;
  const size_t size = sizeof(struct rcupl_pool) +
                      RCUPL_PIN_SHARDS * sizeof(struct rcupl_pin_shard);
  struct rcupl_pool *p = aligned_alloc(RCUPL_CACHELINE, size);
  if (p == NULL) return -ENOMEM;
  memset(p, 0, size);
  /* POOL-8: gathered until it is published. */
  for (size_t i = 0; i < RCUPL_PIN_SHARDS; i++)
    p->shards[i].count = RCUPL_SHARD_GATHERED;

  pthreadpool_t tp = NULL;
  size_t view_bind_failures = 0;
  if (RCUPL_HAVE_EXECUTOR && threads > 1) {
    /* POOL-7: a view over m's set of threads for pl (EXECUTOR-2). */
    int verr = rcupl_fault(RCUPL_FAULT_POOL_CREATE)
                   ? -EAGAIN
                   : rcupl_executor_view(m, threads, pl, bind ? &cpus : NULL,
                                         &tp, &view_bind_failures, &p->view);
    if (verr != 0) {
      free(p);
      return verr;
    }
  } else if (!rcupl_fault(RCUPL_FAULT_POOL_CREATE) &&
             rcupl_limits_threads_can_start(threads - 1)) {
    /* pthreadpool_create(n) starts n-1 workers; the caller is the n-th. */
    tp = pthreadpool_create(threads);
  }
  if (tp == NULL) {
    free(p);
    return -EAGAIN;
  }
  p->canary = RCUPL_POOL_CANARY;
  p->tp = tp;
  p->threads = pthreadpool_get_threads_count(tp);
  p->manager = m;
  p->placement = *pl;
  p->refs = 1; /* the manager's reference */
  rcupl_pool_stamp_use(p);
  p->managed = true;
  CDS_INIT_LIST_HEAD(&p->node);
  if (RCUPL_HAVE_EXECUTOR)
    p->bind_failures = view_bind_failures; /* the set's threads are bound */
  else
    p->bind_failures = rcupl_worker_census(
        p->tp, p->threads, rcupl_idle_flags_of(p->manager), bind ? &cpus : NULL,
        pl->strict, rcupl_placement_bind_worker);
  if (p->bind_failures != 0) {
    char text[64];
    rcupool_placement_format(pl, text, sizeof text);
    rcupl_log(RCUPOOL_LOG_WARN,
              "%s: %zu of the %zu %s of a pool placed \"%s\" could not "
              "be bound; they run where the OS puts them",
              call, p->bind_failures, p->threads - 1,
              rcupl_plural(p->threads - 1, "worker", "workers"), text);
  }
  *out = p;
  return 0;
}

void rcupl_pool_shard_locked(struct rcupl_pool *p) {
  if (p->sharded) return;
  /* The bias first: refs stays above zero whatever lands in it. */
  __atomic_fetch_add(&p->refs, RCUPL_SHARDED_BIAS, __ATOMIC_RELAXED);
  /* A gathered shard's value is dropped (POOL-8); a put racing this store
   * either found it gathered and went to refs, or finds it live. The
   * publish (release) that follows orders the stores before any pin. */
  for (size_t i = 0; i < RCUPL_PIN_SHARDS; i++)
    __atomic_store_n(&p->shards[i].count, 0, __ATOMIC_RELAXED);
  p->sharded = true;
}

void rcupl_pool_gather_locked(struct rcupl_pool *p) {
  if (!p->sharded) return;
  intptr_t sum = 0;
  /* Acquire: every live shard's unpins happen before what follows (a free
   * included); the exchange also marks the shard gathered, so a later
   * unpin there puts refs instead (POOL-8). */
  for (size_t i = 0; i < RCUPL_PIN_SHARDS; i++)
    sum += __atomic_exchange_n(&p->shards[i].count, RCUPL_SHARD_GATHERED,
                               __ATOMIC_ACQ_REL) /
           RCUPL_SHARD_ONE;
  /* No live shard's unpin stamped its use (pool.h, rcupl_pool_unpin_shard):
   * each came before its shard's exchange above, so the pool's last use in
   * its sharded time is no later than now (WARM-3). Before the add, whose
   * release orders it for the warm pass. */
  rcupl_pool_stamp_use_precise(p);
  /* One add: the shards' pins replace the bias. The caller still holds a
   * reference of its own (a retire's, the manager's), so refs stays above
   * zero here; its own put comes after. */
  __atomic_fetch_add(&p->refs, (size_t)(sum - (intptr_t)RCUPL_SHARDED_BIAS),
                     __ATOMIC_ACQ_REL);
  p->sharded = false;
}

/* A stamp's bound: a precise one is the use, a coarse one lags it. */
static uint64_t rcupl_stamp_until(uint64_t stamp, uint64_t lag) {
  return (stamp & RCUPL_STAMP_PRECISE) != 0 ? stamp : stamp + lag;
}

uint64_t rcupl_pool_used_until(const struct rcupl_pool *p, uint64_t lag) {
  uint64_t last =
      rcupl_stamp_until(__atomic_load_n(&p->last_use, __ATOMIC_RELAXED), lag);
  for (size_t i = 0; i < RCUPL_PIN_SHARDS; i++) {
    uint64_t s = rcupl_stamp_until(
        __atomic_load_n(&p->shards[i].last_use, __ATOMIC_RELAXED), lag);
    if (s > last) last = s;
  }
  return last;
}

void rcupl_pool_get_dispatch(struct rcupl_pool *p) {
  size_t old =
      __atomic_fetch_add(&p->refs, RCUPL_DISPATCH_REF, __ATOMIC_RELAXED);
  if (old == 0) rcupl_die("parallelize: pool %p reached at refs 0", (void *)p);
}

size_t rcupl_pool_put_dispatch(struct rcupl_pool *p) {
  rcupl_pool_stamp_use(p); /* WARM-3: the linger starts at the last use */
  size_t old =
      __atomic_fetch_sub(&p->refs, RCUPL_DISPATCH_REF, __ATOMIC_ACQ_REL);
  if (old < RCUPL_DISPATCH_REF)
    rcupl_die("dispatch reference underflow on pool %p", (void *)p);
  return old - RCUPL_DISPATCH_REF;
}

void rcupl_pool_check(const struct rcupl_pool *p, const char *where) {
  if (p->canary != RCUPL_POOL_CANARY)
    rcupl_die("%s: pool %p used after free (canary %#llx)", where,
              (const void *)p, (unsigned long long)p->canary);
}

/* POOL-5: the pthreadpools of pools orphaned by fork(), pushed by
 * rcupl_pool_stop() on the reclaim thread, a grace period before the pool's
 * memory is freed (a lock-free push: pushes are the only writes). A node that cannot be allocated leaves its pthreadpool
 * unlisted, nothing worse. */
struct rcupl_orphan {
  struct rcupl_orphan *next;
  pthreadpool_t tp;
};
static struct rcupl_orphan *orphans;

static void rcupl_pool_keep_orphan(pthreadpool_t tp) {
  struct rcupl_orphan *o = malloc(sizeof(*o));
  if (o == NULL) return;
  o->tp = tp;
  o->next = __atomic_load_n(&orphans, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&orphans, &o->next, o, true,
                                      __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
}

void rcupl_pool_stop(struct rcupl_pool *p) {
  rcupl_pool_check(p, "stop");
  if (p->fork_orphan)
    rcupl_pool_keep_orphan(p->orphan_tp); /* POOL-5 */
  else if (p->view != NULL) /* POOL-7: never waits for the set's threads */
    rcupl_executor_view_destroy(p->view, p->tp, p->threads);
  else
    pthreadpool_destroy(p->tp);
}

void rcupl_pool_free(struct rcupl_pool *p) {
  rcupl_pool_check(p, "free");
  __atomic_store_n(&p->canary, RCUPL_POOL_POISON, __ATOMIC_RELAXED);
  free(p);
}
