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
 *     reset may reuse a pool still alive;
 *   - rcupool's reclaim thread (lib/reclaim.c), running any queued
 *     callback whose grace period is over: the retire callback and the free
 *     callback that an unpin's hand-over queues;
 *   - destroy, once the readers and the resetter are finished with the
 *     manager, racing the unpinner and the reclaim thread; it may first
 *     call rcupool_barrier() after every pin is released.
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
 *      holder, a reuse, a callback and destroy;
 *   MODEL-2 no free while pinned, current, or seen by a reader still inside the
 *      section where it loaded the pool: FREE_POOL();
 *   MODEL-3 no double free: FREE_POOL(); a queue item is never queued twice;
 *   MODEL-4 at most one pool per thread count alive whenever no callback and no
 *      hand-over is pending (process one_per_size), and never two live
 *      (refs > 0) pools of one size (assertion RESET-2 in the resetter);
 *   MODEL-5 every retired pool is freed once all pins are released: after the
 *      readers, the resetter and the unpinner are done, rcupool_barrier()
 *      leaves only the current pool alive (end-state assertion in
 *      destroyer), and destroy then frees everything and never waits for a
 *      callback that will not come;
 *   plus the checks the C code itself makes (pin from refs 0 and refs
 *   underflow abort).
 *
 * Memory is sequentially consistent here; the C code's orderings (release
 * publish, acquire load, acq_rel decrement) are argued in lib/, not here.
 *
 * One-line switches (spin -D...): each must make spin report a violation.
 *   BROKEN_REUSE_FROM_ZERO  a reuse increments refs without rp_pool_tryget()'s
 *                           "not from zero" check: it revives a pool whose
 *                           free is already queued.
 *   BROKEN_REUSE_PENDING    a reuse takes no reference of its own when a
 *                           retire callback is pending: it takes over the
 *                           pending retire reference without dequeuing the
 *                           callback, which then drops it anyway.
 *   BROKEN_FREE_AT_UNPIN    the last unpin frees the pool when its pin count
 *                           reaches zero, without checking that the pool was
 *                           retired and its grace period is over.
 *   C_KEPT_LOG_AFTER_PUT    rp_retire_cb() as it was before the fix: it read
 *                           p->threads for its "kept" log after its own
 *                           decrement, while destroy can free the pool.
 *   VACUITY_NO_REUSE        asserts that no reset ever reuses a pool: spin
 *                           must find a reuse, so the reuse path is explored.
 *
 * SIZED adds the sized pinner (rcupool_pin_sized, lib/pin.c): NSZ sized
 * pins of size B, which may take the current pool, a retired one, the pool
 * of the other sized pin, or start a pool that is never current; a reset to
 * B may reuse that pool (RESET-4: find and publish in one hold of m->lock).
 * Its first search walks m->pools without the lock, inside a read-side
 * section, one node a step (SIZED-1); a node unlinked meanwhile stays
 * reachable to it until the section ends, and the reclaim thread frees a
 * pool's memory only after a grace period that began after the unlink
 * (RECLAIM-9).
 * m->writer is modelled (`writer`): resets and pool starts of sized pins
 * hold it. Checked with one reader of one section (tests/model/BUILD),
 * about 15 million states; two readers of two sections make a space many
 * times larger, not searched since the walk was modelled. Its switches,
 * each must fail:
 *   BROKEN_SIZED_FROM_ZERO  the sized search increments refs without
 *                           rp_pool_tryget(): it revives a dying pool.
 *   BROKEN_SIZED_NO_WRITER  a sized pin starts a pool without m->writer and
 *                           the second search: a reset starts one of the
 *                           same size meanwhile (two live pools of one size).
 *   BROKEN_FREE_AT_UNLINK   the reclaim thread frees a pool's memory as
 *                           soon as it unlinks it, without the grace period
 *                           RECLAIM-9 adds: the lock-free search may stand
 *                           on it.
 *   VACUITY_NO_RESET_REUSES_SIZED  asserts no reset reuses a never-current
 *                           pool; VACUITY_NO_SIZED_SHARES_SIZED asserts no
 *                           sized pin takes a never-current pool: spin must
 *                           find both.
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

/* pool memory */
#define UNUSED 0
#define ALIVE  1
#define FREED  2

/* a queue item (struct rp_work) */
#define IDLE    0
#define QUEUED  1
#define RUNNING 2
#define DONE    3

#define FREE_REC(p) (NRES + (p))

/* ---- pools: struct rp_pool ------------------------------------------- */
byte pstate[NP];   /* memory: UNUSED, ALIVE, FREED */
byte psize[NP];    /* threads (immutable) */
byte refs[NP];     /* refs */
byte pending[NP];  /* retires_pending */
bool inlist[NP];   /* on m->pools */
byte npools = 1;   /* slots used so far */

