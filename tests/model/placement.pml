/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pool's identity is (width, placement): lib/placement.c PLACE-1, with
 * the searches of lib/reset.c (RESET-2, rcupl_find_reusable_locked) and
 * lib/pin.c (SIZED-1..2, SIZED-6: rcupl_sized_find_live, then under
 * m->writer rcupl_sized_find_locked and rcupl_pool_create), and the warm
 * pass (lib/warm.c, WARM-2) that lets an unused pool go.
 *
 * What lifetime.pml checks (grace periods, retire references, the reclaim
 * thread, destroy) is left out here: a pool the pass lets go is gone at
 * once, and a reset's old pool simply stays managed (warm). This model
 * adds the placement to every pool and to every search, and checks:
 *   P1. a pin of (w, pl) holds a pool of width w and placement pl;
 *   P2. the current pool always has the manager's placement (P0);
 *   P3. never two pools alive and referenced of one (width, placement).
 * Variants that must fail:
 *   BROKEN_IDENTITY_WIDTH_ONLY  the pins' searches match width only (P1)
 *   BROKEN_RESET_ANY_PLACEMENT  a reset reuses a pool of any placement (P2)
 *   VACUITY_NO_PLACED_REUSE     a placed pin never finds a live pool
 *   VACUITY_NO_TWO_PLACEMENTS   two placements of one width never coexist
 */
#define NPOOLS 5
#define A 1 /* widths */
#define B 2
#define P0 0 /* the manager's placement */
#define P1 1 /* another (say performance) */

byte pwidth[NPOOLS];
byte pplace[NPOOLS];
byte refs[NPOOLS];
bool alive[NPOOLS];
bool managed[NPOOLS];
byte current;
bool lock;   /* m->lock */
bool writer; /* m->writer */
bool placed_reused;

#ifdef BROKEN_IDENTITY_WIDTH_ONLY
#define PIN_MATCH(p, w, pl) (alive[p] && pwidth[p] == (w))
#else
#define PIN_MATCH(p, w, pl) (alive[p] && pwidth[p] == (w) && pplace[p] == (pl))
#endif
#ifdef BROKEN_RESET_ANY_PLACEMENT
#define RESET_MATCH(p, w) (alive[p] && managed[p] && pwidth[p] == (w))
#else
#define RESET_MATCH(p, w) \
  (alive[p] && managed[p] && pwidth[p] == (w) && pplace[p] == P0)
#endif

#define DUP(i, j)                                                        \
  (alive[i] && alive[j] && refs[i] > 0 && refs[j] > 0 &&                 \
   pwidth[i] == pwidth[j] && pplace[i] == pplace[j])
#define ANY_DUP                                                          \
  (DUP(0, 1) || DUP(0, 2) || DUP(0, 3) || DUP(0, 4) || DUP(1, 2) ||      \
   DUP(1, 3) || DUP(1, 4) || DUP(2, 3) || DUP(2, 4) || DUP(3, 4))
#define TWO_PL(i, j)                                                     \
  (alive[i] && alive[j] && pwidth[i] == pwidth[j] && pplace[i] != pplace[j])
#define ANY_TWO_PL                                                       \
  (TWO_PL(0, 1) || TWO_PL(0, 2) || TWO_PL(0, 3) || TWO_PL(0, 4) ||       \
   TWO_PL(1, 2) || TWO_PL(1, 3) || TWO_PL(1, 4) || TWO_PL(2, 3) ||       \
   TWO_PL(2, 4) || TWO_PL(3, 4))

inline lock_m() { atomic { !lock -> lock = true } }
inline unlock_m() { lock = false }
inline lock_writer() { atomic { !writer -> writer = true } }
inline unlock_writer() { writer = false }

/* rcupl_pool_create: a free slot (refs != 0 reserves it), managed, refs r
 * (1: the manager's; 2: a sized pin's and the manager's). Not yet listed:
 * the caller lists it (alive) under m->lock, as C does (the reset's
 * publish, rcupl_manager_publish_locked; the sized pin's
 * rcupl_pools_add_locked), so no search and no pass sees it before. */
inline create(q, w, pl, r) {
  atomic {
    q = 0;
    do
    :: q < NPOOLS && (alive[q] || refs[q] != 0) -> q++
    :: q < NPOOLS && !alive[q] && refs[q] == 0 -> break
    :: q == NPOOLS -> assert(false) /* more pools than identities */
    od;
    pwidth[q] = w; pplace[q] = pl; refs[q] = r; managed[q] = true
  }
}

