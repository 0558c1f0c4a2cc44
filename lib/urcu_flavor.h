/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private, header only: the liburcu flavour, chosen at build time (//lib/deps:urcu), behind one
 * set of names. Only lib/ includes this header; the public header never
 * exposes liburcu, so users compile against rcupool alone.
 *
 * _LGPL_SOURCE inlines liburcu's read-side fast path into this library
 * (liburcu is LGPL-2.1; rcupool is LGPL-2.1-or-later for that reason, see
 * docs/flavours.md, "liburcu flavour and license"). Only lib/read.c and the pin fast paths (lib/pin.c, by
 * rcupl_read_get_current in lib/read_internal.h) call the read-side functions
 * below (rcupl_rcu_read_lock/unlock), so only they inline liburcu's reader
 * TLS.
 *
 * rcupool uses liburcu for read-side sections and synchronize_rcu only:
 * never call_rcu (the reclaim thread is rcupool's own, lib/reclaim.c).
 *
 * bp (default): readers need no registration and may exit at any time.
 * memb: liburcu-memb's readers must be registered. rcupool registers a
 *   thread that liburcu-memb does not already count as registered for the
 *   length of its outermost read-side section only (lib/memb.c), so the
 *   application may register and unregister any thread itself outside a
 *   section and nothing of rcupool stays registered when a thread exits.
 */
#ifndef RCUPOOL_LIB_URCU_FLAVOR_H
#define RCUPOOL_LIB_URCU_FLAVOR_H

#ifndef _LGPL_SOURCE
#define _LGPL_SOURCE
#endif

#if defined(RCUPOOL_URCU_MEMB)

#include <urcu/urcu-memb.h>

#include "memb.h"

#define RCUPL_URCU_FLAVOR_NAME "memb"
#define rcupl_rcu_read_ongoing urcu_memb_read_ongoing
#define rcupl_synchronize_rcu urcu_memb_synchronize_rcu

static inline void rcupl_rcu_read_lock(void) {
  if (__builtin_expect(rcupl_memb_owned_depth != 0, 0))
    rcupl_memb_owned_depth++;
  else if (__builtin_expect(!URCU_TLS(urcu_memb_reader).registered, 0))
    rcupl_memb_register_for_section(); /* sets rcupl_memb_owned_depth = 1 */
  urcu_memb_read_lock();
}

/* The thread can enter a section without a call (registered already). */
static inline bool rcupl_rcu_reader_ready(void) {
  return rcupl_memb_owned_depth != 0 || URCU_TLS(urcu_memb_reader).registered;
}

static inline void rcupl_rcu_read_unlock(void) {
  urcu_memb_read_unlock();
  if (__builtin_expect(rcupl_memb_owned_depth != 0, 0) &&
      --rcupl_memb_owned_depth == 0)
    rcupl_memb_unregister_after_section();
}

/* liburcu-memb has no fork hooks of its own for its registry; these are
 * rcupool's (lib/memb.h). */
static inline void rcupl_rcu_fork_prepare(void) { rcupl_memb_fork_prepare(); }
static inline void rcupl_rcu_fork_parent(void) { rcupl_memb_fork_parent(); }
static inline void rcupl_rcu_fork_child(void) { rcupl_memb_fork_child(); }
#define RCUPL_URCU_HAS_FORK_HOOKS 0

#elif defined(RCUPOOL_URCU_BP)

#include <urcu/urcu-bp.h>

/* liburcu-bp's reader pointer lives in liburcu-bp.so. Reached with the
 * initial-exec TLS model, each access is one %fs-relative load through a GOT
 * slot instead of a TLS descriptor call (gcc honours the model given on this
 * redeclaration; clang keeps general-dynamic). That needs liburcu-bp.so's
 * TLS block (80 bytes) in static TLS: always so when the program links
 * librcupool.so.0 or liburcu-bp.so; when librcupool.so.0 is dlopen'ed first
 * (Python's ctypes), glibc places it in the surplus it keeps for such
 * objects, and tests/shared's dlopen tests and tests/python load it so. */
extern __thread struct urcu_bp_reader *urcu_bp_reader
    __attribute__((tls_model("initial-exec")));

#define RCUPL_URCU_FLAVOR_NAME "bp"
#define rcupl_rcu_read_ongoing urcu_bp_read_ongoing
#define rcupl_synchronize_rcu urcu_bp_synchronize_rcu

static inline void rcupl_rcu_read_lock(void) { urcu_bp_read_lock(); }

/* The thread can enter a section without a call (liburcu-bp has met it). */
static inline bool rcupl_rcu_reader_ready(void) {
  return URCU_TLS(urcu_bp_reader) != NULL;
}

static inline void rcupl_rcu_read_unlock(void) { urcu_bp_read_unlock(); }

/* urcu-bp keeps a registry of reader threads (and its grace-period lock)
 * that fork() must not catch half-updated; liburcu leaves the calls to the
 * application, and they are process-global: lib/fork.c calls them at most
 * once per fork (see FORK-3 there). */
static inline void rcupl_rcu_fork_prepare(void) { urcu_bp_before_fork(); }
static inline void rcupl_rcu_fork_parent(void) { urcu_bp_after_fork_parent(); }
static inline void rcupl_rcu_fork_child(void) { urcu_bp_after_fork_child(); }
#define RCUPL_URCU_HAS_FORK_HOOKS 1

#else
#error "select a liburcu flavour: depend on //lib/deps:urcu"
#endif

#endif /* RCUPOOL_LIB_URCU_FLAVOR_H */
