/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcupool's pool lifetime protocol, for the spin model checker.
 *
 * What is modelled (tests/model/README.md maps every name to lib/):
 *   - 2 readers, each making 2 read-side sections; in each section a reader
 *     loads the current pool, uses it, and may pin it;
 *   - 1 unpinner, the holder of those pins: it uses a pinned pool and then
 *     unpins it, in any order, at any time;
 *   - 1 resetter making 3 resets, B, A, B, over two thread counts, so a
 *     reset may reuse a pool still alive (a retiring, kept or warm one);
 *   - rcupool's reclaim thread (lib/reclaim.c), running any queued
 *     callback whose grace period is over: the retire callback and the free
 *     callback that a hand-over queues;
 *   - the trimmer: the warm pass (lib/warm.c, WARM-2..4), which lets the
 *     manager's reference of a warm pool go (refs 1 -> 0 under m->lock) and
 *     hands the pool to the reclaim thread after unlocking; any number of
 *     passes at any time, each letting any of the warm pools go (the
 *     reclaim thread's passes after a batch and when due, and those of
 *     rcupool_barrier() and rcupool_trim() on other threads);
 *   - destroy, once the readers and the resetter are finished with the
 *     manager, racing the unpinner, the trimmer and the reclaim thread; it
 *     may first call rcupool_trim() after every pin is released.
 *
 * Reference counting as lib/pool.h has it: refs = pins + 1 while the
 * manager holds the pool (managed[]: the current pool and the warm ones;
 * every pool starts managed) + 1 per pending retire. A reset keeps the old
 * pool managed and adds a retire reference; a reuse publishes a managed
 * pool and takes nothing; the manager lets a pool go only under m->lock,
 * by the trimmer's 1 -> 0, or at destroy. So a pin's last unpin never
 * frees a managed pool: it turns warm.
 *
 * Grace periods: a push onto the reclaim queue (CALL_RCU_BODY, named after
 * liburcu's call_rcu, which the C code no longer uses) records which
 * readers are inside a section at that moment; the callback becomes
 * runnable once each of them has left that section. Sections entered later
 * are not waited for (the C code's grace period, which starts after the
 * push, may wait for more: fewer behaviours). The reclaim thread may run
 * ready callbacks in any order (the C code runs them in queue order:
 * allowing more orders only adds behaviours).
 *
 * Properties (assertions; pan also reports any deadlock as an invalid end
 * state):
 *   MODEL-1 no access to a freed pool: USE() at every access by a reader, a pin
 *      holder, a reuse, a callback, the trimmer and destroy;
 *   MODEL-2 no free while pinned, current, or seen by a reader still inside the
 *      section where it loaded the pool: FREE_POOL(); a reuse never takes
 *      a pool whose refs reached zero (WARM-2: a managed pool cannot);
 *   MODEL-3 no double free: FREE_POOL(); a queue item is never queued twice;
 *   MODEL-4 at most one pool per thread count alive whenever no callback and no
 *      hand-over is pending (process one_per_size), and never two live
 *      (refs > 0) pools of one size (assertion RESET-2 in the resetter);
 *   MODEL-5 every pool but the current one is freed once all pins are
 *      released and the manager lets its warm pools go: after the readers,
 *      the resetter and the unpinner are done, rcupool_trim() leaves only
 *      the current pool alive, every other pool freed (end-state
 *      assertion in destroyer), and destroy then frees everything and never
 *      waits for a callback that will not come;
 *   MODEL-6 the pools alive stay bounded: in every state at most one pool
 *      per thread count has refs > 0 (so at most 2 here, the sizes), and
 *      every other pool alive is dying (refs 0) with its free on the way:
 *      whenever no callback and no hand-over is pending, no pool is alive
 *      at refs 0 (process one_per_size);
 *   MODEL-7 the trimmer never lets go of a pool a pin holds, nor of the
 *      current pool or one with a retire pending (assertions where it
 *      releases);
 *   plus the checks the C code itself makes (pin from refs 0 and refs
 *   underflow abort).
 *
 * Memory is sequentially consistent here; the C code's orderings (release
 * publish, acquire load, acq_rel decrement) are argued in lib/, not here.
 *
 * One-line switches (spin -D...): each must make spin report a violation.
 *   BROKEN_REUSE_RELEASED   a reset's search takes any pool of its size on
 *                           m->pools without the managed test: it revives a
 *                           pool the trimmer has let go (refs 0). (The
 *                           successor of BROKEN_REUSE_FROM_ZERO, a reuse
 *                           without rcupl_pool_tryget(), from when a reuse
 *                           took a reference.)
 *   BROKEN_RELEASE_KEEPS_MANAGED  the warm release (rcupl_warm_release_locked)
 *                           does not clear managed: the manager then drops
 *                           a reference it no longer holds.
 *   BROKEN_REUSE_PENDING    a reuse of a retiring pool cancels its retire
 *                           (drops the retire reference) without dequeuing
 *                           the callback, which then drops it again.
 *   BROKEN_FREE_AT_UNPIN    the last unpin frees the pool when its pin count
 *                           reaches zero, without checking that the
 *                           manager no longer holds it.
 *   BROKEN_TRIM_PINNED      the warm pass lets a pool go without looking at
 *                           refs (stores 0 where rcupl_warm_release_locked()
 *                           compare-and-swaps 1 to 0): a pool a pin holds is
 *                           handed to the reclaim thread.
 *   VACUITY_NO_REUSE        asserts that no reset ever reuses a pool: spin
 *                           must find a reuse, so the reuse path is explored.
 *   VACUITY_NO_TRIM         asserts that the trimmer never lets a pool go.
 *   BROKEN_DRAIN_LOOK_AFTER rcupl_reclaim_drain as it was: wait, then look for
 *                           a listed pool at refs 0; it can miss a pool
 *                           another pass let go whose free was pushed after
 *                           its wait began and that the reclaim thread
 *                           unlinked before its look: trim returns before
 *                           that pool is freed (MODEL-5).
 * Checked to pass, not to fail:
 *   C_KEPT_LOG_AFTER_PUT    rcupl_retire_cb() as it was before its fix: it read
 *                           p->threads for its "kept" log after its own
 *                           decrement. That was a use after free while
 *                           destroy freed the current pool on its own
 *                           thread; now every free runs on the reclaim
 *                           thread, after the callback (RECLAIM-5).
 *
 * SIZED adds the sized pinner (rcupool_pin_sized, lib/pin.c): NSZ sized
 * pins of size B, which may take the current pool, a retired one, the pool
 * of the other sized pin, or start a pool that is never current; a reset to
 * B may reuse that pool (RESET-4: find and publish in one hold of m->lock).
 * Its first search walks m->pools without the lock, inside a read-side
 * section, one node a step (SIZED-1); a node unlinked meanwhile stays
 * reachable to it until the section ends, and the reclaim thread frees a
 * pool's memory only after a grace period that began after the unlink
 * (RECLAIM-7). A pool a sized pin starts has refs 2 (its pin and the
 * manager's): its last unpin leaves it warm, for a reset or the other
 * sized pin to reuse, or for the trimmer to let go.
 * m->writer is modelled (`writer`): resets and pool starts of sized pins
 * hold it. Checked with one reader of one section and one pass of the
 * trimmer (TRIM_PASSES=1, tests/model/BUILD; it lets any of the warm pools
 * go at any one time, and destroy's rcupool_trim() lets the rest go),
 * about 12 million states; with passes unbounded about 42 million (2.9
 * GB); two readers of two sections make a space many times larger, not
 * searched since the walk was modelled. Its switches, each must fail:
 *   BROKEN_SIZED_FROM_ZERO  the sized search increments refs without
 *                           rcupl_pool_tryget(): it revives a dying pool.
 *   BROKEN_SIZED_NO_WRITER  a sized pin starts a pool without m->writer and
 *                           the second search: a reset starts one of the
 *                           same size meanwhile (two live pools of one size).
 *   BROKEN_FREE_AT_UNLINK   the reclaim thread frees a pool's memory as
 *                           soon as it unlinks it, without the grace period
 *                           RECLAIM-7 adds: the lock-free search may stand
 *                           on it.
 *   VACUITY_NO_RESET_REUSES_SIZED  asserts no reset reuses a never-current
 *                           pool; VACUITY_NO_SIZED_SHARES_SIZED asserts no
 *                           sized pin takes a never-current pool: spin must
 *                           find both.
 *
 * TIME adds time to the warm pass (lib/warm.c, WARM-3): a ticker advances
 * a clock `tick` (0..TMAX); a pool's last use `stamp[p]` is written where
 * the C code writes pool->last_use (the unpin, just before its put; the
 * retire callback; the pool's creation); the trimmer lets a warm pool go
 * either because its linger is over (tick - stamp >= WARM_TICKS) or
 * because it is beyond the limit (any warm pool, as without TIME). A ghost
 * `used_at[p]`, the true time of the pool's last use, gives
 *   MODEL-8 a pool let go because its linger is over was not used for a
 *      whole linger: tick - used_at >= WARM_TICKS (assertion in let_go).
 * With SHARDED the stamps are where lib/pool.h puts them: an unpin of a
 * live shard stamps nothing (the ghost alone records its use), one that
 * finds its shard gathered stamps before its put, and every gather stamps
 * after its exchange.
 * Its switches, which must fail:
 *   BROKEN_NO_STAMP_AFTER_LIVE_UNPIN (SHARDED) neither the gather nor the
 *                           retire callback stamps: a live shard's unpin
 *                           is then recorded nowhere.
 *   BROKEN_STAMP_AT_PASS    the linger's start as lib/warm.c had it before:
 *                           no stamp at the unpin or the callback; the pass
 *                           stamps a pool it sees in use, so a pool
 *                           unpinned after a pass saw it pinned is let go
 *                           by the next pass, a whole linger too early.
 *
 * LIMIT models warm_max (lib/warm.c, WARM-5) with WARM_MAX (default 1) and
 * a third size C: the resets go to B, C, A, so two pools can be held off
 * current (managed, not current: warm, pinned or retiring) at once. The
 * limit (rcupl_warm_limit_locked) runs in the step of m->lock where the C
 * code calls it: a reset's publish and retire (lib/reset.c), a sized pin's
 * pool start (lib/pin.c, with SIZED) and the end of every pass; while more
 * than WARM_MAX pools are held off current it lets a warm one go (the
 * lowest slot: which one is not what WARM-5 promises; C takes the longest
 * unused). The pass's "beyond the limit" choice gives way to it. A ghost
 * `limit_over` is the limit's result: more than WARM_MAX pools were still
 * held off current at its end (so none of them was warm: pins and retires
 * alone held them). It gives
 *   MODEL-9 whenever no limit is in progress and the manager is not
 *      destroyed, at most WARM_MAX pools are warm, unless the last limit
 *      ended with pins and retires alone holding more than WARM_MAX pools
 *      off current (process one_per_size). Between limits pools only turn
 *      warm by themselves (an unpin, a grace period) or leave: so the limit
 *      holds at once wherever a pool may join, not a pass later.
 * Its switch, which must fail:
 *   BROKEN_LIMIT_AT_PASS_ONLY  the limit runs only in the pass (lib/warm.c
 *                           before issue 32): a reset retires a second
 *                           pool while one is warm, and its grace period
 *                           leaves two warm before any pass.
 *   VACUITY_NO_JOIN_RELEASE asserts that no limit run where a pool joins
 *                           (a reset, a sized pin's start) lets one go.
 *
 * DISPATCH (with LIMIT) adds parallel calls (lib/parallel.c): inside a
 * section a reader may take a dispatch reference on the current pool
 * instead of a pin (refs + 1, no pin); the unpinner ends the call at any
 * later time: its put (after the stamp), and, when that put left the pool
 * one reference and the pool is not current, the limit in a step of its
 * own under m->lock (PARALLEL-6). A ghost `ending` counts the calls
 * between that put and that limit; the limit's ghost `limit_over` counts
 * only pools pins or retires hold (a pool a call alone holds is no
 * excuse: its end applies the limit). MODEL-9 then reads: whenever no
 * limit and no call's end is in progress, at most WARM_MAX pools are warm
 * unless pins and retires alone held more than WARM_MAX off current at
 * the last limit. The manager is destroyed only after every call ended.
 * Its switches:
 *   BROKEN_DISPATCH_NO_LIMIT  the end of a call applies no limit (lib/
 *                           parallel.c before issue 38): two calls on two
 *                           pools retired meanwhile leave both warm.
 *   VACUITY_NO_DISPATCH_RELEASE asserts that no call's end lets a pool go.
 */

#ifdef SIZED
#define NP    6    /* pool slots: the first, one per reset, one per sized pin */
#define NREC  9    /* queue items: retire records 0..2, free_work of pools 0..5 */
#else
#define NP    4    /* pool slots: the first pool and one per reset at most */
#define NREC  7    /* queue items: retire records 0..2, free_work of pools 0..3 */
#endif
#define NR    2    /* readers */
#ifndef READER0_SECTIONS
#define READER0_SECTIONS 2
#endif
#ifndef READER1_SECTIONS
#define READER1_SECTIONS 2
#endif
#define NS    2    /* pin slots per reader: its sections, at most 2 */
#define NRES  3    /* resets */
#define NSZ   2    /* sized pins (SIZED), into pin slots NR * NS .. + NSZ - 1 */
#define SIZED_R 2  /* the sized pinner's bit in insec and rwait */
#define NONE  255
#define SIZE_A 1
#define SIZE_B 2
#define SIZE_C 3   /* LIMIT: the second reset's size */

/* pool memory */
#define UNUSED 0
#define ALIVE  1
#define FREED  2

/* a queue item (struct rcupl_work) */
#define IDLE    0
#define QUEUED  1
#define RUNNING 2
#define DONE    3

#define FREE_REC(p) (NRES + (p))

/* ---- pools: struct rcupl_pool ------------------------------------------- */
byte pstate[NP];   /* memory: UNUSED, ALIVE, FREED */
byte psize[NP];    /* threads (immutable) */
#ifdef SHARDED
#if defined(SIZED) || defined(DISPATCH) || defined(LIMIT)
#error "SHARDED is checked alone"
#endif
/* The sharded pin count (lib/pool.h, POOL-8): NSH shards a pool, each a
 * count and a gathered bit; refs holds BIAS while the pool is sharded, and
 * may then drop below its own references (an unpin of a gathered shard
 * puts refs while the shard holding its pin is not gathered yet): short. */
#define NSH 2
#define BIAS 32
#define SH(p, k) ((p) * NSH + (k))
#define REFS_T short
short refs[NP];    /* refs */
bool sharded[NP];  /* pool->sharded */
short shcount[NP * NSH]; /* a shard's count (its pins, not times two) */
bool shlive[NP * NSH];   /* its gathered bit, inverted: false = gathered */
#else
#define REFS_T byte
byte refs[NP];     /* refs */
#endif
byte pending[NP];  /* retires_pending */
bool inlist[NP];   /* on m->pools */
bool managed[NP];  /* managed: the manager holds a reference */
byte npools = 1;   /* slots used so far */

/* ---- ghosts, for the properties only --------------------------------- */
byte pins[NP];     /* pins held on each pool */
byte seeing[NP];   /* readers inside a section that loaded this pool */
byte handover;     /* pools at refs 0 whose owner (an unpin, the trimmer,
                      destroy) has not pushed their free yet */
byte reuses;
bool was_cur[NP];  /* the pool has been current (generation != 0 in C) */
byte mwait[NP];    /* sections the free of an unlinked pool's memory waits
                      for (RECLAIM-7's grace period) */
bool reach[NP];    /* unlinked while the sized pinner was inside a section:
                      its walk may still reach the node until it leaves */

#ifdef TIME
#ifndef TMAX
#define TMAX 2
#endif
#define WARM_TICKS 1
byte tick;         /* CLOCK_MONOTONIC, in lingers' units */
byte stamp[NP];    /* pool->last_use */
byte used_at[NP];  /* ghost: the true time of the last use */
/* rcupl_pool_stamp_use, and the ghost */
#ifdef BROKEN_STAMP_AT_PASS
#define STAMP_USE(p) used_at[p] = tick
#else
#define STAMP_USE(p) stamp[p] = tick; used_at[p] = tick
#endif
#define LINGER_OVER(j) (tick - stamp[j] >= WARM_TICKS)
/* SHARDED: an unpin of a live shard stamps nothing (lib/pool.h), its use
 * is the ghost's only; one that finds its shard gathered stamps before
 * its put; every gather stamps after its exchange (rcupl_pool_gather_
 * locked), the retire callback after the gather. Under
 * BROKEN_NO_STAMP_AFTER_LIVE_UNPIN neither the gather nor the callback
 * stamps (nor is the callback a use of the ghost's): what a live shard's
 * unpin did is then recorded nowhere. */
#define USED_NOW(p) used_at[p] = tick
#define STAMP_ONLY(p) stamp[p] = tick
#ifdef BROKEN_NO_STAMP_AFTER_LIVE_UNPIN
#define STAMP_GATHER(p) skip
#define STAMP_CALLBACK(p) skip
#else
#define STAMP_GATHER(p) STAMP_ONLY(p)
#define STAMP_CALLBACK(p) STAMP_USE(p)
#endif
#else
#define STAMP_USE(p) skip
#define LINGER_OVER(j) true
#define USED_NOW(p) skip
#define STAMP_ONLY(p) skip
#define STAMP_GATHER(p) skip
#define STAMP_CALLBACK(p) skip
#endif

/* ---- the manager: struct rcupool --------------------------------------- */
byte cur = 0;      /* m->current */
bool mfreed;       /* free(m) done by destroy */
#ifdef LIMIT
#ifndef WARM_MAX
#define WARM_MAX 1 /* m->warm_max */
#endif
bool limit_over;   /* ghost: the last limit ended with more than WARM_MAX
                      pools held off current (none of them warm) */
#endif
#ifdef DISPATCH
bool isdisp[NR * NS + NSZ]; /* the slot holds a call's dispatch reference */
byte ending;       /* ghost: calls between their put and their limit */
#endif

/* ---- RCU -------------------------------------------------------------- */
byte insec;        /* bit r: reader r is inside a read-side section */
byte rstate[NREC]; /* IDLE, QUEUED, RUNNING, DONE */
byte rpool[NREC];  /* the pool each callback is about */
byte rwait[NREC];  /* readers the callback's grace period still waits for */

/* ---- pins, caller-owned rcupool_pin_t --------------------------------- */
byte pinslot[NR * NS + NSZ];

byte readers_done;
bool resetter_done;
bool unpinner_done;
#ifdef SIZED
bool sized_done;
#else
bool sized_done = true;
#endif
bool writer;       /* m->writer: resets, and sized pins that start a pool */

/* ---- macros ---------------------------------------------------------- */

/* Any access to a pool's memory (fields, pthreadpool) */
#define USE(p) assert(p < NP && pstate[p] == ALIVE)

/* A critical section under m->lock. Each is one indivisible step: nothing
 * inside blocks, and the lock-free parties (readers, unpins) that may run
 * meanwhile only touch refs, so their steps are explored before and after
 * it, which is every outcome the lock allows. */
#define UNDER_LOCK d_step
#define M_ALIVE assert(!mfreed)

/* The only place memory is returned. */
#define FREE_POOL(p)                                                          \
  d_step {                                                                    \
    assert(pstate[p] != FREED);             /* no double free */              \
    assert(pstate[p] == ALIVE);                                               \
    assert(pins[p] == 0);                   /* not while pinned */            \
    assert(seeing[p] == 0 && cur != p);     /* no reader can still see it */  \
    pstate[p] = FREED                                                         \
  }

/* A push onto the reclaim queue: the grace period waits for the sections
 * open right now. */
#define CALL_RCU_BODY(i, p)                                                   \
  assert(rstate[i] == IDLE);     /* an item is queued once */             \
  rpool[i] = p; rwait[i] = insec; rstate[i] = QUEUED

#define READY(i) (rstate[i] == QUEUED && rwait[i] == 0)
#define INFLIGHT(i) (rstate[i] == QUEUED || rstate[i] == RUNNING)
#define ALIVE_OF(j, n) ((pstate[j] == ALIVE && psize[j] == n) -> 1 : 0)
#define LIVE_OF(j, n)                                                         \
  ((pstate[j] == ALIVE && psize[j] == n && refs[j] > 0) -> 1 : 0)
#define DYING(j) (pstate[j] == ALIVE && refs[j] == 0)
#ifdef SIZED
#define MORE_INFLIGHT || INFLIGHT(7) || INFLIGHT(8)
#define MORE_ALIVE(n) + ALIVE_OF(4, n) + ALIVE_OF(5, n)
#define MORE_LIVE(n) + LIVE_OF(4, n) + LIVE_OF(5, n)
#define MORE_DYING || DYING(4) || DYING(5)
#define MORE_LISTED || inlist[4] || inlist[5]
#define MORE_DONE(snap) && ((snap & 128) == 0 || rstate[7] == DONE) && \
                          ((snap & 256) == 0 || rstate[8] == DONE)
#else
#define MORE_INFLIGHT
#define MORE_ALIVE(n)
#define MORE_LIVE(n)
#define MORE_DYING
#define MORE_LISTED
#define MORE_DONE(snap)
#endif
#define ANY_INFLIGHT                                                          \
  (INFLIGHT(0) || INFLIGHT(1) || INFLIGHT(2) || INFLIGHT(3) ||                \
   INFLIGHT(4) || INFLIGHT(5) || INFLIGHT(6) MORE_INFLIGHT)
#define COUNT_ALIVE(n)                                                        \
  (ALIVE_OF(0, n) + ALIVE_OF(1, n) + ALIVE_OF(2, n) + ALIVE_OF(3, n)         \
   MORE_ALIVE(n))
#ifdef LIMIT
#define ONE_POOL_PER_SIZE (COUNT_ALIVE(SIZE_A) <= 1 && COUNT_ALIVE(SIZE_B) <= 1 \
                           && COUNT_ALIVE(SIZE_C) <= 1)
#else
#define ONE_POOL_PER_SIZE (COUNT_ALIVE(SIZE_A) <= 1 && COUNT_ALIVE(SIZE_B) <= 1)
#endif
#define COUNT_LIVE(n)                                                         \
  (LIVE_OF(0, n) + LIVE_OF(1, n) + LIVE_OF(2, n) + LIVE_OF(3, n)             \
   MORE_LIVE(n))
#ifdef LIMIT
#define ONE_LIVE_PER_SIZE (COUNT_LIVE(SIZE_A) <= 1 && COUNT_LIVE(SIZE_B) <= 1 \
                           && COUNT_LIVE(SIZE_C) <= 1)
#else
#define ONE_LIVE_PER_SIZE (COUNT_LIVE(SIZE_A) <= 1 && COUNT_LIVE(SIZE_B) <= 1)
#endif
#define ANY_DYING                                                             \
  (DYING(0) || DYING(1) || DYING(2) || DYING(3) MORE_DYING)

/* Nothing waits for a grace period or a hand-over. */
#define QUIET (!ANY_INFLIGHT && handover == 0)

/* rcu_barrier(): waits for every callback queued before the call. */
inline rcu_barrier(snap, i) {
  d_step {
    snap = 0;
    for (i : 0 .. NREC - 1) {
      if
      :: INFLIGHT(i) -> snap = snap | (1 << i)
      :: else
      fi
    }
    i = 0
  }
  (((snap & 1)  == 0 || rstate[0] == DONE) &&
   ((snap & 2)  == 0 || rstate[1] == DONE) &&
   ((snap & 4)  == 0 || rstate[2] == DONE) &&
   ((snap & 8)  == 0 || rstate[3] == DONE) &&
   ((snap & 16) == 0 || rstate[4] == DONE) &&
   ((snap & 32) == 0 || rstate[5] == DONE) &&
   ((snap & 64) == 0 || rstate[6] == DONE) MORE_DONE(snap));
  snap = 0
}

/* The pools whose refs a party dropped to 0 under m->lock (the bits of
 * chain), handed to the reclaim thread after unlocking, one push each
 * (rcupl_warm_free: rcupl_reclaim_free_later). */
inline hand_over(chain, j) {
  do
  :: chain != 0 ->
     d_step {
       j = 0;
       do
       :: (chain & (1 << j)) == 0 -> j++
       :: else -> break
       od;
       CALL_RCU_BODY(FREE_REC(j), j);
       chain = chain & ~(1 << j);
       handover--;
       j = 0
     }
  :: else -> break
  od;
  skip     /* spin: a break may not jump straight into a d_step */
}

/* Leaving a section: no grace period waits for reader r any more. */
#ifdef SIZED
#define MORE_LEAVE(r) ; rwait[7] = rwait[7] & ~(1 << r); \
                        rwait[8] = rwait[8] & ~(1 << r); \
                        mwait[4] = mwait[4] & ~(1 << r); \
                        mwait[5] = mwait[5] & ~(1 << r)
#else
#define MORE_LEAVE(r)
#endif
#define LEAVE_GP(r)                                                           \
  rwait[0] = rwait[0] & ~(1 << r); rwait[1] = rwait[1] & ~(1 << r);          \
  rwait[2] = rwait[2] & ~(1 << r); rwait[3] = rwait[3] & ~(1 << r);          \
  rwait[4] = rwait[4] & ~(1 << r); rwait[5] = rwait[5] & ~(1 << r);          \
  rwait[6] = rwait[6] & ~(1 << r);                                          \
  mwait[0] = mwait[0] & ~(1 << r); mwait[1] = mwait[1] & ~(1 << r);          \
  mwait[2] = mwait[2] & ~(1 << r); mwait[3] = mwait[3] & ~(1 << r)           \
  MORE_LEAVE(r)

/* ---- the warm pass: rcupl_warm_pass_locked, rcupool_trim (lib/warm.c) --------
 * A pool is warm when it is managed, not current, and its refs are the
 * manager's alone (refs 1, no retire pending: WARM-1). */
#ifdef BROKEN_TRIM_PINNED
#define WARM(j) (inlist[j] && managed[j] && j != cur && pending[j] == 0)
#else
#define WARM(j) (inlist[j] && managed[j] && j != cur && pending[j] == 0 && \
                 refs[j] == 1)
#endif
#ifdef SIZED
#define ANY_WARM (WARM(0) || WARM(1) || WARM(2) || WARM(3) || WARM(4) || \
                  WARM(5))
