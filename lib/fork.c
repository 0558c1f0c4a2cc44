/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fork(): the least possible in the handlers; the child's pool comes on
 * first use.
 *
 * Invariants kept here:
 *   FORK-1. The handlers are registered once per copy of the library
 *           (pthread_once), from a constructor and again before the first
 *           default manager is created (whichever comes first).
 *   FORK-2. prepare waits only for library state no user code can hold
 *           (LOG-1, no user code inside the library's machinery): no log
 *           hook runs on a library thread or under a library lock
 *           (lib/log.c), so nothing prepare waits for can be waiting for a
 *           hook. Its order, which is the
 *           order every other path takes these in:
 *             1. mark a fork pending and wait out a running callback batch
 *                (it joins idle workers: liburcu-bp's registry lock must
 *                not be held by this thread then), holding nothing. When
 *                another handler of this fork already holds liburcu-bp's
 *                locks (FORK-3: another copy of rcupool, or the
 *                application), the batch may be waiting for them: it is not
 *                waited for, and the child resumes it (RECLAIM_FORK-2);
 *             2. default_lock -> the default manager's writer (and its
 *                spare, FORK-4);
 *             3. memb: the grace-period gate (GRACE-1: no grace
 *                period of the library in flight, as liburcu-memb's own
 *                grace-period lock has no fork hook), then fork_lock for
 *                writing (MEMB-4/5); bp: liburcu-bp's fork hook (FORK-3),
 *                which waits for a grace period in flight itself. bp does
 *                not take the gate: a grace period blocked on liburcu-bp's
 *                lock, which another copy of rcupool or the application
 *                may hold in its own prepare, holds the gate; the bp child
 *                re-initialises it instead (no grace period runs there);
 *             4. the reclaim queue lock -> the list of managers -> every
 *                manager's lock (MANAGERS-1) -> the log queue's lock ->
 *                machine_lock -> cpus_lock -> the executor's sets_lock ->
 *                every set's queue lock (leaf locks, held for a copy;
 *                EXEC_SET-8). Step 1's batch never waits for a thread of
 *                a set, whose tasks may fork (EXEC_SET-6).
 *           A private manager's writer is not taken (FORK-7). The table of
 *           every lock of lib/ and what each handler does with it is
 *           docs/design.md's ("Every lock a fork can catch").
 *           Parent releases them in reverse; the child releases those this
 *           thread took and re-initialises what other threads waited on.
 *           glibc runs the handlers of forks made on different threads
 *           concurrently (it does not serialise prepare..parent): step 1
 *           counts forks, so one fork's parent handler never releases
 *           another's hold; everything after step 2 is under default_lock,
 *           and prepare's notes for parent and child (side, took_manager,
 *           called_urcu_hooks) are written once every lock is held and
 *           read by the parent before it releases one.
 *           Never is a lock another thread held unlocked. The one wait left
 *           that user code can prolong is a grace period in flight (bp's
 *           hook waits for it in liburcu; memb's gate): it waits for the
 *           application's own read-side sections (docs/flavours.md, fork).
 *   FORK-3. liburcu-bp's process-global hooks (urcu_bp_before_fork and
 *           after_fork_*) are called at most once per fork, however many
 *           copies of rcupool the process holds and whether or not the
 *           application registered them itself: urcu_bp_before_fork blocks
 *           every signal of the forking thread until after_fork_* restores
 *           the mask, so a prepare handler that finds every signal already
 *           blocked knows another handler of this fork took liburcu-bp's
 *           locks (glibc runs all prepare handlers of one fork on the
 *           forking thread, one after another), and calls neither
 *           it nor the matching after_fork_*. Every copy registers in a
 *           constructor, so an application that registers liburcu-bp's
 *           hooks in main() runs its prepare first. (A thread that forks
 *           with every signal already blocked for its own reasons is taken
 *           as such a fork too; docs/flavours.md, "fork" says what that leaves.)
 *           Why calling them matters: in the child they release liburcu-bp's
 *           registry and grace-period locks in a consistent state and prune
 *           registry entries of threads that did not survive, one of which
 *           may have been inside a read-side section (a grace period of the
 *           child would otherwise wait for it forever).
 *   FORK-4. The child handler allocates nothing, starts no thread and calls
 *           no log hook. For every manager (MANAGERS-1: private ones too) it
 *           marks every inherited pool an orphan (never dispatched to
 *           through the manager, never joined, its threads not counted in
 *           threads_alive); a pool already at refs zero whose hand-over to
 *           the reclaim thread the fork cut off (its unpinning thread does
 *           not exist here) is queued; the dispatch references of threads
 *           that do not exist here are dropped (lib/parallel.c,
 *           PARALLEL-4) and a pool that reaches zero by that is queued as
 *           well. Pins are kept: a pin is caller-owned memory the child
 *           has too, and unpinning it there is valid (it lets the orphan
 *           go). For the default manager it then publishes the 1-thread
 *           spare pool made in the parent (pthreadpool_create(1) starts no
 *           thread) as the current pool with a new generation, drops the
 *           orphan's current reference (queued for the reclaim thread,
 *           which starts on the next need) and marks the manager stale.
 *           The publish is manager.c's (MANAGER-5), with the reported
 *           thread count left at the size to settle at.
 *   FORK-5. A stale manager is settled by the first call that needs its
 *           real pool (rcupool_parallelize_1d outside a scope, rcupool_pin,
 *           rcupool_pin_sized of the manager's width, rcupool_pin_placed,
 *           or a reset, which settles by itself): a pool of the manager's size is created
 *           and published, and the spare (or the orphan, FORK-8) retired.
 *           If that creation fails the 1-thread pool stays current (work
 *           runs on the calling thread, and the log says so) until a reset.
 *           Settling is reset.c's (RESET-5); this file only marks stale.
 *   FORK-6. fork() inside a read-side section of the forking thread would
 *           deadlock with a grace period in flight (liburcu-bp's hook, or
 *           the memb grace period prepare waits for, waits for that
 *           section): prepare detects it and dies with a message
 *           (rcupl_die: stderr, no hook, no lock).
 *   FORK-7. A private manager's writer is re-initialised in the child, not
 *           taken in prepare: its holder may be a destroy draining the
 *           reclaim queue, which waits for the reclaim thread, which a
 *           pending fork holds back (RECLAIM-7), and the list of managers
 *           cannot be walked to take them before step 1 without holding
 *           managers_mu, which the reclaim thread's passes need. What the
 *           writer guards beyond m->lock (which prepare holds, so every
 *           bookkeeping change is whole) is a reset's, a follow reset's or
 *           a sized pin's pool start (a pool not yet listed: its memory
 *           stays allocated in the child), m->follow_last, which a follow
 *           reset of a parent thread may have been copying (FOLLOW-2: the
 *           child's next follow change may log its "from" part from a torn
 *           copy; what it follows to is read afresh), a reset's retire counted under m->lock and not yet
 *           queued (the child drops that retire reference: no reader of
 *           the parent's threads exists here), a sized pin's pool listed
 *           with the pin of a thread the child does not have (as any pin of
 *           another thread: the child cannot destroy that manager, -EBUSY),
 *           and a destroy (the child must not use a manager its parent was
 *           destroying). The forking thread never holds a writer: no user
 *           code runs under one (LOG-1).
 *   FORK-8. A private manager (and the default one when the parent made no
 *           spare) keeps its orphaned current pool in the child, marked
 *           stale: its first use by any path settles it as FORK-5 says (a
 *           fresh pool of its size, the orphan retired), and until then the
 *           orphan hands out NULL, never its pthreadpool_t (POOL-6). So a
 *           pin, a sized pin, rcupool_current() and a parallel call agree:
 *           none reaches the parent's workers.
 */
#include <pthread.h>
#include <signal.h>

#include "context.h"
#include "cpus.h"
#include "die.h"
#include "executor.h"
#include "fork.h"
#include "grace.h"
#include "lock.h"
#include "log_internal.h"
#include "machine.h"
#include "manager_internal.h"
#include "managers.h"
#include "parallel.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "reclaim.h"
#include "reclaim_fork.h"
#include "registry.h"
#include "urcu_flavor.h"

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
/* Set at the end of prepare, with every lock of the fork held, and read
 * by its parent handler before it releases any (its child is alone): this
 * copy called liburcu-bp's hooks for this fork (FORK-3). glibc does not
 * serialise the handlers of forks on two threads (FORK-2). */
static bool called_urcu_hooks;
static bool took_manager;
/* The default manager's part (fork.h), set once by rcupl_fork_register
 * (release) while the library loads; `side` is what prepare read, for its
 * parent and child handler (written and read like the above). */
static const struct rcupl_fork_default *default_side;
static const struct rcupl_fork_default *side;

static bool rcupl_every_signal_blocked(void) {
  sigset_t cur;
  if (pthread_sigmask(SIG_BLOCK, NULL, &cur) != 0) return false;
  for (int s = 1; s < NSIG; s++) {
    if (s == SIGKILL || s == SIGSTOP) continue;
    if (s >= 32 && s < SIGRTMIN) continue; /* reserved by the C library */
    if (sigismember(&cur, s) != 1) return false;
  }
  return true;
}

static void rcupl_fork_prepare(void) {
  if (rcupl_in_read_section_quiet())
    rcupl_die("fork() inside a read-side section of the forking thread; leave "
              "the section first (docs/flavours.md, fork)");
  /* bp: another handler of this fork (another copy of rcupool, or the
   * application) may hold liburcu-bp's locks already (FORK-3); a running
   * callback batch may then wait for them, so it cannot be waited out
   * (RECLAIM_FORK-2: the child resumes it). */
  bool urcu_taken = RCUPL_URCU_HAS_FORK_HOOKS && rcupl_every_signal_blocked();
  rcupl_reclaim_fork_hold(!urcu_taken);
  const struct rcupl_fork_default *d =
      __atomic_load_n(&default_side, __ATOMIC_ACQUIRE);
  if (d != NULL) d->prepare();
  rcupool_t *m = d != NULL ? d->peek() : NULL;
  if (m != NULL) {
    rcupl_mutex_lock(&m->writer);
    /* The spare the child will publish (FORK-4): made here, in the parent,
     * once; kept for later forks until a child consumes its copy. */
    if (m->spare == NULL) {
      struct rcupl_pool *spare;
      if (rcupl_manager_pool_create(m, 1, &m->placement, "fork", &spare) == 0)
        m->spare = spare;
    }
  }
  bool urcu_hooks = false;
  if (!RCUPL_URCU_HAS_FORK_HOOKS) {
    rcupl_grace_fork_prepare(); /* GRACE-1: no grace period in flight */
    rcupl_rcu_fork_prepare();   /* MEMB-4 */
    urcu_hooks = true;
  } else if (!urcu_taken) {
    rcupl_rcu_fork_prepare();
    urcu_hooks = true;
  }
  rcupl_reclaim_fork_prepare();
  rcupl_managers_fork_prepare();
  rcupl_log_fork_prepare();
  rcupl_machine_fork_prepare();
  rcupl_cpus_fork_prepare();
  rcupl_executor_fork_prepare(); /* EXEC_SET-8: leaves, after every wait */
  /* Only now, every lock of this fork held: a fork prepared on another
   * thread at the same time waits above, before writing them. */
  side = d;
  took_manager = m != NULL;
  called_urcu_hooks = urcu_hooks;
}

static void rcupl_fork_parent(void) {
  /* Read while this fork still holds every lock (see prepare's end). */
  const struct rcupl_fork_default *d = side;
  const bool took = took_manager, urcu_hooks = called_urcu_hooks;
  rcupl_executor_fork_parent();
  rcupl_cpus_fork_parent();
  rcupl_machine_fork_parent();
  rcupl_log_fork_parent();
  rcupl_managers_fork_parent();
  rcupl_reclaim_fork_parent();
  if (urcu_hooks) rcupl_rcu_fork_parent();
  if (!RCUPL_URCU_HAS_FORK_HOOKS) rcupl_grace_fork_parent();
  rcupool_t *m = took ? d->peek() : NULL;
  if (m != NULL) rcupl_mutex_unlock(&m->writer);
  if (d != NULL) d->parent();
}

/* The default manager in the child, after its pools became orphans, with
 * writer and lock held by this thread and no other thread alive (FORK-4). */
static void rcupl_fork_child_default(rcupool_t *m) {
  struct rcupl_pool *spare = m->spare;
  if (spare == NULL) {
    /* No spare (the parent could not make one): the orphan stays current
     * and parallel work runs inline until the manager is settled. */
    __atomic_store_n(&m->fork_stale, true, __ATOMIC_RELEASE);
    return;
  }
  m->spare = NULL;
  struct rcupl_pool *old = m->current;
  /* current_threads keeps the size the settled pool will have. */
  rcupl_manager_publish_locked(
      m, spare, true, __atomic_load_n(&m->current_threads, __ATOMIC_RELAXED));
  __atomic_store_n(&m->fork_stale, true, __ATOMIC_RELEASE);
  /* No reader of the parent's threads exists here (FORK-6: not even this
   * thread's): the manager's reference of the old pool can go at once. */
  old->managed = false;
  rcupl_pool_gather_locked(old); /* POOL-8: no section exists to see it */
  if (rcupl_pool_put(old))
    rcupl_reclaim_free_later_quiet(old, "fork child: replaced by the spare");
}

/* Every manager in the child, with its lock held by this thread and no
 * other thread alive (FORK-4). */
static void rcupl_fork_child_orphans(rcupool_t *m) {
  const bool writer_taken = m->is_default && took_manager && m == side->peek();
  if (!writer_taken) {
    /* FORK-7: a thread of the parent may have held it; none exists here. */
    rcupl_mutex_init(&m->writer);
  }
  struct rcupl_pool *p;
  rcupl_for_each_pool(p, m) {
    /* FORK-7: a retire counted under m->lock by a reset whose thread is
     * not here, and not yet queued, is dropped: no reader of the parent's
     * threads exists here (FORK-6), and a managed pool keeps refs >= 1. */
    unsigned queued = rcupl_reclaim_fork_child_retires_queued(p);
    while (p->retires_pending > queued) {
      p->retires_pending--;
      /* POOL-8, as that callback would have (no section exists here). */
      if (p->retires_pending == 0 && p != m->current)
        rcupl_pool_gather_locked(p);
      rcupl_pool_put(p);
    }
    p->fork_orphan = true;
    if (p->tp != NULL) { /* POOL-6 (an orphan of an earlier fork has none) */
      p->orphan_tp = p->tp;
      p->tp = NULL;
    }
    /* Dispatch references of threads that do not exist here are dropped;
     * this thread's own, if it forked from a task of its own dispatch,
     * stays (its put comes when that call returns). */
    size_t keep = p == rcupl_parallel_dispatching() ? RCUPL_DISPATCH_REF : 0;
    __atomic_store_n(&p->refs, rcupl_pool_counted_refs(p) + keep,
                     __ATOMIC_RELAXED);
    /* Dropped to zero by a thread that was about to hand it over, or by
     * the line above. */
    if (rcupl_pool_refs(p) == 0) {
      rcupl_reclaim_fork_child_adopt(p);
    } else if (p->managed && p != m->current) {
      /* A warm orphan is never reused (RESET-2): the manager lets it go
       * now (WARM-3 would at its first pass). */
      p->managed = false;
      if (rcupl_pool_put(p)) rcupl_reclaim_free_later_quiet(p, "fork orphan");
    }
  }
  if (writer_taken)
    rcupl_fork_child_default(m);
  else if (m->current != NULL) /* FORK-8: replaced at the first use */
    __atomic_store_n(&m->fork_stale, true, __ATOMIC_RELEASE);
}

static void rcupl_fork_child(void) {
  rcupl_executor_fork_child(); /* EXECUTOR-1: before any pool of the child */
  rcupl_cpus_fork_child();
  rcupl_machine_fork_child();
  rcupl_log_fork_child();
  rcupl_reclaim_fork_child();
  if (called_urcu_hooks) rcupl_rcu_fork_child();
  rcupl_grace_fork_child(!RCUPL_URCU_HAS_FORK_HOOKS);
  rcupl_managers_fork_child(rcupl_fork_child_orphans);
  rcupool_t *m = took_manager ? side->peek() : NULL;
  if (m != NULL) rcupl_mutex_unlock(&m->writer);
  if (side != NULL) side->child();
}

static void rcupl_fork_register_once(void) {
  /* Without handlers a fork child inherits locks and pools as they were:
   * rcupool must not be used there. Said once, at load. */
  int err =
      pthread_atfork(rcupl_fork_prepare, rcupl_fork_parent, rcupl_fork_child);
  if (err != 0)
    rcupl_log(RCUPOOL_LOG_ERROR,
              "fork: pthread_atfork failed (%d); do not use rcupool in a child "
              "of fork()",
              err);
}

void rcupl_fork_register(const struct rcupl_fork_default *d) {
  const struct rcupl_fork_default *none = NULL;
  if (d != NULL)
    __atomic_compare_exchange_n(&default_side, &none, d, false,
                                __ATOMIC_RELEASE, __ATOMIC_RELAXED);
  pthread_once(&fork_once, rcupl_fork_register_once);
}

__attribute__((constructor)) static void rcupl_fork_register_at_load(void) {
  rcupl_fork_register(NULL);
}