/* rcupl_pool_tryget: a reference unless refs is 0. */
inline tryget(p, ok) {
  atomic {
    if
    :: refs[p] > 0 -> refs[p]++; ok = true
    :: else -> ok = false
    fi
  }
}

proctype resetter() {
  byte i, p, q, w;
  bool found;
  for (i : 0 .. 2) {
    if :: i == 1 -> w = A :: else -> w = B fi;
    lock_writer();
    lock_m();
    found = false;
    for (p : 0 .. NPOOLS - 1) {
      if
      :: !found && p != current && RESET_MATCH(p, w) -> found = true; q = p
      :: else -> skip
      fi
    }
    if
    :: found -> current = q; /* reuse: the manager's reference */
                assert(pplace[current] == P0); unlock_m()
    :: !found && pwidth[current] == w -> unlock_m() /* nothing to do */
    :: !found && pwidth[current] != w ->
       unlock_m();
       create(q, w, P0, 1);
       lock_m(); alive[q] = true; current = q;
       assert(pplace[current] == P0); unlock_m()
    fi;
    unlock_writer()
  }
}

/* rcupool_pin_placed(m, w, pl) (pl == P0: rcupool_pin_sized), then its
 * use and its unpin; `rounds` times. */
proctype pinner(byte w; byte pl; byte rounds) {
  byte i, p, q;
  bool found, ok;
  for (i : 1 .. rounds) {
    found = false;
    /* rcupl_sized_find_live: the lock-free walk, one node a step; the
     * test of a node and its tryget are one step here: in C a pool the
     * walk reads keeps its memory (and refs 0 once dying) until the
     * walk's section ends (RECLAIM-7, checked in lifetime.pml), whereas
     * this model reuses a let-go pool's slot at once. */
    for (p : 0 .. NPOOLS - 1) {
      atomic {
        if
        :: !found && PIN_MATCH(p, w, pl) -> tryget(p, ok);
           if :: ok -> found = true; q = p :: else -> skip fi
        :: else -> skip
        fi
      }
    }
    if
    :: found -> placed_reused = placed_reused || pl != P0
    :: else ->
       /* SIZED-2: under writer, the search again, then the start. */
       lock_writer();
       lock_m();
       for (p : 0 .. NPOOLS - 1) {
         if
         :: !found && PIN_MATCH(p, w, pl) -> tryget(p, ok);
            if :: ok -> found = true; q = p :: else -> skip fi
         :: else -> skip
         fi
       }
       unlock_m();
       if
       :: !found -> create(q, w, pl, 2); lock_m(); alive[q] = true; unlock_m()
       :: else -> skip
       fi;
       unlock_writer()
    fi;
    /* P1: the pin's pool has the width and placement asked for. */
    assert(alive[q] && pwidth[q] == w && pplace[q] == pl);
    /* rcupool_unpin: the manager's reference stays (warm). */
    atomic { assert(refs[q] > 1); refs[q]-- }
  }
}

/* The warm pass: under m->lock, a managed pool that is not current with
 * refs 1 goes (compare-and-swap 1 -> 0); here it is gone at once. */
proctype trimmer() {
  byte p;
  do
  :: lock_m();
     /* rcupl_warm_release_locked: a compare-and-swap of refs 1 -> 0, one
      * step (a pin's tryget either comes first, and the release fails,
      * or finds 0). */
     for (p : 0 .. NPOOLS - 1) {
       if
       :: atomic {
            alive[p] && managed[p] && p != current && refs[p] == 1 ->
            refs[p] = 0; managed[p] = false; alive[p] = false
          }
       :: skip
       fi
     }
     unlock_m()
  :: true -> break
  od
}

/* P2 and P3 at every state (end: waiting for ever is its normal end). */
active proctype watcher() {
end:
  atomic {
    (ANY_DUP || (alive[current] && pplace[current] != P0)) -> assert(false)
  }
}

#ifdef VACUITY_NO_TWO_PLACEMENTS
active proctype vacuity_two() {
end:
  atomic { ANY_TWO_PL -> assert(false) }
}
#endif

init {
  atomic {
    pwidth[0] = A; pplace[0] = P0; refs[0] = 1; managed[0] = true;
    alive[0] = true; current = 0;
    run resetter();
    run pinner(B, P1, 2);
    run pinner(B, P0, 1);
    run trimmer()
  }
#ifdef VACUITY_NO_PLACED_REUSE
  (_nr_pr == 2) -> assert(!placed_reused)
#endif
}