#else
#define ANY_WARM (WARM(0) || WARM(1) || WARM(2) || WARM(3))
#endif

/* rcupl_warm_let_go_locked: the manager's reference goes by one
 * compare-and-swap of refs from 1 to 0 (rcupl_warm_release_locked, WARM-2);
 * the pool is then dying and owned by the pass, which hands it over. */
inline let_go(j, chain, linger) {
  USE(j);
#ifdef TIME
  /* MODEL-8: a linger's end is a whole linger after the last use */
  assert(!linger || tick - used_at[j] >= WARM_TICKS);
#endif
  /* MODEL-7: never the current pool, a retiring one, or one a pin holds */
  assert(j != cur && pending[j] == 0 && pins[j] == 0);
#ifdef VACUITY_NO_TRIM
  assert(false);
#endif
#ifdef BROKEN_TRIM_PINNED
  refs[j] = 0;                       /* a store, refs not looked at */
#else
  assert(refs[j] == 1);              /* the compare-and-swap 1 -> 0 */
  refs[j] = 0;
#endif
#ifndef BROKEN_RELEASE_KEEPS_MANAGED
  managed[j] = false;
#endif
  chain = chain | (1 << j);
  handover++
}

#ifdef LIMIT
/* WARM-5: the pools the manager holds off current (managed, not current:
 * warm, pinned, retiring). */
