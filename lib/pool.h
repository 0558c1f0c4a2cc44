/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private: the pool object (lib/pool.c), shared by lib/ only.
 *
 * Reference counting (the heart of the lifetime protocol)
 *
 *   pool->refs = pins
 *              + 1 while the manager holds the pool   ("manager reference":
 *                pool->managed; the current pool and the warm pools)
 *              + 1 per retire whose grace-period callback has not yet run
 *                                                     ("retire references")
 *              + RCUPL_DISPATCH_REF per rcupool_parallelize_1d() dispatching
 *                on it                                ("dispatch references")
 *
 *   Dispatch references live in the high half of the same atomic word, so
 *   one load gives both counts exactly: rcupl_pool_counted_refs() (the low
 *   half) is what the one pin-count formula, rcupl_pool_pins_locked(), uses,
 *   and a dispatch never shows as a pin. Zero still means zero of all.
 *
 *   Every pool starts managed (rcupl_pool_create): the manager's reference is
 *   the current pool's, or a warm pool's (not current; kept for the next
 *   pin, scope or reset of its width). A pool started by rcupool_pin_sized()
 *   is never current until a reset reuses it (generation 0): its refs are
 *   its pins and the manager's. So a pin's last unpin never frees a managed
 *   pool: the pool turns warm (lib/warm.c).
 *
 *   A reset keeps the old pool managed (it turns warm) and adds a retire
 *   reference, which a grace-period callback drops. A reuse publishes a
 *   managed pool under m->lock and takes nothing: the manager's reference
 *   becomes the current one. The manager lets a pool go only under m->lock
 *   and only from refs == 1 exactly, its own reference alone (WARM-2: one
 *   compare-and-swap to 0, so no pin, retire or dispatch can be pending),
 *   or at destroy. The party that drops refs to zero, and only that party,
 *   frees the pool: the warm release (warm.c), a grace-period callback
 *   (already on the reclaim thread), or an unpin, a dispatch's own
 *   reference or destroy of a pool the manager no longer holds, which hand
 *   the pool to the reclaim thread (lib/reclaim.c). No other party may
 *   touch the pool after its own decrement. Pools are freed on the reclaim
 *   thread only (README guarantee 5).
 *
 * Pins of a current pool: per-CPU shards (invariant 15, Linux's percpu_ref)
 *
 *   While a pool is published (pool->sharded, under manager->lock), a pin
 *   taken in a section on the current pool adds to the shard of the CPU it
 *   runs on (pool->shards[cpu % RCUPL_PIN_SHARDS], a cache line each), and
 *   its unpin subtracts from its own CPU's shard: a pin and its unpin
 *   write no line another thread writes, unless they share the CPU (a
 *   sized pin that took the pool by rcupl_pool_tryget is counted in refs
 *   and unpinned there, lib/pin.c PIN-4). A pin
 *   may be unpinned on another CPU, so a shard may go negative: only the
 *   sum counts. refs then carries RCUPL_SHARDED_BIAS, so nothing that
 *   lands in refs meanwhile (a sized pin's rcupl_pool_tryget, a retire, a
 *   dispatch, an unpin of a gathered shard) can take it to zero.
 *
 *   A shard holds its count times two; its low bit says "gathered". When
 *   the pool's last retire callback has run and the pool is not current
 *   again (a grace period after it stopped being current: no section can
 *   still pin it through a shard), rcupl_pool_gather_locked() exchanges
 *   every shard for a bare gathered bit and adds the sum, less the bias,
 *   to refs in one step: from then on refs is the one count, as above.
 *   An unpin learns the mode from its own decrement (the bit in the value
 *   fetch_sub returns), never from a second load: a decrement that found
 *   its shard live is in the sum of the exchange that follows it; one
 *   that found it gathered is not, and that unpin puts refs instead (its
 *   reference is still in refs, so the pool is alive for that put).
 *   A reuse re-shards the pool at its publish (rcupl_pool_shard_locked):
 *   whatever a gathered shard holds then is dropped, since every
 *   operation on a gathered shard also went to refs. Destroy gathers the
 *   current pool after the grace period that follows its unpublish.
 */
#ifndef RCUPOOL_LIB_POOL_H
#define RCUPOOL_LIB_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "cpu_now.h"
#include "die.h"
#include "placement.h"
#include "rcupool/rcupool.h"
#include "reclaim_work.h"

#include <urcu/list.h>

#define RCUPL_CACHELINE 64

/* pool->canary while the pool may be used; poisoned just before it is freed,
 * so a use after free is caught by tests even without a sanitizer. */
#define RCUPL_POOL_CANARY UINT64_C(0x52435550504f4f4c) /* "RCUPPOOL" */
#define RCUPL_POOL_POISON UINT64_C(0xdeaddeaddeaddead)

struct rcupl_pool {
  /* Immutable from creation until the pool is freed, but tp, which a fork
   * child's handler clears (fork_orphan below). */
  uint64_t canary;
  pthreadpool_t tp;
  size_t threads;
  rcupool_t *manager;
  /* With threads, the pool's identity (PLACE-1): normalised. */
  rcupool_placement_t placement;
  /* Workers whose binding did not hold (PLACE-3); set by the census. */
  size_t bind_failures;
  /* A view's executor context (POOL-7, lib/executor.c's EXECUTOR-3),
   * NULL for a pool that owns its threads. */
  void *view;

  /* Written under manager->lock (atomically, as readers may load them). */
  uint64_t generation; /* generation at which it last became current;
                                0 while it never was (a pool started for
                                rcupool_pin_sized(), see pin.c) */

  /* Under manager->lock only. */
  unsigned retires_pending;  /* queued retire callbacks, one ref each */
  bool managed;              /* the manager holds its reference (above) */
  struct cds_list_head node; /* in manager->pools while alive */

  /* Its threads did not survive fork(). Set once, by the fork child
   * handler (lib/fork.c), while it is the only thread of the child; never
   * changed after, so every later thread of that process reads it without
   * a lock (parallel.c dispatch, pool.c free) as well as under it. The
   * same handler moves tp here and leaves tp NULL (POOL-6), so no pin,
   * current read or dispatch of the child hands out a pthreadpool_t whose
   * workers are gone (pthreadpool runs work given NULL on its caller). */
  bool fork_orphan;
  pthreadpool_t orphan_tp;

  /* Used once, by the party that dropped refs to zero, which also sets
   * free_why (what let the pool go: the free's log record says it); read by
   * the free callback after the queue's hand-over. */
  struct rcupl_work free_work;
  const char *free_why;

  /* The pin count is sharded (top of this file): under manager->lock. */
  bool sharded;

  /* Atomic; on its own cache line: what sized pins, retires, dispatches
   * and the pins of a pool that is not sharded write. */
  _Alignas(RCUPL_CACHELINE) size_t refs;
  /* Atomic: the pool's last use, a stamp (below: coarse, or precise with
   * the low bit set), from which its linger is measured (warm.c, WARM-3).
   * Stored, relaxed, by an unpin of a pool off current and by a dispatch
   * just before they drop their reference (whose release orders it), and
   * by a retire callback under manager->lock; read by the warm pass after
   * an acquire load of refs. */
  uint64_t last_use;

  /* The pins of a sharded pool, one cache line a CPU (top of this file). */
  struct rcupl_pin_shard {
    /* Atomic: the shard's pins times 2 (negative when more were unpinned
     * here than pinned); the low bit: gathered (RCUPL_SHARD_GATHERED). */
    _Alignas(RCUPL_CACHELINE) intptr_t count;
    /* Atomic: as last_use above, stamped by an unpin on this CPU that
     * found the shard gathered (rcupl_pool_unpin_shard). */
    uint64_t last_use;
  } shards[];
};

/* Shards per pool: CPUs whose numbers are equal modulo this share one. */
#define RCUPL_PIN_SHARDS 64
#define RCUPL_SHARD_ONE ((intptr_t)2)
#define RCUPL_SHARD_GATHERED ((intptr_t)1)
/* In refs, in the counted half, while sharded: more than pins can be. */
#define RCUPL_SHARDED_BIAS ((size_t)1 << 30)
_Static_assert(sizeof(struct rcupl_pin_shard) == RCUPL_CACHELINE,
               "a shard is one cache line");
_Static_assert((RCUPL_PIN_SHARDS & (RCUPL_PIN_SHARDS - 1)) == 0,
               "a power of two");

static inline struct rcupl_pin_shard *rcupl_pool_shard_here(
    struct rcupl_pool *p) {
  return &p->shards[rcupl_cpu_now() & (RCUPL_PIN_SHARDS - 1)];
}

/* A last-use stamp (WARM-3) is CLOCK_MONOTONIC in ns with its low bit
 * saying which clock read it: clear, the coarse one (the use it records
 * may be up to rcupl_coarse_lag_ns() later); set, the precise one (the
 * use was then). */
#define RCUPL_STAMP_PRECISE UINT64_C(1)

static inline uint64_t rcupl_stamp_coarse(void) {
  return rcupl_coarse_now_ns() & ~RCUPL_STAMP_PRECISE;
}

/* Records now as p's last use (WARM-3), on the coarse clock: the stamp is
 * on the unpin's fast path, where a precise read would cost twice the
 * refcount (clock.h). Called just before a reference that may be the last
 * use is dropped: an unpin's (PIN-2: on the pool's own line, never the
 * manager), a dispatch's. */
static inline void rcupl_pool_stamp_use(struct rcupl_pool *p) {
  __atomic_store_n(&p->last_use, rcupl_stamp_coarse(), __ATOMIC_RELAXED);
}

/* The same on the precise clock, where its cost is paid once per linger:
 * a retire callback, a gather (the unpin that is about to drop the last
 * pin of a pool off current stamps so too, lib/pin.c). A warm
 * pool's linger then ends warm_ms after the use, not warm_ms plus the
 * coarse lag. */
static inline void rcupl_pool_stamp_use_precise(struct rcupl_pool *p) {
  __atomic_store_n(&p->last_use, rcupl_now_ns() | RCUPL_STAMP_PRECISE,
                   __ATOMIC_RELAXED);
}

/* Creates a pool of `threads` threads placed by `pl` (normalised; its
 * workers bound by the census, PLACE-3), managed, with refs = 1 (the
 * manager's reference; a sized pin adds its own pin before it lists the
 * pool), not yet on m->pools. Returns 0, -ENOMEM, -EAGAIN, or -EINVAL when
 * pl cannot be placed (PLACE-2, logged with `call`); logs nothing else
 * (its callers do, LOG-5). Call without manager locks. */
int rcupl_pool_create(rcupool_t *m, size_t threads,
                      const rcupool_placement_t *pl, const char *call,
                      struct rcupl_pool **out);

/* Takes a reference unless refs is zero. Returns false if the pool is dying. */
static inline bool rcupl_pool_tryget(struct rcupl_pool *p) {
  size_t refs = __atomic_load_n(&p->refs, __ATOMIC_RELAXED);
  do {
    if (refs == 0) return false;
  } while (!__atomic_compare_exchange_n(&p->refs, &refs, refs + 1, true,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
  return true;
}

/* The one test of the searches for a pool of a size (a reset's reuse,
 * RESET-2; a sized pin's, SIZED-1): p has `threads` threads and the
 * placement pl (PLACE-1), did not lose them to fork(), and a reference was
 * taken (it is not dying). */
static inline bool rcupl_pool_tryget_sized(struct rcupl_pool *p, size_t threads,
                                           const rcupool_placement_t *pl) {
  return p->threads == threads && rcupl_placement_equal(&p->placement, pl) &&
         !p->fork_orphan && rcupl_pool_tryget(p);
}

/* A pin of the current pool inside the section that read it (PIN-1):
 * one increment of this CPU's shard. A gathered shard there is fatal: a
 * pool is gathered only once no section can see it current. */
static inline void rcupl_pool_pin_here(struct rcupl_pool *p) {
  intptr_t before = __atomic_fetch_add(&rcupl_pool_shard_here(p)->count,
                                       RCUPL_SHARD_ONE, __ATOMIC_RELAXED);
  if (__builtin_expect((before & RCUPL_SHARD_GATHERED) != 0, 0))
    rcupl_die("pin: pool %p reached from a section with its count gathered",
              (void *)p);
}

/* Drops one reference; true if it was the last. Inline: unpin's path. */
static inline bool rcupl_pool_put(struct rcupl_pool *p) {
  /* acq_rel: every holder's use of the pool happens before the free. */
  size_t old = __atomic_fetch_sub(&p->refs, 1, __ATOMIC_ACQ_REL);
  if (__builtin_expect(old == 0, 0))
    rcupl_die("reference count underflow on pool %p", (void *)p);
  return old == 1;
}

/* An unpin's decrement of this CPU's shard (PIN-2): NULL if the shard
 * was live, and the unpin is done: that decrement was its last access to
 * the pool, and it stamps nothing, since the pool is sharded, so a gather
 * is still to come, after that decrement, and every gather stamps the
 * last use on the precise clock after its exchange (WARM-3,
 * rcupl_pool_gather_locked). Else the shard, which was gathered: the
 * caller stamps its use on it, then puts refs (pin.c). */
static inline struct rcupl_pin_shard *rcupl_pool_unpin_shard(
    struct rcupl_pool *p) {
  struct rcupl_pin_shard *s = rcupl_pool_shard_here(p);
  /* Release: the holder's use of the pool happens before a free that the
   * gather's exchange (acquire) leads to. */
  intptr_t before =
      __atomic_fetch_sub(&s->count, RCUPL_SHARD_ONE, __ATOMIC_RELEASE);
  return (before & RCUPL_SHARD_GATHERED) == 0 ? NULL : s;
}

/* A pin's pool (rcupool_pin_t.pool_, PIN-4): the pool's address, with
 * RCUPL_PIN_IN_REFS set when the pin is counted in refs rather than on a
 * shard. A pool is aligned to a cache line, so the bit is free. */
#define RCUPL_PIN_IN_REFS ((uintptr_t)1)
static inline struct rcupl_pool *rcupl_pin_pool(const rcupool_pin_t *pin) {
  return (struct rcupl_pool *)((uintptr_t)pin->pool_ & ~RCUPL_PIN_IN_REFS);
}
static inline bool rcupl_pin_in_refs(const rcupool_pin_t *pin) {
  return ((uintptr_t)pin->pool_ & RCUPL_PIN_IN_REFS) != 0;
}

/* Turns p's pin count sharded (at a publish, MANAGER-5) or gathers it into
 * refs (its last retire callback with p not current, RECLAIM-2; destroy
 * after its grace period; a fork child). Both under manager->lock; each
 * does nothing if p is already so. */
void rcupl_pool_shard_locked(struct rcupl_pool *p);
void rcupl_pool_gather_locked(struct rcupl_pool *p);

/* The latest time p's last use can have been (WARM-3): over its own stamp
 * and its shards', the latest of a precise stamp and a coarse stamp plus
 * `lag` (rcupl_coarse_lag_ns()). Read after an acquire load of refs that
 * saw the last put. */
uint64_t rcupl_pool_used_until(const struct rcupl_pool *p, uint64_t lag);

/* One dispatch reference (see the top of this file). Taken only where the
 * pool cannot be at zero (inside a read-side section on the current pool,
 * or on a pool the caller's scope pin holds); put returns the refs it left
 * (dispatch references included): 0 if it was the pool's last reference,
 * and the caller then hands it to the reclaim thread
 * (rcupl_reclaim_free_later); 1 if only the manager's (or a pin's) is left.
 * Either way the caller touches the pool no more. */
#define RCUPL_DISPATCH_REF ((size_t)1 << 32)
void rcupl_pool_get_dispatch(struct rcupl_pool *p);
size_t rcupl_pool_put_dispatch(struct rcupl_pool *p);

/* Joins the pool's threads (or keeps a fork orphan's pthreadpool, POOL-5).
 * Called only on the reclaim thread (reclaim.c), with no lock held, by the
 * party that dropped refs to zero, after it unlinked the pool. */
void rcupl_pool_stop(struct rcupl_pool *p);

/* Poisons the canary and frees the memory of a stopped pool. Called only
 * on the reclaim thread, a grace period after the unlink (RECLAIM-7), or
 * by a fork child's queue for one (rcupl_reclaim_fork_child). */
void rcupl_pool_free(struct rcupl_pool *p);

/* Aborts with a message if p's canary is not intact. */
void rcupl_pool_check(const struct rcupl_pool *p, const char *where);

static inline size_t rcupl_pool_refs(const struct rcupl_pool *p) {
  return __atomic_load_n(&p->refs, __ATOMIC_ACQUIRE);
}

/* refs without the dispatch references: pins + current + retires (and
 * the bias while sharded). */
static inline size_t rcupl_pool_counted_refs(const struct rcupl_pool *p) {
  return rcupl_pool_refs(p) & (RCUPL_DISPATCH_REF - 1);
}

/* The pins held on p (MANAGER-3): refs - 1 if managed - retires_pending,
 * without the dispatch references, plus the shards' sum less the bias
 * while sharded; 0 for a dying pool (refs 0). Call with p->manager->lock
 * held, where "managed", retires_pending and sharded cannot move. The
 * shards are read one by one: a pin held across the call is counted, a
 * pin and its unpin made during it may or may not be. */
static inline size_t rcupl_pool_pins_locked(const struct rcupl_pool *p) {
  intptr_t count = (intptr_t)rcupl_pool_counted_refs(p);
  if (p->sharded) {
    count -= (intptr_t)RCUPL_SHARDED_BIAS;
    for (size_t i = 0; i < RCUPL_PIN_SHARDS; i++)
      count += __atomic_load_n(&p->shards[i].count, __ATOMIC_RELAXED) /
               RCUPL_SHARD_ONE;
  }
  intptr_t base = (intptr_t)p->retires_pending + (p->managed ? 1 : 0);
  return count > base ? (size_t)(count - base) : 0;
}

/* The layout rcupool/inline.h reads (see there). */
_Static_assert(offsetof(struct rcupl_pool, canary) == 0, "inline.h layout");
_Static_assert(offsetof(struct rcupl_pool, tp) == sizeof(uint64_t),
               "inline.h layout");

#endif /* RCUPOOL_LIB_POOL_H */
