/*
 * The liburcu flavour, chosen at build time (//lib/deps:urcu), behind one
 * set of names. Only lib/ includes this header; the public header never
 * exposes liburcu, so users compile against rcupool alone.
 *
 * _LGPL_SOURCE inlines liburcu's read-side fast path into this library
 * (liburcu is LGPL-2.1; rcupool is LGPL-2.1-or-later for that reason, see
 * README "License").
 *
 * bp (default): readers need no registration and may exit at any time.
 * memb: readers must be registered; rp_rcu_reader_ready() registers a thread
 *   on its first read-side section and a thread-exit destructor unregisters
 *   it, so users see the same "no registration" contract.
 */
#ifndef RCUPOOL_LIB_URCU_FLAVOR_H
#define RCUPOOL_LIB_URCU_FLAVOR_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif

#if defined(RCUPOOL_URCU_MEMB)

#include <urcu/urcu-memb.h>

#define RP_URCU_FLAVOR_NAME "memb"
#define rp_rcu_read_lock_raw urcu_memb_read_lock
#define rp_rcu_read_unlock_raw urcu_memb_read_unlock
#define rp_rcu_read_ongoing urcu_memb_read_ongoing
#define rp_synchronize_rcu urcu_memb_synchronize_rcu
#define rp_call_rcu urcu_memb_call_rcu
#define rp_rcu_barrier urcu_memb_barrier
#define rp_call_rcu_before_fork urcu_memb_call_rcu_before_fork
#define rp_call_rcu_after_fork_parent urcu_memb_call_rcu_after_fork_parent
#define rp_call_rcu_after_fork_child urcu_memb_call_rcu_after_fork_child

/* Registers the calling thread with liburcu once (memb.c). */
void rp_rcu_reader_register_slow(void);
extern __thread int rp_rcu_reader_registered;

static inline void rp_rcu_reader_ready(void) {
  if (__builtin_expect(!rp_rcu_reader_registered, 0))
    rp_rcu_reader_register_slow();
}

static inline void rp_rcu_fork_prepare(void) {}
static inline void rp_rcu_fork_parent(void) {}
static inline void rp_rcu_fork_child(void) {}

#elif defined(RCUPOOL_URCU_BP)

#include <urcu/urcu-bp.h>

#define RP_URCU_FLAVOR_NAME "bp"
#define rp_rcu_read_lock_raw urcu_bp_read_lock
#define rp_rcu_read_unlock_raw urcu_bp_read_unlock
#define rp_rcu_read_ongoing urcu_bp_read_ongoing
#define rp_synchronize_rcu urcu_bp_synchronize_rcu
#define rp_call_rcu urcu_bp_call_rcu
#define rp_rcu_barrier urcu_bp_barrier
#define rp_call_rcu_before_fork urcu_bp_call_rcu_before_fork
#define rp_call_rcu_after_fork_parent urcu_bp_call_rcu_after_fork_parent
#define rp_call_rcu_after_fork_child urcu_bp_call_rcu_after_fork_child

static inline void rp_rcu_reader_ready(void) {}

/* urcu-bp keeps a registry of reader threads that fork() must not catch
 * half-updated; liburcu leaves the calls to the application. */
static inline void rp_rcu_fork_prepare(void) { urcu_bp_before_fork(); }
static inline void rp_rcu_fork_parent(void) { urcu_bp_after_fork_parent(); }
static inline void rp_rcu_fork_child(void) { urcu_bp_after_fork_child(); }

#else
#error "select a liburcu flavour: depend on //lib/deps:urcu"
#endif

#endif /* RCUPOOL_LIB_URCU_FLAVOR_H */