#define HELD(j) (inlist[j] && managed[j] && j != cur)
#define HELD_OF(j) (HELD(j) -> 1 : 0)
/* Held off current by a pin or a retire (not by a call alone). Without
 * DISPATCH a held pool that is not warm is one of these. */
#define BUSY_OF(j) ((HELD(j) && (pins[j] > 0 || pending[j] > 0)) -> 1 : 0)
#define WARM_OF(j) (WARM(j) -> 1 : 0)
#ifdef SIZED
#define COUNT_HELD (HELD_OF(0) + HELD_OF(1) + HELD_OF(2) + HELD_OF(3) + \
                    HELD_OF(4) + HELD_OF(5))
#define COUNT_BUSY (BUSY_OF(0) + BUSY_OF(1) + BUSY_OF(2) + BUSY_OF(3) + \
                    BUSY_OF(4) + BUSY_OF(5))
#define COUNT_WARM (WARM_OF(0) + WARM_OF(1) + WARM_OF(2) + WARM_OF(3) + \
                    WARM_OF(4) + WARM_OF(5))
#else
#define COUNT_HELD (HELD_OF(0) + HELD_OF(1) + HELD_OF(2) + HELD_OF(3))
#define COUNT_BUSY (BUSY_OF(0) + BUSY_OF(1) + BUSY_OF(2) + BUSY_OF(3))
#define COUNT_WARM (WARM_OF(0) + WARM_OF(1) + WARM_OF(2) + WARM_OF(3))
#endif

