/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Warm widths: the manager keeps a pool that lost its last pin alive for a
 * while, keyed by its width, so the next sized pin, scope or reset of that
 * width is a lookup instead of a thread start; the expiry pass lets such
 * pools go.
 *
 * Invariants kept here:
 *   WARM-1. A pool is warm when it is managed (the manager holds its
 *       reference, pool.h), not current, and holds no pin, retire or
 *       dispatch reference: refs == 1. A reset to its width reuses it
 *       (RESET-2), a sized pin takes it with rcupl_pool_tryget() from 1
 *       (SIZED-1): neither starts a thread.
 *   WARM-2. The manager's reference of a pool that is not current goes
 *       only here, under m->lock, by one compare-and-swap of refs from 1
 *       to 0 (rcupl_warm_release_locked), or at destroy (MANAGER-2: no pin
 *       left). So no pin, retire or dispatch is pending when it goes, and
 *       none can come after: rcupl_pool_tryget() refuses 0, and a section
 *       reaches without it only the current pool (PIN-1). A pin racing the
 *       release either takes the pool from 1 to 2 first, and the release
 *       fails, or finds it at 0 and takes or starts another (SIZED-2). The
 *       released pool is dying and the releaser owns it: it hands it to the
 *       reclaim thread (unlink, stop, free a grace period later, RECLAIM-7)
 *       after it has dropped every manager lock.
 *   WARM-3. A warm pool goes once unused for its manager's warm_ns, measured
 *       from its last use. Each use that may be the last stamps it (pool.h)
 *       before dropping its reference: an unpin that finds its CPU's shard
 *       gathered, on that shard's line, which it writes anyway (PIN-2), the
 *       end of a dispatch on pool->last_use, the creation and the retire
 *       callback after which it turns warm there too. An unpin of a live
 *       shard stamps nothing: the pool is sharded, so it cannot turn warm
 *       before the gather that follows the decrement, and every gather
 *       stamps on the precise clock after its exchange. A stamp's low bit
 *       says its clock. Hot paths read the coarse clock (clock.h): a stamp s
 *       of a use at u then has u - lag < s <= u (lag =
 *       rcupl_coarse_lag_ns(), two ticks). Where the cost is paid once per
 *       linger, the precise one: a gather, the retire callback, and an unpin
 *       that finds the pool off current with refs at 2 (this pin and the
 *       manager's), so the put that follows turns it warm; then s = u. A
 *       pass, on the precise clock, takes until = the latest over the stamps
 *       of s (precise) or s + lag (coarse), releases a warm pool when now -
 *       until >= warm_ns, and otherwise makes the next pass due at until +
 *       warm_ns. Never early: every use u <= until. Late by the reclaim
 *       thread's wake-up (measured: 0.3-1.7 ms) where the last use's stamp
 *       is precise (the common case: a pool retired, then unpinned by its
 *       last user), and by up to lag more (8 ms at 250 Hz, 20 ms at 100 Hz)
 *       where it is coarse (a dispatch's end, or an unpin that saw another
 *       pin still held); the stated tolerance is 100 ms
 *       (tests/warm_lifetime_test.cc). Only a tick more than one
 *       resolution late could end a linger early, by that excess.
 *       A pin and its unpin both made between a pass's look at the pool
 *       and its compare-and-swap (a few instructions under m->lock) are not
 *       seen by it; nothing else is. A pool orphaned by fork() (never
 *       reused, RESET-2) goes at the first pass that finds it warm.
 *   WARM-4. Passes run: on the reclaim thread after each batch and at the
 *       time the last pass said (rcupl_warm_pass_all's result: the end of
 *       the earliest linger, or one linger from now while a pool off
 *       current is in use, since its unpin reports nothing; none while no
 *       pool other than the current one is alive, so an idle process
 *       sleeps and wakes for nothing but a linger's end); in
 *       rcupool_barrier() for its manager; in rcupool_trim() (every warm
 *       pool, lib/barrier.c). A pass takes managers_mu, then m->lock (fork's order,
 *       FORK-2), runs no user code, and pushes what it released after
 *       unlocking. Its due times are CLOCK_MONOTONIC, and so is the
 *       reclaim thread's wait for them (lib/lock.c, LOCK-3).
 *   WARM-5. The limit holds the moment a pool turns warm. The pools a
 *       manager holds off current (warm, pinned, retiring, dispatched) each
 *       turn warm by themselves (an unpin, a grace period, a dispatch's
 *       end). So wherever one may join them (a sized pin starting a pool,
 *       a reset retiring one) and at every pass, rcupl_warm_limit_locked()
 *       lets the longest unused warm ones go until those pools number at
 *       most warm_max: then however many of them turn warm, at most
 *       warm_max are. When more than warm_max are held by something that
 *       is not a pin, the end of that hold applies the limit again: a
 *       grace period's at the pass after its batch (WARM-4), a dispatch's
 *       in its own thread (PARALLEL-6). Only when pins alone hold more than
 *       warm_max pools off current can more than warm_max be warm, and
 *       then only until the next pass, at most warm_ns after their unpins
 *       (WARM-4): an unpin stays a store and a decrement (PIN-2), with no
 *       lock and no wake-up, and a holder that keeps that many pins chose
 *       those pools. With RCUPOOL_WARM_NONE
 *       (warm_max 0) a retired pool goes at the pass after its grace
 *       period, a pinned one at the first pass after its last unpin.
 */
#include <errno.h>
#include <time.h>

#include "clock.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_state.h"
#include "managers.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "reclaim_work.h"
#include "registry.h"
#include "warm.h"

/* Passes are at least this far apart, so a short warm_ms with a pool held
 * by a long pin does not make the reclaim thread spin. */
#define RCUPL_WARM_MIN_PERIOD_NS UINT64_C(10000000) /* 10 ms */

bool rcupl_warm_set(rcupool_t *m, uint32_t warm_ms, uint32_t warm_pools) {
  if (warm_ms > RCUPOOL_WARM_MS_MAX) return false;
  if (warm_ms == 0) warm_ms = RCUPOOL_WARM_MS_DEFAULT;
  uint32_t max = warm_pools == 0                   ? RCUPOOL_WARM_POOLS_DEFAULT
                 : warm_pools == RCUPOOL_WARM_NONE ? 0
                                                   : warm_pools;
  __atomic_store_n(&m->warm_ns, (uint64_t)warm_ms * UINT64_C(1000000),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&m->warm_max, max, __ATOMIC_RELAXED);
  return true;
}

bool rcupl_warm_release_locked(struct rcupl_pool *p) {
  size_t one = 1;
  if (!__atomic_compare_exchange_n(&p->refs, &one, 0, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_RELAXED))
    return false;
  p->managed = false;
  return true;
}

void rcupl_warm_chain(struct rcupl_work **chain, struct rcupl_pool *p,
                      const char *why) {
  p->free_why = why;
  p->free_work.next = *chain;
  *chain = &p->free_work;
}

void rcupl_warm_free(struct rcupl_work *chain) {
  while (chain != NULL) {
    struct rcupl_work *w = chain;
    chain = w->next;
    struct rcupl_pool *p = caa_container_of(w, struct rcupl_pool, free_work);
    rcupl_reclaim_free_later(p, p->free_why);
  }
}

/* What one pass over one manager did. */
struct rcupl_warm_pass {
  uint64_t now;
  uint64_t lag; /* rcupl_coarse_lag_ns(): the stamps' clock (WARM-3) */
  uint64_t due; /* the next pass, 0: none needed */
  bool all;     /* trim: every warm pool goes */
  size_t released;
  struct rcupl_work *chain; /* released pools, handed over after the locks */
};

static void rcupl_warm_due(struct rcupl_warm_pass *w, uint64_t at) {
  if (at < w->now + RCUPL_WARM_MIN_PERIOD_NS)
    at = w->now + RCUPL_WARM_MIN_PERIOD_NS;
  if (w->due == 0 || at < w->due) w->due = at;
}

static void rcupl_warm_let_go_locked(struct rcupl_warm_pass *w,
                                     struct rcupl_pool *p, const char *why) {
  if (!rcupl_warm_release_locked(p)) return; /* pinned meanwhile: in use */
  w->released++;
  rcupl_warm_chain(&w->chain, p, why);
}

/* WARM-1's definition: managed, not current, no pin, retire or dispatch
 * reference. Called with m->lock held. */
static bool rcupl_warm_is_warm_locked(const rcupool_t *m,
                                      const struct rcupl_pool *p) {
  return p != m->current && p->managed && rcupl_pool_refs(p) == 1 &&
         p->retires_pending == 0;
}

size_t rcupl_warm_limit_locked(rcupool_t *m, struct rcupl_work **chain) {
  const uint32_t max = __atomic_load_n(&m->warm_max, __ATOMIC_RELAXED);
  size_t held = 0, released = 0;
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    if (p != m->current && p->managed) held++; /* refs >= 1 (WARM-2) */
  }
  while (held > max) {
    struct rcupl_pool *oldest = NULL;
    uint64_t oldest_use = 0;
    rcupl_for_each_pool(p, m) {
      if (!rcupl_warm_is_warm_locked(m, p)) continue;
      uint64_t use = rcupl_pool_used_until(p, rcupl_coarse_lag_ns());
      if (oldest == NULL || use < oldest_use) {
        oldest = p;
        oldest_use = use;
      }
    }
    /* None warm: the rest are pinned, retiring or dispatched, and the
     * manager may not let them go (WARM-2); each is looked at again when
     * it turns warm (WARM-5). A pin that took the oldest meanwhile ends
     * this call too: the next pass looks again. */
    if (oldest == NULL || !rcupl_warm_release_locked(oldest)) break;
    rcupl_warm_chain(chain, oldest, "beyond warm_pools");
    held--;
    released++;
  }
  return released;
}

void rcupl_warm_limit_now(rcupool_t *m) {
  struct rcupl_work *chain = NULL;
  rcupl_mutex_lock(&m->lock);
  if (m->current != NULL) rcupl_warm_limit_locked(m, &chain);
  rcupl_mutex_unlock(&m->lock);
  rcupl_warm_free(chain);
}

/* WARM-3 and WARM-5 over m's pools. Called with m->lock held. */
static void rcupl_warm_pass_locked(rcupool_t *m, struct rcupl_warm_pass *w) {
  if (m->current == NULL) return; /* destroy owns every pool now */
  /* Measured from the latest time the last use can have been: a precise
   * stamp, or a coarse one plus its lag (WARM-3). */
  const uint64_t warm_ns = __atomic_load_n(&m->warm_ns, __ATOMIC_RELAXED);
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    if (p == m->current || !p->managed) continue;
    if (!rcupl_warm_is_warm_locked(m, p)) {
      /* In use (pinned, retiring, dispatched). Its linger will start at
       * its last use, which nobody reports (PIN-2): looked at again one
       * linger from now, the earliest it can end (WARM-4); that look
       * finds the last use's stamp and waits for the rest. */
      rcupl_warm_due(w, w->now + warm_ns);
      continue;
    }
    /* After the acquire load of refs (is_warm): the stamp of the unpin
     * that left it warm is seen. A stamp after `now` is not expired. */
    const uint64_t since = rcupl_pool_used_until(p, w->lag);
    if (w->all || p->fork_orphan ||
        (w->now >= since && w->now - since >= warm_ns)) {
      rcupl_warm_let_go_locked(w, p,
                               w->all ? "trim"
                               : p->fork_orphan
                                   ? "fork orphan"
                                   : "warm expiry (unused for warm_ms)");
      continue;
    }
    rcupl_warm_due(w, since + warm_ns);
  }
  w->released += rcupl_warm_limit_locked(m, &w->chain);
}

