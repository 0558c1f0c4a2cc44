/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The manager: creation, destruction, the publish step, and what can be
 * read about it.
 *
 * Invariants kept here:
 *   MANAGER-1. Between create and destroy, m->current is never NULL and is
 *       on m->pools.
 *   MANAGER-2. destroy frees nothing while any pin is held (-EBUSY), and
 *       frees the manager only after every pool is off m->pools and every
 *       callback that could touch m has returned (a final drain of the
 *       reclaim queue). An unpin never touches the manager after its
 *       decrement (pin.c), so "no pin seen" is final: the only later users
 *       of m are callbacks, which the drain covers.
 *   MANAGER-3. pins = sum over pools of refs - (1 if managed) -
 *       retires_pending, read under m->lock, where retires_pending and
 *       "current" cannot move; refs here is rcupl_pool_counted_refs(), without
 *       the dispatch references of running rcupool_parallelize_1d() calls
 *       (one atomic load: a dispatch never counts as a pin). A pool held
 *       only by the manager and a dispatch counts as warm (it is not
 *       released until that dispatch ends, WARM-2). The current pool is always managed. The formula is written once,
 *       rcupl_pool_pins_locked() (pool.h).
 *   MANAGER-4. Under m->lock every alive pool is in exactly one of:
 *       current, retiring (retire pending), kept (pinned, was current),
 *       never current (pinned, started by a sized pin), warm (no pin,
 *       held by the manager, WARM-1), dying (refs 0); a reset reuses a never-current pool in one hold of the
 *       lock (reset.c, RESET-4), so stats see it in one state or the other.
 *   MANAGER-5. Every publish (create, reset, the fork child's spare) is
 *       rcupl_manager_publish_locked(), under m->lock: generation grows by one
 *       per publish and is stored in the pool before the pool pointer is
 *       published (release), so a reader that sees the pool sees its
 *       generation; m->generation, m->current_threads and the counters
 *       change in the same hold, so rcupool_get_stats() never sees half a
 *       publish.
 * The list of every manager, which create and destroy keep, is
 * lib/managers.c's (MANAGERS-1).
 *   MANAGER-6. The default manager comes up even where no thread can
 *       start (RLIMIT_NPROC, a pids cgroup): its first pool then has 1
 *       thread, which pthreadpool starts none of (the caller runs the
 *       work), a warning says so and stats count the failed start
 *       (start_failures). Its default count stays what it was, so a later
 *       rcupool_reset(m, 0) tries that count again. A manager made by
 *       rcupool_create() fails instead (-EAGAIN): its caller can check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "barrier.h"
#include "cpus.h"
#include "executor.h"
#include "fault.h"
#include "grace.h"
#include "idle.h"
#include "limits_internal.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_internal.h"
#include "managers.h"
#include "placement.h"
#include "plural.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "reclaim_work.h"
#include "registry.h"
#include "warm.h"

uint64_t rcupl_manager_publish_locked(rcupool_t *m, struct rcupl_pool *p,
                                      bool is_new, size_t threads) {
  if (is_new) {
    rcupl_pools_add_locked(&m->pools, p);
    m->pools_created++;
  }
  if (m->current != NULL) m->resets++;
  rcupl_pool_shard_locked(p); /* POOL-8: before any section can see it */
  uint64_t gen = m->generation + 1;
  __atomic_store_n(&p->generation, gen, __ATOMIC_RELAXED);
  __atomic_store_n(&m->current, p, __ATOMIC_RELEASE);
  __atomic_store_n(&m->generation, gen, __ATOMIC_RELAXED);
  __atomic_store_n(&m->current_threads, threads, __ATOMIC_RELAXED);
  return gen;
}

size_t rcupl_manager_default_threads(const rcupool_t *m) {
  return m->default_threads != 0 ? m->default_threads
                                 : rcupl_cpus_thread_count(__atomic_load_n(
                                       &m->default_rule, __ATOMIC_RELAXED));
}

/* A manager in *m with a first pool of default_threads threads (0:
 * rcupl_cpus_thread_count()) placed by pl (normalised), and the idle
 * policy idle_flags (IDLE-1: before the first pool's census reads it);
 * with one_if_no_room, a first pool that cannot start its threads is
 * replaced by a pool of 1 thread, which starts none (MANAGER-6). For
 * rcupool_create() only. */
static int rcupl_manager_init(rcupool_t *m, size_t default_threads, int rule,
                              uint32_t idle_flags,
                              const rcupool_placement_t *pl, bool follow,
                              bool one_if_no_room) {
  memset(m, 0, sizeof(*m));
  CDS_INIT_LIST_HEAD(&m->pools);
  m->default_threads = default_threads;
  __atomic_store_n(&m->default_rule, rule, __ATOMIC_RELAXED);
  m->idle_flags = idle_flags;
  m->placement = *pl;
  m->follow = follow && default_threads == 0;
  /* FOLLOW-1: the limits as they are now; the first parallel call checks
   * them again (follow_due_ns 0), later ones once a period. */
  if (m->follow) rcupl_cpus_compute(&m->follow_last, rule);
  rcupl_warm_set(m, 0, 0); /* rcupl_manager_create sets the options' values */
  if (pthread_mutex_init(&m->writer, NULL) != 0) return -ENOMEM;
  if (pthread_mutex_init(&m->lock, NULL) != 0) {
    rcupl_mutex_destroy(&m->writer);
    return -ENOMEM;
  }
  struct rcupl_pool *p;
  const size_t want = rcupl_manager_default_threads(m);
  int err = rcupl_manager_pool_create(m, want, &m->placement, "create", &p);
  if (err == -EAGAIN && one_if_no_room && want > 1) {
    err = rcupl_manager_pool_create(m, 1, &m->placement, "create", &p);
    if (err == 0)
      rcupl_log(RCUPOOL_LOG_WARN,
                "default: no room to start %zu %s (a limit such as "
                "ulimit -u); the process-wide pool has 1 thread, so parallel "
                "work runs on the calling thread until a reset succeeds "
                "(stats: start_failures)",
                want, rcupl_threads_noun(want));
  }
  if (err != 0) {
    rcupl_mutex_destroy(&m->lock);
    rcupl_mutex_destroy(&m->writer);
    return err;
  }
  /* No other thread knows m yet; the locks keep MANAGER-5 one path. */
  rcupl_mutex_lock(&m->writer);
  rcupl_mutex_lock(&m->lock);
  rcupl_manager_publish_locked(m, p, true, p->threads);
  rcupl_mutex_unlock(&m->lock);
  rcupl_mutex_unlock(&m->writer);
  rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: publish pool %p (%zu %s) gen 1",
            (void *)m, (void *)p, p->threads, rcupl_threads_noun(p->threads));
  return 0;
}

