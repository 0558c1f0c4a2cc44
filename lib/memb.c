/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reader registration for the memb flavour (compiled into every build; it is
 * empty unless RCUPOOL_URCU_MEMB is defined).
 *
 * Invariants:
 *   MEMB-1. rcupool trusts only liburcu-memb's own registration state
 *           (URCU_TLS(urcu_memb_reader).registered): a thread the
 *           application (or anyone) registered is never registered again.
 *   MEMB-2. A thread that is not registered when it enters its outermost
 *           read-side section is registered by rcupool for that section
 *           only and unregistered when the section ends
 *           (rcupl_memb_owned_depth counts the nesting). So between sections
 *           rcupool holds no registration: the application may register or
 *           unregister the thread itself, a thread may exit at any time
 *           outside a section, and a fork child inherits rcupool
 *           registrations only of threads that were inside a section.
 *   MEMB-3. Registration takes liburcu-memb's registry mutex: the first
 *           section of an unregistered thread is not async-signal-safe
 *           (docs/flavours.md, "Signal handlers").
 *   MEMB-4. A registration rcupool makes lasts while fork_lock is held for
 *           reading (register, section, unregister); fork's prepare takes
 *           it for writing. So a fork never catches liburcu-memb's
 *           registry half-updated by rcupool, nor leaves the child a
 *           registry entry of rcupool's for a dead thread inside a section
 *           (its grace periods would wait for it forever). Threads the
 *           application registered are the application's to quiesce.
 *   MEMB-5. fork_lock prefers a waiting writer (a stream of sections
 *           cannot starve a fork), except for a thread inside a task of an
 *           rcupool dispatch (or a pool worker): its section is admitted
 *           while the writer only waits. Its dispatcher may sit inside a
 *           section the writer waits for, and waits for the task: holding
 *           the task back would deadlock. Once the writer holds the lock
 *           (no rcupool-registered section anywhere), prepare waits for
 *           nothing that needs a task to finish (GRACE-1: no grace
 *           period follows), so a task that waits for the fork is safe.
 */
#include <pthread.h>

#include "context.h"
#include "fault.h"
#include "memb.h"

#if defined(RCUPOOL_URCU_MEMB)
/* liburcu-memb's reader TLS, inlined as lib/urcu_flavor.h inlines it
 * (_LGPL_SOURCE: see that header). */
#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-memb.h>

#include "lock.h"
#include "rcupool/rcupool.h"

__thread unsigned rcupl_memb_owned_depth;

/* MEMB-4/5: a readers-writer lock with a waiting writer preferred except
 * for readers inside a task. */
static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned readers;
  unsigned writers_waiting;
  bool writer;
} fork_lock = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0,
               false};

void rcupl_memb_register_for_section(void) {
  bool in_task = rcupl_in_task();
  rcupl_mutex_lock(&fork_lock.mu);
  rcupl_hold_point(RCUPL_HOLD_MEMB_FORK_LOCK);
  while (fork_lock.writer || (fork_lock.writers_waiting != 0 && !in_task))
    rcupl_cond_wait(&fork_lock.cv, &fork_lock.mu);
  fork_lock.readers++;
  rcupl_mutex_unlock(&fork_lock.mu);
  urcu_memb_register_thread();
  rcupl_memb_owned_depth = 1;
}

void rcupl_memb_unregister_after_section(void) {
  urcu_memb_unregister_thread();
  rcupl_mutex_lock(&fork_lock.mu);
  if (--fork_lock.readers == 0 && fork_lock.writers_waiting != 0)
    rcupl_cond_broadcast(&fork_lock.cv);
  rcupl_mutex_unlock(&fork_lock.mu);
}

void rcupl_memb_fork_prepare(void) {
  rcupl_mutex_lock(&fork_lock.mu);
  fork_lock.writers_waiting++;
  while (fork_lock.readers != 0 || fork_lock.writer)
    rcupl_cond_wait(&fork_lock.cv, &fork_lock.mu);
  fork_lock.writers_waiting--;
  fork_lock.writer = true;
  rcupl_mutex_unlock(&fork_lock.mu);
}

void rcupl_memb_fork_parent(void) {
  rcupl_mutex_lock(&fork_lock.mu);
  fork_lock.writer = false;
  rcupl_cond_broadcast(&fork_lock.cv);
  rcupl_mutex_unlock(&fork_lock.mu);
}

void rcupl_memb_fork_child(void) {
  /* Nobody else exists: no reader, no waiter. */
  rcupl_mutex_init(&fork_lock.mu);
  rcupl_cond_init(&fork_lock.cv);
  fork_lock.readers = 0;
  fork_lock.writers_waiting = 0;
  fork_lock.writer = false;
}

#endif