/* rcupl_warm_limit_locked, under m->lock: while more than WARM_MAX pools
 * are held off current, a warm one goes (here the lowest slot; C takes the
 * longest unused); it stops when none is warm. */
inline warm_limit(chain, j, join) {
  for (j : 0 .. NP - 1) {
    if
    :: COUNT_HELD > WARM_MAX && WARM(j) ->
#ifdef VACUITY_NO_JOIN_RELEASE
       assert(!join);
#endif
       let_go(j, chain, false)
    :: else
    fi
  }
  j = 0;
  limit_over = (COUNT_BUSY > WARM_MAX)
}
#endif

/* The limit where a pool may join those held off current (a reset's
 * retire, a sized pin's pool start): not there before issue 32. */
#if defined(LIMIT) && !defined(BROKEN_LIMIT_AT_PASS_ONLY)
#define JOIN_LIMIT ; warm_limit(chain, j, true)
#else
#define JOIN_LIMIT
#endif

#ifdef SHARDED
/* rcupl_pool_shard_locked, at a publish (under m->lock): the bias, then
 * every shard live at 0 (what a gathered shard held is dropped). */
#define RESHARD(p)                                                            \
  if                                                                          \
  :: !sharded[p] -> refs[p] = refs[p] + BIAS;                                \
     shcount[SH(p, 0)] = 0; shlive[SH(p, 0)] = true;                          \
     shcount[SH(p, 1)] = 0; shlive[SH(p, 1)] = true;                          \
     sharded[p] = true                                                        \
  :: else                                                                     \
  fi