/* ---- ghosts, for the properties only --------------------------------- */
byte pins[NP];     /* pins held on each pool */
byte seeing[NP];   /* readers inside a section that loaded this pool */
byte handover;     /* unpins between their last decrement and push */
byte reuses;
bool was_cur[NP];  /* the pool has been current (generation != 0 in C) */
byte mwait[NP];    /* sections the free of an unlinked pool's memory waits
                      for (RECLAIM-9's grace period) */
bool reach[NP];    /* unlinked while the sized pinner was inside a section:
                      its walk may still reach the node until it leaves */

/* ---- the manager: struct rcupool --------------------------------------- */
byte cur = 0;      /* m->current */
bool mfreed;       /* free(m) done by destroy */

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
#ifdef SIZED
#define MORE_INFLIGHT || INFLIGHT(7) || INFLIGHT(8)
#define MORE_ALIVE(n) + ALIVE_OF(4, n) + ALIVE_OF(5, n)
#define MORE_LISTED || inlist[4] || inlist[5]
#define MORE_DONE(snap) && ((snap & 128) == 0 || rstate[7] == DONE) && \
                          ((snap & 256) == 0 || rstate[8] == DONE)
#else
#define MORE_INFLIGHT
#define MORE_ALIVE(n)
#define MORE_LISTED
#define MORE_DONE(snap)
#endif
#define ANY_INFLIGHT                                                          \
  (INFLIGHT(0) || INFLIGHT(1) || INFLIGHT(2) || INFLIGHT(3) ||                \
   INFLIGHT(4) || INFLIGHT(5) || INFLIGHT(6) MORE_INFLIGHT)
#define COUNT_ALIVE(n)                                                        \
  (ALIVE_OF(0, n) + ALIVE_OF(1, n) + ALIVE_OF(2, n) + ALIVE_OF(3, n)         \
   MORE_ALIVE(n))
#define ONE_POOL_PER_SIZE (COUNT_ALIVE(SIZE_A) <= 1 && COUNT_ALIVE(SIZE_B) <= 1)

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
          refs[p]++; pins[p]++; pinslot[r * NS + s] = p
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
 * decrement only if it was alive at every use before it. */
proctype unpinner() {
  byte i;
  byte p;
  byte old;
  bool last;
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
       pins[p]--;
       old = refs[p];
       assert(old > 0);                           /* no underflow */
       refs[p]--;                                 /* rp_pool_put */
#ifdef BROKEN_FREE_AT_UNPIN
       last = (pins[p] == 0);
#else
       last = (old == 1);
#endif
       if
       :: last -> handover++
       :: else
       fi;
       i = 0; old = 0
     }
     if
     :: last ->                                   /* rp_reclaim_free_later */
        d_step { CALL_RCU_BODY(FREE_REC(p), p); handover--; p = 0; last = false }
     :: else -> p = 0
     fi
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
  do
  :: k < NRES ->
     atomic { !writer -> writer = true }   /* m->writer */
     UNDER_LOCK {                    /* rp_find_reusable_locked */
       M_ALIVE;
       n = ((k % 2) == 0 -> SIZE_B : SIZE_A);
       old = cur;                    /* only the writer changes m->current */
       USE(old);
       assert(psize[old] != n);      /* the sizes alternate: no early return */
       next = NONE;
       for (j : 0 .. NP - 1) {
         if
         :: next == NONE && inlist[j] && j != cur -> USE(j);
            if
            :: psize[j] == n ->
#if defined(BROKEN_REUSE_FROM_ZERO)
               refs[j]++; next = j
#elif defined(BROKEN_REUSE_PENDING)
               if
               :: pending[j] > 0 -> pending[j]--; next = j
               :: else -> if
                          :: refs[j] > 0 -> refs[j]++; next = j
                          :: else
                          fi
               fi
#else
               if                     /* rp_pool_tryget */
               :: refs[j] > 0 -> refs[j]++; next = j
               :: else
               fi
#endif
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
          reuses++; was_cur[next] = true;
          cur = next;
          USE(old);
          pending[old]++
       :: else
       fi
     }
     UNDER_LOCK {                    /* rp_pool_create (no lock), publish */
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
          pstate[next] = ALIVE; psize[next] = n; refs[next] = 1;
          inlist[next] = true; was_cur[next] = true;
          cur = next;                /* publish (release) */
          USE(old);
          pending[old]++             /* old's current ref -> retire ref */
       :: else
       fi;
       next = 0; n = 0
     }
     d_step {                        /* rp_reclaim_retire: a push */
       CALL_RCU_BODY(k, old);
       k++; old = 0; reused = false;
       writer = false
     }
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
 * live pool of size B found under m->lock with rp_pool_tryget(), else,
 * under m->writer after a second search (SIZED-2), a new pool that is never
 * current (refs = its pins). A reset to B may then reuse that pool. */
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
       :: refs[j] > 0 ->             /* rp_pool_tryget */
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
        /* rp_sized_find_live: a walk of m->pools in one section, no lock;
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
                :: psize[p] == SIZE_B && refs[p] > 0 -> /* rp_pool_tryget */
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
              UNDER_LOCK {                        /* rp_pool_create, list */
                M_ALIVE;
                next = npools; npools++;
                /* SIZED-2: any other pool of this size alive is dying */
                for (j : 0 .. NP - 1) {
                  assert(!(j != next && pstate[j] == ALIVE &&
                           psize[j] == SIZE_B && refs[j] > 0))
                }
                j = 0;
                pstate[next] = ALIVE; psize[next] = SIZE_B; refs[next] = 1;
                inlist[next] = true;
                pins[next]++; pinslot[NR * NS + s] = next;
                next = 0
              }
           fi;
#ifndef BROKEN_SIZED_NO_WRITER
           writer = false
#endif
        fi
     fi;
     d_step { s++; found = false }
  :: else -> break
  od;
  sized_done = true
}
#endif

