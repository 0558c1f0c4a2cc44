/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The read side: RCU read-side sections and the current pool.
 *
 * Invariants kept here:
 *   READ-1. With urcu-bp a reader never locks, allocates (after its thread's
 *       first section) or writes shared memory: the section is liburcu's,
 *       the pointer load is a plain acquire load. With memb the outermost
 *       section of a thread nobody registered registers it for the section
 *       (lib/memb.c: a lock, and a wait while a fork's handlers run).
 *   READ-2. Everything a reader did with a pool happens before that pool's
 *       retire callback: liburcu's grace period, annotated for TSAN by the
 *       release just before the section ends (tsan.h).
 *
 *   READ-3. rcupool_current() never creates anything: in a fork child before
 *       the first call that settles the default manager (lib/fork.c) it
 *       returns the 1-thread pool the child inherited as current.
 *   READ-4. rcupl_read_get_current() (lib/read_internal.h, inlined into pin.c)
 *       takes its pin reference inside its own section on the pool that
 *       section saw as current (PIN-1): no call between a pin's entry and
 *       its section.
 *
 * This file and pin.c's fast paths inline liburcu's per-thread reader
 * state; lib/BUILD says why the library is built without UBSan's alignment
 * check.
 */
#include <stddef.h>

#include "manager_state.h"
#include "pool.h"
#include "rcupool/rcupool.h"
#include "read_internal.h"
#include "tsan.h"
#include "urcu_flavor.h"

void rcupool_read_lock(void) { rcupl_rcu_read_lock(); }

void rcupool_read_unlock(void) {
  RCUPL_TSAN_GP_RELEASE();
  rcupl_rcu_read_unlock();
}

/* The library's own names for the same code: aliases, not wrappers, so a
 * section costs the caller one call each way, and the library's own calls
 * bind to the local rcupl_* symbols (never through the PLT). */
void rcupl_read_lock(void) __attribute__((alias("rcupool_read_lock")));
void rcupl_read_unlock(void) __attribute__((alias("rcupool_read_unlock")));

#if defined(RCUPOOL_URCU_BP)
/* rcupool/inline.h refers to this symbol so that code inlining urcu-bp's
 * read side cannot link against a library built with another flavour. */
RCUPOOL_API void rcupool_abi_urcu_bp_v0(void);
void rcupool_abi_urcu_bp_v0(void) {}
#endif

static inline pthreadpool_t rcupl_read_current_tp(rcupool_t *m) {
  if (m == NULL) return NULL;
  struct rcupl_pool *p = __atomic_load_n(&m->current, __ATOMIC_ACQUIRE);
  return p != NULL ? p->tp : NULL;
}

/* The thread's first section (liburcu meets the thread): out of line, so
 * the usual path makes no call and saves no register. */
__attribute__((noinline, cold)) static pthreadpool_t
rcupl_read_lock_current_first(rcupool_t *m) {
  rcupl_rcu_read_lock();
  return rcupl_read_current_tp(m);
}

pthreadpool_t rcupool_read_lock_current(rcupool_t *m) {
  if (__builtin_expect(!rcupl_rcu_reader_ready(), 0))
    return rcupl_read_lock_current_first(m);
  rcupl_rcu_read_lock();
  return rcupl_read_current_tp(m);
}

bool rcupl_read_ongoing(void) { return rcupl_rcu_read_ongoing() != 0; }

pthreadpool_t rcupool_current(rcupool_t *m) { return rcupl_read_current_tp(m); }