/* rcupl_pool_gather_locked (under m->lock): each shard exchanged for a
 * gathered one, the sum less the bias added to refs. */
#define GATHER(p)                                                             \
  if                                                                          \
  :: sharded[p] ->                                                            \
     refs[p] = refs[p] + shcount[SH(p, 0)] + shcount[SH(p, 1)] - BIAS;       \
     shcount[SH(p, 0)] = 0; shlive[SH(p, 0)] = false;                         \
     shcount[SH(p, 1)] = 0; shlive[SH(p, 1)] = false;                         \
     sharded[p] = false;                                                      \
     STAMP_GATHER(p)                            /* WARM-3 */                  \
  :: else                                                                     \
  fi
#define SHARD_PINS(p)                                                         \
  ((sharded[p] -> shcount[SH(p, 0)] + shcount[SH(p, 1)] - BIAS : 0))
#ifdef BROKEN_GATHER_NO_GP
/* the old pool gathered at its retire, without the grace period */
#define GATHER_NO_GP(p) GATHER(p)
#else
#define GATHER_NO_GP(p) skip
#endif
#else
#define GATHER_NO_GP(p) skip
#define RESHARD(p) skip
#define GATHER(p) skip
#define SHARD_PINS(p) 0
#endif

/* ---- readers: rcupool_read_lock/current/pin/read_unlock ----------------
 * A section is two steps: enter and load m->current, then use the pool,
 * maybe pin it, and leave. A pool once freed stays freed here, so a use
 * that finds it alive at the end of the section found it alive all along;
 * and while the section lasts the pool's refs cannot reach zero, so where
 * in the section the pin's increment falls changes no other party's
 * choices. (Entering and loading at once only lets callbacks run earlier.) */
proctype reader(byte r; byte nsec) {
  byte s;
  byte p = NONE;
#ifdef SHARDED
  byte sh;
#endif
  do
  :: s < nsec ->
     d_step {                                     /* rcupool_read_lock */
       insec = insec | (1 << r);
       p = cur;                                   /* rcupool_current */
       assert(p != NONE);
       seeing[p]++
     }
     atomic {
       USE(p);                                    /* work on p->tp */
       if
       :: USE(p);                                 /* rcupool_pin */
          assert(refs[p] > 0);                    /* never from zero (PIN-1) */
#ifdef SHARDED
          /* one increment of this CPU's shard, never a gathered one */
          if
          :: sh = 0
          :: sh = 1
          fi;
          assert(shlive[SH(p, sh)]);
          shcount[SH(p, sh)]++; sh = 0;
#else
          refs[p]++;
#endif
          pins[p]++; pinslot[r * NS + s] = p
#ifdef DISPATCH
       :: USE(p);            /* rcupool_parallelize_1d: a dispatch reference */
          assert(refs[p] > 0);                    /* PARALLEL-2 */
          refs[p]++; pinslot[r * NS + s] = p; isdisp[r * NS + s] = true
#endif
       :: skip
       fi;
       seeing[p]--;                               /* rcupool_read_unlock */
       insec = insec & ~(1 << r);
       LEAVE_GP(r);
       p = NONE;
       s++
     }
  :: else -> break
  od;
  readers_done++
}

/* ---- the holder of the pins: use, then rcupool_unpin --------------------
 * The use and the decrement are one step: the pool is alive at the
 * decrement only if it was alive at every use before it. The last unpin of
 * a managed pool never reaches 0 (the manager's reference stays): the
 * hand-over below is for a pool the manager has let go. */
proctype unpinner() {
  byte i;
  byte p;
#ifdef SHARDED
  short old;
  byte sh;
  bool gathered;
#else
  byte old;
#endif
  bool last;
#ifdef DISPATCH
  bool disp;
  bool dlimit;
  byte chain;
  byte j;
#endif
  do
  :: atomic {
       if
       :: pinslot[0] != NONE -> i = 0
       :: pinslot[1] != NONE -> i = 1
       :: pinslot[2] != NONE -> i = 2
       :: pinslot[3] != NONE -> i = 3
#ifdef SIZED
       :: pinslot[4] != NONE -> i = 4
       :: pinslot[5] != NONE -> i = 5
#endif
       fi;
       p = pinslot[i];
       USE(p);                                    /* a method runs on it */
       pinslot[i] = NONE;                         /* rcupool_unpin */
#ifdef DISPATCH
       disp = isdisp[i]; isdisp[i] = false;       /* or the call's end */
       if
       :: !disp -> pins[p]--
       :: else
       fi;
#else
       pins[p]--;
#endif
#ifdef SHARDED
       USED_NOW(p);                 /* a live shard's decrement: no stamp */
       if                                         /* this CPU's shard */
       :: sh = 0
       :: sh = 1
       fi;
#ifdef BROKEN_UNPIN_MODE_FIRST
       /* reads p->sharded, then decrements the shard (next step) */
       gathered = !sharded[p]
     }
     atomic {
       if
       :: !gathered -> USE(p);
          shcount[SH(p, sh)]--               /* lost if gathered meanwhile */
       :: else
       fi;
#else
       /* the decrement's returned value says whether it was gathered */
       gathered = !shlive[SH(p, sh)];
       shcount[SH(p, sh)]--;
     }
     atomic {
#endif
       sh = 0;
       if
       :: gathered -> USE(p);                     /* then refs is the count */
          STAMP_ONLY(p);                          /* WARM-3, before the put */
          old = refs[p];
          assert(old > 0);
          refs[p]--;
          last = (old == 1)
       :: else -> last = false
       fi;
       gathered = false;
#else
       STAMP_USE(p);                              /* WARM-3, before the put */
       old = refs[p];
       assert(old > 0);                           /* no underflow */
       refs[p]--;                                 /* rcupl_pool_put */
#ifdef DISPATCH
       /* PARALLEL-6: one reference left and the pool not current (an
        * address compare after the put) */
       dlimit = disp && old == 2 && p != cur;
#ifdef BROKEN_DISPATCH_NO_LIMIT
       dlimit = false;
#endif
       if
       :: dlimit -> ending++
       :: else
       fi;
#endif
#ifdef BROKEN_FREE_AT_UNPIN
       last = (pins[p] == 0);
#else
       last = (old == 1);
#endif
#endif
       if
       :: last -> handover++
       :: else
       fi;
       i = 0; old = 0
     }
     if
     :: last ->                                   /* rcupl_reclaim_free_later */
        d_step { CALL_RCU_BODY(FREE_REC(p), p); handover--; p = 0; last = false }
     :: else -> p = 0
     fi;
#ifdef DISPATCH
     if
     :: dlimit ->                                 /* rcupl_warm_limit_now */
        UNDER_LOCK {
          M_ALIVE;
          warm_limit(chain, j, false);
#ifdef VACUITY_NO_DISPATCH_RELEASE
          assert(chain == 0);
#endif
          ending--;
          dlimit = false
        }
        hand_over(chain, j)
     :: else
     fi;
     disp = false
#endif
  :: atomic {
       readers_done == NR && sized_done && pinslot[0] == NONE &&
       pinslot[1] == NONE && pinslot[2] == NONE && pinslot[3] == NONE &&
       pinslot[4] == NONE && pinslot[5] == NONE
     } -> break
  od;
  unpinner_done = true
}