static int rcupl_manager_create(const rcupool_options_t *opts, rcupool_t **out,
                                bool one_if_no_room) {
  if (out == NULL) return -EINVAL;
  size_t threads = opts != NULL ? opts->threads : 0;
  if (rcupl_limits_check_threads("create", threads) != 0) return -EINVAL;
  uint32_t idle_flags;
  rcupool_idle_t idle = opts != NULL ? opts->idle : RCUPOOL_IDLE_DEFAULT;
  if (!rcupl_idle_flags(idle, &idle_flags)) {
    rcupl_log(RCUPOOL_LOG_ERROR, "create: %d is not an idle policy", (int)idle);
    return -EINVAL;
  }
  uint32_t warm_ms = opts != NULL ? opts->warm_ms : 0;
  if (warm_ms > RCUPOOL_WARM_MS_MAX) {
    rcupl_log(RCUPOOL_LOG_ERROR, "create: warm_ms %u is above the maximum %u",
              (unsigned)warm_ms, (unsigned)RCUPOOL_WARM_MS_MAX);
    return -EINVAL;
  }
  rcupool_follow_t follow =
      opts != NULL ? opts->follow : RCUPOOL_FOLLOW_DEFAULT;
  if (follow != RCUPOOL_FOLLOW_DEFAULT && follow != RCUPOOL_FOLLOW_ON &&
      follow != RCUPOOL_FOLLOW_OFF) {
    rcupl_log(RCUPOOL_LOG_ERROR, "create: %d is not a follow setting",
              (int)follow);
    return -EINVAL;
  }
  int rule = opts != NULL ? opts->default_rule : RCUPOOL_DEFAULT_RULE_CORES;
  if (rule != RCUPOOL_DEFAULT_RULE_CORES &&
      rule != RCUPOOL_DEFAULT_RULE_PROCESSORS) {
    rcupl_log(RCUPOOL_LOG_ERROR, "create: %d is not a default rule", rule);
    return -EINVAL;
  }
  rcupool_placement_t placement;
  memset(&placement, 0, sizeof placement);
  if (opts != NULL) {
    if (rcupl_placement_check(&opts->placement) != 0) {
      rcupl_log(RCUPOOL_LOG_ERROR, "create: not a placement (policy %d)",
                (int)opts->placement.policy);
      return -EINVAL;
    }
    placement = opts->placement;
    rcupl_placement_normalise(&placement);
    /* PLACE-2's refusal whatever the count: a 1-thread pool is never
     * resolved, yet this manager's pools of more would all be refused. */
    if (!rcupl_placement_can_place(&placement)) {
      rcupl_log(RCUPOOL_LOG_ERROR,
                "create: no CPU of the placement is in the affinity mask and "
                "online");
      return -EINVAL;
    }
  }
  rcupool_t *m = NULL;
  if (!rcupl_fault(RCUPL_FAULT_ALLOC)) m = malloc(sizeof(*m));
  if (m == NULL) {
    rcupl_log(RCUPOOL_LOG_ERROR, "create: out of memory");
    return -ENOMEM;
  }
  int err = rcupl_manager_init(m, threads, rule, idle_flags, &placement,
                               follow != RCUPOOL_FOLLOW_OFF, one_if_no_room);
  if (err != 0) {
    free(m);
    rcupl_log(RCUPOOL_LOG_ERROR, "create: cannot start the first pool (%d)",
              err);
    return err;
  }
  if (opts != NULL) rcupl_warm_set(m, opts->warm_ms, opts->warm_pools);
  rcupl_managers_add(m);
  *out = m;
  return 0;
}

