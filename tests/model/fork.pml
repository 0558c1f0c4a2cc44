/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fork() against rcupool's reclaim thread, with two managers on its one
 * queue and the log hook, for the spin model checker. lifetime.pml is the
 * pool lifetime protocol of one manager and leaves fork, the hook and the
 * second manager out; this model is those (tests/model/README.md maps every
 * name to lib/). Pools here have only what fork needs: refs, the list,
 * orphan, and whether their worker threads exist.
 *
 * What is modelled:
 *   - two managers sharing the one reclaim queue (MANAGERS-1): the default
 *     manager (M_DEF) and a private one (M_PRIV);
 *   - app_thread: rcupool_reset() on the default manager (m->writer, a new
 *     pool published under m->lock, a retire record queued, the writer
 *     released, a record logged) and, at the end of that public call, the
 *     log hook (LOG-1: no rcupool lock held, not a library thread). The
 *     hook takes the application's own lock (`app`: a Python hook's GIL)
 *     and calls rcupool_reset() on the default manager (m->writer);
 *   - unpinner: the last unpin of the private manager's kept pool, which
 *     hands the pool to the reclaim thread (its free queued);
 *   - reader: one read-side section (with memb registered for it under
 *     fork_lock, MEMB-4/5);
 *   - reclaim: rcupool's reclaim thread (lib/reclaim.c) with its phases
 *     IDLE, GP (a batch is off the queue; its grace period runs) and
 *     CALLBACKS (the batch's callbacks: each that frees a pool logs, then
 *     stops it, i.e. joins its workers; then RECLAIM-7's grace period and
 *     the frees of memory); it moves GP -> CALLBACKS under rq.mu and only
 *     while no fork is pending (RECLAIM_FORK-1);
 *   - forker: a thread that forks NFORK times in a row (default 2: a fork
 *     of the child too), each time maybe holding the application's lock
 *     across fork() (as CPython holds the GIL, or a hook that took the
 *     lock and forks); prepare as FORK-2 says (1: mark a fork pending and
 *     wait out a CALLBACKS batch, holding nothing; 2: default_lock, the
 *     default manager's writer; 3: memb: gp_gate, then fork_lock for
 *     writing / bp: liburcu-bp's before_fork; 4: the queue's lock, the list
 *     of managers, every manager's lock, the log queue's lock).
 *
 * fork() itself: the forking process goes on as the parent or as the
 * child, either (spin follows both). The child is the state at that instant
 * with only the forking thread in it: every other process of the model
 * leaves its body (`unless { gen > g }`, g the generation it runs in)
 * wherever it was, holding whatever it held, and no pool's worker threads
 * exist. Parent and child share nothing after fork(), so following each on
 * its own covers both. The child runs the child handlers (FORK-4: the GP
 * batch queued again, every pool of every manager an orphan, a pool at refs
 * zero whose hand-over the fork cut adopted, the default manager's current
 * reference dropped for the spare) and starts its own reclaim thread; after
 * its last fork, a child waits until the queue is drained (rcupool_barrier).
 *
 * Properties (assertions; pan also reports any deadlock as an invalid end
 * state: the reclaim thread's idle wait is the only place a process may
 * stop without finishing):
 *   FORKMODEL-1 fork's prepare never waits for a hook: no deadlock,
 *      whatever the hook blocks on (the application's lock, the writer) and
 *      whatever the forking thread holds;
 *   FORKMODEL-2 the child finds the queue IDLE or GP, never half-way
 *      through a batch's callbacks (RECLAIM_FORK-1; rcupl_reclaim_fork_child dies
 *      there), and no lock of rcupool's held by a thread that the fork left
 *      behind (FORK-2): each is free or the forking thread's; with memb, no
 *      section registered by rcupool is open (MEMB-4);
 *   FORKMODEL-3 a pool is joined (pthreadpool_destroy) only where its
 *      workers exist: in a child only orphans are stopped, and an orphan
 *      is never joined (POOL-5);
 *   FORKMODEL-4 no queue item is queued twice or runs twice; after a
 *      child's barrier every pool at refs zero has been freed (nothing a
 *      fork cut off is lost);
 *   plus: a callback never touches a freed pool, refs never underflow, and
 *   the hook runs with no rcupool lock held by its thread.
 *
 * Flavour: memb by default (prepare takes gp_gate, then fork_lock); -DBP is
 * liburcu-bp's (prepare calls urcu_bp_before_fork, which takes liburcu-bp's
 * grace-period lock; readers do not register; the child's after_fork_child
 * forgets the sections of threads gone). rcupl_grace_synchronize() holds
 * gp_gate around every grace period of the library (GRACE-1): -DBP
 * alone is bp with the gate memb-only (what lib/ must become, see
 * C_BP_GATE), -DBP -DC_BP_GATE is lib/ as it was at b543411 (fixed:
 * the bp child re-initialises the gate, which -DBP models as no gate).
 *
 * One-line switches (spin -D...): each must make spin report a violation.
 *   BROKEN_ORPHAN_DEFAULT_ONLY  the child marks only the default manager's
 *                           pools orphans (issue 23, defect 5): its reclaim
 *                           thread joins a private manager's pool whose
 *                           workers do not exist (FORKMODEL-3).
 *   BROKEN_HOOK_ON_RECLAIM  the hook runs where the reclaim thread logs
 *                           ("free pool", in its callbacks), as before the
 *                           log queue: a fork made holding the lock the hook
 *                           takes waits out the batch, which waits for the
 *                           hook (defect 7's shape; FORKMODEL-1).
 *   BROKEN_HOOK_ON_RECLAIM with BROKEN_WAIT_UNDER_WRITER and
 *   HOOK_APP_LOCK=0         the hook takes only the writer (it calls
 *                           rcupool_reset()), and prepare waits out the
 *                           batch after taking the writer, as f6297b3 did:
 *                           defect 1, a deadlock on the writer.
 *   BROKEN_FORK_IN_CALLBACKS  prepare marks no fork pending and waits for
 *                           no batch: a child finds a batch half-run
 *                           (FORKMODEL-2).
 *   C_BP_GATE (with BP)     lib/ in the bp flavour as it was: gp_gate held
 *                           around every grace period but not taken by
 *                           bp's prepare. The reclaim thread takes the
 *                           gate and waits for liburcu-bp's lock, which the
 *                           forking thread holds; the child inherits the
 *                           gate held by a thread it does not have, and
 *                           its first grace period never ends (FORKMODEL-2).
 *   VACUITY_NO_ADOPT, VACUITY_NO_REQUEUE  assert that no child adopts a
 *                           pool and that no child finds a GP batch: spin
 *                           must find both, so those paths are explored.
 * Knobs that are no defect: FORK_HOLDS_APP_LOCK (default 1: the forking
 * thread may hold the application's lock across fork(); 0: never),
 * HOOK_APP_LOCK (default 1: the hook takes the application's lock before
 * the writer; 0: only the writer), BROKEN_WAIT_UNDER_WRITER alone (the
 * order of f6297b3 passes once no hook runs on the reclaim thread), NFORK.
 */

#ifndef FORK_HOLDS_APP_LOCK
#define FORK_HOLDS_APP_LOCK 1
#endif
#ifndef HOOK_APP_LOCK
#define HOOK_APP_LOCK 1
#endif
#if !defined(BP) || defined(C_BP_GATE)
#define GATE 1     /* rcupl_grace_synchronize() holds gp_gate */
#else
#define GATE 0
#endif

/* Threads, as owners of locks (NOBODY: free). */
#define NOBODY   0
#define FORKER   1
#define RECLAIM  2   /* the parent's reclaim thread */
#define APP      3
#define READER   4
#define CHILD_RECLAIM(g) (READER + (g))  /* the reclaim thread of a child of
                                            generation g (1, 2, ...) */

/* Managers. */
#define M_DEF  0
#define M_PRIV 1

/* Pools. */
#define P_DEF_OLD   0   /* default manager: current, retired by app's reset */
#define P_DEF_NEW   1   /* default manager: started by app's reset */
#define P_PRIV_KEPT 2   /* private manager: retired, kept by one pin */
#define NP          3
#define SPARE       254 /* the default manager's spare, published in a child */
#define NONE        255

/* Queue items (struct rcupl_work): the reset's rcupl_retire, the free_work of
 * each pool. A set of items is a bit mask. */
#define I_RETIRE     0
#define I_FREE(p)    (1 + (p))
#define BIT(i)       (1 << (i))

#ifndef NFORK
#define NFORK 2    /* forks made one after the other, a child's included */
#endif

/* Reclaim phases (RECLAIM_FORK-1). */
#define IDLE      0
#define GP        1
#define CALLBACKS 2

/* ---- pools: struct rcupl_pool -------------------------------------------- */
byte pmgr[NP];     /* p->manager */
byte refs[NP];
byte pending[NP];  /* retires_pending */
bool inlist[NP];   /* on its manager's m->pools */
bool orphan[NP];   /* fork_orphan */
bool workers[NP];  /* its worker threads exist in this process (ghost) */
bool freed[NP];    /* its memory was freed (rcupl_pool_free) */
byte cur_def = P_DEF_OLD;   /* the default manager's m->current */

/* ---- locks: owner, or NOBODY ------------------------------------------ */
byte default_lock; /* default.c */
byte writer_def;   /* the default manager's m->writer */
byte mlock[2];     /* m->lock of each manager */
byte managers_mu;  /* managers.c, MANAGERS-1 */
byte rq_mu;        /* reclaim.c, rq.mu */
byte lq_mu;        /* log.c, lq.mu */
byte gate;         /* grace.c, gp_gate (GRACE-1) */
byte gplock;       /* liburcu's own grace-period lock */
byte app;          /* the application's lock (not rcupool's) */

/* memb's fork_lock (lib/memb.c): a readers-writer lock, writer preferred */
byte fl_readers;
byte fl_waiting;
byte fl_writer;

/* ---- RCU: readers inside a section (bit per reader) ------------------- */
byte insec;

/* ---- the reclaim queue (rq) ------------------------------------------- */
byte queue;        /* items on rq.head */
byte batch;        /* the batch in flight: rq.batch in GP, the thread's own
                      list in CALLBACKS */
byte phase = IDLE;
bool fork_pending;
byte unlinked;     /* pools stopped, memory waiting (RECLAIM-7), bit mask */
bool ran[NP + 1];  /* the item's callback has started (ghost) */

byte gen;          /* forks this process is a child of (0: the original) */

/* ---- macros ------------------------------------------------------------ */

#define LOCK(l, me)   d_step { l == NOBODY -> l = me }
#define UNLOCK(l, me) d_step { assert(l == me); l = NOBODY }

/* A pool's memory is touched. */
#define USE(p) assert(!freed[p])

/* rcupl_log(): a record is copied into the queue under lq.mu, a leaf lock
 * held for the copy only. */
#define LOG(me) (lq_mu == NOBODY)

/* rcupl_reclaim_push(): under rq.mu; an item is queued once. */
#define PUSH(i)                                                               \
  d_step {                                                                    \
    rq_mu == NOBODY ->                                                        \
    assert((queue & BIT(i)) == 0 && (batch & BIT(i)) == 0 && !ran[i]);        \
    queue = queue | BIT(i)                                                    \
  }

/* The hook: the application's lock, then rcupool_reset() on the default
 * manager (m->writer; the reset itself is app's, not repeated here). */
inline hook(me) {
#if HOOK_APP_LOCK
  LOCK(app, me);
#endif
  LOCK(writer_def, me);
  UNLOCK(writer_def, me);
#if HOOK_APP_LOCK
  UNLOCK(app, me)
#endif
}

/* rcupl_grace_synchronize(): a grace period waits for the sections open at
 * its start. */
inline synchronize(me, w) {
#if GATE
  LOCK(gate, me);
#endif
  d_step { gplock == NOBODY -> gplock = me; w = insec }
  (insec & w) == 0;
  UNLOCK(gplock, me);
#if GATE
  UNLOCK(gate, me);
#endif
  w = 0
}

/* rcupl_stop_and_defer_free(): logs "free pool", stops the pool (rcupl_pool_stop:
 * pthreadpool_destroy() joins its workers; an orphan's pthreadpool is
 * kept, POOL-5), and puts it on `unlinked`. */
inline stop(p, me) {
  LOG(me);
#ifdef BROKEN_HOOK_ON_RECLAIM
  hook(me);
#endif
  d_step {
    USE(p);
    if
    :: orphan[p] -> skip                 /* kept, never joined */
    :: else ->
       assert(workers[p]);               /* FORKMODEL-3: the join needs them */
       workers[p] = false
    fi;
    unlinked = unlinked | BIT(p)
  }
}

/* ---- rcupool's reclaim thread (rcupl_reclaim_main) ----------------------- */
proctype reclaim(byte me; byte g) {
  byte i;
  byte p;
  byte w;
  bool last;
  {
end_idle:
    do
    :: d_step {                          /* a batch off the queue */
         rq_mu == NOBODY && queue != 0 ->
         batch = queue; queue = 0; phase = GP
       }
       synchronize(me, w);
       d_step {                          /* RECLAIM_FORK-1 */
#ifdef BROKEN_FORK_IN_CALLBACKS
         rq_mu == NOBODY ->
#else
         rq_mu == NOBODY && !fork_pending ->
#endif
         phase = CALLBACKS
       }
       do                                /* the callbacks, in item order */
       :: batch != 0 ->
          d_step {
            if
            :: batch & BIT(0) -> i = 0
            :: else -> if
                       :: batch & BIT(1) -> i = 1
                       :: else -> if
                                  :: batch & BIT(2) -> i = 2
                                  :: else -> i = 3
                                  fi
                       fi
            fi;
            assert(!ran[i]);             /* FORKMODEL-4: runs once */
            ran[i] = true;
            batch = batch & ~BIT(i);
            p = (i == I_RETIRE -> P_DEF_OLD : i - 1)
          }
          if
          :: i == I_RETIRE ->            /* rcupl_retire_cb */
             d_step {
               mlock[pmgr[p]] == NOBODY ->
               USE(p);
               assert(refs[p] > 0 && pending[p] > 0);
               pending[p]--; refs[p]--;
               last = (refs[p] == 0);
               if
               :: last -> inlist[p] = false   /* rcupl_pools_del_locked */
               :: else
               fi
             }
             if
             :: last -> stop(p, me)
             :: else
             fi
          :: else ->                     /* rcupl_free_cb */
             d_step {
               mlock[pmgr[p]] == NOBODY ->
               USE(p);
               assert(refs[p] == 0);
               inlist[p] = false
             }
             stop(p, me)
          fi;
          d_step { i = 0; p = 0; last = false }
       :: else -> break
       od;
       if                                /* RECLAIM-7 */
       :: unlinked != 0 ->
          synchronize(me, w);
          d_step {
            for (p : 0 .. NP - 1) {
              if
              :: unlinked & BIT(p) -> USE(p); freed[p] = true
              :: else
              fi
            }
            p = 0;
            unlinked = 0
          }
       :: else
       fi;
       d_step { rq_mu == NOBODY -> phase = IDLE }   /* done += n */
    od
  } unless { gen > g }
}

/* ---- app: rcupool_reset(default), then the hook at the end of the call - */
proctype app_thread() {
  {
    LOCK(writer_def, APP);
    d_step {                             /* rcupl_pool_create, publish */
      mlock[M_DEF] == NOBODY ->
      pmgr[P_DEF_NEW] = M_DEF; refs[P_DEF_NEW] = 1; inlist[P_DEF_NEW] = true;
      workers[P_DEF_NEW] = true;
      cur_def = P_DEF_NEW;
      pending[P_DEF_OLD]++               /* current ref -> retire ref */
    }
    PUSH(I_RETIRE);                      /* rcupl_reclaim_retire */
    UNLOCK(writer_def, APP);
    LOG(APP);
    /* rcupl_log_deliver(): no rcupool lock held, not the reclaim thread, not
     * in a task or a section (LOG-1) */
    d_step {
      assert(default_lock != APP && writer_def != APP && mlock[0] != APP &&
             mlock[1] != APP && managers_mu != APP && rq_mu != APP &&
             lq_mu != APP && gate != APP && gplock != APP)
    }
    hook(APP)
  } unless { gen > 0 }
}

/* ---- the last unpin of the private manager's kept pool ----------------- */
proctype unpinner() {
  bool last;
  {
    d_step {                             /* rcupl_pool_put */
      USE(P_PRIV_KEPT);
      assert(refs[P_PRIV_KEPT] > 0);
      refs[P_PRIV_KEPT]--;
      last = (refs[P_PRIV_KEPT] == 0)
    }
    if
    :: last -> PUSH(I_FREE(P_PRIV_KEPT))  /* rcupl_reclaim_free_later */
    :: else
    fi
  } unless { gen > 0 }
}

/* ---- one read-side section ---------------------------------------------- */
proctype reader() {
  {
#ifndef BP
    d_step {                             /* rcupl_memb_register_for_section */
      fl_writer == NOBODY && fl_waiting == 0 -> fl_readers++
    }
#endif
    insec = insec | BIT(0);
    insec = insec & ~BIT(0);
#ifndef BP
    d_step { fl_readers-- }              /* rcupl_memb_unregister_after_section */
#endif
  } unless { gen > 0 }
}

/* ---- fork(): prepare, then parent or child ------------------------------ */

/* rcupl_reclaim_fork_hold(): a fork is pending; wait out a CALLBACKS batch. */
inline fork_hold() {
#ifdef BROKEN_FORK_IN_CALLBACKS
  skip
#else
  d_step { rq_mu == NOBODY -> fork_pending = true }
  (rq_mu == NOBODY && phase != CALLBACKS)
#endif
}

/* rcupl_fork_child_orphans(m) for one manager: every pool an orphan (if
 * mark); one at refs zero whose free is not queued is adopted. */
inline orphan_all(m, mark, j) {
  d_step {
    for (j : 0 .. NP - 1) {
      if
      :: inlist[j] && pmgr[j] == m ->
         orphan[j] = mark;
         if
         :: refs[j] == 0 && (queue & BIT(I_FREE(j))) == 0 ->
#ifdef VACUITY_NO_ADOPT
            assert(false);
#endif
            assert(!ran[I_FREE(j)]);
            queue = queue | BIT(I_FREE(j))
         :: else
         fi
      :: else
      fi
    }
    j = 0
  }
}

proctype forker() {
  bool app_held;
  byte k;
  byte j;
  byte old;

  do
  :: k < NFORK ->
#if FORK_HOLDS_APP_LOCK
     if
     :: LOCK(app, FORKER); app_held = true
     :: skip
     fi;
#endif
     /* ---- prepare (FORK-2) ---- */
#ifndef BROKEN_WAIT_UNDER_WRITER
     fork_hold();                        /* 1 */
#endif
     LOCK(default_lock, FORKER);         /* 2 */
     LOCK(writer_def, FORKER);
#ifdef BROKEN_WAIT_UNDER_WRITER
     fork_hold();
#endif
#ifdef BP
     LOCK(gplock, FORKER);               /* 3: urcu_bp_before_fork */
#else
     LOCK(gate, FORKER);                 /* 3: GRACE-1 */
     d_step { fl_waiting++ }             /* rcupl_memb_fork_prepare */
     d_step {
       fl_readers == 0 && fl_writer == NOBODY ->
       fl_waiting--; fl_writer = FORKER
     }
#endif
     LOCK(rq_mu, FORKER);                /* 4 */
     LOCK(managers_mu, FORKER);
     LOCK(mlock[M_DEF], FORKER);
     LOCK(mlock[M_PRIV], FORKER);
     LOCK(lq_mu, FORKER);

     /* ---- fork() ---- */
     if
     :: /* the parent: release in reverse */
        UNLOCK(lq_mu, FORKER);
        UNLOCK(mlock[M_PRIV], FORKER);
        UNLOCK(mlock[M_DEF], FORKER);
        UNLOCK(managers_mu, FORKER);
        d_step { assert(rq_mu == FORKER); fork_pending = false; rq_mu = NOBODY }
#ifdef BP
        UNLOCK(gplock, FORKER);
#else
        d_step { fl_writer = NOBODY }
        UNLOCK(gate, FORKER);
#endif
        UNLOCK(writer_def, FORKER);
        UNLOCK(default_lock, FORKER)

     :: /* the child: only this thread, no pool's workers */
        d_step {
          gen++;
          for (j : 0 .. NP - 1) { workers[j] = false }
          j = 0
        }
        /* FORKMODEL-2: what the child finds (rcupl_reclaim_fork_child dies
         * on the first) */
        assert(phase != CALLBACKS && unlinked == 0);
        assert(default_lock == FORKER && writer_def == FORKER &&
               rq_mu == FORKER && managers_mu == FORKER &&
               mlock[M_DEF] == FORKER && mlock[M_PRIV] == FORKER &&
               lq_mu == FORKER);
#ifdef BP
        assert(gplock == FORKER);
        assert(gate == NOBODY);          /* no thread here will release it */
#else
        assert(gate == FORKER && gplock == NOBODY);
        assert(fl_writer == FORKER && fl_readers == 0 && insec == 0);
#endif
#ifdef VACUITY_NO_REQUEUE
        assert(phase != GP);
#endif

        UNLOCK(lq_mu, FORKER);           /* rcupl_log_fork_child */
        d_step {                         /* rcupl_reclaim_fork_child */
          if
          :: phase == GP -> queue = queue | batch
          :: else
          fi;
          batch = 0; phase = IDLE; fork_pending = false
        }
        UNLOCK(rq_mu, FORKER);
#ifdef BP
        d_step { insec = 0 }             /* after_fork_child: dead readers */
        UNLOCK(gplock, FORKER);
#else
        d_step { fl_writer = NOBODY; fl_readers = 0; fl_waiting = 0 }
        UNLOCK(gate, FORKER);            /* rcupl_grace_fork_child */
#endif
        /* rcupl_managers_fork_child: every manager (MANAGERS-1) */
        orphan_all(M_DEF, true, j);
        d_step {                         /* rcupl_fork_child_default */
          old = cur_def; cur_def = SPARE;
          if
          :: old != SPARE ->             /* (a spare dropped: not modelled) */
             assert(refs[old] > 0);
             refs[old]--;
             if
             :: refs[old] == 0 ->        /* rcupl_reclaim_free_later_quiet */
                assert((queue & BIT(I_FREE(old))) == 0 && !ran[I_FREE(old)]);
                queue = queue | BIT(I_FREE(old))
             :: else
             fi
          :: else
          fi;
          old = 0
        }
        UNLOCK(mlock[M_DEF], FORKER);
#ifdef BROKEN_ORPHAN_DEFAULT_ONLY
        orphan_all(M_PRIV, false, j);
#else
        orphan_all(M_PRIV, true, j);
#endif
        UNLOCK(mlock[M_PRIV], FORKER);
        UNLOCK(managers_mu, FORKER);
        UNLOCK(writer_def, FORKER);
        UNLOCK(default_lock, FORKER);
        /* The child's first need starts its reclaim thread. */
        run reclaim(CHILD_RECLAIM(gen), gen)
     fi;
     /* fork() returns; the application lets its lock go */
     if
     :: app_held -> UNLOCK(app, FORKER); app_held = false
     :: else
     fi;
     k++
  :: else -> break
  od;

  if
  :: gen > 0 ->                          /* a child: rcupool_barrier() */
     (rq_mu == NOBODY && queue == 0 && phase == IDLE);
     d_step {                            /* FORKMODEL-4 */
       for (j : 0 .. NP - 1) {
         assert(!(pmgr[j] != NONE && refs[j] == 0 && !freed[j]))
       }
       j = 0
     }
  :: else
  fi
}

init {
  d_step {
    pmgr[P_DEF_OLD] = M_DEF; refs[P_DEF_OLD] = 1; inlist[P_DEF_OLD] = true;
    workers[P_DEF_OLD] = true;
    pmgr[P_DEF_NEW] = NONE;               /* not started yet */
    pmgr[P_PRIV_KEPT] = M_PRIV; refs[P_PRIV_KEPT] = 1;
    inlist[P_PRIV_KEPT] = true; workers[P_PRIV_KEPT] = true
  }
  atomic {
    run forker(); run reclaim(RECLAIM, 0); run app_thread(); run unpinner();
    run reader()
  }
}