/* ---- the writer: rcupool_reset ------------------------------------------ */
proctype resetter() {
  byte k;
  byte n;
  byte old;
  byte next;
  byte j;
  bool reused;
#ifdef LIMIT
  byte chain;
#endif
  do
  :: k < NRES ->
     atomic { !writer -> writer = true }   /* m->writer */
     UNDER_LOCK {                    /* rcupl_find_reusable_locked */
       M_ALIVE;
#ifdef LIMIT
       n = (k == 0 -> SIZE_B : (k == 1 -> SIZE_C : SIZE_A));
#else
       n = ((k % 2) == 0 -> SIZE_B : SIZE_A);
#endif
       old = cur;                    /* only the writer changes m->current */
       USE(old);
       assert(psize[old] != n);      /* the sizes alternate: no early return */
       next = NONE;
       for (j : 0 .. NP - 1) {
         if
#ifdef BROKEN_REUSE_RELEASED
         :: next == NONE && inlist[j] && j != cur -> USE(j);
#else
         :: next == NONE && inlist[j] && managed[j] && j != cur -> USE(j);
#endif
            if
            :: psize[j] == n -> next = j  /* no reference taken */
            :: else
            fi
         :: else
         fi
       }
       j = 0;
       reused = (next != NONE);
       if
       :: reused ->                  /* RESET-4: publish in the same hold */
#ifdef VACUITY_NO_RESET_REUSES_SIZED
          assert(was_cur[next]);
#endif
          /* WARM-2: under m->lock a managed pool cannot be at zero; its
           * manager's reference becomes the current one. */
          assert(refs[next] > 0);
#ifdef BROKEN_REUSE_PENDING
          if                         /* "the reuse cancels the retire" */
          :: pending[next] > 0 -> pending[next]--; refs[next]--
          :: else
          fi;
#endif
          reuses++; was_cur[next] = true;
          RESHARD(next);             /* POOL-8, before the publish */
          cur = next;
          GATHER_NO_GP(old);
          USE(old);
          refs[old]++; pending[old]++ /* old stays managed: + a retire ref */
          JOIN_LIMIT
       :: else
       fi
     }
     UNDER_LOCK {                    /* rcupl_pool_create (no lock), publish */
       M_ALIVE;
       if
       :: !reused ->
          next = npools; npools++;
          /* RESET-2: any other pool of this size alive is dying (refs 0) */
          for (j : 0 .. NP - 1) {
            assert(!(j != next && pstate[j] == ALIVE && psize[j] == n &&
                     refs[j] > 0))
          }
          j = 0;
          pstate[next] = ALIVE; psize[next] = n;
          refs[next] = 1; managed[next] = true;  /* the manager's reference */
          STAMP_USE(next);
          inlist[next] = true; was_cur[next] = true;
          RESHARD(next);             /* POOL-8, before the publish */
          cur = next;                /* publish (release) */
          GATHER_NO_GP(old);
          USE(old);
          refs[old]++; pending[old]++ /* old stays managed: + a retire ref */
          JOIN_LIMIT
       :: else
       fi;
       next = 0; n = 0
     }
     d_step {                        /* rcupl_reclaim_retire: a push */
       CALL_RCU_BODY(k, old);
       k++; old = 0; reused = false;
       writer = false
     }
#ifdef LIMIT
     hand_over(chain, j)             /* rcupl_warm_free, after the locks */
#endif
  :: else -> break
  od;
#ifdef VACUITY_NO_REUSE
  assert(reuses == 0);
#endif
  resetter_done = true
}

#ifdef SIZED
/* ---- rcupool_pin_sized (lib/pin.c) ----------------------------------------
 * NSZ sized pins of size B (a size the resetter also resets to), into pin
 * slots that the unpinner releases at any time. Each takes the current pool
 * if it has size B (in a read-side section, SIZED-1's fast path), else a
 * live pool of size B found under m->lock with rcupl_pool_tryget(), else,
 * under m->writer after a second search (SIZED-2), a new pool that is never
 * current (refs 2: its pin and the manager's). A reset to B may then reuse
 * that pool; once unpinned it is warm. */
inline find_sized(slot, j, found) {
  M_ALIVE;
  found = false;
  for (j : 0 .. NP - 1) {
    if
    :: !found && inlist[j] && psize[j] == SIZE_B -> USE(j);
       if
#ifdef BROKEN_SIZED_FROM_ZERO
       :: true ->                    /* refs++ without tryget */
#else
       :: refs[j] > 0 ->             /* rcupl_pool_tryget */
#endif
#ifdef VACUITY_NO_SIZED_SHARES_SIZED
          assert(was_cur[j]);
#endif
          refs[j]++; pins[j]++; pinslot[slot] = j; found = true
       :: else
       fi
    :: else
    fi
  }
  j = 0
}