static void rcupl_warm_pass_each(rcupool_t *m, void *ctx) {
  rcupl_mutex_lock(&m->lock);
  /* Read under the lock, at the pass over this manager. */
  ((struct rcupl_warm_pass *)ctx)->now = rcupl_now_ns();
  ((struct rcupl_warm_pass *)ctx)->lag = rcupl_coarse_lag_ns();
  rcupl_warm_pass_locked(m, ctx);
  rcupl_mutex_unlock(&m->lock);
}

uint64_t rcupl_warm_pass_all(void) {
  struct rcupl_warm_pass w = {.now = 0}; /* each manager's under its lock */
  rcupl_managers_each(rcupl_warm_pass_each, &w);
  rcupl_warm_free(w.chain);
  return w.due;
}

size_t rcupl_warm_pass(rcupool_t *m, bool all) {
  struct rcupl_warm_pass w = {.now = 0, .all = all};
  rcupl_warm_pass_each(m, &w);
  rcupl_warm_free(w.chain);
  if (w.due != 0) rcupl_reclaim_warm_kick(w.due);
  return w.released;
}

int rcupool_set_warm(rcupool_t *m, uint32_t warm_ms, uint32_t warm_pools) {
  int err = 0;
  if (m == NULL) {
    err = -EINVAL;
  } else if (!rcupl_warm_set(m, warm_ms, warm_pools)) {
    rcupl_log(RCUPOOL_LOG_ERROR, "set_warm: %u ms is above the maximum %u",
              (unsigned)warm_ms, (unsigned)RCUPOOL_WARM_MS_MAX);
    err = -EINVAL;
  } else {
    rcupl_reclaim_warm_kick(0); /* the pools warm now meet the new values */
  }
  rcupl_log_deliver();
  return err;
}

/* WARM-4: the reclaim thread's pass, registered while the library loads
 * (reclaim.c runs what it is given; it does not know warm widths). */
__attribute__((constructor)) static void rcupl_warm_register_pass(void) {
  rcupl_reclaim_set_pass(rcupl_warm_pass_all);
}
