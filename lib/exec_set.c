/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A set of threads that pthreadpool_create_v2() pools borrow (exec_set.h):
 * pthreadpool hands schedule() one task per thread it recruits for a
 * parallel call, and the task returns when that thread leaves the pool
 * (after the call, at once under PTHREADPOOL_FLAG_DONT_SPIN_WORKERS). A
 * call's caller does not wait for its tasks; the pool's destroy does.
 *
 * Invariants kept here:
 *   EXEC_SET-1. A task given to schedule() runs exactly once, on a thread of
 *       the set or on the reclaim thread (EXEC_SET-6): either one idle
 *       thread is claimed for it (its state moved from exactly IDLE or
 *       SLEEP to CLAIMED by one compare-and-swap, so one claimer wins and
 *       no thread asked to stop is claimed) and the task handed over by a
 *       release add to GIVEN, or it is queued under e->lock and taken off
 *       under that lock. A thread goes idle only after the queue was seen
 *       empty: it moves to IDLE, then reads e->queued (both sequentially
 *       consistent, and a scheduler adds to e->queued, then reads the
 *       states, fenced the same way), so a queued task always finds a
 *       thread, the idle one itself or one the scheduler claims to drain
 *       the queue, or one of the set's busy threads, which drain the queue
 *       after their task (a thread asked to stop too). A set is never
 *       left without a thread while a task is queued: a trim to 0 stores
 *       e->threads, then reads e->queued, and keeps slot 0 if it is not
 *       0; a scheduler that reads e->threads as 0 after queueing starts
 *       one (the same fenced pair). The threads stop for good only when
 *       no pool of the set is left (the set's stop).
 *   EXEC_SET-2. A slot below e->threads is a started thread, which no trim
 *       has asked to stop: e->threads changes only under e->grow_lock, by
 *       a release store after a new thread has reported started or a
 *       taken-back one was cleared of RCUPL_EXEC_EXIT, and drops before a
 *       trim marks the slots above; schedule() and num_threads() read it
 *       with an acquire load, so a view sized from it never counts a
 *       thread the set does not have.
 *   EXEC_SET-3. An idle thread spins a short while, then sleeps on its state
 *       (a futex): a claimer that moved SLEEP to CLAIMED wakes it after
 *       GIVEN; futex_wait() of SLEEP returns at once if the state moved
 *       first, RCUPL_EXEC_EXIT included. The spin is short under the yield
 *       policy (lib/idle.c; EXEC_SET-5) and longer under spin: never a lock
 *       or a condition variable per task.
 *   EXEC_SET-4. No trim or growth waits for a task, and no slot ever has
 *       two threads. The set holds the threads of the widest view alive on
 *       it (width - 1), or what it keeps for other libraries' pools
 *       (EXEC_SET-7), if more. A trim (under grow_lock) lowers e->threads,
 *       then sets RCUPL_EXEC_EXIT in each slot above by an atomic OR on
 *       the state word, the one word every party changes only by
 *       read-modify-writes (no store-then-load of two words, so no
 *       store buffering between them): an idle thread (IDLE or SLEEP was
 *       seen) can no longer be claimed and commits STOP itself, so the
 *       trim wakes and joins it; a busy one is left running ("unjoined")
 *       and commits STOP when its task and the drain after it are done.
 *       A growth into an unjoined slot clears the bit by an atomic AND: if
 *       STOP was not yet committed the thread is taken back, alive and
 *       uncopied (that is the case when the growth runs in that thread's
 *       own task, or when the task waits for the growth's caller); only a
 *       thread that committed STOP, which runs no task, is joined, and a
 *       new one started. Trims reap unjoined slots that reached STOP; the
 *       set's stop joins every thread.
 *   EXEC_SET-5. Under yield a thread spins before a sleep only if its
 *       last task found it awake or came in the same coarse-clock tick as
 *       its sleep (stamped before SLEEP is published and before GIVEN: no
 *       precise clock on a call's path). Tasks a tick or more apart: it
 *       sleeps at once, as Debian 12's workers under YIELD_WORKERS, so a
 *       borrowed thread that comes after its call is over (a view's caller
 *       does not wait for it) burns no spin. A wrong guess costs a spin or
 *       a wake, never a task: claimers take IDLE and SLEEP alike.
 *   EXEC_SET-6. A view's destroy never waits for a thread of the set to
 *       come free. Every queued task names its view's context; the
 *       reclaim thread, once the view's calls are over (no pin, no reader,
 *       its grace period past) and pthreadpool_release_executor_threads()
 *       has marked it done, takes that view's tasks off the queue and runs
 *       them itself (each leaves at once), so pthreadpool_destroy() waits
 *       only for the view's tasks already on threads of the set, which run
 *       pthreadpool's bookkeeping, no user code. A fork's prepare, which
 *       waits out the reclaim batch, so never waits for a task.
 *   EXEC_SET-7. Other libraries' pools: rcupool cannot see them destroyed
 *       (the executor API has no such call), so it keeps their threads by
 *       what it sees: their creation's num_threads(), which records
 *       foreign_need and raises e->floor to what it returns, and
 *       rcupool_executor(), which raises e->floor to the manager's width
 *       less one. A view's going keeps e->floor; rcupool_trim() and
 *       rcupool_finalize() let it go. A pool of theirs that is still alive
 *       then gets its threads back at its next parallel call: a foreign
 *       schedule() that sees fewer than foreign_need threads grows the set
 *       back (a thread start, never a wait for a task) and raises e->floor
 *       again.
 *   EXEC_SET-8. fork(): prepare takes e->lock after everything that may
 *       wait (lib/fork.c), so the child's queue is whole; the child has
 *       none of the set's threads and forgets them and the parent's views
 *       (orphans, never destroyed there), then unlocks what its thread
 *       took in prepare (re-initialising would leave LOCK-1's count
 *       raised, and the child's log undelivered).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "cpuset.h"
#include "die.h"
#include "exec_set.h"
#include "exec_size.h"
#include "exec_thread.h"
#include "exec_types.h"
#include "limits_internal.h"
#include "lock.h"
#include "tsan.h"

#if RCUPL_HAVE_EXECUTOR

static int rcupl_exec_num_threads(void *context) {
  const struct rcupl_exec_ctx *c = context;
  struct rcupl_exec_set *e = c->set;
  const bool foreign = c->foreign;
  RCUPL_TSAN_RELEASE(c); /* the last read of *c (lib/tsan.h) */
  if (!foreign)          /* EXEC_SET-2 */
    return (int)__atomic_load_n(&e->threads, __ATOMIC_ACQUIRE);
  /* EXEC_SET-7: another library's pool is sized from this answer. */
  rcupl_mutex_lock(&e->grow_lock);
  size_t n = e->threads;
  if (n > e->floor) e->floor = n;
  if (n > e->foreign_need)
    __atomic_store_n(&e->foreign_need, n, __ATOMIC_RELAXED);
  rcupl_mutex_unlock(&e->grow_lock);
  return (int)n;
}

/* Claims an idle thread for fn(arg) (fn NULL: drain the queue); spinning
 * ones first, whose pick-up costs no wake. EXEC_SET-1. */
static bool rcupl_exec_give(struct rcupl_exec_set *e, void (*fn)(void *),
                            void *arg) {
  size_t n = __atomic_load_n(&e->threads, __ATOMIC_ACQUIRE);
  for (uint32_t want = IDLE; want <= SLEEP; want++) {
    for (size_t i = 0; i < n; i++) {
      struct rcupl_exec_slot *s = &e->slots[i];
      uint32_t x = want;
      if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) != want ||
          !__atomic_compare_exchange_n(&s->state, &x, CLAIMED, false,
                                       __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        continue;
      s->fn = fn;
      s->arg = arg;
      if (want == SLEEP) s->claimed_tick = rcupl_coarse_now_ns();
      /* CLAIMED -> GIVEN, keeping a trim's RCUPL_EXEC_EXIT (EXEC_SET-4). */
      __atomic_add_fetch(&s->state, GIVEN - CLAIMED, __ATOMIC_RELEASE);
      if (want == SLEEP) rcupl_exec_wake(&s->state);
      return true;
    }
  }
  return false;
}

static void rcupl_exec_schedule(void *context, void *arg, void (*fn)(void *)) {
  const struct rcupl_exec_ctx *c = context;
  struct rcupl_exec_set *e = c->set;
  const bool foreign = c->foreign;
  RCUPL_TSAN_RELEASE(c); /* the last read of *c (lib/tsan.h) */
  if (foreign) {         /* EXEC_SET-7: its threads back after a trim */
    size_t need = __atomic_load_n(&e->foreign_need, __ATOMIC_RELAXED);
    if (__atomic_load_n(&e->threads, __ATOMIC_ACQUIRE) < need) {
      rcupl_exec_set_keep(e, need);
      (void)rcupl_exec_set_grow(e, need); /* fewer: the queue serves */
    }
  }
  if (rcupl_exec_give(e, fn, arg)) return;
  rcupl_mutex_lock(&e->lock);
  struct rcupl_exec_task *t = e->spare;
  if (t != NULL) {
    e->spare = t->next;
  } else if ((t = malloc(sizeof(*t))) == NULL) {
    /* pthreadpool counted this task as recruited and waits for it: there
     * is no way to refuse it. */
    rcupl_die("executor: no memory for a task of a pool's parallel call");
  }
  t->fn = fn;
  t->arg = arg;
  t->ctx = c;
  t->next = NULL;
  if (e->tail != NULL)
    e->tail->next = t;
  else
    e->head = t;
  e->tail = t;
  __atomic_add_fetch(&e->queued, 1, __ATOMIC_SEQ_CST);
  rcupl_mutex_unlock(&e->lock);
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* EXEC_SET-1 */
  if (__atomic_load_n(&e->threads, __ATOMIC_SEQ_CST) == 0 &&
      rcupl_exec_set_grow(e, 1) != 0 &&
      __atomic_load_n(&e->threads, __ATOMIC_ACQUIRE) == 0)
    rcupl_die("executor: a task is queued on a set that has no thread, and "
              "none could start");
  (void)rcupl_exec_give(e, NULL, NULL);
}

void rcupl_exec_set_init(struct rcupl_exec_set *e, rcupool_t *m,
                         const rcupool_placement_t *pl,
                         const struct rcupl_cpuset *cpus) {
  e->api.num_threads = rcupl_exec_num_threads;
  e->api.schedule = rcupl_exec_schedule;
  e->foreign.set = e;
  e->foreign.foreign = true;
  e->m = m;
  e->placement = *pl;
  e->bind = cpus != NULL;
  if (cpus != NULL) e->cpus = *cpus;
  rcupl_mutex_init(&e->grow_lock);
  rcupl_mutex_init(&e->lock);
}

#endif /* RCUPL_HAVE_EXECUTOR */