proctype sized_pinner() {
  byte s;
  byte p = NONE;
  byte j;
  byte next;
  bool found;
#ifdef LIMIT
  byte chain;
#endif
  do
  :: s < NSZ ->
     d_step {                                     /* rcupool_read_lock */
       insec = insec | (1 << SIZED_R);
       p = cur;
       assert(p != NONE);
       seeing[p]++
     }
     atomic {
       USE(p);                                    /* p->threads */
       if
       :: psize[p] == SIZE_B ->                   /* the current pool */
          assert(refs[p] > 0);
          refs[p]++; pins[p]++; pinslot[NR * NS + s] = p; found = true
       :: else
       fi;
       seeing[p]--;                               /* rcupool_read_unlock */
       insec = insec & ~(1 << SIZED_R);
       LEAVE_GP(SIZED_R);
       for (j : 0 .. NP - 1) { reach[j] = false }
       j = 0;
       p = NONE
     }
     if
     :: found -> skip
     :: else ->
        /* rcupl_sized_find_live: a walk of m->pools in one section, no lock;
         * each step loads a node's pointer, then reads the pool it names. */
        d_step { insec = insec | (1 << SIZED_R); j = 0 }
        do
        :: j < NP ->
           atomic {
             if
             :: !found && (inlist[j] || reach[j]) -> seeing[j]++; p = j
             :: else -> p = NONE
             fi
           }
           atomic {
             if
             :: p != NONE ->
                USE(p);                           /* threads, fork_orphan */
                if
#ifdef BROKEN_SIZED_FROM_ZERO
                :: psize[p] == SIZE_B ->
#else
                :: psize[p] == SIZE_B && refs[p] > 0 -> /* rcupl_pool_tryget */
#endif
#ifdef VACUITY_NO_SIZED_SHARES_SIZED
                   assert(was_cur[p]);
#endif
                   refs[p]++; pins[p]++; pinslot[NR * NS + s] = p;
                   found = true
                :: else
                fi;
                seeing[p]--; p = NONE
             :: else
             fi;
             j++
           }
        :: else -> break
        od;
        skip;    /* spin: a break may not jump straight into a d_step */
        d_step {                                  /* rcupool_read_unlock */
          insec = insec & ~(1 << SIZED_R);
          LEAVE_GP(SIZED_R);
          for (j : 0 .. NP - 1) { reach[j] = false }
          j = 0
        }
        if
        :: found -> skip
        :: else ->
#ifndef BROKEN_SIZED_NO_WRITER
           atomic { !writer -> writer = true }
           UNDER_LOCK { find_sized(NR * NS + s, j, found) }
#endif
           if
           :: found -> skip
           :: else ->
              UNDER_LOCK {                        /* rcupl_pool_create, list */
                M_ALIVE;
                next = npools; npools++;
                /* SIZED-2: any other pool of this size alive is dying */
                for (j : 0 .. NP - 1) {
                  assert(!(j != next && pstate[j] == ALIVE &&
                           psize[j] == SIZE_B && refs[j] > 0))
                }
                j = 0;
                pstate[next] = ALIVE; psize[next] = SIZE_B;
                refs[next] = 2;      /* its pin and the manager's (SIZED-3) */
                STAMP_USE(next);
                managed[next] = true;
                inlist[next] = true;
                pins[next]++; pinslot[NR * NS + s] = next;
                next = 0
                JOIN_LIMIT
              }
           fi;
#ifndef BROKEN_SIZED_NO_WRITER
           writer = false
#endif
#ifdef LIMIT
           ; hand_over(chain, j)           /* rcupl_warm_free */
#endif
        fi
     fi;
     d_step { s++; found = false }
  :: else -> break
  od;
  sized_done = true
}
#endif

/* ---- rcupool's reclaim thread: rcupl_retire_cb and rcupl_free_cb --------------- */
/* rcupl_pools_del_locked (under m->lock): the sections open now may stand on
 * the node; the grace period of RECLAIM-7 waits for them. */
#define UNLINK(p)                                                             \
  inlist[p] = false; mwait[p] = insec;                                        \
  reach[p] = ((insec & (1 << SIZED_R)) != 0)

#ifdef BROKEN_FREE_AT_UNLINK
#define FREE_UNLINKED(p) FREE_POOL(p)
#else
#define FREE_UNLINKED(p) (mwait[p] == 0); FREE_POOL(p)
#endif

proctype reclaim() {
  byte i;
  byte p;
  REFS_T old;
  bool last;
  bool kept;
end_idle:
  do
  :: atomic {
       if
       :: READY(0) -> i = 0
       :: READY(1) -> i = 1
       :: READY(2) -> i = 2
       :: READY(3) -> i = 3
       :: READY(4) -> i = 4
       :: READY(5) -> i = 5
       :: READY(6) -> i = 6
#ifdef SIZED
       :: READY(7) -> i = 7
       :: READY(8) -> i = 8
#endif
       fi;
       rstate[i] = RUNNING;
       p = rpool[i]
     }
     if
     :: i < NRES ->                  /* rcupl_retire_cb */
        UNDER_LOCK {
          USE(p);                    /* rcupl_pool_check, p->manager */
          M_ALIVE;
          /* rcupl_pool_pins_locked, with this callback's reference pending */
          old = pending[p] + (managed[p] -> 1 : 0);
          kept = (refs[p] + SHARD_PINS(p) > old);
          pending[p]--;
          if                         /* POOL-8: its last retire, not current */
          :: pending[p] == 0 && p != cur -> GATHER(p)
          :: else
          fi;
          STAMP_CALLBACK(p);         /* WARM-3: turns warm unless pinned */
          old = refs[p];
          assert(old > 0);
          refs[p]--;                 /* rcupl_pool_put */
          last = (old == 1);         /* only once destroy let it go */
          kept = (kept && !last && cur != NONE && p != cur &&
                  pending[p] == 0);
          if
          :: last -> UNLINK(p)
          :: else
          fi;
          old = 0
        }
        if
        :: last -> FREE_UNLINKED(p)  /* rcupl_stop_and_defer_free, RECLAIM-7 */
        :: kept ->
#ifdef C_KEPT_LOG_AFTER_PUT
           USE(p)                    /* p->threads for the "kept" log */
#else
           skip                      /* logs values read before the put */
#endif
        :: else
        fi
     :: else ->                      /* rcupl_free_cb */
        UNDER_LOCK {
          USE(p);                    /* p->manager, then list_del */
          M_ALIVE;
          UNLINK(p)
        }
        FREE_UNLINKED(p)
     fi;
     d_step { rstate[i] = DONE; i = 0; p = 0; last = false; kept = false }
  od
}

/* One pass over m's pools under m->lock. all: rcupool_trim's pass, every
 * warm pool goes; else each warm pool goes or stays (its linger is over or
 * not, it is beyond warm_max or not: time is not modelled). LIMIT: the
 * pass ends with the limit instead of choosing who is beyond warm_max. */
inline warm_pass(all, chain, j) {
  for (j : 0 .. NP - 1) {
    if
    :: WARM(j) ->
       if
       :: all -> let_go(j, chain, false)            /* trim */
       :: !all && LINGER_OVER(j) -> let_go(j, chain, true) /* linger over */
#ifndef LIMIT
       :: !all -> let_go(j, chain, false)           /* beyond the limit */
#endif
       :: !all -> skip
       fi
#ifdef BROKEN_STAMP_AT_PASS
    :: !WARM(j) && inlist[j] && managed[j] && j != cur ->
       stamp[j] = tick                 /* in use: the linger restarts */
#endif
    :: else
    fi
  }
  j = 0
#ifdef LIMIT
  ; warm_limit(chain, j, false)      /* every pass ends with the limit */
#endif
}

/* The passes of the reclaim thread (after each batch, and when due), of
 * rcupool_barrier() and of other threads' rcupool_trim(): any number (at
 * most TRIM_PASSES if defined), at any time, racing everything else. A pass is explored only when some pool
 * is warm (a pass that lets nothing go changes nothing); one that lets
 * nothing go anyway is a step back to the same state. The pass returns at
 * once once destroy has published NULL (m->current == NULL), and a
 * destroyed manager is off the managers list the pass walks. */
proctype trimmer() {
  byte j;
  byte chain;
#ifdef TRIM_PASSES
  byte n;
#endif
end_idle:
  do
  :: atomic {
#ifdef TRIM_PASSES
       n < TRIM_PASSES &&
#endif
       cur != NONE && ANY_WARM ->    /* managers_mu, m->lock */
       M_ALIVE;
       warm_pass(false, chain, j)
#ifdef TRIM_PASSES
       ; n++
#endif
     }
     hand_over(chain, j)             /* after unlocking: rcupl_warm_free */
  od
}