int rcupool_create(const rcupool_options_t *opts, rcupool_t **out) {
  int err = rcupl_manager_create(opts, out, false);
  rcupl_log_deliver();
  return err;
}

int rcupl_manager_create_default(const rcupool_options_t *opts,
                                 rcupool_t **out) {
  return rcupl_manager_create(opts, out, true); /* delivered by the caller */
}

/* Counts pins over m's pools. Call with m->lock held. */
static size_t rcupl_manager_pins_locked(const rcupool_t *m) {
  size_t pins = 0;
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) pins += rcupl_pool_pins_locked(p);
  return pins;
}

static int rcupl_manager_destroy(rcupool_t *m) {
  if (m == NULL) return 0;
  if (m->is_default) {
    rcupl_log(RCUPOOL_LOG_ERROR,
              "destroy: manager %p is the process-wide manager; refused "
              "(rcupool_finalize() joins its threads at exit)",
              (void *)m);
    return -EPERM;
  }
  if (rcupl_reclaim_would_wait_for_self()) {
    rcupl_log(RCUPOOL_LOG_ERROR,
              "destroy: called inside a read-side section, a task or on the "
              "reclaim thread; it would wait for itself");
    return -EDEADLK;
  }
  /* Nothing is changed unless the reclaim thread runs: every wait below
   * is a wait for it (RECLAIM-8). */
  int err = rcupl_reclaim_ensure_thread();
  if (err != 0) {
    rcupl_log(RCUPOOL_LOG_ERROR,
              "destroy: cannot start the reclaim thread (%d); nothing freed",
              err);
    return err;
  }
  rcupl_mutex_lock(&m->writer);
  rcupl_mutex_lock(&m->lock);
  size_t pins = rcupl_manager_pins_locked(m);
  if (pins != 0) {
    rcupl_mutex_unlock(&m->lock);
    rcupl_mutex_unlock(&m->writer);
    rcupl_log(RCUPOOL_LOG_WARN, "destroy: manager %p still has %zu %s",
              (void *)m, pins, rcupl_plural(pins, "pin", "pins"));
    return -EBUSY;
  }
  struct rcupl_pool *cur = m->current;
  __atomic_store_n(&m->current, NULL, __ATOMIC_RELEASE);
  rcupl_mutex_unlock(&m->lock);

  /* Readers that saw cur leave their sections; then the manager's
   * references can go, cur's and every warm pool's (WARM-2). With no pins
   * each is the last one unless a retire is pending (or a dispatch of a
   * caller that broke the rule above still holds the pool). */
  rcupl_grace_synchronize();
  struct rcupl_work *last = NULL;
  rcupl_mutex_lock(&m->lock);
  /* No section sees cur now: its pins are one count again (POOL-8). A
   * retired pool still sharded is gathered by its retire callback. */
  rcupl_pool_gather_locked(cur);
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    if (!p->managed) continue;
    p->managed = false;
    if (rcupl_pool_put(p)) rcupl_warm_chain(&last, p, "manager destroyed");
  }
  rcupl_mutex_unlock(&m->lock);
  /* Unlinked and freed on the reclaim thread, like every pool
   * (RECLAIM-5). */
  rcupl_warm_free(last);

  /* Every other pool is waiting for a retire callback or for a free that
   * an unpin has already queued (or is about to). Wait until the list is
   * empty; each wait also covers the callbacks queued before it, so the
   * last one that saw the list empty has seen them return. */
  for (;;) {
    rcupl_reclaim_drain(NULL);
    rcupl_mutex_lock(&m->lock);
    bool empty = cds_list_empty(&m->pools);
    rcupl_mutex_unlock(&m->lock);
    if (empty) break;
  }
  rcupl_reclaim_drain(NULL);
  const unsigned long long created = m->pools_created;
  rcupl_mutex_unlock(&m->writer);
  rcupl_managers_remove(m);
  rcupl_executor_forget(m); /* EXECUTOR-1: no pool of m is left */
  rcupl_log(RCUPOOL_LOG_DEBUG, "manager %p: destroyed (%llu %s created)",
            (void *)m, created, rcupl_plural(created, "pool", "pools"));
  rcupl_mutex_destroy(&m->writer);
  rcupl_mutex_destroy(&m->lock);
  free(m);
  return 0;
}