/* ---- rcupool's reclaim thread: rp_retire_cb and rp_free_cb --------------- */
/* rp_pools_del_locked (under m->lock): the sections open now may stand on
 * the node; the grace period of RECLAIM-9 waits for them. */
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
  byte old;
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
     :: i < NRES ->                  /* rp_retire_cb */
        UNDER_LOCK {
          USE(p);                    /* rp_pool_check, p->manager */
          M_ALIVE;
          pending[p]--;
          old = refs[p];
          assert(old > 0);
          refs[p]--;                 /* rp_pool_put */
          last = (old == 1);
          kept = (!last && p != cur && pending[p] == 0);
          if
          :: last -> UNLINK(p)
          :: else
          fi;
          old = 0
        }
        if
        :: last -> FREE_UNLINKED(p)  /* rp_free_unlinked, RECLAIM-9 */
        :: kept ->
#ifdef C_KEPT_LOG_AFTER_PUT
           USE(p)                    /* p->threads for the "kept" log */
#else
           skip                      /* logs values read before the put */
#endif
        :: else
        fi
     :: else ->                      /* rp_free_cb */
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

/* ---- rcupool_barrier / rp_reclaim_drain ---------------------------------- */
inline drain(snap, i, dying) {
  do
  :: rcu_barrier(snap, i);
     UNDER_LOCK {                    /* rp_has_dying_pool */
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
  byte c;
  byte pinsum;
  byte old;
  bool last;
  bool flag;

  /* The manager's users other than pins are finished with it. */
  (readers_done == NR && resetter_done && sized_done);
  if
  :: unpinner_done ->
     /* rcupool_barrier() with every pin released: every retired pool has
      * been freed (the liveness property, as an end-state assertion). */
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
  UNDER_LOCK {                       /* rp_manager_pins_locked */
    M_ALIVE;
    pinsum = 0;
    for (i : 0 .. NP - 1) {
      if
      :: inlist[i] -> USE(i);
         c = pending[i] + (i == cur -> 1 : 0);
         if
         :: refs[i] > c -> pinsum = pinsum + refs[i] - c
         :: else
         fi
      :: else
      fi
    }
    i = 0;
    if
    :: pinsum == 0 -> c = cur; cur = NONE   /* publish NULL */
    :: else -> c = 0
    fi
  }
  if
  :: pinsum != 0 ->                  /* -EBUSY: the caller unpins, retries */
     unpinner_done;
     goto try_destroy
  :: else
  fi;
  assert(insec == 0);                /* synchronize_rcu: no reader left */
  UNDER_LOCK {
    M_ALIVE;
    USE(c);
    old = refs[c];
    assert(old > 0);
    refs[c]--;
    last = (old == 1);
    if
    :: last -> inlist[c] = false
    :: else
    fi;
    old = 0
  }
  if
  :: last -> FREE_POOL(c)
  :: else
  fi;
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

/* At most one pool per size is alive once grace periods have elapsed. */
active proctype one_per_size() {
end_watch:
  atomic { (QUIET && !ONE_POOL_PER_SIZE) -> assert(ONE_POOL_PER_SIZE) }
}

init {
  d_step {
    pstate[0] = ALIVE; psize[0] = SIZE_A; refs[0] = 1; inlist[0] = true;
    was_cur[0] = true;
    cur = 0;
    pinslot[0] = NONE; pinslot[1] = NONE; pinslot[2] = NONE; pinslot[3] = NONE;
    pinslot[4] = NONE; pinslot[5] = NONE
  }
  atomic {
    run reader(0, READER0_SECTIONS); run reader(1, READER1_SECTIONS);
    run unpinner(); run resetter(); run reclaim(); run destroyer()
#ifdef SIZED
    ; run sized_pinner()
#endif
  }
}
