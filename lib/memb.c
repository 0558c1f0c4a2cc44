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
 *           (rp_memb_owned_depth counts the nesting). So between sections
 *           rcupool holds no registration: the application may register or
 *           unregister the thread itself, a thread may exit at any time
 *           outside a section, and a fork child inherits rcupool
 *           registrations only of threads that were inside a section.
 *   MEMB-3. Registration takes liburcu-memb's registry mutex: the first
 *           section of an unregistered thread is not async-signal-safe
 *           (README, "signal handlers").
 *   MEMB-4. A registration rcupool makes lasts while fork_lock is held for
 *           reading (register, section, unregister); fork's prepare takes
 *           it for writing (writer-preferring, so a stream of sections
 *           cannot starve it). So a fork never catches liburcu-memb's
 *           registry half-updated by rcupool, nor leaves the child a
 *           registry entry of rcupool's for a dead thread inside a section
 *           (its grace periods would wait for it forever). Threads the
 *           application registered are the application's to quiesce.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP */
#endif
#include <pthread.h>

#include "urcu_flavor.h"

#if defined(RCUPOOL_URCU_MEMB)

__thread unsigned rp_memb_owned_depth;

static pthread_rwlock_t fork_lock =
    PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

void rp_memb_register_for_section(void) {
  pthread_rwlock_rdlock(&fork_lock);
  urcu_memb_register_thread();
  rp_memb_owned_depth = 1;
}

void rp_memb_unregister_after_section(void) {
  urcu_memb_unregister_thread();
  pthread_rwlock_unlock(&fork_lock);
}

void rp_memb_fork_prepare(void) { pthread_rwlock_wrlock(&fork_lock); }

void rp_memb_fork_parent(void) { pthread_rwlock_unlock(&fork_lock); }

void rp_memb_fork_child(void) {
  pthread_rwlock_t fresh = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
  fork_lock = fresh; /* its holder was this thread; nobody else exists */
}

#endif
