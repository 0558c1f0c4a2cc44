/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pools that are views borrowing the threads of rcupool's executor set
 * (lib/exec_set.c, lib/executor.c), for the spin model checker: the slots'
 * state words, the set's threads, parallel calls of a view and of a foreign
 * pool scheduling tasks, trims, growths, the reclaim thread destroying the
 * retired view, and a fork made inside a task. tests/model/README.md maps
 * every name to lib/.
 *
 * What is modelled (NS = 2 slots; the set starts with both threads live and
 * idle, as after a view of width 3 was made):
 *   - setthread(s): rcupl_exec_thread(): drain the queue (e->lock), go idle
 *     (one compare-and-swap on the state word: the EXIT bit set -> STOP,
 *     else IDLE), the EXEC_SET-1 check of the queue after going idle, then
 *     rcupl_exec_idle(): take a GIVEN hand-over (GIVEN -> RUN keeps EXIT),
 *     commit STOP on a word with EXIT, IDLE -> SLEEP, and futex_wait(SLEEP)
 *     (it sleeps only if the word is exactly SLEEP, and until a wake);
 *   - viewcall: CALLS_V parallel calls of the view V (each schedules one
 *     task, does the call's items itself and returns when no item is left,
 *     without waiting for its task), then the view's last unpin: V retires;
 *   - foreigncall: CALLS_F parallel calls of a foreign pool F made on
 *     rcupool_executor() (F's schedule first grows the set back to F's
 *     num_threads when it finds fewer), then pthreadpool_destroy(F), which
 *     waits until every task F scheduled has run;
 *   - schedule(): rcupl_exec_schedule(): claim an idle thread (exact
 *     IDLE or SLEEP -> CLAIMED, one slot a step, IDLE ones first), else
 *     enqueue (queued++), fence, claim one to drain, and grow the set to 1
 *     when it reads threads == 0 (the Dekker pair with a trim to 0);
 *   - a task (pthreadpool's thread_main): if its call is over it returns at
 *     once; else it helps with the call's items, and an item may take a
 *     sized pin that grows the set (under m->writer; GROW_TASKS of them),
 *     fork (FORK_TASKS: prepare waits out the reclaim batch, then takes
 *     m->writer, then the sets' lock and e->lock as leaves) or wait for
 *     m->writer (WAIT_TASKS);
 *   - app: an application thread's rcupool_trim() (floor 0, a trim) and
 *     sized pin (a view of width NS + 1 made under m->writer:
 *     rcupl_exec_set_grow(NS)), each maybe, in either order;
 *   - reclaim: the reclaim thread's batch that destroys V once it is
 *     retired (rcupl_executor_view_destroy(): release, take V's tasks off
 *     the queue and run them, pthreadpool_destroy(V), view_gone's trim),
 *     entering its callbacks only while no fork is pending;
 *   - destroyer: once both pools are gone and the other parties are done,
 *     rcupool_destroy()'s stop of the set: every thread joined.
 * Which target a trim picks (EXEC_SET-4's count of views and floor) is
 * abstract: any target below NS, 0 included. The properties below do not
 * rest on the set keeping a view's width (a view of a set with fewer
 * threads only queues more tasks), and any target is a superset of the
 * targets the count gives.
 *
 * Properties (assertions; pan also reports any deadlock as an invalid end
 * state: no process here may stop anywhere but at its end, so a
 * pthreadpool_destroy() that never returns, a join that never returns or a
 * thread left over is a violation):
 *   VIEWMODEL-1 every task scheduled runs exactly once (the destroyer's
 *      check, and each task's start);
 *   VIEWMODEL-2 pthreadpool_destroy() of either pool returns: no invalid
 *      end state in any interleaving;
 *   VIEWMODEL-3 a join is never issued on a thread that is running a task,
 *      nor by a thread on itself (a growth or trim never waits for a task);
 *   VIEWMODEL-4 at most one thread per slot (a thread is started in a slot
 *      only once the one before it was joined);
 *   VIEWMODEL-5 after both pools are gone and the set's stop, no thread of
 *      the set is left;
 *   VIEWMODEL-6 a thread above `threads` never sleeps unwoken: once a trim
 *      or growth is over, no thread of a slot pending exit waits on its
 *      futex (it would stay until the next trim).
 *
 * One-line switches (spin -D...): each must make spin report a violation.
 *   BROKEN_TRIM_OLD_RULE     lib/exec_set.c before the EXIT bit: the trim
 *                            stores a separate `exiting` flag, then loads
 *                            the state with acquire (no read-modify-write
 *                            of the word: the load may be satisfied before
 *                            the store is seen, store buffering); the idle
 *                            thread loads the flag, then sleeps; a growth
 *                            joins a pending slot's thread whatever it does.
 *   BROKEN_GROWTH_JOINS_BUSY the growth joins a pending slot's thread
 *                            whatever it does (the EXIT bit kept).
 *   BROKEN_DESTROY_WAITS_FOR_SET  the view's destroy takes none of its
 *                            tasks off the queue: it waits for a set thread
 *                            to run them.
 *   BROKEN_TRIM_TO_ZERO_WITH_QUEUE  a trim to 0 does not read queued after
 *                            storing threads = 0.
 *   BROKEN_SCHEDULE_GROW_NO_DRAIN  schedule() as the protocol was first
 *                            written: reading threads == 0 after its
 *                            enqueue, it grows the set to 1 and claims no
 *                            thread; the trim it raced kept slot 0 (it saw
 *                            queued), so the growth starts nothing and slot
 *                            0's thread sleeps on.
 *   VACUITY_NO_READOPT, VACUITY_NO_IDLE_JOIN, VACUITY_NO_STOLEN_TASK,
 *   VACUITY_NO_STOP_JOIN     assert that no growth re-adopts a pending
 *                            thread, that no trim joins an idle thread, that
 *                            the reclaim thread never runs a task it took
 *                            off the queue, that no growth joins a thread
 *                            that committed STOP: spin must find each.
 * Knobs (no defect): CALLS_V, CALLS_F, GROW_TASKS, FORK_TASKS, WAIT_TASKS,
 * APP_TRIM, APP_GROW (0: the application thread never trims / never grows),
 * OLD_TRIM_STORE_FIRST (with BROKEN_TRIM_OLD_RULE: the flag seen before the
 * loads, as if they were sequentially consistent: spin then finds the old
 * growth joining a busy thread instead).
 */

#ifndef CALLS_V
#define CALLS_V 1      /* parallel calls of the view, one task each */
#endif
#ifndef CALLS_F
#define CALLS_F 1      /* parallel calls of the foreign pool, one task each */
#endif
#ifndef GROW_TASKS
#define GROW_TASKS 1   /* items that take a sized pin (a growth) */
#endif
#ifndef FORK_TASKS
#define FORK_TASKS 1   /* items that fork */
#endif

#ifndef WAIT_TASKS
#define WAIT_TASKS 0   /* items that wait for m->writer (a reset's, say) */
#endif
#ifndef APP_TRIM
#define APP_TRIM 1     /* the application thread may call rcupool_trim() */
#endif
#ifndef APP_GROW
#define APP_GROW 1     /* the application thread may take a sized pin */
#endif

#define NS 2           /* slots of the set */
#define NT (CALLS_V + CALLS_F)
#define FNEED 1        /* F's num_threads() at its create_v2 (foreign_need) */

/* Slot state word: low part and the EXIT bit. */
#define IDLE     0
#define SLEEP    1
#define CLAIMED  2
#define GIVEN    3
#define RUN      4
#define STARTING 5
#define STOP     6
#define LOW      7
#define EXIT     8
#define low(w)   ((w) & LOW)

/* Pools: a task carries its pool (its executor context). */
#define PV 0
#define PF 1
#define TASK_POOL(t) ((t) < CALLS_V -> PV : PF)

#define NOSLOT 255     /* an application thread, or the reclaim thread */
#define NOTASK 255     /* a hand-over that only asks to drain the queue */

/* tstate[s]: the slot's thread. */
#define T_NONE   0     /* none, or joined */
#define T_LIVE   1
#define T_EXITED 2     /* returned, not joined */

/* A task's progress (tphase): not started, helping with its call's items,
 * past them (or its call was over when it started). */
#define TP_NEW   0
#define TP_ITEMS 1
#define TP_DONE  2

/* Owner of a lock: NOBODY, a slot + 1, or 100 (a thread not of the set). */
#define NOBODY   0
#define OWN(me)  ((me) == NOSLOT -> 100 : (me) + 1)

/* ---- the set: struct rcupl_exec_set ------------------------------------- */
byte st[NS];          /* slots[s].state */
bool waiting[NS];     /* the slot's thread is in futex_wait (the kernel's queue) */
byte gtask[NS];       /* slots[s].fn/arg: the task handed over (NOTASK: drain) */
bool pend[NS];        /* slots[s].unjoined: pending exit */
byte threads = NS;    /* e->threads */
byte glock;           /* e->grow_lock */
byte elock;           /* e->lock (the queue's lock): held by fork's prepare;
                         every queue operation is one step while it is free */
chan q = [NT] of { byte, byte };  /* e->head: (pool, task) in FIFO order */
byte qn[2];           /* ghost: tasks of each pool on the queue */
#ifdef BROKEN_TRIM_OLD_RULE
bool exiting[NS];     /* slots[s].exiting (the old rule) */
#endif

/* ---- ghosts ----------------------------------------------------------- */
byte tstate[NS];      /* the slot's thread (VIEWMODEL-4, -5) */
bool intask[NS];      /* the slot's thread is inside a task (VIEWMODEL-3) */
byte ran[NT];         /* 0 not run, 1 running, 2 returned (VIEWMODEL-1) */
byte tphase[NT];
bool cover[NT];       /* the task's parallel call is over */

/* ---- the rest of rcupool ----------------------------------------------- */
byte writer;          /* m->writer */
bool fork_pending;    /* rq.fork_pending */
bool callbacks;       /* the reclaim thread is in a batch's callbacks */
bool vretired;        /* V's last unpin and grace period are over */
byte grow_left = GROW_TASKS;
byte fork_left = FORK_TASKS;
byte wait_left = WAIT_TASKS;
byte done;            /* parties finished (the destroyer waits for all) */
#define PARTIES 4     /* viewcall, foreigncall, reclaim, app */

#define LOCK(l, me)   atomic { l == NOBODY -> l = OWN(me) }
#define UNLOCK(l, me) atomic { assert(l == OWN(me)); l = NOBODY }

/* VIEWMODEL-6, checked where the grow lock is released: no slot pending
 * exit has its thread asleep on a word that nobody will wake (SLEEP: no
 * claimer has it; a claimer's CLAIMED is followed by its wake). */
#define UNWOKEN(s) (pend[s] && waiting[s] && st[s] == SLEEP)
#define UNLOCK_GROW(me)                                                       \
  assert(glock == OWN(me));                                                   \
  assert(!UNWOKEN(0) && !UNWOKEN(1));                                         \
  glock = NOBODY

/* VIEWMODEL-3, where a join is issued on slot s's thread by `me`. */
#define JOIN_ISSUE(s, me)                                                     \
  assert(s != me);                     /* never a thread on itself */         \
  assert(!intask[s]);                  /* never a thread in a task */         \
  assert(tstate[s] != T_NONE)

/* pthread_join() returns: the thread has exited. */
#define JOINED(s) atomic { tstate[s] == T_EXITED -> tstate[s] = T_NONE; pend[s] = false }

#ifdef BROKEN_TRIM_OLD_RULE
#define CLEAR_EXITING(s) exiting[s] = false
#else
#define CLEAR_EXITING(s) skip
#endif

/* pthread_create() of slot s's thread (VIEWMODEL-4: the slot's thread
 * before it was joined); the growth then waits for it to start. */
#define START(s)                                                              \
  assert(tstate[s] == T_NONE);                                                \
  tstate[s] = T_LIVE;                                                         \
  st[s] = STARTING;                                                           \
  pend[s] = false;                                                            \
  CLEAR_EXITING(s);                                                           \
  run setthread(s, false)


/* rcupl_exec_set_grow(want) by `me` (a slot, or NOSLOT): the grow lock
 * taken once threads < want (else nothing), then for each slot n in
 * [threads, want): a pending one is re-adopted (fetch_and(~EXIT) found it
 * short of STOP) or reaped (it committed STOP: joined, a new thread
 * started); a free one gets a new thread. Never a wait for a task
 * (EXEC_SET-4). */
inline grow(want, me, n, jn) {
  if
  :: atomic { threads >= want -> skip }
  :: atomic { threads < want && glock == NOBODY -> glock = OWN(me); n = threads };
     do
     :: n < want ->
        atomic {
          if
          :: pend[n] ->
#if defined(BROKEN_GROWTH_JOINS_BUSY) || defined(BROKEN_TRIM_OLD_RULE)
             jn = true                 /* joined whatever its thread does */
#else
             jn = (low(st[n]) == STOP);
             st[n] = st[n] & ~EXIT;    /* fetch_and(~EXIT) */
             pend[n] = jn;
#ifdef VACUITY_NO_READOPT
             assert(jn);
#endif
#ifdef VACUITY_NO_STOP_JOIN
             assert(!jn);
#endif
#endif
          :: else -> jn = false; START(n)
          fi;
          if
          :: jn -> JOIN_ISSUE(n, me)
          :: else
          fi
        }
        if
        :: jn -> JOINED(n); atomic { START(n); jn = false }
        :: else
        fi;
        atomic { st[n] != STARTING -> threads = n + 1; n++ }
     :: else -> break
     od;
     atomic { UNLOCK_GROW(me); n = 0 }
  fi
}

/* rcupl_exec_set_trim_locked(target) with the grow lock taken and
 * released; `wait`: the set's stop (no pool left: every thread joined). */
inline trim(target, wait, me, i, old, jn) {
  atomic {
    glock == NOBODY -> glock = OWN(me);
    jn = (threads > target);
    if
    :: jn -> threads = target          /* release store */
    :: else
    fi
  }
#ifndef BROKEN_TRIM_TO_ZERO_WITH_QUEUE
  atomic {                             /* fence; queued: the Dekker pair of
                                          schedule's queued++, threads. Only
                                          a trim that lowered threads to 0
                                          keeps slot 0 (its thread is live) */
    if
    :: jn && target == 0 && len(q) > 0 -> threads = 1; target = 1
    :: else
    fi;
    i = target; jn = false
  }
#else
  atomic { i = target; jn = false };
#endif
  do
  :: i < NS ->
#ifdef BROKEN_TRIM_OLD_RULE
     /* exiting = true; try_stop(); try_stop(): each try_stop() loads the
      * state (acquire) and, on IDLE or SLEEP, swaps it for STOP and wakes.
      * The store of the flag may be seen by the thread only after both
      * loads (store buffering: the loads are not sequentially consistent):
      * modelled as the store after them (OLD_TRIM_STORE_FIRST: before). */
     if
     :: tstate[i] == T_NONE -> jn = false
     :: else ->
#ifdef OLD_TRIM_STORE_FIRST
        exiting[i] = true;
#endif
        atomic {                       /* try_stop() #1 */
          old = st[i];
          jn = (old == STOP);
          if
          :: old == IDLE || old == SLEEP -> st[i] = STOP; waiting[i] = false; jn = true
#ifdef VACUITY_NO_IDLE_JOIN
             ; assert(false)
#endif
          :: else
          fi
        }
        atomic {                       /* try_stop() #2 */
          old = st[i];
          jn = jn || (old == STOP);
          if
          :: old == IDLE || old == SLEEP -> st[i] = STOP; waiting[i] = false; jn = true
          :: else
          fi
        }
#ifndef OLD_TRIM_STORE_FIRST
        exiting[i] = true;
#endif
        atomic {
          if
          :: !jn && wait ->             /* the stop: until it is idle */
             (st[i] == IDLE || st[i] == SLEEP || st[i] == STOP);
             st[i] = STOP; waiting[i] = false; jn = true
          :: else
          fi;
          pend[i] = !jn;
          if
          :: jn -> JOIN_ISSUE(i, me)
          :: else
          fi
        }
     fi;
#else
     atomic {
       old = st[i];
       if
       :: tstate[i] == T_NONE -> jn = false
       :: pend[i] && low(old) != STOP && !wait -> jn = false  /* still busy */
       :: else ->
          st[i] = st[i] | EXIT;        /* fetch_or(EXIT) */
          if
          :: low(old) == IDLE || low(old) == SLEEP ->
             waiting[i] = false;       /* wake: it commits STOP promptly */
             jn = true
#ifdef VACUITY_NO_IDLE_JOIN
             ; assert(false)
#endif
          :: else ->                   /* STOP: reap; busy: pending */
             jn = (low(old) == STOP || wait);
             pend[i] = !jn
          fi
       fi;
       if
       :: jn -> JOIN_ISSUE(i, me)
       :: else
       fi;
       old = 0
     }
#endif
     if
     :: jn -> JOINED(i)
     :: else
     fi;
     atomic { i++; jn = false; old = 0 }
  :: else -> break
  od;
  atomic { UNLOCK_GROW(me); i = 0; target = 0 }
}

/* rcupl_exec_give(): claim an idle thread of [0, n) for task t (NOTASK:
 * drain the queue), IDLE ones first, then SLEEP ones, lowest slot first;
 * `ok` says whether one was. The C scan reads one slot at a time; here the
 * scan and its compare-and-swap are one step. A slot that turns idle
 * behind a C scan is a claim this step could also miss (the thread turned
 * idle just after it), and then the thread's own look at the queue after
 * going idle (EXEC_SET-1) picks the task up, as here. */
inline give(t, n, ok, i) {
  atomic {
    if
    :: n > 0 && st[0] == IDLE -> i = 0
    :: n > 1 && st[1] == IDLE && st[0] != IDLE -> i = 1
    :: n > 0 && st[0] == SLEEP && !(n > 1 && st[1] == IDLE) -> i = 0
    :: n > 1 && st[1] == SLEEP && st[0] != IDLE && st[0] != SLEEP -> i = 1
    :: else -> i = NOSLOT
    fi;
    ok = (i != NOSLOT);
    if
    :: ok -> st[i] = CLAIMED           /* exact: never a slot with EXIT */
    :: else -> i = 0
    fi
  }
  if
  :: ok ->
     atomic {                          /* fn, arg; CLAIMED -> GIVEN keeps EXIT */
       gtask[i] = t;
       st[i] = (st[i] & EXIT) | GIVEN;
       waiting[i] = false;             /* the wake, if it slept */
       i = 0
     }
  :: else
  fi
}

/* rcupl_exec_schedule() of task t by an application thread. */
inline schedule(t, n, ok, i, jn) {
  if
  :: TASK_POOL(t) == PF -> grow(FNEED, NOSLOT, n, jn)  /* foreign_need */
  :: else
  fi;
  atomic { n = threads };
  give(t, n, ok, i);
  if
  :: !ok ->
     atomic {                          /* under e->lock, queued++ */
       elock == NOBODY -> q!TASK_POOL(t), t; qn[TASK_POOL(t)]++
     }
     /* fence; the Dekker pair of a trim to 0. Reading threads == 0, it
      * grows the set to 1, then reads threads again and claims a thread to
      * drain: the trim it raced may have kept slot 0 (its thread asleep),
      * and then the growth starts nothing. */
     do
     :: atomic { n = threads };
        if
        :: n == 0 ->
           grow(1, NOSLOT, n, jn)
#ifdef BROKEN_SCHEDULE_GROW_NO_DRAIN
           ; break
#endif
        :: else -> give(NOTASK, n, ok, i); break
        fi
     od
  :: else
  fi;
  atomic { n = 0; ok = false }
}

/* A fork made inside a task on slot me (lib/fork.c's prepare, FORK-2):
 * fork pending and the batch waited out, then m->writer, then the sets'
 * lock and every set's queue lock as leaves; fork(); the parent releases. */
inline fork_in_task(me) {
  fork_pending = true;
  !callbacks;                          /* rcupl_reclaim_fork_hold */
  LOCK(writer, me);
  LOCK(elock, me);                     /* sets_lock, e->lock */
  atomic { UNLOCK(elock, me); UNLOCK(writer, me); fork_pending = false }
}

/* The start of pthreadpool's thread_main for task t on slot me: its call
 * over, it returns at once; else it helps with the items. */
#define TASK_START(t, me)                                                     \
  assert(ran[t] == 0);                 /* VIEWMODEL-1: once */                \
  ran[t] = 1;                                                                 \
  intask[me] = true;                                                          \
  tphase[t] = (cover[t] -> TP_DONE : TP_ITEMS)

#define TASK_END(t, me)                                                       \
  tphase[t] = TP_DONE;                                                        \
  ran[t] = 2;                                                                 \
  intask[me] = false

/* An item of a call in progress, on slot me: items only, or a sized pin
 * that makes a view of width NS + 1 (under m->writer, the set grown to
 * NS), or a fork, or a wait for m->writer (say, the item resets). */
inline items(me, n, jn) {
  if
  :: skip
  :: atomic { grow_left > 0 -> grow_left-- };
     LOCK(writer, me);
     grow(NS, me, n, jn);
     UNLOCK(writer, me)
  :: atomic { fork_left > 0 -> fork_left-- };
     fork_in_task(me)
  :: atomic { wait_left > 0 -> wait_left-- };
     LOCK(writer, me);                 /* waits for the writer's holder */
     UNLOCK(writer, me)
  fi
}

/* ---- a thread of the set: rcupl_exec_thread() ------------------------- */
proctype setthread(byte s; bool first) {
  byte t = NOTASK;
  byte pool;
  byte n;
  bool jn;
  if
  :: first -> !waiting[s]; goto idle   /* the set's first threads: asleep */
  :: else -> st[s] = RUN               /* started */
  fi;
loop:
  do                                   /* rcupl_exec_drain */
  :: atomic {
       elock == NOBODY && len(q) > 0 ->
       q?pool, t; qn[pool]--; pool = 0;
       TASK_START(t, s)
     }
     if
     :: tphase[t] == TP_ITEMS -> items(s, n, jn)
     :: else
     fi;
     atomic { TASK_END(t, s); t = NOTASK }
  :: atomic { elock == NOBODY && len(q) == 0 } -> break
  od;
#ifdef BROKEN_TRIM_OLD_RULE
  st[s] = IDLE;
#else
  atomic {                             /* go idle: one CAS on the word */
    assert(low(st[s]) == RUN);
    if
    :: st[s] & EXIT -> st[s] = STOP; goto stop
    :: else -> st[s] = IDLE
    fi
  }
#endif
  if                                   /* fence; queued (EXEC_SET-1) */
  :: atomic { len(q) > 0 && st[s] == IDLE -> st[s] = RUN }; goto loop
  :: else
  fi;
idle:                                  /* rcupl_exec_idle */
#ifdef BROKEN_TRIM_OLD_RULE
  do
  :: atomic {
       low(st[s]) == GIVEN ->
       t = gtask[s]; gtask[s] = 0; st[s] = RUN
     };
     break
  :: st[s] == STOP -> goto stop
  :: st[s] != GIVEN && st[s] != STOP ->
     if
     :: atomic {                       /* exiting && try_stop() */
          exiting[s] && (st[s] == IDLE || st[s] == SLEEP) -> st[s] = STOP
        };
        goto stop
     :: exiting[s] && st[s] != IDLE && st[s] != SLEEP  /* try_stop() fails */
     :: !exiting[s] ->                 /* the flag seen clear: spin, or sleep */
        if
        :: st[s] != IDLE && st[s] != SLEEP  /* spin (CLAIMED, or changed) */
        :: st[s] == IDLE                      /* spin */
        :: atomic { st[s] == IDLE -> st[s] = SLEEP };
           atomic {                    /* futex_wait(SLEEP) */
             if
             :: st[s] == SLEEP ->
                waiting[s] = true;
                assert(!(pend[s] && glock == NOBODY))  /* VIEWMODEL-6 */
             :: else
             fi
           }
           !waiting[s]
        :: atomic {
             st[s] == SLEEP ->
             waiting[s] = true;
             assert(!(pend[s] && glock == NOBODY))
           }
           !waiting[s]
        fi
     fi
  od;
#else
  do
  :: atomic {
       low(st[s]) == GIVEN ->
       t = gtask[s]; gtask[s] = 0; st[s] = (st[s] & EXIT) | RUN
     };
     break
  :: atomic {
       (st[s] & EXIT) && (low(st[s]) == IDLE || low(st[s]) == SLEEP) ->
       st[s] = STOP
     };
     goto stop
  :: atomic {                          /* IDLE -> SLEEP, futex_wait(SLEEP) */
       st[s] == IDLE ->
       st[s] = SLEEP;
       waiting[s] = true;
       assert(!(pend[s] && glock == NOBODY))  /* VIEWMODEL-6 */
     }
     !waiting[s]
  od;
#endif
  if
  :: t != NOTASK ->
     atomic { TASK_START(t, s) }
     if
     :: tphase[t] == TP_ITEMS -> items(s, n, jn)
     :: else
     fi;
     atomic { TASK_END(t, s); t = NOTASK }
  :: else                              /* claimed to drain the queue */
  fi;
  goto loop;
stop:
  atomic { assert(tstate[s] == T_LIVE); tstate[s] = T_EXITED }
}

/* ---- the view's caller: parallel calls on V, then its last unpin ------- */
proctype viewcall() {
  byte t = 0;
  byte n, i;
  bool ok, jn;
  do
  :: t < CALLS_V ->
     schedule(t, n, ok, i, jn);
     /* the caller does the items; the call returns once none is left: the
      * task has not started helping (it will find the call over) or is
      * past its items. The caller does not wait for the task. */
     atomic { tphase[t] != TP_ITEMS -> cover[t] = true; t++ }
  :: else -> break
  od;
  atomic { vretired = true; done++; t = 0 }  /* unpinned; grace period over */
}

/* ---- a foreign pool's caller: parallel calls, then pthreadpool_destroy - */
proctype foreigncall() {
  byte t = CALLS_V;
  byte n, i;
  bool ok, jn;
  do
  :: t < NT ->
     schedule(t, n, ok, i, jn);
     atomic { tphase[t] != TP_ITEMS -> cover[t] = true; t++ }
  :: else -> break
  od;
  t = CALLS_V;                         /* pthreadpool_destroy(F) */
  do
  :: atomic { t < NT && ran[t] == 2 -> t++ }
  :: atomic { t == NT -> done++; t = 0 }; break
  od
}

/* ---- the reclaim thread: the batch that destroys the retired view V ---- */
proctype reclaim() {
  byte t, target, i, old;
  bool jn;
  atomic { vretired && !fork_pending -> callbacks = true };
  /* rcupl_executor_view_destroy(): pthreadpool_release_executor_threads()
   * (no call of V can run: unpinned, past its grace period), then V's
   * tasks still queued taken off the queue and run here: each finds its
   * call over and returns. */
#ifndef BROKEN_DESTROY_WAITS_FOR_SET
  do
  :: atomic {
       elock == NOBODY && qn[PV] > 0 ->
       q??PV, t; qn[PV]--;
       assert(ran[t] == 0 && cover[t]);  /* VIEWMODEL-1; its call is over */
       ran[t] = 2; tphase[t] = TP_DONE
#ifdef VACUITY_NO_STOLEN_TASK
       ; assert(false)
#endif
     }
  :: atomic { qn[PV] == 0 -> t = 0 }; break
  od;
#endif
  /* pthreadpool_destroy(V): waits for V's tasks (those left running on
   * the set's threads are past their items: bounded) */
  do
  :: atomic { t < CALLS_V && ran[t] == 2 -> t++ }
  :: atomic { t == CALLS_V -> t = 0 }; break
  od;
  /* view_gone: a trim to either target */
  if
  :: target = 0
  :: target = 1
  fi;
  trim(target, false, NOSLOT, i, old, jn);
  atomic { callbacks = false; done++ }
}

/* ---- an application thread: rcupool_trim() and a sized pin ------------
 * rcupool_trim(): floor 0, a trim (to either target), or none; a sized pin
 * (or reset) that makes a view of width NS + 1: under m->writer, the set
 * grown to NS, or none; in either order. Both run under the grow lock, so
 * one thread doing both in either order gives every order of their
 * critical sections that two threads would. */
inline app_trim(target, i, old, jn) {
  if
#if APP_TRIM
  :: target = 0
  :: target = 1
#endif
  :: target = NS                       /* no trim */
  fi;
  if
  :: target < NS -> trim(target, false, NOSLOT, i, old, jn)
  :: else -> target = 0
  fi
}

inline app_grow(n, jn) {
  if
#if APP_GROW
  :: LOCK(writer, NOSLOT);
     grow(NS, NOSLOT, n, jn);
     UNLOCK(writer, NOSLOT)
#endif
  :: skip
  fi
}

proctype app() {
  byte target, i, old;
  bool jn;
  if
  :: app_trim(target, i, old, jn); app_grow(i, jn)
  :: app_grow(i, jn); app_trim(target, i, old, jn)
  fi;
  done++
}

/* ---- rcupool_destroy(): every pool gone, the set's stop ---------------- */
proctype destroyer() {
  byte target, i, old;
  bool jn;
  done == PARTIES;
  trim(target, true, NOSLOT, i, old, jn);
  atomic {
    i = 0;
    do
    :: i < NT -> assert(ran[i] == 2); i++   /* VIEWMODEL-1 */
    :: else -> break
    od;
    i = 0;
    do
    :: i < NS -> assert(tstate[i] == T_NONE); i++  /* VIEWMODEL-5 */
    :: else -> break
    od;
    assert(len(q) == 0)
  }
}

init {
  atomic {                             /* the set's two threads, asleep */
    tstate[0] = T_LIVE; st[0] = SLEEP; waiting[0] = true;
    tstate[1] = T_LIVE; st[1] = SLEEP; waiting[1] = true;
    run setthread(0, true);
    run setthread(1, true);
    run viewcall();
    run foreigncall();
    run reclaim();
    run app();
    run destroyer()
  }
}
