/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pins: a holder's claim on one pool, in caller-owned storage.
 *
 * Invariants kept here:
 *   PIN-1. A pin is taken inside a read-side section on the pool that section
 *       saw as current. That pool holds a current or retire reference for as
 *       long as the section lasts (its retire callback waits for the section),
 *       so the count never starts from zero; and it is sharded until a grace
 *       period after it stopped being current (POOL-8), so the pin is one
 *       increment of its CPU's shard, a line no thread on another CPU
 *       writes (invariant 15).
 *   PIN-2. An unpin's last access to shared memory is, for a pin counted on
 *       a shard (PIN-4), its decrement of its CPU's shard of the pool's pin
 *       count; if that shard was gathered (the value the decrement returns
 *       says so, pool.h), or for a pin counted in refs, its put of the
 *       pool's refs, and, if that was the last reference, the hand-over of
 *       the pool it now owns to the reclaim thread. It never touches the
 *       manager (there is no manager-wide pin count: destroy sums the
 *       pools'), so rcupool_destroy() can trust a pin count of zero, and it
 *       never frees on the calling thread (a task may unpin its own pool). A
 *       decrement of a live shard reads no clock: the gather that must come
 *       after it stamps the pool's last use; every other unpin stamps before
 *       its put, on the line it writes anyway (a warm pool's linger starts
 *       at the latest stamp, lib/warm.c, WARM-3).
 *   PIN-3. An empty pin has pool_ == NULL; rcupool_unpin() empties the pin it
 *       releases, so a second unpin is detected, logged and ignored.
 *   PIN-4. A pin records where it is counted, in pool_'s low bit
 *       (RCUPL_PIN_IN_REFS, pool.h; every reader of pool_ masks it with
 *       rcupl_pin_pool): clear for a pin taken in a section on the current
 *       pool (PIN-1: a shard), set for a sized pin that took a live pool
 *       with rcupl_pool_tryget() or started it (SIZED-1, SIZED-3: refs).
 *       Its unpin gives the count back where it was taken: nothing moves
 *       what refs holds into a shard (a re-shard adds only the bias, a
 *       gather moves the other way), so a refs pin's put never touches a
 *       shard, and a live pool off current costs its pinners one line,
 *       refs', as before pins were sharded.
 *
 * Sized pins (rcupool_pin_sized):
 *   SIZED-1. A sized pin of the current size is taken exactly as PIN-1. Any
 *       other live pool is found without a lock, by a walk of m->pools inside
 *       one read-side section (whose nodes outlive their unlink by a grace
 *       period, RECLAIM-7), and taken with rcupl_pool_tryget(), never from
 *       zero: a pool whose last reference an unpin has just dropped is dying
 *       and is skipped, and a new pool of its size may then coexist with it
 *       until the reclaim thread frees it (as for reset, RESET-2).
 *   SIZED-2. A pool is started only under m->writer, after a second search
 *       under that mutex: resets and other sized pins that start pools are
 *       serialised with it, so no two live pools of one size are ever both
 *       reachable (one pool per thread count, current or not).
 *   SIZED-3. A pool started here has refs = 2 (this pin's and the
 *       manager's, WARM-1) and generation 0 (never current); it goes on
 *       m->pools under m->lock before the pin is returned. Its last unpin
 *       leaves it warm for the next pin of its width (lib/warm.c), or a
 *       reset reuses it and makes it current (reset.c, RESET-4).
 *   SIZED-4. A failure to start a pool changes nothing: the pin stays empty
 *       and no pool, thread or counter is added.
 *   SIZED-6. A sized pin's pool has the manager's placement; a placed pin
 *       (rcupool_pin_placed) one of its own, and every search matches
 *       width and placement (PLACE-1): the current pool is taken only for
 *       the manager's placement, whose pools it always has.
 *   SIZED-5. A sized pin's generation is the manager's generation when it was
 *       taken (for a pin of the current pool, that pool's generation, as for
 *       rcupool_pin()).
 */
#include <errno.h>
#include <stdint.h>

#include "clock.h"
#include "limits_internal.h"
#include "lock.h"
#include "log_deliver.h"
#include "log_internal.h"
#include "manager_internal.h"
#include "placement.h"
#include "plural.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "read_internal.h"
#include "reclaim.h"
#include "reclaim_work.h"
#include "registry.h"
#include "reset.h"
#include "tsan.h"
#include "urcu_flavor.h"
#include "warm.h"

/* in_refs: the pin is counted in p's refs, not on a shard (PIN-4). */
static void rcupl_pin_fill(rcupool_pin_t *pin, rcupool_t *m,
                           struct rcupl_pool *p, uint64_t gen, bool in_refs) {
  pin->pool_ = (void *)((uintptr_t)p | (in_refs ? RCUPL_PIN_IN_REFS : 0));
  pin->manager_ = m;
  pin->threadpool_ = p->tp;
  pin->threads_ = p->threads;
  pin->generation_ = gen;
}

__attribute__((noinline)) static int rcupl_pin_sized_slow(
    rcupool_t *m, size_t threads, const rcupool_placement_t *pl,
    rcupool_pin_t *pin);

/* The one way a pin is taken once its arguments are checked: on the
 * current pool when that has `threads` threads (0: any size), as PIN-1
 * says, inside one section; else on a live pool of that size or a new one
 * (rcupl_pin_sized_slow, SIZED-1..4), which a threads of 0 never reaches. */
__attribute__((always_inline)) static inline int rcupl_pin_take(
    rcupool_t *m, size_t threads, rcupool_pin_t *pin) {
  uint64_t gen;
  struct rcupl_pool *p = rcupl_read_get_current(m, threads, &gen);
  if (__builtin_expect(p == NULL, 0))
    return rcupl_pin_sized_slow(m, threads, &m->placement, pin);
  rcupl_pin_fill(pin, m, p, gen, false);
  return 0;
}

/* A pin's fast path makes no call, so it saves no register: anything
 * unusual (a bad argument, a pin in use, a fork child's stale manager, a
 * thread liburcu has not met yet) takes the checked path, which does the
 * same with every check and call. */
static inline bool rcupl_pin_fast_ok(const rcupool_t *m,
                                     const rcupool_pin_t *pin) {
  return m != NULL && pin != NULL && pin->pool_ == NULL &&
         !__atomic_load_n(&m->fork_stale, __ATOMIC_ACQUIRE) &&
         rcupl_rcu_reader_ready();
}

static int rcupl_pin_checked_body(rcupool_t *m, rcupool_pin_t *pin) {
  if (m == NULL || pin == NULL) return -EINVAL;
  if (pin->pool_ != NULL) {
    rcupl_log(RCUPOOL_LOG_WARN, "pin: pin %p already holds a pool",
              (void *)pin);
    return -EBUSY;
  }
  rcupl_fork_settle(m); /* a fork child's first pin gets the real pool */
  return rcupl_pin_take(m, 0, pin);
}

/* The checked paths are where a pin can log: they deliver (LOG-1). */
__attribute__((noinline)) static int rcupl_pin_checked(rcupool_t *m,
                                                       rcupool_pin_t *pin) {
  int err = rcupl_pin_checked_body(m, pin);
  rcupl_log_deliver();
  return err;
}

int rcupool_pin(rcupool_t *m, rcupool_pin_t *pin) {
  if (__builtin_expect(!rcupl_pin_fast_ok(m, pin), 0))
    return rcupl_pin_checked(m, pin);
  return rcupl_pin_take(m, 0, pin);
}

/* A live pool of `threads` threads, current or not, with a reference taken
 * for the caller (SIZED-1). Called with m->lock held. */
static struct rcupl_pool *rcupl_sized_find_locked(
    rcupool_t *m, size_t threads, const rcupool_placement_t *pl) {
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    if (rcupl_pool_tryget_sized(p, threads, pl)) return p;
  }
  return NULL;
}

/* The same search without m->lock: inside one read-side section, on the
 * list as readers walk it (registry.h, rcupl_for_each_pool_rcu). A pool seen
 * there is not freed before the section ends (RECLAIM-7), and a dying one
 * (refs zero) fails rcupl_pool_tryget(). *gen is the manager's generation
 * then (SIZED-5). */
static struct rcupl_pool *rcupl_sized_find_live(rcupool_t *m, size_t threads,
                                                const rcupool_placement_t *pl,
                                                uint64_t *gen) {
  struct rcupl_pool *p, *found = NULL;
  rcupl_rcu_read_lock();
  rcupl_for_each_pool_rcu(p, m) {
    if (rcupl_pool_tryget_sized(p, threads, pl)) {
      found = p;
      break;
    }
  }
  *gen = __atomic_load_n(&m->generation, __ATOMIC_RELAXED);
  RCUPL_TSAN_GP_RELEASE();
  rcupl_rcu_read_unlock();
  return found;
}

/* No live pool of that size was found: SIZED-2, search again under
 * writer, then start the pool there. */
__attribute__((noinline, cold)) static int rcupl_pin_sized_new(
    rcupool_t *m, size_t threads, const rcupool_placement_t *pl,
    rcupool_pin_t *pin) {
  struct rcupl_work *let_go = NULL; /* WARM-5: room for the new pool */
  rcupl_mutex_lock(&m->writer);
  rcupl_mutex_lock(&m->lock);
  struct rcupl_pool *p = rcupl_sized_find_locked(m, threads, pl);
  uint64_t gen = m->generation;
  rcupl_mutex_unlock(&m->lock);
  if (p == NULL) {
    int err = rcupl_manager_pool_create(m, threads, pl, "pin_sized", &p);
    if (err != 0) {
      rcupl_mutex_unlock(&m->writer);
      rcupl_log(RCUPOOL_LOG_ERROR,
                "pin_sized: cannot start a pool of %zu %s (%d); nothing "
                "changed",
                threads, rcupl_threads_noun(threads), err);
      rcupl_log_deliver();
      return err;
    }
    p->refs = 2; /* this pin's and the manager's (WARM-1); not yet shared */
    rcupl_mutex_lock(&m->lock);
    rcupl_pools_add_locked(&m->pools, p);
    m->pools_created++;
    rcupl_warm_limit_locked(m, &let_go);
    gen = m->generation;
    rcupl_mutex_unlock(&m->lock);
    rcupl_log(RCUPOOL_LOG_DEBUG,
              "manager %p: start pool %p (%zu %s) for a sized pin; never "
              "current",
              (void *)m, (void *)p, p->threads, rcupl_threads_noun(p->threads));
  }
  rcupl_mutex_unlock(&m->writer);
  rcupl_warm_free(let_go);
  rcupl_pin_fill(pin, m, p, gen, true);
  rcupl_reclaim_warm_kick(0); /* a pool off current: passes are due (WARM-4) */
  rcupl_log_deliver();
  return 0;
}

/* A pool of another size than the current one: a live one if any (one
 * section, no lock), else a new one. Out of line and free of the locked
 * path's calls, so it saves no register before the walk. */
__attribute__((noinline)) static int rcupl_pin_sized_slow(
    rcupool_t *m, size_t threads, const rcupool_placement_t *pl,
    rcupool_pin_t *pin) {
  uint64_t gen;
  struct rcupl_pool *p = rcupl_sized_find_live(m, threads, pl, &gen);
  if (__builtin_expect(p == NULL, 0))
    return rcupl_pin_sized_new(m, threads, pl, pin);
  rcupl_pin_fill(pin, m, p, gen, true);
  return 0;
}

static int rcupl_pin_sized_checked_body(rcupool_t *m, size_t threads,
                                        rcupool_pin_t *pin) {
  if (m == NULL || pin == NULL) return -EINVAL;
  if (rcupl_limits_check_threads("pin_sized", threads) != 0) return -EINVAL;
  if (pin->pool_ != NULL) {
    rcupl_log(RCUPOOL_LOG_WARN, "pin_sized: pin %p already holds a pool",
              (void *)pin);
    return -EBUSY;
  }
  if (threads == 0) threads = rcupl_manager_default_threads(m);
  /* FORK-8: a pin of the current width never takes a fork child's orphan
   * (another width's search skips orphans, RESET-2). */
  if (__atomic_load_n(&m->current_threads, __ATOMIC_RELAXED) == threads)
    rcupl_fork_settle(m);
  return rcupl_pin_take(m, threads, pin);
}

__attribute__((noinline)) static int rcupl_pin_sized_checked(
    rcupool_t *m, size_t threads, rcupool_pin_t *pin) {
  int err = rcupl_pin_sized_checked_body(m, threads, pin);
  rcupl_log_deliver();
  return err;
}

int rcupool_pin_sized(rcupool_t *m, size_t threads, rcupool_pin_t *pin) {
  if (__builtin_expect(!rcupl_pin_fast_ok(m, pin) || threads == 0 ||
                           threads > RCUPOOL_MAX_THREADS,
                       0))
    return rcupl_pin_sized_checked(m, threads, pin);
  /* Another size than the current one: straight to the walk, one section
   * instead of two. current_threads may be stale either way; both paths
   * check the size of the pool they take. */
  if (__atomic_load_n(&m->current_threads, __ATOMIC_RELAXED) != threads)
    return rcupl_pin_sized_slow(m, threads, &m->placement, pin);
  return rcupl_pin_take(m, threads, pin);
}

static int rcupl_pin_placed_body(rcupool_t *m, size_t threads,
                                 const rcupool_placement_t *pl,
                                 rcupool_pin_t *pin) {
  if (m == NULL || pin == NULL) return -EINVAL;
  if (pl == NULL) return rcupool_pin_sized(m, threads, pin);
  if (rcupl_placement_check(pl) != 0) {
    rcupl_log(RCUPOOL_LOG_ERROR, "pin_placed: not a placement (policy %d)",
              (int)pl->policy);
    return -EINVAL;
  }
  rcupool_placement_t own = *pl;
  rcupl_placement_normalise(&own);
  if (rcupl_placement_equal(&own, &m->placement))
    return rcupool_pin_sized(m, threads, pin);
  if (rcupl_limits_check_threads("pin_placed", threads) != 0) return -EINVAL;
  if (pin->pool_ != NULL) {
    rcupl_log(RCUPOOL_LOG_WARN, "pin_placed: pin %p already holds a pool",
              (void *)pin);
    return -EBUSY;
  }
  rcupl_fork_settle(m);
  if (threads == 0) threads = rcupl_manager_default_threads(m);
  /* Another placement than m's: never the current pool (SIZED-6). The
   * walk copies `own` into a pool it starts, so a stack copy is enough. */
  return rcupl_pin_sized_slow(m, threads, &own, pin);
}

int rcupool_pin_placed(rcupool_t *m, size_t threads,
                       const rcupool_placement_t *pl, rcupool_pin_t *pin) {
  int err = rcupl_pin_placed_body(m, threads, pl, pin);
  rcupl_log_deliver();
  return err;
}

/* The put of an unpin whose count is in refs (PIN-4), or whose shard was
 * gathered (PIN-2): stamps the use on `stamp` (the pool's own, on the
 * line the put writes; or the shard's, on the line the decrement wrote,
 * so unpins on two CPUs do not overwrite each other's stamps), then puts
 * refs; true if that was the last reference. At refs 2 (this pin and the
 * manager's) the put turns a managed pool warm, and its linger starts
 * now: the stamp is precise; otherwise coarse (WARM-3). A put that turns
 * out not to be the last (a pin taken meanwhile) stamped early, which
 * the later last unpin's stamp overrides. Out of line: the live shard's
 * path saves no register and reads no clock. */
__attribute__((noinline)) static bool rcupl_unpin_put(struct rcupl_pool *p,
                                                      uint64_t *stamp) {
  /* The coarse stamp is stored first, before refs is read: on the pool's
   * own line a load first would fetch that line shared and the store
   * then fetch it again, twice the transfers when threads on two CPUs
   * unpin the same pool. Both stores come before the put, which orders
   * them for the warm pass. */
  __atomic_store_n(stamp, rcupl_stamp_coarse(), __ATOMIC_RELAXED);
  if (__atomic_load_n(&p->refs, __ATOMIC_RELAXED) <= 2)
    __atomic_store_n(stamp, rcupl_now_ns() | RCUPL_STAMP_PRECISE,
                     __ATOMIC_RELAXED);
  return rcupl_pool_put(p);
}

void rcupool_unpin(rcupool_pin_t *pin) {
  if (pin == NULL) {
    rcupl_log(RCUPOOL_LOG_WARN, "unpin: NULL pin ignored");
    rcupl_log_deliver();
    return;
  }
  const bool in_refs = rcupl_pin_in_refs(pin);
  struct rcupl_pool *p = rcupl_pin_pool(pin);
  if (p == NULL) {
    rcupl_log(RCUPOOL_LOG_WARN,
              "unpin: pin %p is empty (never pinned or already released); "
              "ignored",
              (void *)pin);
    rcupl_log_deliver();
    return;
  }
  pin->pool_ = NULL;
  pin->threadpool_ = NULL;
  pin->threads_ = 0;
  pin->generation_ = 0;
  /* PIN-4: the count goes back where it was taken. The linger of a warm
   * pool starts at its last use (WARM-3): stamped here, or, after a live
   * shard's decrement, by the gather that must follow it (PIN-2). */
  bool last;
  if (in_refs) {
    last = rcupl_unpin_put(p, &p->last_use);
  } else {
    struct rcupl_pin_shard *gathered = rcupl_pool_unpin_shard(p);
    last = gathered != NULL && rcupl_unpin_put(p, &gathered->last_use);
  }
  if (last) rcupl_reclaim_free_later(p, "last pin released");
}

pthreadpool_t rcupool_pin_pthreadpool(const rcupool_pin_t *pin) {
  return pin != NULL && pin->pool_ != NULL ? pin->threadpool_ : NULL;
}

size_t rcupool_pin_threads(const rcupool_pin_t *pin) {
  return pin != NULL && pin->pool_ != NULL ? pin->threads_ : 0;
}

uint64_t rcupool_pin_generation(const rcupool_pin_t *pin) {
  return pin != NULL && pin->pool_ != NULL ? pin->generation_ : 0;
}

bool rcupool_pin_is_current(const rcupool_pin_t *pin) {
  if (pin == NULL || pin->pool_ == NULL) return false;
  /* Comparing addresses needs no section: the pin keeps its pool alive, so
   * no other pool can be at that address. */
  return __atomic_load_n(&pin->manager_->current, __ATOMIC_RELAXED) ==
         rcupl_pin_pool(pin);
}