/* ---- rcupool_barrier / rcupl_reclaim_drain ---------------------------------- */
/* rcupl_reclaim_drain: do { look for a pool on the list at refs 0 (its free
 * on the way); wait for the items queued before } while (the look found
 * one). BROKEN_DRAIN_LOOK_AFTER: the look after each wait instead, as
 * before the model found the gap (README.md, "What the model found in the
 * C code"). */
inline has_dying(i, dying) {
  UNDER_LOCK {                       /* rcupl_has_dying_pool */
    M_ALIVE;
    dying = false;
    for (i : 0 .. NP - 1) {
      if
      :: inlist[i] && refs[i] == 0 -> dying = true
      :: else
      fi
    }
    i = 0
  }
}

inline drain(snap, i, dying) {
  do
#ifndef BROKEN_DRAIN_LOOK_AFTER
  :: has_dying(i, dying);
     rcu_barrier(snap, i);
#else
  :: rcu_barrier(snap, i);
     has_dying(i, dying);
#endif
     if
     :: dying -> skip
     :: else -> break
     fi
  od;
  skip     /* spin: a break may not jump straight into a d_step */
}

/* ---- rcupool_destroy ---------------------------------------------------- */
proctype destroyer() {
  short snap;
  byte i;
#ifdef SHARDED
  short c;
  short pinsum;
#else
  byte c;
  byte pinsum;
#endif
  REFS_T old;
  byte chain;
  bool flag;

  /* The manager's users other than pins are finished with it. */
  (readers_done == NR && resetter_done && sized_done);
#ifdef DISPATCH
  /* ... and every parallel call has returned (a call is a use of m). */
  (ending == 0 && !isdisp[0] && !isdisp[1] && !isdisp[2] && !isdisp[3]);
#endif
  if
  :: unpinner_done ->
     /* rcupool_trim() with every pin released: a barrier (the retires
      * queued before it run, so every pool but the current one is warm),
      * the pass that lets every warm pool go, a barrier (their frees run).
      * Every pool but the current one has then been freed (the liveness
      * property, as an end-state assertion). The barriers' own passes are
      * the trimmer's. */
     drain(snap, i, flag);
     atomic {                        /* rcupl_warm_pass(m, true): m->lock */
       M_ALIVE;
       warm_pass(true, chain, i)
     }
     hand_over(chain, i);
     drain(snap, i, flag);
     d_step {
       for (i : 0 .. NP - 1) {
         if
         :: i == cur -> assert(pstate[i] == ALIVE)
         :: i != cur && i < npools -> assert(pstate[i] == FREED)
         :: else
         fi
       }
       i = 0; flag = false
     }
  :: skip                            /* or race the unpinner */
  fi;

try_destroy:
  skip;      /* spin: a goto may not jump straight into a d_step */
  UNDER_LOCK {                       /* rcupl_manager_pins_locked */
    M_ALIVE;
    pinsum = 0;
    for (i : 0 .. NP - 1) {
      if
      :: inlist[i] -> USE(i);
         c = pending[i] + (managed[i] -> 1 : 0);
         if
         :: refs[i] + SHARD_PINS(i) > c ->
            pinsum = pinsum + refs[i] + SHARD_PINS(i) - c
         :: else
         fi
      :: else
      fi
    }
    i = 0; c = 0;
    if
    :: pinsum == 0 -> cur = NONE     /* publish NULL */
    :: else
    fi
  }
  if
  :: pinsum != 0 ->                  /* -EBUSY: the caller unpins, retries */
     unpinner_done;
     goto try_destroy
  :: else
  fi;
  assert(insec == 0);                /* synchronize_rcu: no reader left */
  UNDER_LOCK {                       /* the manager's references go */
    M_ALIVE;
    for (i : 0 .. NP - 1) {
      if
      :: inlist[i] && managed[i] -> USE(i);
#ifdef SHARDED
         if                          /* the old current pool (POOL-8) */
         :: pending[i] == 0 -> GATHER(i)
         :: else
         fi;
#endif
         managed[i] = false;
         old = refs[i];
         assert(old > 0);
         refs[i]--;                  /* rcupl_pool_put */
         if
         :: old == 1 -> chain = chain | (1 << i); handover++
         :: else                     /* a retire is pending */
         fi
      :: else
      fi
    }
    i = 0; old = 0
  }
  hand_over(chain, i);               /* rcupl_warm_free, after unlocking */
  do                                 /* wait for the list to empty */
  :: rcu_barrier(snap, i);
     UNDER_LOCK {
       M_ALIVE;
       flag = !(inlist[0] || inlist[1] || inlist[2] || inlist[3]
                MORE_LISTED);
       /* a pool still listed must have a callback or a hand-over coming,
        * or this loop would spin forever */
       assert(flag || ANY_INFLIGHT || handover > 0)
     }
     if
     :: flag -> break
     :: else
     fi
  od;
  rcu_barrier(snap, i);
  d_step {
    mfreed = true;                   /* free(m) */
    for (i : 0 .. NP - 1) {
      assert(i >= npools || pstate[i] == FREED)
    }
    assert(!ANY_INFLIGHT)
  }
}

/* MODEL-4, MODEL-6: once grace periods and hand-overs have elapsed, at
 * most one pool per size is alive and none is dying; and in every state at
 * most one pool per size is live (refs > 0). */
#ifdef TIME
/* Time passes, at any moment, TMAX times. */
proctype ticker() {
end_idle:
  do
  :: atomic { tick < TMAX -> tick++ }
  od
}
#endif

active proctype one_per_size() {
end_watch:
  if
  :: atomic { (QUIET && !ONE_POOL_PER_SIZE) -> assert(ONE_POOL_PER_SIZE) }
  :: atomic { (QUIET && ANY_DYING) -> assert(!ANY_DYING) }
  :: atomic { !ONE_LIVE_PER_SIZE -> assert(ONE_LIVE_PER_SIZE) }
#ifdef LIMIT
  /* MODEL-9: every limit is inside one step, so this sees none in progress */
#ifdef DISPATCH
  :: atomic { (cur != NONE && ending == 0 &&
               !(COUNT_WARM <= WARM_MAX || limit_over)) ->
              assert(COUNT_WARM <= WARM_MAX || limit_over) }
#else
  :: atomic { (cur != NONE && !(COUNT_WARM <= WARM_MAX || limit_over)) ->
              assert(COUNT_WARM <= WARM_MAX || limit_over) }
#endif
#endif
  fi
}

init {
  d_step {
    pstate[0] = ALIVE; psize[0] = SIZE_A; refs[0] = 1; inlist[0] = true;
    managed[0] = true; was_cur[0] = true;
    RESHARD(0);
    cur = 0;
    pinslot[0] = NONE; pinslot[1] = NONE; pinslot[2] = NONE; pinslot[3] = NONE;
    pinslot[4] = NONE; pinslot[5] = NONE
  }
  atomic {
    run reader(0, READER0_SECTIONS); run reader(1, READER1_SECTIONS);
    run unpinner(); run resetter(); run reclaim(); run destroyer();
    run trimmer()
#ifdef TIME
    ; run ticker()
#endif
#ifdef SIZED
    ; run sized_pinner()
#endif
  }
}