int rcupool_destroy(rcupool_t *m) {
  int err = rcupl_manager_destroy(m);
  rcupl_log_deliver();
  return err;
}

size_t rcupool_threads(rcupool_t *m) {
  if (m == NULL) return 0;
  return __atomic_load_n(&m->current_threads, __ATOMIC_RELAXED);
}

uint64_t rcupool_generation(rcupool_t *m) {
  if (m == NULL) return 0;
  return __atomic_load_n(&m->generation, __ATOMIC_RELAXED);
}

int rcupool_get_placement(rcupool_t *m, rcupool_placement_t *out) {
  if (m == NULL || out == NULL) return -EINVAL;
  *out = m->placement; /* immutable after create */
  return 0;
}

int rcupool_get_stats(rcupool_t *m, rcupool_stats_t *out) {
  if (m == NULL || out == NULL) return -EINVAL;
  rcupool_stats_t s;
  memset(&s, 0, sizeof s);
  rcupl_mutex_lock(&m->lock);
  rcupl_hold_point(RCUPL_HOLD_MANAGER_LOCK);
  s.generation = m->generation;
  s.threads = m->current_threads;
  s.resets = m->resets;
  s.reuses = m->reuses;
  s.pools_created = m->pools_created;
  s.pools_freed = m->pools_freed;
  s.follows = m->follows;
  s.start_failures = __atomic_load_n(&m->start_failures, __ATOMIC_RELAXED);
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    size_t all_refs = rcupl_pool_refs(p);
    size_t pins = rcupl_pool_pins_locked(p);
    bool is_current = p == m->current;
    s.pools_alive++;
    s.bind_failures += p->bind_failures;
    if (!p->fork_orphan) s.threads_alive += p->threads; /* FORK-4 */
    s.pins += pins;
    s.frees_pending += p->retires_pending;
    if (all_refs == 0) {
      s.frees_pending++; /* handed to the reclaim thread */
    } else if (is_current || p->retires_pending != 0) {
      /* current, or retiring */
    } else if (pins == 0) {
      s.pools_idle++; /* warm (WARM-1), or held by a dispatch alone */
      if (!p->fork_orphan) s.threads_idle += p->threads;
    } else if (p->generation == 0) {
      s.pools_never_current++; /* started for rcupool_pin_sized() */
    } else {
      s.pools_kept++;
    }
  }
  rcupl_mutex_unlock(&m->lock);
  s.log_dropped = rcupl_log_dropped();
  *out = s;
  rcupl_log_deliver();
  return 0;
}
